"""The hard players' search, written once for every variant.

At a decision with more than one move worth weighing, a :class:`Search`

1. takes a few **candidate moves** from the variant (``SearchGame.candidates``), the normal
   player's move first (``SearchGame.prior``);
2. deals the cards the seat cannot see again, ``SearchLimit.worlds`` times
   (``engine.determinize``, from a canonical arrangement of the hidden cards, so the worlds
   depend only on what the seat sees and on the seed);
3. in every world plays each candidate, then lets the variant's policy play on for every
   seat (``SearchGame.policy``) until the seat's turn has come round ``SearchLimit.horizon``
   times or the hand is over;
4. scores the position reached for the seat's team with the variant's evaluation
   (``SearchGame.evaluate``: the real score difference when the hand is over, an estimate
   otherwise);
5. keeps the normal player's move unless another candidate beats it in the same worlds by
   ``SearchLimit.z`` standard errors and ``SearchLimit.margin`` points (``margin_rule``:
   common random numbers, every candidate meets the same worlds, so their difference is
   measured, not their noisy values).

The search knows no game: it is OpenSpiel's ``MCTSBot(game, uct_c, max_simulations,
evaluator, random_state)`` shape, with the variant's ``SearchGame`` as game and evaluator, the
``SearchLimit`` as budget and the generator from :func:`view_rng`.  The budget is counted in
worlds and candidates, never in seconds, so the same seed and the same position give the same
move on any machine.

A search reads the real state only through ``player_view``, ``legal_moves`` and
``determinize`` (which deals every hidden card again); inside a world it deals itself the
policy may read the world directly, as a player reads its own hand and the table.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from canasta_teach.engine import Draw, Move, State, TakePile
from canasta_teach.engine.cards import NUM_KINDS
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.rng import SplitMix64, seed_to_int
from canasta_teach.engine.view import player_view

from .claims import Claim
from .heuristics import Choice


@dataclass(frozen=True)
class SearchLimit:
    """How much a search looks: counted in worlds and moves, never in seconds.

    ``worlds`` is OpenSpiel's ``max_world_samples``; ``max_moves`` caps a rollout as its
    ``max_length`` does."""

    worlds: int = 16  # hidden cards dealt again this many times per decision
    candidates: int = 6  # moves searched at a decision, the normal player's first
    horizon: int = 1  # rollouts stop when our turn has come round this many times
    max_moves: int = 400  # ... or after this many moves (a hand rarely lasts 200)
    z: float = 1.0  # another move must beat the normal one by z standard errors ...
    margin: float = 10.0  # ... and by this many points (the normal move is the prior)

    @property
    def simulations(self) -> int:
        """The most rollouts one decision costs."""
        return self.worlds * self.candidates


class SearchGame(Protocol):
    """What a variant gives the search: its policy, its evaluation and where its hidden cards
    lie.  ``policy`` and ``evaluate`` run only on worlds the search dealt itself."""

    def limit(self, players: int) -> SearchLimit:
        """The hard player's budget at this number of players."""
        ...

    def prior(self, state: State) -> Choice:
        """The normal player's move and reason (read through the seat's view)."""
        ...

    def candidates(self, state: State, moves: list[Move], prior: Move, cap: int) -> list[Move]:
        """The moves worth searching, ``prior`` first, at most ``cap``."""
        ...

    def review_candidates(
        self, state: State, moves: list[Move], prior: Move, cap: int
    ) -> list[Move]:
        """The moves the coach compares a learner's move with (``coach.judge``), ``prior``
        first, at most ``cap``."""
        ...

    def policy(self, world: State) -> Move:
        """The rollout policy's move for the seat to move in ``world``."""
        ...

    def evaluate(self, world: State, team: int) -> float:
        """What ``world`` is worth to ``team``, in points of the hand's score difference."""
        ...

    def face_down(self, world: State) -> list[list[int]]:
        """Card counts lying face down outside hands and stock (Hand and Foot's feet), which
        ``determinize`` deals again; changed in place by ``canonical``."""
        ...

    def take_size(self, state: State) -> int:
        """How many cards taking the pile would bring, as the reason for a pickup says."""
        ...


