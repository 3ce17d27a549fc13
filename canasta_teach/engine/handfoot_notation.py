"""Hand and Foot positions in the project's notation (``docs/notation.md``, "Hand and Foot").

The Classic parser (``notation.parse_position``) hands a position whose rules are
``handfoot`` to ``parse_handfoot``; ``format_position`` hands the state to
``format_handfoot``.  The keys are Classic's, plus ``round``, a foot per seat (``S foot: ?13``,
or ``-`` once picked up) and each team's complete piles (``NS piles``); ``NS melds`` holds
only the incomplete melds, the meld of wild cards written as its cards (``JK 2 2``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import TOKENS, kinds_of
from .handfoot import PILE_SIZE, HandFootState, deck_counts, shape
from .notation import (
    END_KINDS,
    PHASES,
    SEATS_4,
    TEAMS_4,
    NotationError,
    _card,
    _card_items,
    _Counter,
    _Dealer,
    _fill,
    _int,
    _Item,
    _Line,
    _option_text,
    _parse_flags,
    _read_seed,
    _seat,
    _team,
    _team_key,
    _Tok,
    _tok_error,
    _unknown_total,
    format_record,
    read_record,
)
from .rules import RuleSet
from .state import Asked, HandEnd, MeldGroup, Phase

JOKER, TWO, RED3, BLACK3 = 0, 1, 2, 3


def _groups(line: _Line, complete: bool | None) -> list[tuple[MeldGroup, list[_Tok]]]:
    """``complete``: True for piles (7 cards), False for melds on the table (fewer), None
    for groups set aside (up to 7: a whole pile waits for the lay-down like the rest)."""
    return _read_groups(line, complete)


def _read_groups(line: _Line, complete: bool | None) -> list[tuple[MeldGroup, list[_Tok]]]:
    """Melds (or piles) separated by '|', each checked as the engine would have made it."""
    toks = line.tokens("|")
    if len(toks) == 1 and toks[0].text == "-":
        return []
    chunks: list[list[_Tok]] = [[]]
    for tok in toks:
        if tok.text == "|":
            chunks.append([])
        else:
            chunks[-1].append(tok)
    out = []
    seen: set[int] = set()
    for chunk in chunks:
        if not chunk:
            raise line.error("bad_meld", "an empty meld (two '|' in a row, or one at an end)",
                             "cards between the '|' signs, or '-' for none",
                             problem="no_cards")  # fmt: skip
        kinds = [int(_card(tok)) for tok in chunk]
        first = chunk[0]
        text = " ".join(t.text for t in chunk)

        def bad(problem: str, message: str, first: _Tok = first, text: str = text) -> NotationError:
            return NotationError("bad_meld", message, line=first.line, column=first.column,
                                 token=text, expected="3 to 7 cards of one rank (4 to A), at "
                                 "least twice as many natural as wild, or wild cards only",
                                 params={"problem": problem})  # fmt: skip

        if RED3 in kinds or BLACK3 in kinds:
            raise bad("red_three_meld", "threes are never melded (H-MELD-1)")
        naturals = [k for k in kinds if k > BLACK3]
        if len(set(naturals)) > 1:
            raise bad("mixed_ranks", "a meld holds one rank only (H-MELD-1)")
        rank = naturals[0] if naturals else JOKER
        jokers = kinds.count(JOKER)
        problem = shape(rank, len(naturals), len(kinds) - len(naturals), True)
        if problem is not None:
            raise bad(problem.code, f"not a meld ({problem.code}, {problem.rule})")
        if complete and len(kinds) != PILE_SIZE:
            raise bad("pile_size", "a pile is exactly 7 cards (H-MELD-3)")
        if complete is False and len(kinds) >= PILE_SIZE:
            raise bad("pile_size", "7 cards make a pile: write it under piles (H-MELD-3)")
        if not complete:
            if rank in seen:
                raise _tok_error(first, "duplicate_meld", f"a second incomplete meld of "
                                 f"{TOKENS[rank]} (H-MELD-4)", "one incomplete meld per rank",
                                 rank=TOKENS[rank])  # fmt: skip
            seen.add(rank)
        group = MeldGroup(rank, len(naturals), jokers, len(kinds) - len(naturals) - jokers)
        out.append((group, chunk))
    return out


def parse_handfoot(lines: dict[str, _Line], rules: RuleSet) -> HandFootState:
    """A Hand and Foot position from its lines (read by ``notation.parse_position``)."""
    seats, teams = SEATS_4, TEAMS_4
    line: _Line | None
    for key, given in lines.items():
        line = given
        if key == "hand":
            raise NotationError("unknown_key", "Hand and Foot counts rounds: write 'round:'",
                                line=line.number, column=line.key_column, token=line.key_text,
                                expected="round: 1 to 4")  # fmt: skip
        if key.endswith(" melds") or key.endswith(" piles") or key.endswith(" red threes"):
            word = key.rsplit(" ", 2 if key.endswith("red threes") else 1)[0]
            if word.upper() not in ("NS", "SN", "EW", "WE"):
                raise NotationError("bad_team", f"'{word.upper()}' is not a team in Hand and "
                                    "Foot", line=line.number, column=line.key_column,
                                    token=word.upper(), expected="NS or EW",
                                    params={"teams": "NS EW"})  # fmt: skip
    state = HandFootState(rules)
    deck = deck_counts(rules.decks)
    counter = _Counter(deck=deck, rule="H-DECK-2")
    size = sum(deck)

    turn = lines["turn"]
    toks = turn.tokens()
    if len(toks) != 2:
        raise turn.error("bad_turn", "the turn is a seat and a phase",
                         "for example 'S draw' (phases: " + ", ".join(PHASES) + ")")  # fmt: skip
    state.current = _seat(toks[0], seats)
    phase_text = toks[1].text.lower()
    if phase_text not in PHASES:
        raise _tok_error(toks[1], "bad_phase", f"'{toks[1].text}' is not a phase",
                         " | ".join(PHASES))  # fmt: skip
    state.phase = Phase(phase_text)
    if state.phase is Phase.ANSWER and not rules.ask_partner:
        raise _tok_error(toks[1], "bad_phase", "the partner is not asked under these rules "
                         "(H-OUT-3; option ask_partner=yes)", "draw, meld or ended")  # fmt: skip

    if "scores" in lines:
        line = lines["scores"]
        parts = [t for t in line.tokens(",") if t.text != ","]
        if len(parts) != 4:
            raise line.error("bad_scores", "the scores are two teams with a number each",
                             "for example 'NS 0, EW 1500'")  # fmt: skip
        for team_tok, number_tok in ((parts[0], parts[1]), (parts[2], parts[3])):
            state.scores[_team(team_tok, teams)] = _int(number_tok, "a cumulative score")
    if "dealer" in lines:
        dealer = lines["dealer"].tokens()
        if len(dealer) != 1:
            raise lines["dealer"].error("bad_seat", "the dealer is one seat", "S W N E",
                                        seats="S W N E")  # fmt: skip
        state.dealer = _seat(dealer[0], seats)
    if "round" in lines:
        line = lines["round"]
        parts = line.tokens()
        if len(parts) != 1:
            raise line.error("bad_number", "the round is one number", f"1 to {rules.rounds}")
        state.hand_number = _int(parts[0], f"a round, 1 to {rules.rounds}", 1, rules.rounds)

    for team, name in enumerate(teams):
        for suffix, complete in (("melds", False), ("piles", True)):
            line = _team_key(lines, name, suffix)
            if line is None:
                continue
            for group, chunk in _groups(line, complete):
                if complete:
                    state.piles[team].append(group)
                else:
                    state.melds[team][group.rank] = group
                for tok in chunk:
                    counter.add(int(_card(tok)), 1, tok)
        state.down[team] = bool(state.melds[team] or state.piles[team])
        line = _team_key(lines, name, "red threes")
        if line is not None:
            parts = line.tokens()
            if len(parts) != 1:
                raise line.error("bad_number", "red threes are one count", f"0 to {deck[RED3]}")
            state.red_threes[team] = _int(parts[0], "a count of red threes", 0, deck[RED3])
            counter.add(RED3, state.red_threes[team], parts[0])

    if "set aside" in lines:
        aside = lines["set aside"]
        groups = _groups(aside, None)
        if groups and (state.phase not in (Phase.DRAW, Phase.MELD)
                       or state.down[state.current % 2]):  # fmt: skip
            raise aside.error("set_aside_not_allowed", "only a team that has not laid down "
                             "its first meld sets cards aside, in the draw or meld phase "
                             "(H-MIN-1)", "no 'set aside' line")  # fmt: skip
        for group, chunk in groups:
            state.staged[group.rank] = group
            for tok in chunk:
                counter.add(int(_card(tok)), 1, tok)

    hand_items: list[list[_Item]] = []
    foot_items: list[list[_Item] | None] = []
    for name in seats:
        line = lines.get(name.lower())
        if line is None:
            raise NotationError("missing_key", f"the position has no hand for {name}",
                                expected=f"a line '{name}: CARDS' or '{name}: ?13'",
                                params={"name": name})  # fmt: skip
        items = _card_items(line, allow_unknown=True, allow_rest=False, deck_size=size)
        hand_items.append(items)
        foot_line = lines.get(f"{name.lower()} foot")
        if foot_line is None:
            foot: list[_Item] | None = [("unknown", rules.foot_size, _Tok("?", 0, 0))]
        else:
            parts = foot_line.tokens()
            foot = None if len(parts) == 1 and parts[0].text == "-" else _card_items(
                foot_line, allow_unknown=True, allow_rest=False, deck_size=size)  # fmt: skip
        foot_items.append(foot)
        for what, value, tok in [*items, *(foot or [])]:
            if what == "card":
                counter.add(value, 1, tok)
            else:
                counter.unknown += value

    pile_items: list[_Item] = []
    if "pile" in lines:
        pile_items = _card_items(
            lines["pile"], allow_unknown=True, allow_rest=False, deck_size=size
        )
    stock_line = lines.get("stock")
    stock_items = (
        [("rest", 0, _Tok("rest", 0, 0))]
        if stock_line is None
        else _card_items(stock_line, allow_unknown=True, allow_rest=True, deck_size=size)
    )
    for what, value, tok in (*pile_items, *stock_items):
        if what == "card":
            counter.add(value, 1, tok)
        elif what == "unknown":
            counter.unknown += value
        else:
            counter.rest_tok = tok
    counter.check()
    known = sum(counter.used)
    placed = known + counter.unknown
    rest = size - placed
    if rest < 0 or (rest > 0 and counter.rest_tok is None):
        raise NotationError(
            "counts_do_not_add_up",
            f"the position holds {placed} cards ({known} shown, {counter.unknown} unknown); "
            f"the decks hold {size}: " + (f"{-rest} too many" if rest < 0 else f"{rest} missing"),
            line=stock_line.number if stock_line else None,
            column=stock_line.value_column if stock_line else None,
            expected=f"hands, feet, melds, piles, red threes, pile and stock adding up to {size}"
            " cards (H-DECK-2)",
            params={"count": placed, "known": known, "unknown": counter.unknown, "deck": size},
        )  # fmt: skip

    deal = _Dealer(deck, counter.used, _read_seed(lines))
    pool = deal.pool

    for seat, items in enumerate(hand_items):
        for card in _fill(items, deal, avoid_red_three=state.phase is not Phase.ENDED):
            state.hands[seat][card] += 1
        if seat == state.current and state.hands[seat][RED3] and state.phase is not Phase.ENDED:
            line = lines[seats[seat].lower()]
            raise line.error("red_three_in_hand", "the player to move holds no red three: it "
                             "is laid down at once (H-RED-1)", "the red three under 'NS red "
                             "threes' / 'EW red threes'")  # fmt: skip
    for seat, foot in enumerate(foot_items):
        if foot is None:
            state.in_foot[seat] = True
            continue
        for card in _fill(foot, deal):  # a face-down foot may hold red threes
            state.feet[seat][card] += 1
    state.pile = _fill(pile_items, deal, avoid_red_three=True)
    state.stock = _fill(stock_items, deal, rest=len(pool) - _unknown_total(stock_items))

    flags = _parse_flags(lines.get("flags"), seats, teams)
    if flags.turn_fact_tok is not None and state.phase is Phase.DRAW:
        raise _tok_error(flags.turn_fact_tok, "flag_not_in_phase", "a turn fact, but the player "
                         "has not drawn yet", "no turn facts in the draw phase")  # fmt: skip
    if flags.asked_tok is not None and not rules.ask_partner:
        raise _tok_error(flags.asked_tok, "flag_not_in_phase", "the partner is not asked under "
                         "these rules (H-OUT-3)", "no 'asked=' flag")  # fmt: skip
    state.took_pile = flags.took_pile
    state.melded_this_turn = flags.melded_this_turn
    state.asked = Asked.PENDING if state.phase is Phase.ANSWER else (flags.asked or Asked.NOT_ASKED)
    state.created_this_turn = set(flags.created)
    state.has_melded = (
        [state.down[s % 2] for s in range(4)] if flags.has_melded is None else flags.has_melded
    )
    state.penalties = flags.penalties
    read_record(lines, state, SEATS_4)

    ended = lines.get("ended")
    if state.phase is Phase.ENDED:
        if ended is None:
            raise NotationError("missing_key", "an ended round needs an 'ended:' line",
                                line=turn.number, expected="'ended: out S' or 'ended: stock S'",
                                params={"name": "ended"})  # fmt: skip
        parts = ended.tokens()
        if (
            len(parts) != 2
            or parts[0].text.lower() not in END_KINDS
            or parts[0].text.lower() == ("concealed")
        ):
            raise ended.error("bad_end", "the end of a round is how and who",
                              "out or stock and a seat, for example 'out S'")  # fmt: skip
        state.end = HandEnd(parts[0].text.lower(), _seat(parts[1], seats))
        if state.end.seat != state.current:
            raise _tok_error(parts[1], "bad_end", "the round ended on the turn line's seat",
                             f"'{parts[0].text} {seats[state.current]}'")  # fmt: skip
        if state.end.how == "out":
            out_seat = state.end.seat
            if state.hand_size(out_seat) or not state.in_foot[out_seat]:
                raise ended.error("foot_end_holds_cards", f"{seats[out_seat]} cannot have gone out: "  # noqa: E501
                                  "a player goes out from the foot with no cards (H-OUT-1)",
                                  f"'{seats[out_seat]}: -' and '{seats[out_seat]} foot: -'",
                                  seat=seats[out_seat])  # fmt: skip
    elif ended is not None:
        raise ended.error("bad_end", f"the round has not ended (the turn line says "
                          f"'{state.phase.value}')", "no 'ended:' line")  # fmt: skip
    else:
        _check_hands(state, lines, seats)
        if not state.legal_moves():
            raise turn.error("no_legal_moves", "the player to move has no legal move in this "
                             "position", "a position in which the round can go on",
                             seat=seats[state.to_move])  # fmt: skip
    return state


def _check_hands(state: HandFootState, lines: dict[str, _Line], seats: Sequence[str]) -> None:
    """While the round goes on, a player with no cards in hand still has the foot to come
    (H-FOOT-1): one playing from the foot with none would have gone out (H-OUT-1); and the
    player to move picked the foot up at the start of the turn."""
    for seat, name in enumerate(seats):
        held = state.hand_size(seat) + (
            sum(g.size for g in state.staged.values()) if seat == state.current else 0
        )
        if held:
            continue
        if state.in_foot[seat] or (seat == state.current and state.phase is not Phase.DRAW):
            raise lines[name.lower()].error("foot_empty_hand", f"{name} holds no cards, but the "
                                            "round is not over (H-OUT-1, H-FOOT-1)",
                                            "at least one card", seat=name)  # fmt: skip
        if seat == state.current and state.stock:
            raise lines[name.lower()].error("foot_not_picked_up", f"{name} would have picked up the "  # noqa: E501
                                            "foot at the start of the turn (H-FOOT-1)",
                                            f"'{name}: ' with the foot's cards, and "
                                            f"'{name} foot: -'", seat=name)  # fmt: skip


def _cards(kinds: Sequence[int]) -> str:
    return " ".join(TOKENS[k] for k in kinds) if kinds else "-"


def format_handfoot(state: HandFootState) -> str:
    """The canonical notation of a Hand and Foot state; ``parse_position`` reads it back."""
    rules = state.rules
    options = rules.options_differing_from_preset()
    rules_text = " ".join(
        [rules.name] + [f"{k}={_option_text(v)}" for k, v in sorted(options.items())]
    )
    out = [f"rules: {rules_text}"]
    out.append(f"scores: NS {state.scores[0]}, EW {state.scores[1]}")
    out.append(f"round: {state.hand_number}")
    if state.dealer != 3:
        out.append(f"dealer: {SEATS_4[state.dealer]}")
    out.append(f"turn: {SEATS_4[state.current]} {state.phase.value}")
    for seat, name in enumerate(SEATS_4):
        out.append(f"{name}: {_cards(kinds_of(state.hands[seat]))}")
        foot = "-" if state.in_foot[seat] else _cards(kinds_of(state.feet[seat]))
        out.append(f"{name} foot: {foot}")
    for team, name in enumerate(TEAMS_4):
        melds = state.melds[team]
        text = " | ".join(_cards(melds[r].cards()) for r in sorted(melds, reverse=True))
        out.append(f"{name} melds: {text or '-'}")
        if state.piles[team]:
            piles = sorted(state.piles[team], key=lambda g: (-g.rank, g.jokers, g.twos))
            out.append(f"{name} piles: " + " | ".join(_cards(g.cards()) for g in piles))
        if state.red_threes[team]:
            out.append(f"{name} red threes: {state.red_threes[team]}")
    if state.staged:
        staged = state.staged
        out.append("set aside: " + " | ".join(_cards(staged[r].cards())
                                              for r in sorted(staged, reverse=True)))  # fmt: skip
    out.append(f"pile: {_cards(state.pile)}")
    out.append(f"stock: {_cards(state.stock)}")
    flags: list[str] = []
    if state.took_pile:
        flags.append("took-pile")
    if state.melded_this_turn:
        flags.append("melded-this-turn")
    if state.asked in (Asked.YES, Asked.NO):
        flags.append(f"asked={state.asked.value}")
    if state.has_melded != [state.down[s % 2] for s in range(4)]:
        who = [SEATS_4[s] for s in range(4) if state.has_melded[s]]
        flags.append("has-melded=" + (",".join(who) if who else "-"))
    if state.created_this_turn:
        flags.append("created=" + ",".join(TOKENS[k] for k in sorted(state.created_this_turn,
                                                                      reverse=True)))  # fmt: skip
    for team, name in enumerate(TEAMS_4):
        if state.penalties[team]:
            flags.append(f"penalty-{name}={state.penalties[team]}")
    if flags:
        out.append("flags: " + " ".join(flags))
    out.extend(format_record(state, SEATS_4))
    if state.end is not None:
        out.append(f"ended: {state.end.how} {SEATS_4[state.end.seat]}")
    return "\n".join(out) + "\n"


__all__ = ["format_handfoot", "parse_handfoot"]
