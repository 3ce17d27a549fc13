"""The card table: one anywidget (``CardTable``) drawn in the browser, and a thin Python
``TableController`` that owns the engine state and the learner's seat.

The browser keeps the card selection (a tap selects or unselects at once, no round trip) and
sends an *intent* when a button is pressed: ``{"action": "meld", "cards": ["7", "7", "JK"]}``.
The controller turns the intent into an engine move, asks ``State.check`` and either plays it
and redraws the table, or leaves everything unchanged and shows the engine's reason in the
learner's language with its rule id.  Nothing an intent carries can raise into the page.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from canasta_teach.engine import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Event,
    Kind,
    Meld,
    Move,
    Reason,
    State,
    TakePile,
    Verdict,
)
from canasta_teach.engine.cards import TOKENS, parse_kind
from canasta_teach.engine.moves import ASK, KIND_OF, MOVE_KINDS, LayDown, MoveKind, canonical
from canasta_teach.engine.rules import CLASSIC4, RuleSet
from canasta_teach.engine.state import Phase
from canasta_teach.engine.variants import GO_OUT, all_variants, find_variant, variant_of
from canasta_teach.engine.view import player_view, seat_names, team_names
from canasta_teach.i18n import RTL_LANGUAGES, Translator

from .cardart import all_card_art
from .fonts import FONT_FAMILIES, font_message
from .goout import can_go_out, plan_for_selection
from .whynot import Refusal, refusal_for

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"

#: The buttons of the default game's table (Classic), in the order they are shown: one per
#: move kind it plays (``moves.MOVE_KINDS``) and the Go out planner (``Variant.table_buttons``).
#: Hand and Foot's have Lay down for the groups set aside for the first meld (H-MIN-1) and
#: no Go out planner (a discard or a meld from the foot goes out).
ACTIONS: tuple[str, ...] = find_variant(CLASSIC4.family).table_buttons
#: Every button any table may show (labels are built for all of them).
ALL_ACTIONS: tuple[str, ...] = tuple(
    dict.fromkeys(button for variant in all_variants() for button in variant.table_buttons)
)


#: Hand and Foot's pile kinds in words (H-MELD-3): the badge on each pile of seven.
PILE_KIND_KEYS = {
    "clean": "table.hf.pile_clean",
    "dirty": "table.hf.pile_dirty",
    "wild": "table.hf.pile_wild",
}


def default_actions(state: State) -> tuple[str, ...]:
    """The buttons a table shows for this game: its variant's, the question to the partner
    and its answer only when its rules ask (``Variant.table_actions``)."""
    return variant_of(state).table_actions(state.rules)


#: Intents that are not table moves (handled by a game around the table).
GAME_ACTION = "game"
#: The page asks for the shipped fonts (see canasta_teach.widgets.fonts).
FONTS_ACTION = "fonts"
#: A hand never holds more than this; a longer selection is a malformed payload.
MAX_SELECTION = 60


#: An opponent or partner: given the state, the move for the seat to move.
Player = Callable[[State], Move]


class BadIntent(ValueError):
    """A payload the table cannot read (never shown as such: the learner gets a message)."""


@lru_cache(maxsize=1)
def _esm_source() -> str:
    """table.js with the card art inlined (Voilà serves no package files; see cardart)."""
    source = (STATIC / "table.js").read_text(encoding="utf-8")
    art = json.dumps(all_card_art(), ensure_ascii=False)
    return source.replace("/*CARD_ART*/{}", art, 1)


@lru_cache(maxsize=1)
def _css_source() -> str:
    return (STATIC / "table.css").read_text(encoding="utf-8")


class CardTable(anywidget.AnyWidget):
    """The whole card table (and a game panel) as one widget.

    Synced state: ``view`` (what to draw, from ``engine.view.player_view`` plus the texts and
    enabled buttons the UI needs), ``labels`` (every fixed string, translated), ``lang``,
    ``dir``, ``message`` (``{kind, text, rule, rule_title}``) and ``game`` (the game panel, or
    empty).  The browser sends intents with ``model.send``; see ``TableController``.
    """

    _esm = traitlets.Unicode(_esm_source()).tag(sync=True)
    _css = traitlets.Unicode(_css_source()).tag(sync=True)
    view = traitlets.Dict().tag(sync=True)
    labels = traitlets.Dict().tag(sync=True)
    lang = traitlets.Unicode("en").tag(sync=True)
    dir = traitlets.Unicode("ltr").tag(sync=True)
    font = traitlets.Unicode(FONT_FAMILIES["en"]).tag(sync=True)
    message = traitlets.Dict().tag(sync=True)
    game = traitlets.Dict().tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controller: TableController | None = None
        self.game_name = ""

    def __repr__(self) -> str:
        # The notebook's text/plain output: stable (no address, no model id) for nbval.
        game = f", game={self.game_name!r}" if self.game_name else ""
        return f"CardTable(lang={self.lang!r}{game})"


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


#: The button that plays each kind of engine move, and the kind each button plays.
_BUTTON_OF_MOVE: dict[type, str] = {kind.move_type: kind.button for kind in MOVE_KINDS}
_KIND_OF_BUTTON: dict[str, MoveKind] = {kind.button: kind for kind in MOVE_KINDS}


def spoken_card_name(tr: Translator, token: str) -> str:
    """A card's name for screen readers: a name written in digits ("7") is read as the
    language's word for the number ("Seven", "ఏడు"), so the label says what the card is."""
    name = capitalised(tr.card_name(token))
    if any(ch.isalpha() for ch in name) or not token.isdigit():
        return name
    return capitalised(tr.count_words(int(token)))


