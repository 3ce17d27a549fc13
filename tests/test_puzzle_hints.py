"""Every puzzle hint says what to do and why (issue 19), in all four languages.

The learner walkthrough found hints with no reason ("Now discard a king.") and a hint that
proposed a discard while the puzzle said "meld if you can" (lesson 10, puzzle 5). Here every
puzzle of the course whose answer is a move is played by following its hints only: each hint
names one legal move (the move is found from the hint's first sentence, as a learner reads
it), something follows that sentence, the words after it are the move's why (a ``hint.why.*``
sentence or one of the engine's checked facts about the move, ``bots.claims``), and the puzzle
ends solved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from canasta_teach.bots.claims import Claim, claims_for
from canasta_teach.engine import Add, AskPartner, Discard, Draw, Meld, Move, State, TakePile
from canasta_teach.engine.cards import TOKENS
from canasta_teach.i18n import get_translator
from canasta_teach.i18n.translator import Translator
from canasta_teach.widgets import CardTable, PuzzleGame, play
from canasta_teach.widgets.puzzles import load_set

REPO = Path(__file__).resolve().parents[1]
PUZZLES = REPO / "lessons" / "puzzles"
LANGS = ("en", "ur", "hi", "te")
#: Goals answered by moves on the table (the others are answered with buttons of the panel).
MOVE_GOALS = ("turn", "first_meld", "go_out", "pile")
#: Every "why" sentence a hint may use besides the engine's facts.
WHY_KEYS = ("hint.why.draw", "hint.why.draw_no_take", "hint.why.take", "hint.why.discard",
            "hint.why.ask", "hint.why.meld_more")  # fmt: skip


def move_puzzles() -> list[tuple[str, str]]:
    out = []
    for folder in sorted(PUZZLES.iterdir()):
        if folder.name.startswith("_") or not (folder / "set.toml").is_file():
            continue
        for puzzle in load_set(folder).puzzles:
            if puzzle.goal in MOVE_GOALS:
                out.append((folder.name, puzzle.name))
    return out


def open_puzzle(name: str, file: str, lang: str) -> tuple[CardTable, PuzzleGame, int]:
    widget = play(name, lang=lang, start=REPO / "lessons" / lang)
    assert isinstance(widget, CardTable), widget
    game = widget.game_controller
    index = next(i for i, p in enumerate(game.set.puzzles) if p.name == file)
    game.load(index)
    return widget, game, index


def step_words(tr: Translator, state: State, move: Move) -> str:
    """The first sentence of a hint that proposes ``move``."""
    if isinstance(move, Draw):
        return tr.ui("hint.step.draw_two" if state.players == 2 else "hint.step.draw")
    if isinstance(move, TakePile):
        return tr.ui("hint.step.take")
    if isinstance(move, Meld):
        return tr.ui("hint.step.meld", cards=tr.cards([TOKENS[k] for k in move.cards]))
    if isinstance(move, Add):
        return tr.ui("hint.step.add", cards=tr.cards([TOKENS[k] for k in move.cards]))
    if isinstance(move, Discard):
        return tr.ui("hint.step.discard", card=tr.card(TOKENS[move.card]))
    return tr.ui("hint.step.ask")


def why_sentences(tr: Translator, state: State, move: Move) -> set[str]:
    """Every sentence that may explain ``move``: the hint's own reasons and the engine's facts
    about the move in the learner's voice."""
    said = {tr.ui(key) for key in WHY_KEYS}
    if state.pile_top is not None:
        said.add(tr.ui("hint.why.take_onto_meld", rank_of=tr.card_of(TOKENS[state.pile_top])))
    facts = [*claims_for(state, state.current, move), Claim("can_go_out")]
    said |= {tr.claim(c.to_dict(), "you") for c in facts}
    return said


def send(game: PuzzleGame, move: Move) -> None:
    """The move as the learner's buttons send it."""
    cards = [TOKENS[k] for k in getattr(move, "cards", ())]
    if isinstance(move, Draw):
        game.controller.intent({"action": "draw"})
    elif isinstance(move, TakePile):
        game.controller.intent({"action": "take", "cards": cards})
    elif isinstance(move, Meld):
        game.controller.intent({"action": "meld", "cards": cards})
    elif isinstance(move, Add):
        game.controller.intent({"action": "add", "rank": TOKENS[move.rank], "cards": cards})
    elif isinstance(move, Discard):
        game.controller.intent({"action": "discard", "cards": [TOKENS[move.card]]})
    else:
        assert isinstance(move, AskPartner), move
        game.controller.intent({"action": "ask"})


