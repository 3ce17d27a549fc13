"""Golden traces of the engine: what it does, move by move, at every preset and rule option.

A *case* is a preset (``rules.PRESETS``) or a preset with one rule option switched
(``rules.BOOL_OPTIONS`` flipped, or an integer option of ``rules.FAMILY_INT_RANGES`` at a legal
value other than the preset's).  Each case plays a seeded game (``engine.game.Game``): moves
chosen by a seeded random generator over ``legal_moves()``, leaning towards melds and pickups so
that canastas, going out and the foot happen; each preset also plays a game of ``normal`` bots.

A hand's *trace* is a list of lines, in the order they happen:

- ``{"position": ...}``: ``format_position`` of the deal, and of the hand as it ended;
- ``{"sample": i, ...}``: the state before move ``i`` (every ``SAMPLE_EVERY`` moves, and the
  ended hand): ``legal_moves()`` as notation, the verdict of every move of a fixed battery
  (``battery``: legal and refused moves of every kind), and digests of every seat's
  ``player_view`` and of the position text;
- ``{"n": i, "move": ..., "events": [...]}``: move ``i`` and its events
  (``Event.to_dict()``), with its verdict's note when it has one.

After the trace: how the hand ended, its score lines (``scoring.score_hand``, which must agree
with the variant's ``score_team`` and the game's own record) and the game's totals.

``make.py`` writes one JSON file per case (``store``): the first hands in full, later hands as
SHA-256 digests (of the whole trace and of each ``CHUNK`` moves, so a difference is placed
within a few moves).  ``tests/test_golden.py`` plays every case again (``play``) and reports
the first difference (``first_difference``).  Nothing here but the chooser and the battery is
random, and both are seeded: the same engine writes the same files.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from canasta_teach.bots import find_bot
from canasta_teach.engine.cards import Kind
from canasta_teach.engine.game import Game, draw_for_seats
from canasta_teach.engine.moves import (
    ASK,
    DRAW,
    LAY_DOWN,
    NO,
    YES,
    Add,
    Discard,
    Meld,
    Move,
    Reason,
    TakePile,
    Verdict,
    canonical,
)
from canasta_teach.engine.notation import format_position, parse_move
from canasta_teach.engine.rules import (
    BOOL_OPTIONS,
    FAMILY_INT_RANGES,
    PRESETS,
    RuleSet,
    int_range,
    unsupported_value,
)
from canasta_teach.engine.scoring import score_hand
from canasta_teach.engine.state import State
from canasta_teach.engine.variants import find_variant
from canasta_teach.engine.view import player_view

#: Bump when the trace's layout changes (``make.py`` then writes every file again).
FORMAT = 1
#: A sample (legal moves, the battery's verdicts, views) before every this many moves.
SAMPLE_EVERY = 10
#: A digest hand has one digest per this many moves, to place a difference.
CHUNK = 16
#: Hands per game at most (a game usually ends sooner: 5,000 points, or the rounds).
MAX_HANDS = 8
#: Moves per hand at most (random play ends every hand long before; a guard, not a rule).
MAX_MOVES = 4000
#: Hands kept in full, by game kind; later hands are kept as digests.
FULL_HANDS = {"random": 1, "normal": 1}
#: A preset's random game keeps one more hand in full (its second hand has scores carried).
FULL_HANDS_PRESET = 2

#: The value of each integer option in its case, where one is preferred: legal for the preset,
#: not the preset's own, and one that changes play (short hands, no wild cards, two canastas).
#: An option missing here takes the other end of its range (``cases``).
INT_PICKS: dict[tuple[str, str], int] = {
    ("classic4", "players"): 2,
    ("classic4", "hand_size"): 7,
    ("classic4", "draw_count"): 2,
    ("classic4", "canastas_to_go_out"): 2,
    ("classic4", "game_target"): 1000,
    ("classic4", "max_wilds"): 1,
    ("classic2", "players"): 4,
    ("classic2", "hand_size"): 20,
    ("classic2", "draw_count"): 1,
    ("classic2", "canastas_to_go_out"): 0,
    ("classic2", "game_target"): 3000,
    ("classic2", "max_wilds"): 0,
    ("handfoot", "hand_size"): 11,
    ("handfoot", "game_target"): 1000,  # not read by Hand and Foot: the trace shows it
    ("handfoot", "decks"): 4,
    ("handfoot", "foot_size"): 15,
    ("handfoot", "rounds"): 2,
    ("handfoot", "clean_to_go_out"): 0,
    ("handfoot", "dirty_to_go_out"): 1,
    ("handfoot", "wild_to_go_out"): 0,
    ("handfoot", "red_three_value"): 300,
    ("handfoot", "pile_take"): 0,
}


@dataclass(frozen=True)
class Case:
    """A preset, with at most one option changed."""

    preset: str
    option: str | None = None
    value: bool | int | None = None

    @property
    def name(self) -> str:
        if self.option is None:
            return self.preset
        value = self.value
        text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        return f"{self.preset}.{self.option}={text}"

    @property
    def rules(self) -> RuleSet:
        base = PRESETS[self.preset]
        if self.option is None:
            return base
        return base.with_options(**{self.option: self.value})

    def __str__(self) -> str:
        return self.name


def cases() -> list[Case]:
    """Every preset, then each preset with each option it reads switched, in a fixed order."""
    out: list[Case] = [Case(name) for name in PRESETS]
    for name, base in PRESETS.items():
        for option in BOOL_OPTIONS[base.family]:
            out.append(Case(name, option, not getattr(base, option)))
        for option in FAMILY_INT_RANGES[base.family]:
            default = getattr(base, option)
            low, high = int_range(option, base.players, base.family)
            if low == high:
                continue  # one legal value: the preset's
            value = INT_PICKS.get((name, option), high if default != high else low)
            out.append(Case(name, option, value))
    for case in out:
        problem = unsupported_value(case.rules)
        assert problem is None, f"{case}: {problem} is not a value the engine plays"
        assert case.option is None or getattr(case.rules, case.option) != getattr(
            PRESETS[case.preset], case.option
        ), f"{case} does not change its option"
    return out


CASES: list[Case] = cases()


def find_case(name: str) -> Case:
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# ------------------------------------------------------------------ choosing moves

#: Random play leans towards these (by notation verb): a uniform choice rarely melds.
_WEIGHTS = {"take": 6, "meld": 5, "add": 5, "lay": 5, "ask": 1, "answer": 1, "draw": 1,
            "discard": 1}  # fmt: skip


class Chooser:
    """A seeded choice over ``legal_moves()``: a third uniform, the rest weighted by verb.

    Integer draws only (``randrange``), so the same seed chooses the same moves on every
    Python that has ``random.Random``'s Mersenne Twister."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def __call__(self, legal: Sequence[Move]) -> Move:
        rng = self.rng
        if rng.randrange(3) == 0:
            return legal[rng.randrange(len(legal))]
        weights = [_WEIGHTS[str(move).split()[0]] for move in legal]
        pick = rng.randrange(sum(weights))
        for move, weight in zip(legal, weights, strict=True):
            if pick < weight:
                return move
            pick -= weight
        raise AssertionError("unreachable")