def build_labels(tr: Translator, rules: RuleSet = CLASSIC4) -> dict[str, Any]:
    """Every fixed string the browser shows, in the translator's language."""
    buttons = {action: tr.ui(f"button.{action}") for action in ALL_ACTIONS}
    if rules.draw_count == 2:
        buttons["draw"] = tr.ui("button.draw_two")  # H-TURN-1, C-TWO-2
    return {
        "buttons": buttons,
        "answer_yes": tr.ui("button.answer_yes"),
        "answer_no": tr.ui("button.answer_no"),
        "clear": tr.ui("button.clear"),
        "cards": {token: capitalised(tr.card_name(token)) for token in TOKENS},
        "card_labels": {token: spoken_card_name(tr, token) for token in TOKENS},
        "back": tr.ui("table.card_back"),
        "table": tr.ui("table.aria"),
        "hand": tr.ui("table.your_hand"),
        "selected": tr.ui("table.selected", count="{count}"),  # filled in by the browser
        "stock": tr.ui("table.stock"),
        "pile": tr.ui("table.pile"),
        "show_pile": tr.ui("table.show_pile"),
        "hide_pile": tr.ui("table.hide_pile"),
        "frozen": tr.ui("table.frozen"),
        "stop": tr.ui("table.stop"),
        "set_aside": tr.ui("table.set_aside"),
        "canasta_natural": tr.ui("table.canasta_natural"),
        "canasta_mixed": tr.ui("table.canasta_mixed"),
        "no_melds": tr.ui("table.no_melds"),
        "add_here": tr.ui("table.add_here"),
        "messages": tr.ui("table.messages"),
        "rule": tr.ui("table.rule"),
        "controls": tr.ui("table.controls"),
        "game_controls": tr.ui("game.controls"),
        "piles": tr.ui("table.hf.piles"),
        # The coach's word beside the message (a game panel's "coach"): its box, and the word
        # that says a warning, a tip or a review (with a sign: never colour alone).
        "coach": tr.ui("game.coach.label"),
        "coach_warning": tr.ui("game.coach.warning"),
        "coach_note": tr.ui("game.coach.note"),
        "coach_review": tr.ui("game.coach.review"),
    }


def _tokens(payload: Mapping[str, Any], key: str) -> list[Kind]:
    raw = payload.get(key, [])
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_SELECTION:
        raise BadIntent(key)
    kinds = []
    for token in raw:
        if not isinstance(token, str):
            raise BadIntent(key)
        try:
            kinds.append(parse_kind(token))
        except ValueError:
            raise BadIntent(key) from None
    return kinds