def view_rng(seed: int | str, view: dict[str, Any]) -> SplitMix64:
    """A generator for one decision, from the seed and everything the seat sees: the same
    view and seed give the same worlds, whatever happened before (replays, tests)."""
    text = json.dumps(view, sort_keys=True, ensure_ascii=True)
    digest = hashlib.sha256(f"{seed_to_int(seed)}|{text}".encode()).digest()
    return SplitMix64(int.from_bytes(digest[:8], "big"))


def no_face_down(world: State) -> list[list[int]]:
    """``SearchGame.face_down`` for a variant that keeps no cards face down (Classic)."""
    return []


def canonical(
    state: State, seat: int, face_down: Callable[[State], list[list[int]]] = no_face_down
) -> State:
    """``state`` with every card ``seat`` cannot see (the other hands but what every player
    saw go into them, the ``face_down`` counts, the stock) put in a fixed order: sorted, then
    dealt to the hands (keeping their sizes), the face-down places and the stock.

    ``determinize`` shuffles the hidden cards in the order it finds them, so two states that
    look the same from ``seat`` but hide different cards would give different worlds for the
    same generator; from the canonical state they give the same worlds."""
    world = state.copy()
    others = [s for s in range(state.players) if s != seat]
    unseen = [0] * NUM_KINDS
    for other in others:
        known = state.known[other]  # seen going into that hand: it stays there
        for kind, count in enumerate(world.hands[other]):
            unseen[kind] += count - known[kind]
    places = face_down(world)
    for place in places:
        for kind, count in enumerate(place):
            unseen[kind] += count
    for kind in world.stock:
        unseen[kind] += 1
    cards = [kind for kind in range(NUM_KINDS) for _ in range(unseen[kind])]
    at = 0

    def take(size: int) -> list[int]:
        nonlocal at
        counts = [0] * NUM_KINDS
        for kind in cards[at : at + size]:
            counts[kind] += 1
        at += size
        return counts

    for other in others:
        known = state.known[other]
        dealt = take(state.hand_size(other) - sum(known))
        world.hands[other] = [a + b for a, b in zip(known, dealt, strict=True)]
    for place in places:
        place[:] = take(sum(place))
    world.stock = cards[at:]
    return world


def sample_worlds(
    state: State,
    seat: int,
    rng: SplitMix64,
    count: int,
    face_down: Callable[[State], list[list[int]]] = no_face_down,
) -> list[State]:
    """``count`` worlds that look like ``state`` from ``seat``, dealt with ``rng``."""
    root = canonical(state, seat, face_down)
    return [determinize(root, seat, rng) for _ in range(count)]


