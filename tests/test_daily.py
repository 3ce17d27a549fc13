"""The daily deal: the same deals for everyone on a given day, on every machine (issue 9).

The golden deals below were dealt once from ``daily_seed``; they pin the seed's text, the
hashing of text seeds and SplitMix64's shuffle, so a change to any of them (which would give
learners on different versions different "daily" deals) fails here.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

from canasta_teach.engine import CLASSIC2, CLASSIC4
from canasta_teach.engine.cards import format_cards, kinds_of
from canasta_teach.engine.game import Game, daily_seed

DAY = date(2026, 12, 1)


def hands(game: Game) -> list[str]:
    return [format_cards(kinds_of(h)) for h in game.state.hands]


def test_the_daily_deal_is_the_same_everywhere() -> None:
    assert daily_seed(DAY) == "daily/classic4/2026-12-01"
    four = Game(CLASSIC4, daily_seed(DAY))
    assert hands(four) == [
        "A A A Q Q J J 7 7 5 JK",
        "K J 10 9 8 8 7 7 5 4 2",
        "A K 9 9 8 8 7 6 3R JK JK",
        "K K K Q J 10 9 6 6 3R 2",
    ]
    two = Game(CLASSIC2, daily_seed(DAY, "classic2"))
    assert hands(two) == [
        "A Q J J J 10 10 9 9 8 6 5 4 2 2",
        "Q 10 10 9 8 7 6 5 4 3B 3B 2 2 JK JK",
    ]


def test_each_day_and_variant_has_its_own_deal_and_today_is_utc() -> None:
    seeds = {daily_seed(date(2026, 12, d)) for d in range(1, 29)}
    assert len(seeds) == 28
    deals = {tuple(hands(Game(CLASSIC4, s))) for s in seeds}
    assert len(deals) == 28
    assert daily_seed(DAY, "classic2") != daily_seed(DAY)
    today = datetime.now(timezone.utc).date()
    assert daily_seed() in {daily_seed(today), daily_seed(datetime.now(timezone.utc).date())}
    # The whole game follows from the seed: replaying its record gives the same state.
    game = Game(CLASSIC4, daily_seed(DAY))
    game.apply(game.state.legal_moves()[0])
    again = Game.replay(CLASSIC4, daily_seed(DAY), list(game.moves))
    assert again.state.snapshot() == game.state.snapshot()
