"""Hand and Foot positions in the project's notation (``docs/notation.md``, "Hand and Foot").

The keys are Classic's, plus ``round``, a foot per seat (``S foot: ?13``, or ``-`` once picked
up) and each team's complete piles (``NS piles``); ``NS melds`` holds only the incomplete
melds, the meld of wild cards written as its cards (``JK 2 2``).  ``HandFootReader`` extends
Classic's ``notation.PositionReader`` (as python-chess's ``ThreeCheckBoard.set_fen`` extends
``Board.set_fen``) and this module registers it with ``notation``, which never imports it.
"""

from __future__ import annotations

from .cards import BLACK3, JOKER, RED3, TOKENS, kinds_of
from .handfoot import PILE_SIZE, HandFootState, deck_counts, shape
from .notation import (
    Dealer,
    Flags,
    Item,
    Line,
    NotationError,
    PositionFormat,
    PositionReader,
    Tok,
    card_items,
    format_cards,
    format_flags,
    format_melds,
    format_record,
    format_rules,
    meld_chunks,
    read_card,
    read_int,
    read_one,
    read_seat,
    register_position_format,
    team_line,
)
from .rules import RuleSet
from .seats import SEATS_4, TEAMS_4
from .state import HandEnd, MeldGroup, Phase, State

#: Keys only a Hand and Foot position has.
ROUND_KEYS = ("round",)
SEAT_KEYS = ("foot",)
TEAM_KEYS = ("piles",)


def read_groups(line: Line, complete: bool | None) -> list[tuple[MeldGroup, list[Tok]]]:
    """Melds (or piles) separated by '|', each checked as the engine would have made it.
    ``complete``: True for piles (7 cards), False for melds on the table (fewer), None for
    groups set aside (up to 7: a whole pile waits for the lay-down like the rest)."""
    out = []
    seen: set[int] = set()
    for chunk in meld_chunks(line, "none"):
        group = _group(chunk, complete)
        if not complete:
            if group.rank in seen:
                rank = TOKENS[group.rank]
                raise chunk[0].error(
                    "duplicate_meld",
                    f"a second incomplete meld of {rank} (H-MELD-4)",
                    "one incomplete meld per rank",
                    rank=rank,
                )
            seen.add(group.rank)
        out.append((group, chunk))
    return out


def _group(chunk: list[Tok], complete: bool | None) -> MeldGroup:
    """One meld or pile: H-MELD-1, H-MELD-2, and H-MELD-3's seven cards to a pile."""
    kinds = [int(read_card(tok)) for tok in chunk]

    def bad(problem: str, message: str) -> NotationError:
        first = chunk[0]
        return NotationError(
            "bad_meld",
            message,
            line=first.line,
            column=first.column,
            token=" ".join(t.text for t in chunk),
            expected="3 to 7 cards of "
            "one rank (4 to A), at least twice as many natural as wild, or "
            "wild cards only",
            params={"problem": problem},
        )

    if RED3 in kinds or BLACK3 in kinds:
        raise bad("red_three_meld", "threes are never melded (H-MELD-1)")
    naturals = [k for k in kinds if k > BLACK3]
    if len(set(naturals)) > 1:
        raise bad("mixed_ranks", "a meld holds one rank only (H-MELD-1)")
    rank = naturals[0] if naturals else JOKER
    problem = shape(rank, len(naturals), len(kinds) - len(naturals), True)
    if problem is not None:
        raise bad(problem.code, f"not a meld ({problem.code}, {problem.rule})")
    if complete and len(kinds) != PILE_SIZE:
        raise bad("pile_size", "a pile is exactly 7 cards (H-MELD-3)")
    if complete is False and len(kinds) >= PILE_SIZE:
        raise bad("pile_size", "7 cards make a pile: write it under piles (H-MELD-3)")
    jokers = kinds.count(JOKER)
    return MeldGroup(rank, len(naturals), jokers, len(kinds) - len(naturals) - jokers)