# ------------------------------------------------------------------ the battery

JK, TW, R3, B3 = Kind.JOKER, Kind.TWO, Kind.RED_THREE, Kind.BLACK_THREE
_WILD_MIXES: tuple[tuple[Kind, ...], ...] = ((), (TW,), (JK,), (TW, JK))


def battery(state: State) -> list[Move]:
    """A fixed set of candidate moves for the seat to move's hand, legal and refused: every
    move kind without cards, every discard, pickups with no card, one or two of the top card
    or all held, with and without wild cards, a wrong rank; melds of every kind held (two,
    three or all of them, with wild cards, threes too), of wild cards only, of mixed ranks,
    of no card; additions to every meld of the team (and the cards set aside), with its rank,
    wild cards, a wrong rank or nothing, and to a rank with no meld."""
    seat = state.current
    hand = state.hands[seat]
    team = seat % 2  # seats alternate teams (``state.py``)
    held_kinds = [Kind(k) for k in range(len(hand) - 1, -1, -1) if hand[k]]
    naturals = [k for k in held_kinds if k >= Kind.FOUR]
    out: list[Move] = [DRAW, LAY_DOWN, ASK, YES, NO]
    out += [Discard(kind) for kind in reversed(Kind)]
    if not state.pile:
        out.append(TakePile(()))
    else:
        top = Kind(state.pile[-1])
        for n in sorted({0, 1, 2, hand[top]}):
            for wilds in _WILD_MIXES:
                out.append(TakePile(canonical([top] * n + list(wilds))))
        other = next((k for k in naturals if k != top), None)
        if other is not None:
            out.append(TakePile(canonical([top, top, other])))
    out.append(Meld(()))
    for kind in held_kinds:
        if kind <= TW:
            continue
        held = hand[kind]
        for n, wilds in ((held, ()), (2, ()), (3, ()), (2, (TW,)), (2, (JK,)),
                         (held, (TW, JK)), (2, (TW, TW, JK, JK))):  # fmt: skip
            out.append(Meld(canonical([kind] * n + list(wilds))))
    out += [Meld(canonical([TW, TW, JK])), Meld(canonical([TW] * 4 + [JK] * 3))]
    if len(naturals) >= 2:
        out.append(Meld(canonical([naturals[0], naturals[0], naturals[1], naturals[1]])))
    targets = sorted(set(state.melds[team]) | set(state.staged), reverse=True)
    for rank in targets:
        kind = Kind(rank)
        held = hand[kind] if kind > TW else 0
        others = [k for k in naturals if k != kind]
        adds = [(kind,), (kind,) * max(held, 1), (TW,), (JK,), (TW, JK), (kind, TW), ()]
        if others:
            adds.append((others[0],))
        for cards in adds:
            out.append(Add(kind, canonical(list(cards))))
    unmelded = next((k for k in naturals if k not in targets), None)
    if unmelded is not None:
        out.append(Add(unmelded, (unmelded,)))
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------ lines of a trace


