"""A game: choosing seats (C-SEAT-1), hands dealt in turn (C-DEAL-1), scores to 5,000
(C-GAME-1), and a record (seed + moves) that replays to the identical state."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from .moves import Move, Verdict
from .rng import SplitMix64
from .rules import CLASSIC4, RuleSet
from .scoring import HandScore, game_winner, score_hand
from .seats import team_names
from .state import Event, State

#: C-SEAT-1: rank order for the draw (A high ... 2 low) and suits (spades high).
SEAT_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")  # clubs < diamonds < hearts < spades


@dataclass(frozen=True, slots=True)
class SeatCard:
    rank: str  # one of SEAT_RANKS, or "JK"
    suit: str  # one of SUITS, or "" for a joker

    @property
    def order(self) -> tuple[int, int]:
        return (SEAT_RANKS.index(self.rank), SUITS.index(self.suit))

    def __str__(self) -> str:
        return self.rank + self.suit


@dataclass(frozen=True, slots=True)
class SeatDraw:
    """Who drew what (round by round; ``None`` where a person did not draw again), and
    the seat each person takes: ``seats[person]``, seat 0 (South) plays first."""

    rounds: tuple[tuple[SeatCard | None, ...], ...]
    seats: tuple[int, ...]


def draw_for_seats(seed: int | str, players: int = 4) -> SeatDraw:
    """C-SEAT-1: each person draws; jokers and cards equal to another's draw again."""
    deck = [SeatCard(r, s) for _ in range(2) for r in SEAT_RANKS for s in SUITS]
    deck += [SeatCard("JK", "")] * 4
    rng = SplitMix64(f"{seed}/seats")
    rng.shuffle(deck)
    final: list[SeatCard | None] = [None] * players
    pending = list(range(players))
    rounds: list[tuple[SeatCard | None, ...]] = []
    while pending:
        drawn: list[SeatCard | None] = [None] * players
        for person in pending:
            drawn[person] = deck.pop()
        rounds.append(tuple(drawn))
        for person in pending:
            final[person] = drawn[person]
        again = []
        for person in range(players):
            card = final[person]
            assert card is not None
            same = any(final[o] == card for o in range(players) if o != person)
            if card.rank == "JK" or same:
                again.append(person)
        pending = again
    ranked = sorted(range(players), key=lambda p: final[p].order, reverse=True)  # type: ignore[union-attr]
    seat_for_place = (0, 2, 1, 3) if players == 4 else (0, 1)
    seats = [0] * players
    for place, person in enumerate(ranked):
        seats[person] = seat_for_place[place]
    return SeatDraw(tuple(rounds), tuple(seats))


def hand_seed(seed: int | str, hand_number: int) -> str:
    return f"{seed}/hand/{hand_number}"


def daily_seed(day: date | None = None, variant: str = "classic4") -> str:
    """The seed of the daily deal: the same deals for everyone on ``day`` (UTC), on every
    machine (``rng.SplitMix64`` and SHA-256 of the text). One seed a variant and day."""
    if day is None:
        day = datetime.now(timezone.utc).date()
    return f"daily/{variant}/{day.isoformat()}"


@dataclass
class Game:
    """A whole game.  ``apply`` plays moves; a finished hand is scored and the next dealt."""

    rules: RuleSet = CLASSIC4
    seed: int | str = 0
    totals: list[int] = field(default_factory=lambda: [0, 0])
    hands: list[HandScore] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    state: State = field(init=False)
    winner: int | None = field(default=None, init=False)
    #: The hand that ended last (``state`` is the next deal by then), or None.
    last_hand: State | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.seating = draw_for_seats(self.seed, self.rules.players)
        # C-DEAL-1: the first dealer sits to the right of the highest drawer (South).
        self.state = self._deal(1)

    def _deal(self, number: int) -> State:
        n = self.rules.players
        dealer = (n - 1 + number - 1) % n  # rotates clockwise hand by hand
        from .variants import state_class

        return state_class(self.rules).deal(hand_seed(self.seed, number), self.rules,
                                            tuple(self.totals), dealer=dealer,
                                            hand_number=number)  # fmt: skip

    #: True once the game has ended: a team reached the target (C-GAME-1), or the last
    #: round was played (H-GAME-1; ``winner`` stays None on a tie).
    finished: bool = field(default=False, init=False)

    @property
    def is_over(self) -> bool:
        return self.finished

    def apply(self, move: Move) -> Verdict:
        return self.apply_with_events(move)[0]

    def apply_with_events(self, move: Move) -> tuple[Verdict, list[Event]]:
        """``apply``, and what happened at the table (``State.apply_with_events``).  When the
        move ends a hand, the ended hand stays readable as ``last_hand`` (its melds and hands,
        for the score's breakdown) while ``state`` is already the next deal."""
        if self.is_over:
            from .moves import refuse

            winner = self.winner if self.winner is not None else 0
            names = team_names(self.rules.players)
            rule = "H-GAME-1" if self.rules.rounds else "C-GAME-1"
            return refuse("game_over", rule, team=names[winner],
                          score=self.totals[winner]), []  # fmt: skip
        verdict, events = self.state.apply_with_events(move)
        if verdict.legal:
            self.moves.append(str(move))
            if self.state.is_over:
                self.last_hand = self.state
                self._finish_hand()
        return verdict, events

    def _finish_hand(self) -> None:
        score = score_hand(self.state)
        self.hands.append(score)
        for t in (0, 1):
            self.totals[t] += score.totals[t]
        rounds = self.rules.rounds
        if rounds:
            # H-GAME-1: a fixed number of rounds; the higher total wins (a tie is a draw).
            if self.state.hand_number >= rounds:
                self.finished = True
                a, b = self.totals
                self.winner = None if a == b else (0 if a > b else 1)
        else:
            self.winner = game_winner(self.totals, self.rules.game_target)
            self.finished = self.winner is not None
        if not self.finished:
            self.state = self._deal(self.state.hand_number + 1)

    def record(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {"rules": asdict(self.rules), "seed": self.seed, "moves": list(self.moves)}

    @classmethod
    def replay(cls, rules: RuleSet, seed: int | str, moves: list[str]) -> Game:
        """Replay a record; raises ``ValueError`` naming the first bad move."""
        from .notation import parse_move

        game = cls(rules, seed)
        for i, text in enumerate(moves):
            verdict = game.apply(parse_move(text))
            if not verdict.legal:
                raise ValueError(f"move {i + 1} ({text}) is refused: {verdict.reason}")
        return game
