"""The project's own registries: the rule ids of Classic Canasta and of Hand and Foot, and
every reason code.

``RULES`` mirrors the ids of ``classic.md`` and ``hand-and-foot.md`` (a test compares them
where those files exist).
``REASONS`` lists every message code the engine can give, with its rule ids and the
names of its facts; the message catalogs must hold each one in every language.
"""

from __future__ import annotations

from typing import Final

RULES: Final[dict[str, str]] = {
    "C-DECK-1": "108 cards, four players in partnerships (or two players)",
    "C-DECK-2": "jokers and 2s are wild; 4 to A natural; threes special",
    "C-VAL-1": "card values",
    "C-VAL-2": "melded cards count for, cards in hand against",
    "C-SEAT-1": "choosing seats by drawing cards",
    "C-DEAL-1": "dealer, 11 cards each, play clockwise",
    "C-DEAL-2": "stock and upcard",
    "C-DEAL-3": "a wild or red-three upcard is covered; the pile starts frozen",
    "C-TURN-1": "draw, or take the pile",
    "C-TURN-2": "meld",
    "C-TURN-3": "discard one card",
    "C-MELD-1": "three or more cards of one rank",
    "C-MELD-2": "at least two naturals, at most three wild cards",
    "C-MELD-3": "melds belong to the team; one meld per rank",
    "C-MELD-4": "red threes never melded; black threes only going out",
    "C-CAN-1": "canasta: seven or more cards; natural 500, mixed 300",
    "C-CAN-2": "a canasta may still grow",
    "C-RED-1": "red threes laid down and replaced",
    "C-RED-2": "red threes 100 each, 800 for four",
    "C-RED-3": "red threes count minus without a meld",
    "C-BLK-1": "a black three on top stops the next player",
    "C-PILE-1": "taking the pile: meld the top card at once",
    "C-FRZ-1": "a wild card or red three freezes the pile",
    "C-FRZ-2": "frozen for a team that has not melded",
    "C-FRZ-3": "taking the pile unfreezes it",
    "C-PILE-2": "never taken under a black three or a wild card",
    "C-PILE-3": "a frozen pile needs a natural pair",
    "C-PILE-4": "an unfrozen pile: pair, natural and wild, or onto a meld",
    "C-PILE-5": "one card in hand may not take a one-card pile",
    "C-PILE-6": "taking the pile for the first meld meets the minimum",
    "C-MIN-1": "first-meld minimum from the cumulative score",
    "C-MIN-2": "only card values count; the pile's top card only",
    "C-MIN-3": "no minimum after the team has gone down",
    "C-MIN-4": "the first meld is judged as a whole",
    "C-OUT-1": "going out needs a canasta (two with two players)",
    "C-OUT-2": "going out: meld all, or all but one and discard",
    "C-OUT-3": "going out concealed: 200",
    "C-OUT-4": "black threes only when going out",
    "C-OUT-5": "a player who may not go out keeps a card",
    "C-ASK-1": "Partner, may I go out?",
    "C-END-1": "the hand ends when a player goes out",
    "C-END-2": "an empty stock ends the hand",
    "C-SCORE-1": "a team's hand score",
    "C-SCORE-2": "the worked scoring example",
    "C-GAME-1": "game to 5,000",
    "C-TWO-1": "two players: 15 cards each",
    "C-TWO-2": "two players: draw two",
    "C-TWO-3": "two players: two canastas to go out",
    # Hand and Foot (hand-and-foot.md)
    "H-DECK-1": "four players in partnerships",
    "H-DECK-2": "five 54-card decks, 270 cards; jokers and 2s wild",
    "H-DEAL-1": "a hand and a foot of 13 cards each",
    "H-GAME-1": "four rounds; the higher total wins",
    "H-MELD-1": "3 to 7 cards of one rank, 4 to A",
    "H-MELD-2": "twice as many naturals as wilds, or wild cards only",
    "H-MELD-3": "seven cards make a clean, dirty or wild pile",
    "H-MELD-4": "one incomplete meld of a rank",
    "H-TURN-1": "draw two, or take the top seven of the pile",
    "H-PILE-1": "taking the pile: a natural pair of the top card",
    "H-PILE-2": "never taken under a three",
    "H-TURN-2": "meld, then discard one card",
    "H-FOOT-1": "the foot when the hand is used up",
    "H-MIN-1": "first meld: 50, 90, 120, 150",
    "H-MIN-2": "only card values count towards the minimum",
    "H-RED-1": "red threes: 100 each, minus 100 left over",
    "H-BLK-1": "black threes never melded; they stop the pile",
    "H-OUT-1": "going out: 2 clean, 2 dirty, 1 wild pile, partner in the foot",
    "H-OUT-2": "no running out of cards before that",
    "H-OUT-3": "the partner always agrees",
    "H-END-1": "an empty stock ends the round",
    "H-VAL-1": "card values; melded for, left against",
    "H-SCORE-1": "pile and going-out bonuses",
}