def _params_text(params: Any) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def reason_text(reason: Reason) -> str:
    """``RULE code {facts}``: the facts sorted by name (their order carries no meaning)."""
    params = dict(reason.params)
    return f"{reason.rule} {reason.code}" + (f" {_params_text(params)}" if params else "")


def verdict_text(verdict: Verdict) -> str:
    if verdict.reason is not None:
        return reason_text(verdict.reason)
    return "legal" if verdict.note is None else f"legal; {reason_text(verdict.note)}"


def digest(value: Any) -> str:
    """The first 16 hex digits of the SHA-256 of ``value`` as canonical JSON (or of a text)."""
    text = value if isinstance(value, str) else canonical_json(value)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def verdict_short(verdict: Verdict) -> str:
    """``RULE code`` of a refusal, ``legal`` (with its note's ``RULE code``): no facts."""
    reason = verdict.reason
    if reason is not None:
        return f"{reason.rule} {reason.code}"
    note = verdict.note
    return "legal" if note is None else f"legal; {note.rule} {note.code}"


def sample(state: State, at: int) -> dict[str, Any]:
    """The state before move ``at``: its legal moves, the battery's verdicts (the moves by
    verdict, and a digest of every verdict with its facts), its views and its notation."""
    views = [player_view(state, seat) for seat in range(state.players)]
    by_verdict: dict[str, list[str]] = {}
    facts: list[list[str]] = []
    for move in battery(state):
        verdict = state.check(move)
        by_verdict.setdefault(verdict_short(verdict), []).append(str(move))
        facts.append([str(move), verdict_text(verdict)])
    return {
        "sample": at,
        "legal": [str(move) for move in state.legal_moves()],
        "battery": by_verdict,
        "facts": digest(facts),
        "views": digest(views),
        "position": digest(format_position(state)),
        # Kept while comparing, to show what the digests cover; never stored (``kept``).
        "_facts": facts,
        "_position": format_position(state),
    }