def hinted(widget: CardTable, game: PuzzleGame, tr: Translator) -> tuple[Move, str, str]:
    """Press Hint: the move it proposes (read from its first sentence), that sentence, and the
    words after it."""
    game.controller.intent({"action": "game", "id": "hint"})
    hint = widget.game["hint"]
    state = game.controller.state
    named = [m for m in state.legal_moves() if hint.startswith(step_words(tr, state, m) + " ")]
    assert named, f"the hint names no legal move: {hint!r}"
    move = named[0]
    step = step_words(tr, state, move)
    return move, step, hint[len(step) + 1 :]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("name", "file"), move_puzzles())
def test_following_the_hints_solves_the_puzzle_and_each_says_why(
    name: str, file: str, lang: str
) -> None:
    tr = get_translator(lang)
    widget, game, index = open_puzzle(name, file, lang)
    for _ in range(10):
        if index in game.solved:
            break
        state = game.controller.state.copy()
        move, step, why = hinted(widget, game, tr)
        assert why.strip(), f"{file}: “{step}” and no why"
        assert "{" not in why and "}" not in why, why
        allowed = why_sentences(tr, state, move)
        rest = why
        while rest:  # the words after the step are reasons, one after the other
            said = next((s for s in sorted(allowed, key=len, reverse=True)
                         if rest.startswith(s)), None)  # fmt: skip
            assert said is not None, f"{file}: not a reason for {move}: {rest!r}"
            rest = rest[len(said) :].lstrip()
        send(game, move)
    assert index in game.solved, (file, widget.message)


@pytest.mark.parametrize(
    ("name", "file", "meld"),
    [
        ("review", "05-canasta-first.txt", "7 7 7"),  # lesson 10, puzzle 5
        ("go-out", "07-no-canasta-yet.txt", "Q Q Q"),
        ("two-players", "03-one-canasta-is-not-enough.txt", "Q Q Q"),
    ],
)
def test_a_turn_that_says_meld_if_you_can_is_hinted_a_meld_before_the_discard(
    name: str, file: str, meld: str
) -> None:
    tr = get_translator("en")
    widget, game, _index = open_puzzle(name, file, "en")
    assert "meld if you can" in widget.game["prompt"]
    assert any(isinstance(m, Discard) for m in game.controller.state.legal_moves())
    move, step, _why = hinted(widget, game, tr)
    assert isinstance(move, Meld), widget.game["hint"]
    assert step == tr.ui("hint.step.meld", cards=tr.cards(meld.split()))


def test_the_hinted_discard_does_not_feed_the_other_team() -> None:
    # Lesson 7, puzzle 6: after the partner's no, South keeps a card: the 8 would let West add
    # the top card to East-West's 8s and take the pile; the hint proposes a queen.
    tr = get_translator("en")
    widget, game, _index = open_puzzle("go-out", "06-ask-no.txt", "en")
    game.controller.intent({"action": "ask"})
    move, _step, why = hinted(widget, game, tr)
    assert isinstance(move, Discard) and TOKENS[move.card] == "Q"
    state = game.controller.state
    eight = next(m for m in state.legal_moves() if isinstance(m, Discard) and TOKENS[m.card] == "8")
    assert "gives_pile" in {c.key for c in claims_for(state, state.current, eight)}
    assert why.startswith(tr.ui("hint.why.discard"))


def test_a_meld_of_black_threes_is_not_said_to_grow_into_a_canasta() -> None:
    # Black threes are melded only to go out (C-OUT-4) and never make a canasta.
    tr = get_translator("en")
    widget, game, index = open_puzzle("threes", "04-black-threes-go-out.txt", "en")
    seen = False
    while index not in game.solved:
        move, _step, why = hinted(widget, game, tr)
        if isinstance(move, Meld) and TOKENS[move.cards[0]] == "3B":
            seen = True
            assert "canasta" not in why, why
        send(game, move)
    assert seen
