// The canasta-teach card table: a plain ES module for anywidget (no bundler, no network).
//
// Python sends what to draw (`view`), every fixed string already translated (`labels`), the
// language and direction, a `message` and an optional `game` panel.  This file only draws
// them and keeps the learner's card selection; every button press goes to Python as an
// intent: model.send({action, cards, rank?, yes?}) or model.send({action: "game", id}).

// Replaced by the card art (one SVG per card kind) when Python loads this file.
const CARD_ART = /*CARD_ART*/{};

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fill(template, values) {
  return String(template || "").replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
}

// The suit shown on the nth copy of a card in a row (cardart.suit_for: the same rule in
// Python for the lessons' pictures). Suits are for the eye only: the engine ignores them.
const SUITS = ["S", "H", "D", "C"];
const TOKEN_ORDER = ["JK", "2", "3R", "3B", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
function suitFor(token, nth) {
  const suits = token === "JK" || token === "back" ? [] : token === "3R" ? ["H", "D"] : token === "3B" ? ["S", "C"] : SUITS;
  if (!suits.length) return null;
  const offset = Math.max(TOKEN_ORDER.indexOf(token), 0);
  return suits[(nth + offset) % suits.length];
}

// A suited face: the kind's template with the suit's colour and shape filled in (as
// cardart.fill_template does in Python).
function suitedFace(token, suit) {
  const template = CARD_ART[`tpl:${token}`];
  if (!suit || !template) return null;
  return template.split("%C%").join(CARD_ART[`colour:${suit}`] || "").split("%S%").join(CARD_ART[`shape:${suit}`] || "");
}

function art(token, nth) {
  const span = document.createElement("span");
  span.className = "ct-art";
  const suit = nth === undefined ? null : suitFor(token, nth);
  span.innerHTML = suitedFace(token, suit) || CARD_ART[token] || CARD_ART.back || "";
  return span;
}

// Numbers each card of a row by its copy: the 1st 7, the 2nd 7... (for its suit).
function copies(tokens) {
  const seen = {};
  return tokens.map((t) => { seen[t] = (seen[t] || 0) + 1; return seen[t] - 1; });
}

// The name a screen reader says: words even for a number card ("Seven", not "7").
function spokenName(token, labels) {
  return (labels.card_labels || {})[token] || (labels.cards || {})[token] || token;
}

// A card lying on the table (not selectable): an image with a text name.
function tableCard(token, labels, extra, nth) {
  const name = (labels.cards || {})[token] || token;
  return h(
    "span",
    { class: "ct-card ct-static " + (extra || ""), role: "img", "aria-label": spokenName(token, labels), "data-ct-card": token },
    art(token, nth === undefined ? 0 : nth),
    h("span", { class: "ct-card-name", "aria-hidden": "true", text: name }),
  );
}

// Progress keys: "canasta-teach:v1:progress:<lesson>.ipynb" = {solved, total, unit?}. Older
// pages kept one record per language ("...progress:<lang>:<lesson>"); those are merged into
// the lesson's record (the puzzles solved in any language) and removed, once. The Voila
// template (share/jupyter/voila/templates/canasta/index.html.j2) does the same on every page:
// JupyterLab shows the widget without it.
const PROGRESS = "canasta-teach:v1:progress:";
const OLD_PROGRESS = /^canasta-teach:v1:progress:(?:en|ur|hi|te):(.+)$/;
function migrateProgress(storage) {
  const read = (key) => {
    try { return JSON.parse(storage.getItem(key) || "null"); } catch (error) { return null; }
  };
  const old = [];
  for (let i = 0; i < storage.length; i++) {
    const match = OLD_PROGRESS.exec(storage.key(i) || "");
    if (match) old.push([match[0], match[1]]);
  }
  for (const [oldKey, lesson] of old) {
    const was = read(oldKey);
    const now = read(PROGRESS + lesson);
    const records = [now, was].filter((r) => r && Array.isArray(r.solved));
    if (records.length) {
      const solved = [...new Set(records.flatMap((r) => r.solved.filter((n) => Number.isInteger(n))))].sort((a, b) => a - b);
      const total = Math.max(...records.map((r) => Number(r.total) || 0));
      const unit = records.map((r) => r.unit).find(Boolean);
      storage.setItem(PROGRESS + lesson, JSON.stringify({ solved, total, unit }));
    }
    storage.removeItem(oldKey);
  }
}

function render({ model, el }) {
  const root = h("div", { class: "ct-root" });
  const gameEl = h("section", { class: "ct-game" });
  const tableEl = h("div", { class: "ct-table" });
  const handEl = h("section", { class: "ct-hand-area" });
  const buttonsEl = h("div", { class: "ct-buttons", role: "group" });
  const messageEl = h("div", { class: "ct-message", role: "status", "aria-live": "polite" });
  // A full game's narration: what every player did, one sentence a move (a log).
  const narrEl = h("section", { class: "ct-narration", hidden: true });
  root.append(gameEl, tableEl, narrEl, handEl, buttonsEl, messageEl);
  el.append(root);

  // ---- Layout of a whole game (issue 18): one screen to play. ----
  // A full game, the guided hand and a room (game.kind "full") are arranged in boxes:
  //   root > game panel, main > [table, play > [hand, bar > [buttons, feedback > [coach,
  //   message]]]], narration.
  // table.css places them: on a wide screen the panel and the narration beside the table, the
  // play box (hand, buttons, answer) kept in view at the bottom (sticky); on a phone the bar
  // of buttons and answers stays in view, so the answer to a tap is where the learner looks.
  // Puzzles and plain tables keep the flat order above (their own grid in table.css).
  // The coach's word (game.coach: {text, kind: "warning" | "note" | "review", actions}) sits beside
  // the message; its element is always there (empty when the coach is silent), so the
  // layout keeps its place and a screen reader hears it when it speaks.
  const coachEl = h("div", { class: "ct-coach", role: "status", "aria-live": "polite" });
  const feedbackEl = h("div", { class: "ct-feedback" });
  const barEl = h("div", { class: "ct-bar" });
  const playEl = h("div", { class: "ct-play" });
  const mainEl = h("div", { class: "ct-main" });
  let arranged = "";
  function arrange(game) {
    const kind = game.kind === "full" ? "full" : game.title ? "puzzle" : "plain";
    if (kind === arranged) return;
    arranged = kind;
    if (kind === "full") {
      feedbackEl.append(coachEl, messageEl);
      barEl.append(buttonsEl, feedbackEl);
      playEl.append(handEl, barEl);
      mainEl.append(tableEl, playEl);
      root.replaceChildren(gameEl, mainEl, narrEl);
    } else if (kind === "puzzle") {
      // The answer right under the question in the puzzles' side-by-side grid (table.css: the
      // bar and its feedback box are "display: contents" there, so each is a grid item). In
      // one column the answer follows the buttons in one bar, which a phone keeps in view:
      // the answer to a tap shows where the learner is looking (issue 19).
      feedbackEl.append(coachEl, messageEl);
      barEl.append(buttonsEl, feedbackEl);
      root.replaceChildren(gameEl, tableEl, narrEl, handEl, barEl);
    } else {
      root.replaceChildren(gameEl, tableEl, narrEl, handEl, buttonsEl, coachEl, messageEl);
    }
  }
  // A drawn sign for each kind (no font needed): a triangle with "!" for a warning, a speech
  // bubble for a tip, a list with ticks for a review.
  const COACH_SIGNS = {
    warning: '<path d="M12 2 1 22h22Z" fill="#b45309"/><path d="M11 9h2v7h-2zm0 9h2v2h-2z" fill="#fff"/>',
    note: '<path d="M3 4h18v12H9l-5 4v-4H3Z" fill="#0f766e"/><path d="M7 8h10v1.6H7zm0 3.4h7V13H7z" fill="#fff"/>',
    review: '<rect x="3" y="2" width="18" height="20" rx="2" fill="#4a3b8f"/><path d="m6 8 1.5 1.5L10 7m-4 7 1.5 1.5L10 13" stroke="#fff" stroke-width="1.6" fill="none"/><path d="M12 8h6v1.6h-6zm0 6h6v1.6h-6z" fill="#fff"/>',
  };
  const coachIcon = (kind) => {
    const span = h("span", { class: "ct-coach-icon", "aria-hidden": "true" });
    span.innerHTML = `<svg viewBox="0 0 24 24" width="22" height="22">${COACH_SIGNS[kind]}</svg>`;
    return span;
  };
  function drawCoach() {
    const game = model.get("game") || {};
    const labels = model.get("labels") || {};
    const coach = game.coach && game.coach.text ? game.coach : null;
    const kind = coach && (coach.kind === "warning" || coach.kind === "review") ? coach.kind : "note";
    coachEl.className = "ct-coach" + (coach ? " ct-coach-" + kind : "");
    coachEl.setAttribute("aria-label", labels.coach || "");
    if (coach) coachEl.setAttribute("data-ct-coach-kind", kind);
    else coachEl.removeAttribute("data-ct-coach-kind");
    coachEl.replaceChildren();
    if (!coach) return;
    const actions = Array.isArray(coach.actions) ? coach.actions : [];
    coachEl.append(
      h("span", { class: "ct-coach-word" }, coachIcon(kind),
        h("strong", { text: labels["coach_" + kind] || "" })),
      h("span", { class: "ct-coach-text", text: coach.text }),
      actions.length
        ? h("span", { class: "ct-coach-actions", role: "group", "aria-label": labels.coach || "" },
            actions.map((a) => h("button", {
              type: "button",
              class: "ct-button ct-coach-action" + (a.primary ? " ct-primary" : ""),
              "data-ct-coach-action": a.id,
              "data-ct-focus": "coach-" + a.id,
              text: a.label,
              onclick: () => send({ action: "game", id: a.id }),
            })))
        : null,
    );
  }
  // The settings fold: folded while a game is played, open between games (the panel says
  // which); the learner's own choice holds until the game's stage changes.
  let foldSeq = (window.__ctFoldSeq = (window.__ctFoldSeq || 0) + 1);
  let foldOpen = null;
  let foldStage = null;
  function drawFold(game) {
    const fold = game.fold;
    if (!fold) return null;
    if (game.stage !== foldStage) { foldStage = game.stage; foldOpen = null; }
    const open = foldOpen === null ? !!fold.open : foldOpen;
    const id = `ct-fold-${foldSeq}`;
    const body = h("div", { class: "ct-fold-body", id, hidden: !open });
    gameEl.append(h("div", { class: "ct-fold" + (open ? " ct-fold-open" : "") },
      h("button", {
        type: "button",
        class: "ct-fold-toggle",
        "aria-expanded": open ? "true" : "false",
        "aria-controls": id,
        "data-ct-fold": "",
        "data-ct-focus": "fold",
        onclick: () => { foldOpen = !open; keepFocus(drawGame); },
      },
      h("span", { class: "ct-fold-label", text: fold.label || "" }),
      fold.summary ? h("span", { class: "ct-fold-summary", text: fold.summary }) : null),
      body));
    return body;
  }
  // Beside the table (a wide screen), the narration ends within one screen of the game's top:
  // its newest line stays in view with the table when the learner scrolls the game to the top.
  // When its box changes size, the log stays scrolled to its newest line.
  const fitNarration = () => {
    const top = narrEl.getBoundingClientRect().top - root.getBoundingClientRect().top;
    root.style.setProperty("--ct-narration-room", `${Math.max(0, Math.floor(window.innerHeight - top - 12))}px`);
    const log = narrEl.querySelector(".ct-log");
    if (log) log.scrollTop = log.scrollHeight;
  };
  const sizes = typeof ResizeObserver === "function" ? new ResizeObserver(fitNarration) : null;
  if (sizes) { sizes.observe(gameEl); sizes.observe(narrEl); }
  window.addEventListener("resize", fitNarration);
  // ---- end of the layout block ----

  let selected = new Set(); // indices into view.hand
  let pileOpen = false; // the pile spread out (a local view: no round trip)
  let handKey = "";

  // The computer's turns, replayed at the learner's pace: the kernel sends one picture of the
  // table per move (view.playback.frames) and the browser shows them one after the other.
  let playbackSeen = null;
  let frameIndex = -1; // -1: not replaying, the model's view is shown
  let frames = [];
  let timer = null;
  const shownView = () => (frameIndex >= 0 && frames[frameIndex] ? frames[frameIndex].view : model.get("view")) || {};

  const send = (payload) => model.send(payload);

  // JupyterLab does not load the app's stylesheet, so no font of ours is in the page: ask the
  // kernel for the shipped ones (once per page) and add them (canasta_teach/widgets/fonts.py).
  const families = (model.get("font") || "").match(/'[^']+'/g) || [];
  const ours = families.map((f) => f.slice(1, -1));
  const known = new Set([...document.fonts].map((f) => f.family.replace(/["']/g, "")));
  if (ours.length && !ours.some((f) => known.has(f)) && !window.__ctFontsAsked) {
    window.__ctFontsAsked = true;
    send({ action: "fonts" });
  }
  model.on("msg:custom", (msg, buffers) => {
    if (msg && typeof msg.kind === "string" && msg.kind.startsWith("room_")) { roomMessage(msg); return; }
    if (!msg || msg.kind !== "fonts" || !Array.isArray(msg.faces)) return;
    msg.faces.forEach((face, i) => {
      if (!buffers || !buffers[i]) return;
      const font = new FontFace(face.family, buffers[i], { weight: face.weight, unicodeRange: face.range, display: "block" });
      document.fonts.add(font);
      font.load().catch(() => {});
    });
  });
  const selectedCards = () => {
    const hand = shownView().hand || [];
    return [...selected].sort((a, b) => a - b).map((i) => hand[i]).filter(Boolean);
  };
  // A button pressed while the computer's moves are replayed first ends the replay (the table
  // as it is now), then sends the intent; a greyed-out one is sent too: the kernel says why not.
  const act = (action, extra) => {
    if (frameIndex >= 0) finishPlayback();
    send({ action, cards: selectedCards(), ...(extra || {}) });
  };

  function keepFocus(fn) {
    const active = document.activeElement;
    const key = active && root.contains(active) ? active.getAttribute("data-ct-focus") : null;
    fn();
    if (key) {
      const again = root.querySelector(`[data-ct-focus="${CSS.escape(key)}"]`);
      if (again) again.focus();
    }
  }

  function drawRoot() {
    const lang = model.get("lang") || "en";
    root.setAttribute("lang", lang);
    root.setAttribute("dir", model.get("dir") || "ltr");
    root.style.fontFamily = model.get("font") || "";
    root.classList.toggle("ct-rtl", model.get("dir") === "rtl");
    const labels = model.get("labels") || {};
    tableEl.setAttribute("aria-label", labels.table || "");
    buttonsEl.setAttribute("aria-label", labels.controls || "");
    messageEl.setAttribute("aria-label", labels.messages || "");
  }

  function meldGroup(meld, labels, team, enabled) {
    const name = (labels.cards || {})[meld.rank] || meld.rank;
    const nths = copies(meld.cards);
    const cards = h("span", { class: "ct-meld-cards" }, meld.cards.map((t, i) => tableCard(t, labels, "ct-small", nths[i])));
    const badge = meld.canasta
      ? h("span", {
          class: "ct-canasta ct-canasta-" + meld.canasta,
          text: meld.canasta === "natural" ? labels.canasta_natural : labels.canasta_mixed,
        })
      : null;
    const count = h("span", { class: "ct-meld-count", text: meld.text || `${name} × ${meld.size}` });
    const canAdd = team.mine && enabled.add && selected.size > 0 && frameIndex < 0;
    if (team.mine) {
      // Unavailable (nothing selected, nothing to add) but still pressable: the kernel says why.
      return h(
        "button",
        {
          type: "button",
          class: "ct-meld" + (meld.canasta ? " ct-is-canasta" : "") + (canAdd ? "" : " ct-unavailable"),
          "data-ct-focus": "meld-" + meld.rank,
          "data-ct-meld": meld.rank,
          title: labels.add_here,
          "aria-label": `${meld.text || name}${badge ? ", " + badge.textContent : ""}. ${labels.add_here || ""}`,
          "aria-disabled": canAdd ? null : "true",
          onclick: () => act("add", { rank: meld.rank }),
        },
        cards,
        count,
        badge,
      );
    }
    return h(
      "div",
      { class: "ct-meld" + (meld.canasta ? " ct-is-canasta" : ""), "data-ct-meld": meld.rank, role: "group", "aria-label": meld.text || name },
      cards,
      count,
      badge,
    );
  }

  function drawTable() {
    const view = shownView();
    const labels = model.get("labels") || {};
    const enabled = view.enabled || {};
    tableEl.replaceChildren();
    if (!view.teams) return;
    const [us, them] = view.teams;

    const teamBox = (team) =>
      h(
        "section",
        { class: "ct-team " + (team.mine ? "ct-us" : "ct-them"), "aria-label": `${team.label} (${team.name})` },
        h(
          "div",
          { class: "ct-team-head" },
          h("strong", { class: "ct-team-label", text: `${team.label} (${team.name})` }),
          h("span", { class: "ct-score", text: team.score_text }),
          h("span", { class: "ct-minimum", text: team.minimum_text }),
          h(
            "span",
            { class: "ct-red-threes" },
            team.red_threes ? tableCard("3R", labels, "ct-tiny") : null,
            h("span", { text: team.red_text }),
          ),
        ),
        h(
          "div",
          { class: "ct-melds" },
          team.melds.length
            ? team.melds.map((m) => meldGroup(m, labels, team, enabled))
            // Hand and Foot: a team whose melds all became complete piles has piles, not
            // "no melds yet" (issue 19): the piles below say what it has.
            : (team.piles || []).length ? null : h("span", { class: "ct-none", text: labels.no_melds }),
        ),
        team.piles ? pilesBox(team, labels) : null,
      );

    // Hand and Foot: the team's complete piles of seven (H-MELD-3), each one card's picture
    // with its kind in words (clean, dirty, wild: never colour alone), and what going out needs.
    function pilesBox(team, labels) {
      return h(
        "div",
        { class: "ct-piles", role: "group", "aria-label": `${labels.piles || ""}: ${team.piles_text}` },
        h("span", { class: "ct-piles-text", text: team.piles_text }),
        team.piles.map((p) =>
          h(
            "span",
            { class: "ct-hf-pile ct-hf-" + p.kind, role: "img", "aria-label": `${p.kind_text}: ${p.text}`, title: p.text, "data-ct-pile-kind": p.kind, "data-ct-pile-of": p.rank },
            h("span", { class: "ct-card ct-static ct-small", "aria-hidden": "true" }, art(p.cards[0], 0)),
            h("span", { class: "ct-hf-pile-kind", "aria-hidden": "true", text: p.kind_text }),
          ),
        ),
      );
    }

    const others = h(
      "div",
      { class: "ct-others" },
      (view.others || []).map((o) => h("span", { class: "ct-other" + (o.to_move ? " ct-to-move" : ""), text: o.text })),
    );

    const pile = view.pile || {};
    let pileCard;
    if (pile.top) {
      pileCard = tableCard(pile.top, labels, pile.frozen ? "ct-sideways" : "");
    } else {
      pileCard = h("span", { class: "ct-card ct-empty", "aria-hidden": "true" });
    }
    const stop = pile.stop
      ? h("span", { class: "ct-stop", role: "img", "aria-label": labels.stop }, h("span", { text: labels.stop }))
      : null;
    const centre = h(
      "div",
      { class: "ct-centre" },
      h(
        "div",
        { class: "ct-stock", role: "group", "aria-label": labels.stock },
        h("span", { class: "ct-card ct-static ct-back", "aria-hidden": "true" }, art("back")),
        h("span", { class: "ct-caption", text: `${labels.stock}: ${view.stock_text || ""}` }),
      ),
      h(
        "div",
        { class: "ct-pile" + (pile.frozen ? " ct-frozen" : ""), role: "group", "aria-label": labels.pile, "data-ct-pile": pile.top || "" },
        h("span", { class: "ct-pile-cards" }, pileCard, stop),
        h("span", { class: "ct-caption", text: `${labels.pile}: ${pile.text || ""}` }),
        pile.frozen ? h("span", { class: "ct-frozen-label", text: pile.frozen_text ? `${labels.frozen}: ${pile.frozen_text}` : labels.frozen }) : null,
        pile.cards && pile.cards.length > 1
          ? h("button", {
              type: "button",
              class: "ct-pile-toggle",
              "aria-expanded": pileOpen ? "true" : "false",
              "data-ct-focus": "pile-toggle",
              text: pileOpen ? labels.hide_pile : labels.show_pile,
              onclick: () => { pileOpen = !pileOpen; keepFocus(drawTable); },
            })
          : null,
      ),
    );
    const spread = pileOpen && pile.cards && pile.cards.length > 1
      ? h(
          "div",
          { class: "ct-pile-spread", role: "group", "aria-label": pile.cards_text || "", dir: "ltr" },
          h("span", { class: "ct-caption", text: pile.cards_text || "" }),
          h("span", { class: "ct-pile-spread-cards" }, pile.cards.map((t, i) => tableCard(t, labels, "ct-small", copies(pile.cards)[i]))),
        )
      : null;

    const staged = (view.staged || []).length
      ? h(
          "section",
          { class: "ct-staged", "aria-label": labels.set_aside },
          h("strong", { text: labels.set_aside }),
          h("span", { class: "ct-staged-text", text: view.staged_text }),
          h("div", { class: "ct-melds" }, view.staged.map((m) => meldGroup(m, labels, { mine: true }, enabled))),
        )
      : null;

    tableEl.append(
      ...[
        h("div", { class: "ct-status" + (view.my_turn ? " ct-my-turn" : ""), text: view.status }),
        view.round_text ? h("div", { class: "ct-round", text: view.round_text }) : null,
        others,
        teamBox(them),
        centre,
        spread,
        teamBox(us),
        staged,
      ].filter(Boolean),
    );
  }

  function drawHand() {
    const view = shownView();
    const labels = model.get("labels") || {};
    const hand = view.hand || [];
    // A new position (the next puzzle, Start again) clears the selection even when its hand
    // is the same cards (issue 19: lesson 4, puzzle 2 -> 3 kept the cards selected).
    const key = JSON.stringify([view.position === undefined ? null : view.position, hand]);
    if (key !== handKey) {
      selected = new Set();
      handKey = key;
    }
    const nths = copies(hand);
    const cards = hand.map((token, i) => {
      const name = (labels.cards || {})[token] || token;
      const isSel = selected.has(i);
      return h(
        "button",
        {
          type: "button",
          class: "ct-card ct-in-hand" + (isSel ? " ct-selected" : ""),
          "data-ct-card": token,
          "data-ct-focus": "hand-" + i,
          "aria-pressed": isSel ? "true" : "false",
          "aria-label": spokenName(token, labels),
          onclick: () => {
            if (selected.has(i)) selected.delete(i);
            else selected.add(i);
            keepFocus(redrawLocal);
          },
        },
        art(token, nths[i]),
        h("span", { class: "ct-card-name", "aria-hidden": "true", text: name }),
      );
    });
    handEl.replaceChildren(
      h(
        "div",
        { class: "ct-hand-head" },
        h("strong", { text: labels.hand }),
        view.foot_text ? h("span", { class: "ct-foot", text: view.foot_text }) : null,
        h("span", { class: "ct-selected-count", text: fill(labels.selected, { count: selected.size }) }),
        selected.size
          ? h("button", { type: "button", class: "ct-clear", "data-ct-focus": "clear", text: labels.clear, onclick: () => { selected = new Set(); keepFocus(redrawLocal); } })
          // Nothing selected: an invisible stand-in of the same size keeps the row's height,
          // so the first selected card does not push the hand down (issue 19: about 11 px).
          : h("button", { type: "button", class: "ct-clear-slot", disabled: true, tabindex: "-1", "aria-hidden": "true", text: labels.clear }),
      ),
      h("div", { class: "ct-hand", role: "group", "aria-label": labels.hand }, cards),
    );
  }

  function drawButtons() {
    const view = shownView();
    const labels = model.get("labels") || {};
    const names = labels.buttons || {};
    const enabled = view.enabled || {};
    const buttons = [];
    for (const action of view.actions || []) {
      if (action === "answer") {
        if (!enabled.answer) continue;
        buttons.push(
          h("button", { type: "button", class: "ct-button ct-now", "data-ct-action": "answer-yes", "data-ct-focus": "answer-yes", "data-ct-label": labels.answer_yes, text: labels.answer_yes, onclick: () => send({ action: "answer", yes: true }) }),
          h("button", { type: "button", class: "ct-button ct-now", "data-ct-action": "answer-no", "data-ct-focus": "answer-no", "data-ct-label": labels.answer_no, text: labels.answer_no, onclick: () => send({ action: "answer", yes: false }) }),
        );
        continue;
      }
      // A button no move uses now looks unavailable (aria-disabled) but stays focusable and
      // pressable: the kernel answers with the rule that stops it. The buttons some legal move
      // uses now (what the phase allows, never which move a puzzle wants) stand out: filled,
      // bold, with a solid border ("ct-now", table.css).
      const unavailable = !enabled[action] || frameIndex >= 0;
      const text = (view.button_text || {})[action] || names[action] || action;
      buttons.push(
        h("button", {
          type: "button",
          class: "ct-button" + (unavailable ? " ct-unavailable" : " ct-now"),
          "data-ct-action": action,
          "data-ct-focus": "action-" + action,
          "aria-disabled": unavailable ? "true" : null,
          "data-ct-label": text, // table.css reserves the bold text's width: no shift when it turns bold
          text,
          onclick: () => act(action),
        }),
      );
    }
    buttonsEl.replaceChildren(...buttons);
  }

  function drawMessage() {
    const message = model.get("message") || {};
    const labels = model.get("labels") || {};
    messageEl.className = "ct-message" + (message.kind ? " ct-" + message.kind : "");
    // Which message this is: the same words twice are still two answers (tests wait on it).
    messageEl.setAttribute("data-ct-seq", message.seq || "");
    messageEl.replaceChildren();
    if (!message.text) return;
    messageEl.append(h("span", { class: "ct-message-text", text: message.text }));
    if (message.rule) {
      // Only the id is forced left-to-right; the label and title follow the page direction.
      messageEl.append(
        h(
          "span",
          { class: "ct-rule", "data-ct-rule": message.rule },
          h("span", { class: "ct-rule-label", text: labels.rule || "" }),
          h("bdi", { class: "ct-rule-id", dir: "ltr", text: message.rule }),
          message.rule_title ? h("span", { class: "ct-rule-title", text: message.rule_title }) : null,
        ),
      );
    }
  }

  // The score sheet's entries, as typed (sent with "check").
  const sheetValues = () => {
    const values = {};
    for (const input of gameEl.querySelectorAll("input[data-ct-line]")) values[input.getAttribute("data-ct-line")] = input.value;
    return values;
  };

  // Cards a game points at (a score line's melds, or the cards left in hand under the sheet):
  // marked on the table and in the game panel, in words too.
  function applyHighlights() {
    const game = model.get("game") || {};
    for (const node of root.querySelectorAll(".ct-highlight")) node.classList.remove("ct-highlight");
    for (const selector of game.highlight || []) {
      for (const node of root.querySelectorAll(selector)) node.classList.add("ct-highlight");
    }
  }

  function sheetRow(line, labels) {
    const value = line.input
      ? h("input", {
          type: "text",
          inputmode: "numeric",
          dir: "ltr",
          size: 7,
          class: "ct-score-input",
          "data-ct-line": line.id,
          "data-ct-focus": "line-" + line.id,
          "aria-label": line.label,
          value: line.entered || "",
          onkeydown: (event) => { if (event.key === "Enter") send({ action: "game", id: "check", values: sheetValues() }); },
        })
      : h("span", { class: "ct-points", dir: "ltr", text: line.value || "" });
    const mark = line.state === "right" ? "✓" : line.state === "wrong" ? "✗" : "";
    return h(
      "tr",
      { class: "ct-line" + (line.total ? " ct-total" : "") + (line.state ? " ct-" + line.state : ""), "data-ct-line": line.id },
      h("th", { scope: "row", text: line.label }),
      h("td", {}, value, mark ? h("span", { class: "ct-mark", "aria-label": line.state_text || "", text: " " + mark }) : null),
      h(
        "td",
        { class: "ct-why" },
        line.why || "",
        line.rule ? h("span", { class: "ct-rule-id", "data-ct-rule": line.rule, title: line.rule_title || "", dir: "ltr", text: ` (${line.rule})` }) : null,
      ),
    );
  }

  function drawSheet(sheet, labels) {
    return h(
      "div",
      { class: "ct-sheet", role: "group", "aria-label": sheet.label || "" },
      sheet.teams.map((team) =>
        h(
          "table",
          { class: "ct-sheet-team", "data-ct-team": team.id },
          h("caption", { text: team.name }),
          h("tbody", {}, [...team.lines.map((l) => sheetRow(l, labels)), team.total ? sheetRow({ ...team.total, total: true }, labels) : null]),
        ),
      ),
    );
  }

  // An ended hand: every player's cards left, face up, with their count (and in Hand and Foot
  // a foot not picked up). A screen reader hears each row as one picture: "West: 3 cards:
  // one 4, one 9 and a joker"; the eye sees the name, the cards with their names and the count.
  function drawLeftovers(hands, labels) {
    const row = (who, id, extra) => {
      const nths = copies(who.cards || []);
      return h(
        "div",
        { class: "ct-leftover" + extra, "data-ct-leftover": id, "data-ct-count": who.count },
        h("span", { class: "ct-leftover-name", "aria-hidden": "true", text: who.name }),
        h("span", { class: "ct-leftover-cards", role: "img", "aria-label": who.label },
          (who.cards || []).map((t, i) => tableCard(t, labels, "ct-small", nths[i]))),
        h("span", { class: "ct-leftover-count", "aria-hidden": "true", text: who.count_text }),
      );
    };
    return h(
      "section",
      { class: "ct-leftovers", "aria-label": hands.label },
      h("h5", { text: hands.label }),
      (hands.seats || []).flatMap((s) => [row(s, s.id, ""), s.foot ? row(s.foot, s.id + "-foot", " ct-leftover-foot") : null]),
    );
  }

  // Progress between visits: the solved puzzles of this lesson's game, in the browser's own
  // storage (no account, nothing sent anywhere). Keyed by lesson page only: a lesson's puzzles
  // are the same in every language, so a puzzle solved in English is solved in Urdu too
  // (issue 19). The start page (the Voila template) reads the same keys.
  const progressKey = (game) => {
    const page = decodeURIComponent(window.location.pathname.split("/").pop() || "");
    const where = page.endsWith(".ipynb") ? page : (game.kept || {}).set || "";
    return `${PROGRESS}${where}`;
  };
  let restored = false;
  function keepProgress(game) {
    const progress = game.kept;
    if (!progress || !Array.isArray(progress.solved)) return;
    try {
      const key = progressKey(game);
      if (!restored) {
        migrateProgress(window.localStorage);
        restored = true;
        const saved = JSON.parse(window.localStorage.getItem(key) || "null");
        const solved = saved && Array.isArray(saved.solved) ? saved.solved.filter((n) => Number.isInteger(n)) : [];
        if (solved.some((n) => !progress.solved.includes(n))) {
          send({ action: "game", id: "restore", values: { solved: solved.join(",") } });
          return;
        }
      }
      // "unit": what is counted when it is not puzzles (the guided hand's steps).
      window.localStorage.setItem(key, JSON.stringify({ solved: progress.solved, total: progress.total, unit: progress.unit || undefined }));
    } catch (error) {
      // No storage (a private window, a sandbox): the lesson works, it only forgets.
    }
  }

  function drawGame() {
    const game = model.get("game") || {};
    const labels = model.get("labels") || {};
    keepProgress(game);
    gameEl.replaceChildren();
    gameEl.hidden = !game.title;
    applyHighlights();
    // A puzzle: a compact table, and the answer to a move right under the question, so that
    // question, hand, buttons and answer fit one laptop screen together.
    root.classList.toggle("ct-puzzle", !!game.title && game.kind !== "full");
    root.classList.toggle("ct-full", game.kind === "full");
    sayHello(game);
    root.classList.toggle("ct-scoring", !!game.sheet);
    // A puzzle hides the other players' line, unless it shows what the puzzle hinges on
    // (Hand and Foot: who plays from the foot).
    root.classList.toggle("ct-show-others", !!game.show_others);
    arrange(game); // layout (issue 18)
    drawCoach();
    if (!game.title) return;
    gameEl.setAttribute("aria-label", game.title);
    const control = (c) =>
      h("button", {
        type: "button",
        class: "ct-button ct-game-button" + (c.primary ? " ct-primary" : "") + (c.enabled === false ? " ct-unavailable" : ""),
        "data-ct-game": c.id,
        "data-ct-focus": "game-" + c.id,
        "aria-disabled": c.enabled === false ? "true" : null,
        "aria-pressed": c.pressed === undefined ? null : c.pressed ? "true" : "false",
        text: c.label,
        onclick: () => {
          if (c.new_tab) openRoomTab(c.new_tab); // a tab may only be opened by the click itself
          send(c.id === "check" ? { action: "game", id: "check", values: sheetValues() } : { action: "game", id: c.id });
        },
      });
    gameEl.append(
      h(
        "div",
        { class: "ct-game-head" },
        h("h3", { class: "ct-game-title", text: game.title }),
        h("span", { class: "ct-puzzle-number", text: game.puzzle }),
        h("span", { class: "ct-progress" + (game.solved ? " ct-solved" : ""), "data-ct-progress": `${game.solved_count}/${game.total}`, text: game.progress }),
      ),
      h("p", { class: "ct-prompt", text: game.prompt }),
    );
    if (game.proposed && game.proposed.length) {
      // The cards a player proposes, under a visible caption that is also the group's name:
      // "The proposed meld", then, once judged, "The proposed meld: not legal" (the cards stay
      // beside the learner's own meld, which the feedback compares them with).
      const nths = copies(game.proposed);
      const captionId = "ct-proposed-" + Math.random().toString(36).slice(2);
      gameEl.append(h("div", { class: "ct-proposed" + (game.stage === "judge" ? "" : " ct-judged"), role: "group", "aria-labelledby": captionId, "data-ct-proposed": game.stage === "judge" ? "open" : "judged" },
        h("span", { class: "ct-proposed-label", id: captionId, text: game.proposed_label }),
        h("span", { class: "ct-proposed-cards" }, game.proposed.map((t, i) => tableCard(t, labels, "ct-small", nths[i])))));
    }
    if (game.choices && game.choices.length) {
      gameEl.append(
        h("div", { class: "ct-choices", role: "group", "aria-label": game.choices_label || "" },
          game.choices_label ? h("span", { class: "ct-choices-label", text: game.choices_label }) : null,
          game.choices.map(control)),
      );
    }
    if (game.notice) gameEl.append(h("p", { class: "ct-notice", role: "status", text: game.notice }));
    // Layout (issue 18): the languages, the invite, the settings and any table marked
    // `fold` go into the settings fold when the panel has one.
    const foldBody = drawFold(game);
    const place = (node) => (foldBody || gameEl).append(node);
    if (game.languages && game.languages.length) {
      // Each language by its own name, in its own script and direction.
      place(h("div", { class: "ct-choices ct-languages", role: "group", "aria-label": game.language_label || "", "data-ct-group": "lang" },
        h("span", { class: "ct-choices-label", text: game.language_label || "" }),
        game.languages.map((c) => h("button", {
          type: "button", class: "ct-button ct-game-button", lang: c.lang, dir: "auto", "data-ct-game": c.id, "data-ct-focus": "game-" + c.id,
          "aria-pressed": c.pressed ? "true" : "false", text: c.label, onclick: () => send({ action: "game", id: c.id }) }))));
    }
    if (game.invite) place(drawInvite(game.invite));
    for (const group of game.groups || []) {
      place(h("div", { class: "ct-choices ct-setting", role: "group", "aria-label": group.label, "data-ct-group": group.id },
        h("span", { class: "ct-choices-label", text: group.label }), group.choices.map(control)));
    }
    if (game.sheet) gameEl.append(h("div", { class: "ct-breakdown" }, game.sheet.label ? h("h4", { text: game.sheet.label }) : null, drawSheet(game.sheet, labels),
      game.sheet.hands ? drawLeftovers(game.sheet.hands, labels) : null));
    const tables = (game.tables || []).filter((t) => !(foldBody && t.fold));
    const folded = foldBody ? (game.tables || []).filter((t) => t.fold) : [];
    if (folded.length) foldBody.append(h("div", { class: "ct-grids" }, drawTables(folded)));
    if (tables.length) gameEl.append(h("div", { class: "ct-grids" }, drawTables(tables)));
    if (game.form) gameEl.append(drawForm(game.form));
    if (game.hint) gameEl.append(h("p", { class: "ct-hint", text: game.hint }));
    gameEl.append(h("div", { class: "ct-game-nav", role: "group", "aria-label": labels.game_controls || "" }, (game.controls || []).map(control)));
    drawConfirm(game.confirm, control);
    if (roomNote) gameEl.append(roomNote);
    if (game.next_lesson && game.next_lesson.href) {
      // A plain link to the next lesson beside this one (the set names it; Python checks it).
      gameEl.append(h("p", { class: "ct-next-lesson" },
        h("a", { class: "ct-button ct-primary", href: game.next_lesson.href, "data-ct-next-lesson": "", text: game.next_lesson.label })));
    }
    applyHighlights(); // the panel's own marked parts (cards left in hand) are drawn by now
  }

  function drawNarration() {
    const view = model.get("view") || {};
    const game = model.get("game") || {};
    const lines = view.narration;
    narrEl.hidden = !Array.isArray(lines);
    if (!Array.isArray(lines)) return;
    const upto = frameIndex >= 0 && frames[frameIndex] ? frames[frameIndex].upto : Infinity;
    const shown = lines.filter((l) => l.n <= upto);
    narrEl.setAttribute("aria-label", game.narration_label || "");
    // Each line's number is drawn in the line itself (a list's own markers sit outside its
    // box, where the scrolling log cut them from 10 on: "I4." for 14); Urdu ends it with
    // its full stop, as an Urdu list is numbered.
    const stop = model.get("lang") === "ur" ? "\u06d4" : ".";
    const list = h("ol", { class: "ct-log", role: "log", "aria-live": "polite", "aria-label": game.narration_label || "" },
      shown.map((l, i) => h("li", { class: "ct-log-line ct-log-" + (l.kind || "event"), "data-ct-line-n": l.n, "data-ct-seat": l.seat },
        h("span", { class: "ct-log-n", "aria-hidden": "true", text: `${i + 1}${stop}` }),
        h("span", { class: "ct-log-body" },
          h("span", { class: "ct-log-text", text: l.text }),
          l.why ? h("span", { class: "ct-log-why" }, h("span", { class: "ct-log-why-label", text: (game.why_label || "") + " " }), h("q", { text: l.why })) : null))));
    const head = h("div", { class: "ct-log-head" },
      h("strong", { text: game.narration_label || "" }),
      frameIndex >= 0
        ? h("button", { type: "button", class: "ct-button ct-skip", "data-ct-game": "skip", "data-ct-focus": "skip", text: game.skip_label || "»", onclick: () => finishPlayback() })
        : null);
    narrEl.replaceChildren(head, list);
    narrEl.setAttribute("data-ct-playing", frameIndex >= 0 ? "true" : "false");
    list.scrollTop = list.scrollHeight;
  }

  function finishPlayback() {
    if (timer) clearTimeout(timer);
    timer = null;
    frameIndex = -1;
    frames = [];
    keepFocus(() => { drawHand(); drawTable(); drawButtons(); drawNarration(); applyHighlights(); });
  }

  function stepPlayback(pace) {
    frameIndex += 1;
    if (frameIndex >= frames.length) { finishPlayback(); return; }
    keepFocus(() => { drawHand(); drawTable(); drawButtons(); drawNarration(); });
    timer = setTimeout(() => stepPlayback(pace), pace);
  }

  // A new batch of computer moves: replay it, unless the pace is "at once".
  function maybePlayback() {
    const playback = (model.get("view") || {}).playback;
    if (!playback || playback.id === playbackSeen) return false;
    playbackSeen = playback.id;
    if (timer) clearTimeout(timer);
    timer = null;
    frameIndex = -1;
    frames = Array.isArray(playback.frames) ? playback.frames : [];
    const pace = Number(playback.pace_ms) || 0;
    if (!frames.length || pace <= 0) { frames = []; return false; }
    // The first picture at once; each next one after `pace` milliseconds.
    frameIndex = -1;
    stepPlayback(pace);
    return true;
  }

  // Play with friends: a room's link is the app's "play-together" page with the room's code
  // after "#" (never sent to the server in the address); the seat token the kernel gives this
  // browser is kept here, per room, so that the same link brings it back to the same seat.
  const ROOM_PAGE = "play-together.ipynb";
  const roomKey = (code) => "canasta-teach:v1:room:" + String(code).replace(/[^A-Za-z0-9]/g, "").toUpperCase();
  function roomLink(code, share) {
    // The page sits in the lessons folder, beside index.ipynb: the root Voilà serves (make app)
    // or its lessons/ folder (Binder); elsewhere (JupyterLab), one level up from a lesson.
    let path = window.location.pathname;
    // On a hub (the kernel says so): not this learner's server, which a friend may not open,
    // but the hub's user-redirect, which takes whoever follows the link to their own.
    if (share && typeof share.server === "string" && typeof share.redirect === "string"
        && path.startsWith(share.server)) {
      path = share.redirect + path.slice(share.server.length);
    }
    const marker = "/voila/render/";
    const at = path.indexOf(marker);
    let base;
    if (at >= 0) {
      base = path.slice(0, at + marker.length);
      if (path.slice(base.length).startsWith("lessons/")) base += "lessons/";
    } else {
      const parts = path.split("/");
      parts.pop();
      if (["en", "ur", "hi", "te"].includes(parts[parts.length - 1])) parts.pop();
      base = parts.join("/") + "/";
    }
    return window.location.origin + base + ROOM_PAGE + "#room=" + encodeURIComponent(code);
  }
  function remember(key, value) {
    try { window.localStorage.setItem(key, value); } catch (error) { /* no storage: this page only */ }
  }
  function recall(key) {
    try { return window.localStorage.getItem(key); } catch (error) { return null; }
  }
  // The language this browser reads the app in, kept as JSON as the start pages keep it
  // (an older page kept it bare: both are read).
  const LANGS = ["en", "ur", "hi", "te"];
  const LANG_KEY = "canasta-teach:v1:lang";
  function rememberLang(lang) {
    if (LANGS.includes(lang)) remember(LANG_KEY, JSON.stringify(lang));
  }
  function recallLang() {
    const raw = recall(LANG_KEY) || "";
    let lang = raw;
    try { lang = JSON.parse(raw); } catch (error) { /* kept bare */ }
    return LANGS.includes(lang) ? lang : "";
  }
  // Invite: the room opens in a tab of its own, opened by the click (a page may open a tab
  // only in answer to one) and pointed at the room when its code comes from the kernel.
  let roomTab = null;
  let roomNote = null; // what became of it, under the game's buttons (drawn by drawGame)
  function openRoomTab(waiting) {
    roomTab = null;
    try { roomTab = window.open("", "_blank"); } catch (error) { roomTab = null; }
    if (!roomTab) return; // blocked: the link is shown instead when the code comes
    try {
      roomTab.document.title = waiting;
      roomTab.document.body.textContent = waiting;
    } catch (error) { /* the tab is still there to be pointed at the room */ }
  }
  function roomMessage(msg) {
    if (msg.kind === "room_lang") { rememberLang(msg.lang); return; }
    if (msg.kind === "room_failed") {
      if (roomTab && !roomTab.closed) roomTab.close();
      roomTab = null;
      return;
    }
    if (typeof msg.code !== "string" || typeof msg.token !== "string") return;
    remember(roomKey(msg.code), msg.token);
    if (msg.kind === "room_go") {
      rememberLang(msg.lang);
      const link = roomLink(msg.code, msg.share);
      let opened = false;
      if (roomTab && !roomTab.closed) {
        try { roomTab.location.replace(link); opened = true; } catch (error) { opened = false; }
      }
      roomTab = null;
      roomNote = h("p", { class: "ct-room-note", role: "status", "data-ct-room-tab": opened ? "opened" : "blocked" },
        h("span", { text: (opened ? msg.opened : msg.blocked) || "" }), " ",
        h("a", { class: "ct-button" + (opened ? "" : " ct-primary"), href: link, target: "_blank", rel: "noopener", "data-ct-room-go": "", text: msg.link || link }));
      keepFocus(drawGame);
    }
  }
  function roomHello() {
    const match = /(?:^#|&)room=([^&]*)/.exec(window.location.hash || "");
    const room = match ? decodeURIComponent(match[1]).slice(0, 40) : "";
    let lang = recallLang();
    if (!lang) {
      const wanted = (navigator.language || "en").slice(0, 2).toLowerCase();
      lang = ["ur", "hi", "te"].includes(wanted) ? wanted : "en";
    }
    send({ action: "game", id: "hello", values: { room, token: room ? recall(roomKey(room)) || "" : "", lang } });
  }

  // The browser's own id for its saved game (a random id kept in this browser only).
  let helloSent = false;
  function sayHello(game) {
    if (helloSent || !(game.wants_player || game.wants_room)) return;
    helloSent = true;
    if (game.wants_room) { roomHello(); return; }
    // The language of the last lesson page with a game: a room page opens in it.
    rememberLang(model.get("lang") || "en");
    let id = null;
    try {
      id = window.localStorage.getItem("canasta-teach:v1:player");
      if (!id || !/^[A-Za-z0-9-]{8,40}$/.test(id)) {
        const bytes = new Uint8Array(16);
        window.crypto.getRandomValues(bytes);
        id = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
        window.localStorage.setItem("canasta-teach:v1:player", id);
      }
    } catch (error) {
      return; // no storage: the game is kept for this page only
    }
    send({ action: "game", id: "hello", values: { player: id } });
  }

  // "Start a new game? The game in progress will be lost.": asked in the panel, next to the
  // button that asked it; the keyboard lands on "Keep playing" (nothing is lost by Enter).
  let confirmShown = null;
  function drawConfirm(confirm, control) {
    if (!confirm) { confirmShown = null; return; }
    const textId = "ct-confirm-" + Math.random().toString(36).slice(2);
    const box = h("div", { class: "ct-confirm", role: "alertdialog", "aria-labelledby": textId, "data-ct-confirm": confirm.id },
      h("p", { class: "ct-confirm-text", id: textId, text: confirm.text }),
      h("div", { class: "ct-confirm-buttons" }, control({ ...confirm.yes, primary: true }), control(confirm.no)));
    gameEl.append(box);
    if (confirmShown !== confirm.id) {
      confirmShown = confirm.id;
      const keep = box.querySelector(`[data-ct-game="${CSS.escape(confirm.no.id)}"]`);
      if (keep) setTimeout(() => keep.focus(), 0); // after keepFocus has put focus back
    }
  }

  function drawTables(tables) {
    return tables.map((t) =>
      h("table", { class: "ct-grid", "data-ct-table": t.id || "" },
        h("caption", { text: t.caption || "" }),
        t.head && t.head.length ? h("thead", {}, h("tr", {}, t.head.map((c) => h("th", { scope: "col", text: c })))) : null,
        h("tbody", {}, (t.rows && t.rows.length)
          ? t.rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row", text: c }) : h("td", { dir: "ltr", text: c })))))
          : h("tr", {}, h("td", { class: "ct-none", colspan: (t.head || []).length || 1, text: t.empty || "" }))),
        t.foot && t.foot.length ? h("tfoot", {}, h("tr", {}, t.foot.map((c, i) => (i === 0 ? h("th", { scope: "row", text: c }) : h("td", { dir: "ltr", text: c }))))) : null));
  }

  function drawInvite(invite) {
    const link = roomLink(invite.code, invite.share);
    const copied = h("span", { class: "ct-copied", role: "status", "aria-live": "polite" });
    const copy = () => {
      const done = () => { copied.textContent = invite.copied || ""; };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => {});
      else {
        const area = h("textarea", { class: "ct-offscreen", "aria-hidden": "true" });
        area.value = link;
        document.body.append(area);
        area.select();
        try { if (document.execCommand("copy")) done(); } catch (error) { /* the link is shown */ }
        area.remove();
      }
    };
    return h("div", { class: "ct-invite", role: "group", "aria-label": invite.label, "data-ct-invite": invite.code },
      h("p", { class: "ct-invite-label", text: invite.label }),
      h("p", { class: "ct-invite-code" }, h("span", { text: (invite.code_label || "") + " " }),
        h("strong", { dir: "ltr", "data-ct-room-code": "", text: invite.code })),
      h("p", { class: "ct-invite-link" }, h("span", { text: (invite.link_label || "") + " " }),
        h("a", { href: link, dir: "ltr", "data-ct-room-link": "", text: link })),
      h("p", {}, h("button", { type: "button", class: "ct-button", "data-ct-game": "copy-link", "data-ct-focus": "copy-link", text: invite.copy, onclick: copy }), copied));
  }

  function drawForm(form) {
    const input = h("input", { type: "text", maxlength: form.maxlength || 24, class: "ct-form-input", "data-ct-form": form.id, "data-ct-focus": "form-" + form.id, "aria-label": form.label, dir: "auto" });
    const submit = () => send({ action: "game", id: form.id, values: { [form.field]: input.value } });
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") submit(); });
    return h("div", { class: "ct-form", role: "group", "aria-label": form.label },
      h("label", {}, h("span", { class: "ct-form-label", text: form.label + " " }), input),
      h("button", { type: "button", class: "ct-button ct-primary", "data-ct-game": form.id + "-submit", "data-ct-focus": "form-submit-" + form.id, text: form.button, onclick: submit }));
  }

  function redrawLocal() {
    drawHand();
    drawTable(); // meld buttons depend on the selection
    applyHighlights();
  }

  // A room's page before its game (or without a room) has no table to show.
  const markNoTable = () => root.classList.toggle("ct-no-table", !!(model.get("view") || {}).hidden);

  function redrawAll() {
    markNoTable();
    keepFocus(() => {
      drawRoot();
      drawGame();
      drawTable();
      drawHand();
      drawButtons();
      drawMessage();
      drawNarration();
      applyHighlights();
    });
  }

  const onView = () => {
    markNoTable();
    if (maybePlayback()) return;
    if (frameIndex >= 0) return; // replaying: the model's view is drawn when it ends
    keepFocus(() => { drawHand(); drawTable(); drawButtons(); drawNarration(); applyHighlights(); });
  };
  const onMessage = () => drawMessage();
  const onGame = () => keepFocus(drawGame);
  model.on("change:view", onView);
  model.on("change:message", onMessage);
  model.on("change:game", onGame);
  model.on("change:labels", redrawAll);
  model.on("change:lang", redrawAll);
  redrawAll();
  maybePlayback();
  return () => {
    if (timer) clearTimeout(timer);
    if (sizes) sizes.disconnect(); // layout (issue 18)
    window.removeEventListener("resize", fitNarration);
    model.off("change:view", onView);
    model.off("change:message", onMessage);
    model.off("change:game", onGame);
    model.off("change:labels", redrawAll);
    model.off("change:lang", redrawAll);
  };
}

export default { render };