def kept(line: dict[str, Any]) -> dict[str, Any]:
    """A line as stored and digested: without the keys that only explain a difference."""
    return {k: v for k, v in line.items() if not k.startswith("_")}


def battery_verdicts(line: dict[str, Any]) -> dict[str, str]:
    """A sample's battery as move -> ``RULE code``."""
    return {move: verdict for verdict, moves in line["battery"].items() for move in moves}


# ------------------------------------------------------------------ playing a game

Mover = Callable[[State, int, int], Move | None]


def _mover(case: Case, kind: str, seed: str, script: list[list[str]] | None) -> Mover:
    """How moves are chosen: the seeded chooser, ``normal`` bots, or a stored script (the
    bots' moves, replayed without the bots: the golden pins the engine, not the bots)."""
    if kind == "random":
        chooser = Chooser(seed)
        return lambda state, hand, at: chooser(state.legal_moves())
    if script is not None:

        def scripted(state: State, hand: int, at: int) -> Move | None:
            moves = script[hand] if hand < len(script) else []
            return parse_move(moves[at]) if at < len(moves) else None

        return scripted
    bots = [find_bot(kind, seed=f"{seed}/{seat}") for seat in range(case.rules.players)]
    return lambda state, hand, at: bots[state.to_move].step(state).move


def play(case: Case, kind: str, script: list[list[str]] | None = None) -> dict[str, Any]:
    """Play the case's game of ``kind`` ("random" or "normal") and trace every hand in full.

    ``script``: the moves of each hand, for a bot game played again.  A refused move (or a
    script used up before its hand ends) is traced and ends the game."""
    rules = case.rules
    seed = f"golden/{case.name}/{kind}"
    game = Game(rules, seed=seed)
    move_for = _mover(case, kind, seed, script)
    variant = find_variant(rules.family)
    hands: list[dict[str, Any]] = []
    record: dict[str, Any] = {"kind": kind, "seed": seed,
                              "seats": list(draw_for_seats(seed, rules.players).seats),
                              "hands": hands}  # fmt: skip
    while not game.is_over and len(hands) < MAX_HANDS:
        state = game.state
        lines: list[dict[str, Any]] = [{"position": format_position(state)}]
        hand: dict[str, Any] = {"hand": state.hand_number, "dealer": state.dealer, "trace": lines}
        hands.append(hand)
        at = 0
        while game.last_hand is not state:
            if at % SAMPLE_EVERY == 0:
                lines.append(sample(state, at))
            move = move_for(state, len(hands) - 1, at) if at < MAX_MOVES else None
            if move is None:
                lines.append({"n": at, "stopped": "no move to play"})
                return record
            verdict, events = game.apply_with_events(move)
            line: dict[str, Any] = {"n": at, "move": str(move),
                                    "events": [event.to_dict() for event in events]}  # fmt: skip
            if verdict.reason is not None:
                line["refused"] = reason_text(verdict.reason)
                lines.append(line)
                return record
            if verdict.note is not None:
                line["note"] = reason_text(verdict.note)
            lines.append(line)
            at += 1
        lines.append(sample(state, at))
        lines.append({"position": format_position(state)})
        end = state.end
        hand["end"] = None if end is None else {"how": end.how, "seat": end.seat}
        score = score_hand(state).to_dict()
        hand["score"] = score
        by_variant = [variant.score_team(state, team).to_dict() for team in (0, 1)]
        if by_variant != score["teams"]:
            hand["score_by_variant"] = by_variant  # differs: the golden has no such line
        if game.hands[-1].to_dict() != score:
            hand["score_by_game"] = game.hands[-1].to_dict()
        hand["totals"] = list(game.totals)
        hand["over"] = game.is_over
        hand["winner"] = game.winner
    if game.is_over:
        # C-GAME-1, H-GAME-1: a game that is over refuses every move.
        verdict, events = game.apply_with_events(DRAW)
        record["after_end"] = {"draw": verdict_text(verdict),
                               "events": [event.to_dict() for event in events]}  # fmt: skip
    return record