def margin_rule(values: Sequence[Sequence[float]], z: float, margin: float) -> tuple[int, float]:
    """Which row of ``values`` (one per candidate, one column per world) to play, and its mean
    gain over row 0: row 0 unless another row beats it in the same worlds by ``z`` standard
    errors and ``margin`` points; among those, the one with the surest lead."""
    best, best_score, gain = 0, 0.0, 0.0
    base = values[0]
    n = len(base)
    for i in range(1, len(values)):
        diffs = [a - b for a, b in zip(values[i], base, strict=True)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
        score = mean - z * (var / n) ** 0.5 - margin
        if score > best_score:
            best, best_score, gain = i, score, mean
    return best, gain


class Search:
    """Determinized Monte Carlo search over one variant's candidate moves (see the module)."""

    def __init__(self, game: SearchGame, limit: SearchLimit) -> None:
        self.game = game
        self.limit = limit
        #: Rollouts played so far (for the benchmark's simulations per second).
        self.simulations = 0

    def worlds(
        self, state: State, seat: int, rng: SplitMix64, count: int | None = None
    ) -> list[State]:
        """Worlds dealt again from ``seat``'s view (``limit.worlds`` of them by default)."""
        return sample_worlds(state, seat, rng, count or self.limit.worlds, self.game.face_down)

    def rollout(self, world: State, seat: int) -> float:
        """Play on in ``world`` with the variant's policy until ``seat``'s turn has come round
        ``limit.horizon`` times (or the hand ends); its value for ``seat``'s team."""
        limit = self.limit
        policy = self.game.policy
        rounds = 0
        away = False
        for _ in range(limit.max_moves):
            if world.is_over:
                break
            if world.current != seat:
                away = True
            elif away:
                rounds += 1
                if rounds >= limit.horizon:
                    break
                away = False
            world.play(policy(world))
        return self.game.evaluate(world, seat % 2)

    def values(
        self, worlds: Sequence[State], candidates: Sequence[Move], seat: int
    ) -> list[list[float]]:
        """Each candidate played in each world and rolled out: one row a candidate."""
        rows = []
        for move in candidates:
            row = []
            for world in worlds:
                sim = world.copy()
                sim.play(move)
                row.append(self.rollout(sim, seat))
            rows.append(row)
        self.simulations += len(candidates) * len(worlds)
        return rows

    def choose(self, state: State, seed: int | str) -> Choice:
        """The move for the seat to move: the normal player's unless the search finds a
        clearly better one (see the module), and why; the worlds come from ``seed`` and the
        seat's view (``view_rng``)."""
        game = self.game
        base = game.prior(state)
        moves = state.legal_moves()
        candidates = game.candidates(state, moves, base.move, self.limit.candidates)
        if len(candidates) == 1:
            return base
        seat = state.to_move
        worlds = self.worlds(state, seat, view_rng(seed, player_view(state, seat)))
        best, gain = margin_rule(
            self.values(worlds, candidates, seat), self.limit.z, self.limit.margin
        )
        if best == 0:
            return base
        return self.explain(state, candidates[best], len(worlds), gain)

    def explain(self, state: State, move: Move, worlds: int, gain: float) -> Choice:
        """Why the search chose ``move`` over the normal player's: the heuristic reason where
        one says exactly this (taking the pile, drawing), else what the search found."""
        if isinstance(move, TakePile):
            return Choice(move, "take_pile", {"size": self.game.take_size(state)})
        if isinstance(move, Draw):
            return Choice(move, "draw")
        margin = max(10, round(gain / 10) * 10)  # "about N points": tens are enough
        facts = {"worlds": worlds, "margin": margin}
        return Choice(move, "searched", facts, (Claim("searched", facts),))


def least_squares(rows: Sequence[tuple[Sequence[float], float]], ridge: float = 1.0) -> list[float]:
    """Weights (and a constant, last) minimising the squared error, for fitting a variant's
    evaluation: the normal equations, solved by Gaussian elimination (no numpy in the
    engine's dependencies)."""
    k = len(rows[0][0]) + 1
    a = [[0.0] * (k + 1) for _ in range(k)]
    for x, y in rows:
        xs = [*x, 1.0]
        for i in range(k):
            xi = xs[i]
            row = a[i]
            for j in range(k):
                row[j] += xi * xs[j]
            row[k] += xi * y
    for i in range(k):
        a[i][i] += ridge
    for c in range(k):
        pivot = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[pivot] = a[pivot], a[c]
        for r in range(k):
            if r != c and a[r][c]:
                f = a[r][c] / a[c][c]
                for j in range(c, k + 1):
                    a[r][j] -= f * a[c][j]
    return [a[i][k] / a[i][i] for i in range(k)]


def fit_report(rows: Sequence[tuple[Sequence[float], float]], names: Sequence[str], what: str,
               title: str) -> None:  # fmt: skip
    """Fit ``rows`` and print the weights (``title(...)``) with the fit's R^2."""
    weights = least_squares(rows)
    mean = sum(y for _, y in rows) / len(rows)
    total = sum((y - mean) ** 2 for _, y in rows)
    error = sum((y - sum(w * v for w, v in zip(weights, [*x, 1.0], strict=True))) ** 2
                for x, y in rows)  # fmt: skip
    print(f"{len(rows)} positions from {what}, R^2 {1 - error / total:.3f}")
    print(f"{title}(" + ", ".join(f"{w:.2f}" for w in weights[:-1]) + ")")
    for name, w in zip(names, weights, strict=False):  # the constant is not printed
        print(f"  {name:17} {w:9.2f}")