class TableController:
    """Owns an engine ``State``, a ``Translator`` and the learner's seat; drives a ``CardTable``.

    ``actions`` limits the buttons shown (a mini-game shows only the ones its puzzle needs).
    ``players`` maps other seats to a function choosing their move; seats without one simply
    wait.  ``check_move`` lets a game refuse a legal move that does not answer its puzzle
    (return a message) and ``on_move`` tells it a move was played.
    """

    def __init__(
        self,
        state: State,
        translator: Translator,
        lang: str,
        seat: int = 0,
        *,
        actions: Sequence[str] | None = None,
        players: Mapping[int, Player] | None = None,
        widget: CardTable | None = None,
        check_move: Callable[[Move, Verdict], dict[str, str] | None] | None = None,
        on_move: Callable[[Move, Verdict], None] | None = None,
        on_game_intent: Callable[[str], None] | None = None,
        on_refusal: Callable[[Move, Reason], dict[str, str] | None] | None = None,
    ) -> None:
        self.state = state
        self.tr = translator
        self.lang = lang
        self.seat = seat
        wanted = default_actions(state) if actions is None else actions
        order = variant_of(state).table_buttons
        self.actions = tuple(a for a in order if a in wanted)
        self.players = dict(players or {})
        self.check_move = check_move
        self.on_move = on_move
        #: A game may word a refusal itself (a quiz must not print the answer it asks for).
        self.on_refusal = on_refusal
        #: Whether the learner may spread the pile to see every card in it (a teaching aid in
        #: the puzzles: an answer may depend on a card under the top one).
        self.pile_spread = False
        #: A game with a form (the score sheet) gets its entries with the control pressed.
        self.on_game_values: Callable[[str, Mapping[str, str]], None] | None = None
        #: Whether the pile's "frozen" label also says what takes it (a quiz about exactly
        #: that turns it off: the pile is still drawn sideways and labelled frozen).
        self.pile_hints = True
        #: A game's own word for the status line (e.g. "Solved!"), shown instead of whose
        #: turn it is; cleared by ``reset``.
        self.status_override: str | None = None
        #: Buttons drawn available on the learner's turn even when no legal move uses them: in
        #: a puzzle about whether a move is allowed, a button drawn unavailable would give the
        #: answer away (every button can be pressed; the game words the refusal).
        self.always_offered: frozenset[str] = frozenset()
        #: Parts of the table a lesson has not taught yet, kept off it: "frozen" (the pile is
        #: drawn square, with no frozen mark) and "minimum" (no first-meld minimum).
        self.hidden: frozenset[str] = frozenset()
        self._message_count = 0
        #: Which position is shown: ``reset`` counts up, and the browser clears the learner's
        #: card selection when it changes (the next puzzle may deal the very same hand).
        self.position = 0
        self.on_game_intent = on_game_intent
        traits = {
            "lang": lang,
            "dir": "rtl" if lang in RTL_LANGUAGES else "ltr",
            "font": FONT_FAMILIES.get(lang, FONT_FAMILIES["en"]),
            "labels": build_labels(translator, state.rules),
            "message": {},
            "view": self.table_view(),
        }
        if widget is None:
            # Everything in the opening message: no update right after it.
            widget = CardTable(**traits)
        else:
            with widget.hold_sync():
                for name, value in traits.items():
                    setattr(widget, name, value)
        self.widget = widget
        self.widget.controller = self
        self.widget.on_msg(self._on_msg)

    # ------------------------------------------------------------------ intents

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        self.intent(content)

    def intent(self, payload: Any) -> None:
        """Handle one intent from the browser.  Never raises: anything unexpected becomes a
        translated message and a log record, and the state stays as it was."""
        before = self.state.copy()
        try:
            # One comm message for the whole answer (view and message together).
            with self.widget.hold_sync():
                self._intent(payload)
        except BadIntent:
            self.state = before
            self.say("refusal", self.tr.ui("msg.bad_request"))
            self.render()
        except Exception:  # noqa: BLE001 - no traceback may reach the page
            log.exception("table intent failed: %r", payload)
            self.state = before
            try:
                self.say("refusal", self.tr.ui("msg.error"))
                self.render()
            except Exception:  # noqa: BLE001
                log.exception("could not even redraw the table")

    def _intent(self, payload: Any) -> None:
        if not isinstance(payload, Mapping):
            raise BadIntent("payload")
        action = payload.get("action")
        if action == FONTS_ACTION:
            # A page without the app's stylesheet (JupyterLab) asks for the shipped fonts.
            content, buffers = font_message(self.widget.lang)
            self.widget.send(content, buffers=buffers)
            return
        if action == GAME_ACTION:
            control = payload.get("id")
            if not isinstance(control, str) or self.on_game_intent is None:
                raise BadIntent("id")
            values = payload.get("values")
            if values is not None and self.on_game_values is not None:
                # A form's entries (the score sheet, a room's code and seat token): a few short
                # strings, nothing else (a seat token is 43 characters: cut at 100, not before).
                if (
                    not isinstance(values, Mapping)
                    or len(values) > MAX_SELECTION
                    or not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items())
                ):
                    raise BadIntent("values")
                self.on_game_values(control, {k[:20]: v[:100] for k, v in values.items()})
                return
            self.on_game_intent(control)
            return
        if not isinstance(action, str) or action not in self.actions:
            self.say("refusal", self.tr.ui("msg.unknown_action"))
            return
        cards = _tokens(payload, "cards")
        state = self.state
        if state.is_over:
            self.say("refusal", self.tr.ui("msg.hand_over"))
            return
        if state.to_move != self.seat:
            who = self.tr.seat(seat_names(state.players)[state.to_move])
            self.say("refusal", self.tr.ui("msg.not_your_turn", seat=who))
            return
        if action == GO_OUT:
            self._go_out(cards)
            return
        move = self._move_for(action, cards, payload)
        if move is not None:
            self.play(move)

    def _move_for(self, action: str, cards: list[Kind], payload: Mapping[str, Any]) -> Move | None:
        """The engine move an intent asks for, or None after telling the learner what is
        missing (a selection the move needs) or, when no move of that kind can be played now
        (a greyed-out button pressed), which rule stops it (``whynot.refusal_for``)."""
        kind = _KIND_OF_BUTTON.get(action)
        if kind is None:  # pragma: no cover - every shown button is a move kind's or Go out
            raise BadIntent(action)
        return _MOVE_BUILDERS[kind.move_type](self, cards, payload)

    def _draw_move(self, _cards: list[Kind], _payload: Mapping[str, Any]) -> Move | None:
        return Draw()

    def _take_move(self, cards: list[Kind], _payload: Mapping[str, Any]) -> Move | None:
        if not cards and self._why_not("take"):
            return None
        return TakePile(canonical(tuple(cards)))

    def _meld_move(self, cards: list[Kind], _payload: Mapping[str, Any]) -> Move | None:
        if not cards:
            if not self._why_not("meld"):
                self.say("refusal", self.tr.ui("msg.select_cards"))
            return None
        return Meld(canonical(tuple(cards)))

    def _discard_move(self, cards: list[Kind], _payload: Mapping[str, Any]) -> Move | None:
        if len(cards) != 1:
            if not self._why_not("discard"):
                self.say("refusal", self.tr.ui("msg.select_one_discard"))
            return None
        return Discard(cards[0])

    def _ask_move(self, _cards: list[Kind], _payload: Mapping[str, Any]) -> Move | None:
        if self.state.partner(self.seat) not in self.players and self.state.is_legal(ASK):
            # Nobody sits in the partner's seat here to answer the question.
            self.say("refusal", self.tr.ui("msg.no_partner_to_ask"), "C-ASK-1")
            return None
        return ASK

    def _lay_down_move(self, _cards: list[Kind], _payload: Mapping[str, Any]) -> Move | None:
        return LayDown()

    def _answer_move(self, _cards: list[Kind], payload: Mapping[str, Any]) -> Move | None:
        yes = payload.get("yes")
        if not isinstance(yes, bool):
            raise BadIntent("yes")
        return Answer(yes)

    def _why_not(self, action: str, rank: Kind | None = None) -> bool:
        """When no move of the button ``action`` is legal now, tell the learner the rule that
        stops it and return True; False (nothing said) when one is legal."""
        refusal = refusal_for(self.state, action, rank)
        if refusal is None:
            return False
        self.explain(refusal)
        return True

    def explain(self, refusal: Refusal) -> None:
        """Show a ``whynot.Refusal``: the engine's reason (worded by the game when it words
        refusals itself), or the table's own sentence with its rule."""
        if refusal.reason is None:
            self.say("refusal", self.tr.ui(refusal.key), refusal.rule)
            return
        worded = None
        if self.on_refusal is not None and refusal.move is not None:
            worded = self.on_refusal(refusal.move, refusal.reason)
        if worded is not None:
            self.message = worded
            self.render()
        else:
            self.refuse(refusal.reason)

    def _add_move(self, cards: list[Kind], payload: Mapping[str, Any]) -> Move | None:
        rank = payload.get("rank")
        target: Kind | None = None
        if rank is not None:
            if not isinstance(rank, str):
                raise BadIntent("rank")
            try:
                target = parse_kind(rank)
            except ValueError:
                raise BadIntent("rank") from None
        if not cards:
            if not self._why_not("add", target):
                self.say("refusal", self.tr.ui("msg.select_cards"))
            return None
        if target is None:
            naturals = {k for k in cards if k.is_natural or k == Kind.BLACK_THREE}
            if len(naturals) != 1:
                # Only wild cards (or several ranks): which meld is meant?
                self.say("refusal", self.tr.ui("msg.choose_meld"))
                return None
            target = naturals.pop()
        return Add(target, canonical(tuple(cards)))

    def play(self, move: Move) -> Verdict:
        """Check ``move`` for the learner; play it if legal; tell the learner either way."""
        verdict = self.state.check(move)
        if not verdict.legal:
            assert verdict.reason is not None
            self.explain(Refusal(reason=verdict.reason, move=move))
            return verdict
        if self.check_move is not None:
            blocked = self.check_move(move, verdict)
            if blocked is not None:
                self.message = blocked
                self.render()
                return verdict
        hand_before = self.state.hands[self.seat][:]
        _verdict, events = self.state.apply_with_events(move)
        self.say(*self._success_text(move, verdict, hand_before, events))
        self._run_others()
        if self.on_move is not None:
            self.on_move(move, verdict)
        self.render()
        return verdict

    def going_out_moves(self, cards: list[Kind]) -> tuple[Move, ...] | None:
        """The moves that go out with the selection ``cards``, or None after telling the
        learner why not (the engine's reason, or what the selection lacks)."""
        state = self.state
        if state.phase is not Phase.MELD:
            reason = state.check(Discard(Kind.JOKER)).reason  # the phase refusal
            if reason is not None:
                self.refuse(reason)
                return None
        # Nothing selected: the planner would try laying down nothing (and throwing the one
        # card held away), whose refusal is about the empty selection, not about the hand.
        plan = plan_for_selection(state, cards) if cards else None
        if plan is None:
            # No selection (or one leaving cards over): when no way out exists at all, the
            # planner's reason why not; else what to select.
            if not self._why_not("go_out"):
                self.say("refusal", self.tr.ui("msg.go_out_select"))
            return None
        if plan.moves is None:
            if plan.reason is not None:
                self.refuse(plan.reason)
            else:
                self.say("refusal", self.tr.ui("msg.go_out_cards_left"))
        return plan.moves

    def _go_out(self, cards: list[Kind]) -> None:
        moves = self.going_out_moves(cards)
        if moves is None:
            return
        state = self.state
        trial = state.copy()
        for move in moves:
            trial.apply(move)
        if self.check_move is not None:
            blocked = self.check_move(moves[-1], Verdict())
            if blocked is not None:
                self.message = blocked
                self.render()
                return
        self.state = trial  # all or nothing: the copy went out, so it becomes the table
        self.say("success", self.tr.ui("msg.went_out"))
        if self.on_move is not None:
            self.on_move(moves[-1], Verdict())
        self.render()

    def _success_text(
        self,
        move: Move,
        verdict: Verdict,
        hand_before: list[int],
        events: Sequence[Event] = (),
    ) -> tuple[str, str]:
        """The learner's own move in words, under the table; ``events``: what the move did
        (a red three drawn and replaced, the cards a pickup brought into the hand)."""
        tr = self.tr
        state = self.state
        if state.end is not None and state.end.seat == self.seat and state.end.how != "stock":
            return "success", tr.ui("msg.went_out")
        if verdict.note is not None:
            return "info", tr.reason(verdict.note)
        if isinstance(move, Draw):
            hand = state.hands[self.seat]
            new = [TOKENS[k] for k in range(len(hand)) for _ in range(hand[k] - hand_before[k])]
            # C-RED-1: a red three drawn goes down at once and is replaced; say so, with the
            # card that replaced it (the learner's own, so named).
            reds = [e for e in events if e.code == "red_three" and e.seat == self.seat]
            said = [tr.event(e, state.players, you=self.seat) for e in reds]
            if state.end is not None:
                return "info", " ".join([*said, tr.ui("msg.hand_over")])
            replacements = sorted(str(e.private.get("card")) for e in reds if e.private)
            if not said or sorted(new) != replacements:
                said.append(tr.ui("msg.drew", cards=tr.cards(new)))
            return "success", " ".join(said)
        told = KIND_OF[type(move)].told
        if isinstance(move, TakePile):
            gained = next((e.params.get("gained") for e in events if e.code == "took_pile"), None)
            if gained:
                return "success", tr.ui(f"msg.{told}_gained", cards=tr.cards(gained))
        if isinstance(move, Answer):
            told += "_yes" if move.yes else "_no"
        params = {}
        if isinstance(move, (Meld, Add)):  # the cards (a pickup's are told by its event)
            params["cards"] = tr.cards([TOKENS[k] for k in move.cards])
        if isinstance(move, Discard):
            params["card"] = tr.card(TOKENS[move.card])
        words = tr.ui(f"msg.{told}", **params)
        # The question to the partner and its answer are news, not plays that succeeded.
        return ("info" if isinstance(move, (AskPartner, Answer)) else "success"), words

    def _run_others(self, limit: int = 400) -> None:
        """Let seats with a player function move until the learner is to move again."""
        state = self.state
        for _ in range(limit):
            if state.is_over or state.to_move == self.seat:
                return
            player = self.players.get(state.to_move)
            if player is None:
                return
            move = player(state)
            was_question = state.phase is Phase.ANSWER
            verdict = state.apply(move)
            if not verdict.legal:
                log.error("player for seat %s chose an illegal move %s", state.to_move, move)
                return
            if was_question and isinstance(move, Answer) and state.current == self.seat:
                self.say("info", self.tr.ui("msg.partner_yes" if move.yes else "msg.partner_no"))

    # ------------------------------------------------------------------ messages

    @property
    def message(self) -> dict[str, str]:
        return dict(self.widget.message)

    @message.setter
    def message(self, value: dict[str, str]) -> None:
        # A number that changes with every message: the same refusal twice in a row is still
        # an update, so the page redraws it and screen readers announce it again.
        if value:
            self._message_count += 1
            value = {**value, "seq": str(self._message_count)}
        self.widget.message = value

    def say(self, kind: str, text: str, rule: str = "") -> None:
        self.message = {
            "kind": kind,
            "text": text,
            "rule": rule,
            "rule_title": self.tr.rule_title(rule) if rule else "",
        }

    def refuse(self, reason: Reason) -> None:
        """Show the engine's refusal: a full sentence, with the rule id and its title."""
        self.say("refusal", self.tr.reason(reason), reason.rule)

    # ------------------------------------------------------------------ drawing

    def enabled(self) -> dict[str, bool]:
        """Which buttons some legal move uses right now (all False off the learner's turn)."""
        enabled = dict.fromkeys(ALL_ACTIONS, False)
        state = self.state
        if state.is_over or state.to_move != self.seat:
            return enabled
        for move in state.legal_moves():
            enabled[_BUTTON_OF_MOVE[type(move)]] = True
        enabled["ask"] = enabled["ask"] and state.partner(self.seat) in self.players
        enabled[GO_OUT] = GO_OUT in self.actions and can_go_out(state)
        for action in self.always_offered:
            enabled[action] = True
        return {a: enabled[a] and a in self.actions for a in ALL_ACTIONS}

    def table_view(self) -> dict[str, Any]:
        """``player_view`` of the learner's seat plus the texts and state the UI draws."""
        tr = self.tr
        state = self.state
        view = player_view(state, self.seat)
        names = seat_names(state.players)
        teams = team_names(state.players)
        mine = self.seat % 2
        order = (mine, 1 - mine)
        team_views = []
        for t in order:
            tv = view["teams"][t]
            team_views.append(
                {
                    "label": tr.ui("table.team_us" if t == mine else "table.team_them"),
                    "name": tr.team(teams[t]),
                    "mine": t == mine,
                    "melds": tv["melds"],
                    "red_threes": tv["red_threes"],
                    "red_text": tr.ui("table.red_threes", count=tv["red_threes"]),
                    "score_text": tr.ui("table.score", points=tv["score"]),
                    "minimum_text": (
                        ""
                        if "minimum" in self.hidden
                        else tr.ui("table.minimum", points=tv["minimum"])
                        if tv["minimum"]
                        else tr.ui("table.minimum_met")
                    ),
                    "canastas": tv["canastas"],
                }
            )
        others = []
        for s in range(state.players):
            if s == self.seat:
                continue
            role = "table.partner" if s % 2 == mine else "table.opponent"
            others.append(
                {
                    "seat": names[s],
                    "text": tr.ntext(
                        "ui",
                        "table.player_cards",
                        state.hand_size(s),
                        player=tr.ui(role, seat=tr.seat(names[s])),
                        count=state.hand_size(s),
                    ),
                    "to_move": s == state.to_move and not state.is_over,
                }
            )
        pile = view["pile"]
        if "frozen" in self.hidden:
            pile = {**pile, "frozen": None, "frozen_for_all": False}
        if pile["top"] is None:
            pile_text = tr.ui("table.pile_empty")
        else:
            pile_text = tr.ntext("ui", "table.pile_count", pile["size"], count=pile["size"])
        frozen_text = ""
        if pile["frozen"] and self.pile_hints:
            frozen_text = tr.ui(
                "table.frozen_first_meld" if pile["frozen"] == "first_meld" else "table.frozen_all"
            )
        for team_view in team_views:
            for m in team_view["melds"]:
                m["text"] = tr.cards(m["cards"])
        if state.current != self.seat:
            # Cards set aside belong to the player whose turn it is: another player's are told
            # in words (a full game's narration), not drawn as if they were the learner's.
            view["staged"] = []
        for m in view["staged"]:
            m["text"] = tr.cards(m["cards"])
        meld_index = {m["rank"]: True for m in team_views[0]["melds"]}
        for m in view["staged"]:
            meld_index[m["rank"]] = True
        return {
            **view,
            "teams": team_views,
            "others": others,
            "my_turn": state.to_move == self.seat and not state.is_over,
            "status": self._status_text(),
            "pile": {**pile, "text": pile_text, "frozen_text": frozen_text, **self._spread()},
            "stock_text": tr.ntext("ui", "table.stock_count", view["stock"], count=view["stock"]),
            "staged_text": (
                tr.ui("table.staged", have=state.staged_value(), needed=state.minimum(mine))
                if view["staged"]
                else ""
            ),
            "actions": list(self.actions),
            "position": self.position,
            "enabled": self.enabled(),
            "addable": sorted(meld_index),
            **self._handfoot_view(view, team_views, others),
        }

    def _handfoot_view(
        self, view: dict[str, Any], team_views: list[dict[str, Any]], others: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Hand and Foot's words on the table (H-*): each team's piles by kind and what going
        out needs, each player's hand or foot, the round and its minimum, and the Meld
        button's name before the first meld ("Set aside", H-MIN-1)."""
        state = self.state
        if not variant_of(state).feet:
            return {}
        tr = self.tr
        names = seat_names(state.players)
        mine = self.seat % 2
        needed = view["piles_needed"]
        for team_view, t in zip(team_views, (mine, 1 - mine), strict=True):
            groups = view["piles"][t]["groups"]
            for g in groups:
                words = tr.cards(g["cards"])
                g["kind_text"] = tr.ui(PILE_KIND_KEYS[g["kind"]])
                g["text"] = words
            counts = view["piles"][t]["counts"]
            team_view["piles"] = groups
            team_view["piles_text"] = tr.ui(
                "table.hf.piles_count",
                clean=tr.number(counts["clean"]), dirty=tr.number(counts["dirty"]),
                wild=tr.number(counts["wild"]), need_clean=tr.number(needed["clean"]),
                need_dirty=tr.number(needed["dirty"]), need_wild=tr.number(needed["wild"]),
            )  # fmt: skip
            team_view["minimum_text"] = (
                tr.ui("table.hf.minimum", points=tr.number(state.minimum(t)))
                if state.minimum(t)
                else tr.ui("table.minimum_met")
            )
        for other in others:
            other["text"] += " · " + self._foot_words(view["feet"][other["seat"]])
        texts = {}
        if not state.down[mine] and state.to_move == self.seat:
            texts["meld"] = tr.ui("button.set_aside")
        return {
            "round_text": tr.ui(
                "table.hf.round",
                number=tr.number(view["round"]),
                rounds=tr.number(view["rounds"]),
                points=tr.number(state.opening_minimum(mine)),
            ),  # fmt: skip
            "foot_text": self._foot_words(view["feet"][names[self.seat]]),
            "button_text": texts,
        }

    def _foot_words(self, foot: Mapping[str, Any]) -> str:
        """Where a player is (their foot in the view: ``in_foot``, ``size``): in the hand with
        the foot waiting, or playing from the foot."""
        if foot["in_foot"]:
            return self.tr.ui("table.hf.in_foot")
        size = int(foot["size"])
        return self.tr.ntext("ui", "table.hf.foot_waiting", size,
                             count=self.tr.number(size))  # fmt: skip

    def _spread(self) -> dict[str, Any]:
        """The pile's cards, bottom to top, when the learner may spread it (else nothing)."""
        if not self.pile_spread or not self.state.pile:
            return {}
        cards = [TOKENS[k] for k in self.state.pile]
        # In order, bottom to top: equal cards are not grouped as in other lists.
        named = self.tr.join([self.tr.card(token) for token in cards])
        return {"cards": cards, "cards_text": self.tr.ui("table.pile_cards", cards=named)}

    def _status_text(self) -> str:
        if self.status_override is not None:
            return self.status_override
        tr = self.tr
        state = self.state
        names = seat_names(state.players)
        if state.end is not None:
            who = tr.seat(names[state.end.seat])
            if state.end.how == "stock":
                return tr.ui("table.ended_stock")
            if state.end.seat == self.seat:
                return tr.ui("table.you_went_out")
            return tr.ui("table.went_out", seat=who)
        if state.to_move != self.seat:
            if state.phase is Phase.ANSWER:
                return tr.ui("table.waiting_answer", seat=tr.seat(names[state.to_move]))
            return tr.ui("table.waiting", seat=tr.seat(names[state.to_move]))
        if state.phase is Phase.ANSWER:
            return tr.ui("table.partner_asks", seat=tr.seat(names[state.current]))
        if state.phase is Phase.DRAW:
            return tr.ui(variant_of(state).word("table.turn_draw"))
        return tr.ui("table.turn_meld")

    def render(self) -> None:
        """Send the table as it is now (one trait update: one comm message)."""
        self.widget.view = self.table_view()

    def reset(self, state: State) -> None:
        """Show a new position (a game's next puzzle), clearing the message."""
        self.state = state
        self.status_override = None
        self.position += 1
        with self.widget.hold_sync():
            self.widget.message = {}
            self.render()


#: How the table builds each kind of move from an intent (every kind of ``MOVE_KINDS``: the
#: engine contract test checks it).
_MOVE_BUILDERS: dict[type, Callable[[TableController, list[Kind], Mapping[str, Any]], Move | None]]
_MOVE_BUILDERS = {
    Draw: TableController._draw_move,
    TakePile: TableController._take_move,
    Meld: TableController._meld_move,
    Add: TableController._add_move,
    LayDown: TableController._lay_down_move,
    AskPartner: TableController._ask_move,
    Answer: TableController._answer_move,
    Discard: TableController._discard_move,
}