def play_case(case: Case, script: dict[str, list[list[str]]] | None = None) -> dict[str, Any]:
    """Every game of a case, traced in full (``script``: the stored moves of bot games)."""
    kinds = ["random", "normal"] if case.option is None else ["random"]
    games = [play(case, kind, (script or {}).get(kind) if kind != "random" else None)
             for kind in kinds]  # fmt: skip
    return {"format": FORMAT, "case": case.name, "rules": asdict(case.rules), "games": games}


# ------------------------------------------------------------------ storing


def _at(line: dict[str, Any], last: int) -> int:
    """The move a line belongs to (a position line: the deal's 0, or the end's ``last``)."""
    if "sample" in line:
        return int(line["sample"])
    if "n" in line:
        return int(line["n"])
    return last


def chunks(trace: list[dict[str, Any]]) -> list[str]:
    """One digest per ``CHUNK`` moves (with their samples; the deal in the first, the end in
    the last)."""
    moves = sum(1 for line in trace if "move" in line)
    groups: dict[int, list[str]] = {}
    for i, line in enumerate(trace):
        at = 0 if i == 0 else _at(line, moves)
        groups.setdefault(at // CHUNK, []).append(canonical_json(kept(line)))
    return [digest("\n".join(groups.get(k, []))) for k in range(max(groups) + 1)]


def hand_sha256(trace: list[dict[str, Any]]) -> str:
    text = "\n".join(canonical_json(kept(line)) for line in trace)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def moves_of(trace: list[dict[str, Any]]) -> list[str]:
    return [line["move"] for line in trace if "move" in line]


def store(played: dict[str, Any], case: Case) -> dict[str, Any]:
    """The stored form: the first hands in full, later ones as digests (with their moves for
    a bot game, which is replayed from them)."""
    out = dict(played)
    games = []
    for game in played["games"]:
        full = FULL_HANDS[game["kind"]]
        if game["kind"] == "random" and case.option is None:
            full = FULL_HANDS_PRESET
        hands = []
        for i, hand in enumerate(game["hands"]):
            if i < full:
                hands.append({**hand, "trace": [kept(line) for line in hand["trace"]]})
                continue
            trace = hand["trace"]
            short = {k: v for k, v in hand.items() if k != "trace"}
            short["moves"] = len(moves_of(trace))
            short["sha256"] = hand_sha256(trace)
            short["chunks"] = chunks(trace)
            if game["kind"] != "random":
                short["played"] = "; ".join(moves_of(trace))
            hands.append(short)
        games.append({**game, "hands": hands})
    out["games"] = games
    return out


def script_of(stored: dict[str, Any]) -> dict[str, list[list[str]]]:
    """The moves of each bot game's hands, from a stored case."""
    out: dict[str, list[list[str]]] = {}
    for game in stored["games"]:
        if game["kind"] == "random":
            continue
        hands = []
        for hand in game["hands"]:
            if "trace" in hand:
                hands.append(moves_of(hand["trace"]))
            else:
                hands.append(hand["played"].split("; ") if hand["played"] else [])
        out[game["kind"]] = hands
    return out


def dumps(stored: dict[str, Any]) -> str:
    """JSON with one trace line per text line: compact, yet a diff shows the move."""
    head = {k: v for k, v in stored.items() if k != "games"}
    parts = [json.dumps(head, separators=(",", ":"))[:-1] + ',"games":[']
    for g, game in enumerate(stored["games"]):
        game_head = {k: v for k, v in game.items() if k != "hands"}
        parts.append(json.dumps(game_head, separators=(",", ":"))[:-1] + ',"hands":[')
        for h, hand in enumerate(game["hands"]):
            hand_head = {k: v for k, v in hand.items() if k != "trace"}
            if "trace" not in hand:
                parts.append(json.dumps(hand_head, separators=(",", ":")))
            else:
                parts.append(json.dumps(hand_head, separators=(",", ":"))[:-1] + ',"trace":[')
                lines = [json.dumps(line, separators=(",", ":")) for line in hand["trace"]]
                parts.append(",\n".join(lines))
                parts.append("]}")
            if h < len(game["hands"]) - 1:
                parts.append(",")
        parts.append("]}" + ("," if g < len(stored["games"]) - 1 else ""))
    parts.append("]}")
    return "\n".join(parts) + "\n"


# ------------------------------------------------------------------ comparing


def _show(value: Any, limit: int = 600) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= limit else text[:limit] + " ..."


def _line_difference(golden: dict[str, Any], now: dict[str, Any]) -> str:
    """What differs between two lines of a trace, field by field, readably."""
    out = []
    for key in list(dict.fromkeys([*golden, *kept(now)])):
        a, b = golden.get(key, "(absent)"), now.get(key, "(absent)")
        if a == b:
            continue
        if key == "battery" and isinstance(a, dict) and isinstance(b, dict):
            a, b = battery_verdicts(golden), battery_verdicts(now)
            moves = [m for m in dict.fromkeys([*a, *b]) if a.get(m) != b.get(m)]
            out.append(f"the verdicts on {len(moves)} move(s) of the battery differ:")
            for m in moves[:8]:
                out.append(f"  {m!r}: golden {a.get(m, '(not asked)')!r}, "
                           f"now {b.get(m, '(not asked)')!r}")  # fmt: skip
        elif key == "legal" and isinstance(a, list) and isinstance(b, list):
            gone = [m for m in a if m not in b]
            new = [m for m in b if m not in a]
            what = "order" if not gone and not new else f"no longer listed {gone}, new {new}"
            out.append(f"legal_moves() differs ({what}):\n  golden {a}\n  now    {b}")
        elif key == "events" and isinstance(a, list) and isinstance(b, list):
            first = next(i for i in range(max(len(a), len(b)))
                         if i >= len(a) or i >= len(b) or a[i] != b[i])  # fmt: skip
            out.append(f"the events differ from event {first}:\n  golden {_show(a[first:])}\n"
                       f"  now    {_show(b[first:])}")  # fmt: skip
        elif key == "facts":
            refused = [f"{m!r}: {v}" for m, v in now["_facts"] if v != "legal"]
            out.append("the facts of the battery's verdicts differ (kept as a digest); now:\n  "
                       + "\n  ".join(refused[:40]))  # fmt: skip
        elif key == "position" and "_position" in now:
            out.append(f"the position's notation differs (kept as a digest); now:\n"
                       f"{now['_position']}")  # fmt: skip
        else:
            out.append(f"{key} differs:\n  golden {_show(a)}\n  now    {_show(b)}")
    return "\n".join(out)


def _where(line: dict[str, Any]) -> str:
    if "sample" in line:
        return f"the state before move {line['sample']}"
    if "n" in line:
        return f"move {line['n']}"
    return "a position line"


def _trace_difference(golden: list[dict[str, Any]], now: list[dict[str, Any]]) -> str | None:
    for i in range(max(len(golden), len(now))):
        if i >= len(golden):
            return f"the trace goes on where the golden one ended: {_show(now[i])}"
        if i >= len(now):
            return f"the trace ends where the golden one goes on: {_show(golden[i])}"
        if golden[i] != kept(now[i]):
            where = "the deal" if i == 0 else _where(golden[i])
            return f"{where}: {_line_difference(golden[i], now[i])}"
    return None


def _digest_difference(golden: dict[str, Any], trace: list[dict[str, Any]], show: str
                       ) -> str | None:  # fmt: skip
    now_chunks = chunks(trace)
    moves = len(moves_of(trace))
    if moves != golden["moves"] or now_chunks != golden["chunks"]:
        first = next((k for k in range(max(len(now_chunks), len(golden["chunks"])))
                      if k >= len(now_chunks) or k >= len(golden["chunks"])
                      or now_chunks[k] != golden["chunks"][k]), None)  # fmt: skip
        low = 0 if first is None else first * CHUNK
        shown = [kept(line) for i, line in enumerate(trace)
                 if i and low <= _at(line, moves) < low + CHUNK]  # fmt: skip
        text = "\n    ".join(_show(line, 300) for line in shown[:12])
        return (
            f"a digest hand: {moves} moves now, {golden['moves']} in the golden; the "
            f"digest of moves {low} to {low + CHUNK - 1} differs (kept as a digest only: "
            f"`python -m tests.golden.make --show {show}` prints the hand). Now:\n    {text}"
        )
    if hand_sha256(trace) != golden["sha256"]:
        return "a digest hand: the whole-hand SHA-256 differs (the chunks agree)"
    return None


def first_difference(golden: dict[str, Any], now: dict[str, Any]) -> str | None:
    """The first difference between a stored case and the same case played now, as a
    sentence that names the case, the game, the hand and the move; None when they agree."""
    case = golden.get("case")
    if golden.get("format") != now.get("format"):
        return f"{case}: golden format {golden.get('format')}, now {now.get('format')}: " \
               "run `python -m tests.golden.make`"  # fmt: skip
    stale = {k: (v, now["rules"].get(k)) for k, v in golden["rules"].items()
             if now["rules"].get(k) != v}  # fmt: skip
    if stale:
        return f"{case}: the golden was made for other rules: {stale}"
    if len(golden["games"]) != len(now["games"]):
        return f"{case}: {len(golden['games'])} games in the golden, {len(now['games'])} now"
    for g_game, n_game in zip(golden["games"], now["games"], strict=True):
        where = f"{case}, {g_game['kind']} game"
        for key in ("kind", "seed", "seats"):
            if g_game[key] != n_game[key]:
                return f"{where}: {key}: golden {g_game[key]}, now {n_game[key]}"
        for index in range(max(len(g_game["hands"]), len(n_game["hands"]))):
            if index >= len(g_game["hands"]):
                return f"{where}: hand {index + 1} is played now, not in the golden"
            if index >= len(n_game["hands"]):
                return f"{where}: hand {index + 1} of the golden is not played now"
            g_hand, n_hand = g_game["hands"][index], n_game["hands"][index]
            here = f"{where}, hand {index + 1}"
            trace = n_hand["trace"]
            problem = (_trace_difference(g_hand["trace"], trace) if "trace" in g_hand
                       else _digest_difference(g_hand, trace,
                                               f"{case} {g_game['kind']} {index + 1}"))  # fmt: skip
            if problem is not None:
                return f"{here}, {problem}"
            for key in sorted(set(g_hand) | set(n_hand)):  # the end of the hand
                if key in ("trace", "moves", "sha256", "chunks", "played"):
                    continue
                if g_hand.get(key, "(absent)") != n_hand.get(key, "(absent)"):
                    return (f"{here}, at its end: {key} differs:\n  golden "
                            f"{_show(g_hand.get(key, '(absent)'))}\n  now    "
                            f"{_show(n_hand.get(key, '(absent)'))}")  # fmt: skip
        if g_game.get("after_end") != n_game.get("after_end"):
            return (f"{where}, after the game ended: golden {g_game.get('after_end')}, "
                    f"now {n_game.get('after_end')}")  # fmt: skip
    return None