#: code -> (rule ids it is given with, names of its facts)
REASONS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "hand_over": (("C-END-1", "C-END-2", "H-END-1", "H-OUT-1"), ("how", "seat")),
    "game_over": (("C-GAME-1", "H-GAME-1"), ("team", "score")),
    "draw_first": (("C-TURN-1", "H-TURN-1"), ()),
    "already_drew": (("C-TURN-1", "H-TURN-1"), ()),
    "pile_empty": (("C-TURN-1", "H-TURN-1"), ()),
    "await_answer": (("C-ASK-1",), ("seat",)),
    "no_question": (("C-ASK-1",), ()),
    "ask_off": (("C-ASK-1",), ("why",)),
    "already_asked": (("C-ASK-1",), ()),
    "ask_before_melding": (("C-ASK-1",), ()),
    "partner_said_no": (("C-ASK-1", "H-OUT-3"), ("cards_left",)),
    "not_in_hand": (("C-TURN-2", "C-TURN-3", "C-PILE-1", "H-TURN-2", "H-PILE-1"), ("cards",)),
    "no_cards": (("C-MELD-1", "H-MELD-1"), ()),
    "too_few": (("C-MELD-1", "H-MELD-1"), ("count", "cards")),
    "mixed_ranks": (("C-MELD-1", "H-MELD-1"), ("ranks",)),
    "wrong_rank": (("C-MELD-1", "H-MELD-1"), ("rank", "cards")),
    "all_wild": (("C-MELD-2",), ("cards",)),
    "needs_two_naturals": (("C-MELD-2",), ("rank", "naturals", "wilds")),
    "too_many_wilds": (("C-MELD-2",), ("rank", "naturals", "wilds", "max_wilds")),
    "two_naturals_per_wild": (("C-MELD-2",), ("rank", "naturals", "wilds")),
    "rank_already_melded": (("C-MELD-3", "H-MELD-4"), ("rank", "set_aside")),
    "no_such_meld": (("C-MELD-3", "H-MELD-4"), ("rank", "set_aside")),
    "red_three_meld": (("C-MELD-4", "H-RED-1"), ()),
    "black_threes_no_wilds": (("C-OUT-4",), ()),
    "black_threes_only_going_out": (("C-OUT-4",), ()),
    "black_three_on_top": (("C-BLK-1", "H-PILE-2"), ()),
    "wild_on_top": (("C-PILE-2", "H-PILE-1"), ("card",)),
    "red_three_on_top": (("C-MELD-4", "H-RED-1"), ("card",)),
    "one_card_one_pile": (("C-PILE-5",), ()),
    "frozen_needs_pair": (
        ("C-PILE-3",),
        ("frozen_by", "rank", "naturals_held", "jokers_held", "twos_held", "offered"),
    ),
    "take_needs_pair_or_meld": (
        ("C-PILE-4",),
        ("rank", "naturals_held", "jokers_held", "twos_held", "offered"),
    ),
    "below_minimum": (("C-MIN-4", "C-PILE-6", "H-MIN-1", "H-PILE-1"), ("needed", "have")),
    "need_canasta": (("C-OUT-1",), ("canastas", "needed")),
    "keep_a_card": (("C-OUT-5",), ("canastas", "needed", "cards_left")),
    "lay_down_classic": (("C-MIN-4",), ()),
    # Hand and Foot only:
    "pile_full": (("H-MELD-3",), ("rank", "count")),
    "pile_complete": (("H-MELD-3",), ("rank",)),
    "wild_ratio": (("H-MELD-2",), ("rank", "naturals", "wilds")),
    "wild_meld_naturals": (("H-MELD-2",), ("cards",)),
    "black_three_meld": (("H-BLK-1",), ()),
    "take_needs_pair": (("H-PILE-1",), ("rank", "naturals_held", "offered")),
    "already_down": (("H-MIN-1",), ()),
    "nothing_set_aside": (("H-MIN-1",), ("needed",)),
    "need_piles": (
        ("H-OUT-1",),
        ("clean", "dirty", "wild", "needed_clean", "needed_dirty", "needed_wild"),
    ),
    "keep_a_card_piles": (
        ("H-OUT-2",),
        ("clean", "dirty", "wild", "needed_clean", "needed_dirty", "needed_wild", "cards_left"),
    ),
    "partner_not_in_foot": (("H-OUT-1",), ("seat", "cards_left")),
    # Notes on legal moves (not refusals):
    "set_aside": (("C-MIN-4", "H-MIN-1"), ("needed", "have")),
}

#: Values ``frozen_by`` takes in ``frozen_needs_pair``.
FROZEN_BY: Final = ("wild", "red_three", "black_three", "first_meld")

#: Score line codes (``scoring.ScoreLine.code``) with their facts.
SCORE_LINES: Final[dict[str, tuple[str, ...]]] = {
    "canastas_natural": ("count",),
    "canastas_mixed": ("count",),
    "red_threes": ("count",),
    "red_threes_unmelded": ("count",),
    "going_out": (),
    "going_out_concealed": (),
    "melded_cards": (),
    "cards_in_hand": (),
    "ask_penalty": (),
    # Hand and Foot
    "piles_clean": ("count",),
    "piles_dirty": ("count",),
    "piles_wild": ("count",),
    "red_threes_left": ("count",),
    "cards_in_hand_foot": (),
}