class HandFootReader(PositionReader):
    """Reads a Hand and Foot position: Classic's parts with this game's rules, plus the round,
    the feet and the complete piles."""

    hand_example = "?13"
    score_what = "a cumulative score"
    no_asking = "the partner is not asked under these rules (H-OUT-3; option ask_partner=yes)"

    def __init__(self, lines: dict[str, Line], rules: RuleSet) -> None:
        super().__init__(lines, rules, deck_counts(rules.decks), "H-DECK-2")
        self.piles: list[list[MeldGroup]] = [[], []]
        self.foot_items: list[list[Item] | None] = []  # None: picked up
        self.feet: list[list[int] | None] = []

    def check_keys(self) -> None:
        """Rounds, not hands; and only the teams NS and EW."""
        for key, line in self.lines.items():
            if key == "hand":
                raise line.key_error(
                    "unknown_key", "Hand and Foot counts rounds: write 'round:'", "round: 1 to 4"
                )
            word, _, suffix = key.partition(" ")
            if suffix in ("melds", "piles", "red threes") and word.upper() not in (
                "NS",
                "SN",
                "EW",
                "WE",
            ):
                raise line.key_error(
                    "bad_team",
                    f"'{word.upper()}' is not a team in Hand and Foot",
                    "NS or EW",
                    token=word.upper(),
                    teams="NS EW",
                )

    def may_ask(self) -> bool:
        return self.rules.ask_partner

    def read_hand_number(self) -> None:
        line = self.lines.get("round")
        if line is not None:
            rounds = self.rules.rounds
            tok = read_one(line, "bad_number", "the round is one number", f"1 to {rounds}")
            self.parts.hand_number = read_int(tok, f"a round, 1 to {rounds}", 1, rounds)

    def meld_groups(self, line: Line, complete: bool | None) -> list[tuple[MeldGroup, list[Tok]]]:
        return read_groups(line, complete)

    def read_team_melds(self, team: int, name: str) -> None:
        """The incomplete melds, then the complete piles."""
        super().read_team_melds(team, name)
        line = team_line(self.lines, name, "piles")
        if line is not None:
            for group, chunk in self.meld_groups(line, True):
                self.piles[team].append(group)
                self.count_cards(chunk)

    def team_is_down(self, team: int) -> bool:
        return bool(self.parts.melds[team] or self.piles[team])

    def red_threes_range(self) -> tuple[str, str, int]:
        most = self.deck[RED3]
        return f"0 to {most}", "a count of red threes", most

    def check_set_aside(self, line: Line) -> None:
        parts = self.parts
        if parts.phase not in (Phase.DRAW, Phase.MELD) or parts.down[parts.current % 2]:
            raise line.error(
                "set_aside_not_allowed",
                "only a team that has not laid down its "
                "first meld sets cards aside, in the draw or meld phase (H-MIN-1)",
                "no 'set aside' line",
            )

    def read_seat_cards(self, seat: int, name: str) -> None:
        """The hand, then the foot: ``-`` once picked up, ``?13`` face down if not given."""
        super().read_seat_cards(seat, name)
        line = self.lines.get(f"{name.lower()} foot")
        foot: list[Item] | None
        if line is None:
            foot = [("unknown", self.rules.foot_size, Tok("?", 0, 0))]
        elif [t.text for t in line.tokens()] == ["-"]:
            foot = None
        else:
            foot = card_items(line, allow_unknown=True, allow_rest=False, deck_size=self.deck_size)
        self.foot_items.append(foot)
        self.counter.add_items(foot or [])

    def check_hand_card(self, seat: int, kind: int, tok: Tok) -> None:
        """A hand's red threes are checked once it is dealt (``check_dealt_hand``)."""

    def check_dealt_hand(self, seat: int) -> None:
        """H-RED-1: the player to move holds no red three."""
        parts = self.parts
        if seat == parts.current and parts.hands[seat][RED3] and parts.phase is not Phase.ENDED:
            raise self.lines[self.seats[seat].lower()].error(
                "red_three_in_hand",
                "the player to move holds no red three: it is laid down at once (H-RED-1)",
                "the red three under 'NS red threes' / 'EW red threes'",
            )

    def deck_words(self) -> tuple[str, str]:
        size = self.deck_size
        return (
            f"the decks hold {size}",
            f"hands, feet, melds, piles, red threes, pile and "
            f"stock adding up to {size} cards (H-DECK-2)",
        )

    def deal_hands(self, deal: Dealer) -> None:
        """The hands, then the feet (a face-down foot may hold red threes)."""
        super().deal_hands(deal)
        for foot in self.foot_items:
            self.feet.append(None if foot is None else deal.fill(foot))

    def check_flags(self, flags: Flags) -> None:
        if flags.turn_fact_tok is not None and self.parts.phase is Phase.DRAW:
            raise flags.turn_fact_tok.error(
                "flag_not_in_phase",
                "a turn fact, but the player has not drawn yet",
                "no turn facts in the draw phase",
            )
        if flags.asked_tok is not None and not self.may_ask():
            raise flags.asked_tok.error(
                "flag_not_in_phase",
                "the partner is not asked under these rules (H-OUT-3)",
                "no 'asked=' flag",
            )

    def read_end(self) -> None:
        """``ended: out S`` or ``ended: stock S`` (a round never ends concealed)."""
        ended, parts, seats = self.lines.get("ended"), self.parts, self.seats
        if parts.phase is not Phase.ENDED:
            if ended is not None:
                raise ended.error(
                    "bad_end",
                    f"the round has not ended (the turn line says '{parts.phase.value}')",
                    "no 'ended:' line",
                )
            return
        if ended is None:
            raise NotationError(
                "missing_key",
                "an ended round needs an 'ended:' line",
                line=self.lines["turn"].number,
                expected="'ended: out S' or 'ended: stock S'",
                params={"name": "ended"},
            )
        toks = ended.tokens()
        if len(toks) != 2 or toks[0].text.lower() not in ("out", "stock"):
            raise ended.error(
                "bad_end",
                "the end of a round is how and who",
                "out or stock and a seat, for example 'out S'",
            )
        parts.end = HandEnd(toks[0].text.lower(), read_seat(toks[1], seats))
        if parts.end.seat != parts.current:
            raise toks[1].error(
                "bad_end",
                "the round ended on the turn line's seat",
                f"'{toks[0].text} {seats[parts.current]}'",
            )

    def new_state(self) -> State:
        return HandFootState(self.rules)

    def finish(self, state: State) -> None:
        """The feet and the piles (the pile's cards freeze nothing here: H-PILE rules)."""
        assert isinstance(state, HandFootState)
        for seat, foot in enumerate(self.feet):
            if foot is None:
                state.in_foot[seat] = True
            else:
                for card in foot:
                    state.feet[seat][card] += 1
        state.piles = self.piles

    def check_sense(self, state: State) -> None:
        assert isinstance(state, HandFootState)
        if state.end is not None and state.end.how == "out":
            name = self.seats[state.end.seat]
            if state.hand_size(state.end.seat) or not state.in_foot[state.end.seat]:
                raise self.lines["ended"].error(
                    "foot_end_holds_cards",
                    f"{name} cannot have gone out: a player goes out from the foot with no "
                    "cards (H-OUT-1)",
                    f"'{name}: -' and '{name} foot: -'",
                    seat=name,
                )
        if state.phase is not Phase.ENDED:
            self.check_hands(state)
            self.refuse_dead_end(state, "a position in which the round can go on")

    def check_hands(self, state: HandFootState) -> None:
        """While the round goes on, a player with no cards in hand still has the foot to come
        (H-FOOT-1): one playing from the foot with none would have gone out (H-OUT-1); and the
        player to move picked the foot up at the start of the turn."""
        for seat, name in enumerate(self.seats):
            held = state.hand_size(seat)
            if seat == state.current:
                held += sum(g.size for g in state.staged.values())
            if held:
                continue
            line = self.lines[name.lower()]
            if state.in_foot[seat] or (seat == state.current and state.phase is not Phase.DRAW):
                raise line.error(
                    "foot_empty_hand",
                    f"{name} holds no cards, but the round is not over (H-OUT-1, H-FOOT-1)",
                    "at least one card",
                    seat=name,
                )
            if seat == state.current and state.stock:
                raise line.error(
                    "foot_not_picked_up",
                    f"{name} would have picked up the foot at the start of the turn (H-FOOT-1)",
                    f"'{name}: ' with the foot's cards, and '{name} foot: -'",
                    seat=name,
                )


def parse_handfoot(lines: dict[str, Line], rules: RuleSet) -> HandFootState:
    """A Hand and Foot position from its lines (``notation.parse_position`` calls it)."""
    state = HandFootReader(lines, rules).read()
    assert isinstance(state, HandFootState)
    return state


def format_handfoot(state: HandFootState) -> str:
    """The canonical notation of a Hand and Foot state; ``parse_position`` reads it back."""
    out = [format_rules(state.rules)]
    out.append(f"scores: NS {state.scores[0]}, EW {state.scores[1]}")
    out.append(f"round: {state.hand_number}")
    if state.dealer != 3:
        out.append(f"dealer: {SEATS_4[state.dealer]}")
    out.append(f"turn: {SEATS_4[state.current]} {state.phase.value}")
    for seat, name in enumerate(SEATS_4):
        out.append(f"{name}: {format_cards(kinds_of(state.hands[seat]))}")
        foot = "-" if state.in_foot[seat] else format_cards(kinds_of(state.feet[seat]))
        out.append(f"{name} foot: {foot}")
    for team, name in enumerate(TEAMS_4):
        melds = state.melds[team]
        out.append(f"{name} melds: {format_melds([melds[r] for r in sorted(melds, reverse=True)])}")
        if state.piles[team]:
            piles = sorted(state.piles[team], key=lambda g: (-g.rank, g.jokers, g.twos))
            out.append(f"{name} piles: {format_melds(piles)}")
        if state.red_threes[team]:
            out.append(f"{name} red threes: {state.red_threes[team]}")
    if state.staged:
        staged = state.staged
        out.append(f"set aside: {format_melds([staged[r] for r in sorted(staged, reverse=True)])}")
    out.append(f"pile: {format_cards(state.pile)}")
    out.append(f"stock: {format_cards(state.stock)}")
    out.extend(format_flags(state, SEATS_4, TEAMS_4))
    out.extend(format_record(state, SEATS_4))
    if state.end is not None:
        out.append(f"ended: {state.end.how} {SEATS_4[state.end.seat]}")
    return "\n".join(out) + "\n"


def _format(state: State) -> str:
    assert isinstance(state, HandFootState)
    return format_handfoot(state)


def _parse(lines: dict[str, Line], rules: RuleSet) -> State:
    return parse_handfoot(lines, rules)


register_position_format(
    PositionFormat(
        "handfoot",
        "Hand and Foot",
        _parse,
        _format,
        keys=ROUND_KEYS,
        seat_keys=SEAT_KEYS,
        team_keys=TEAM_KEYS,
    )
)

__all__ = ["HandFootReader", "format_handfoot", "parse_handfoot", "read_groups"]
