"""Card pictures for the lessons' prose: a row of cards as self-contained HTML.

A lesson says more with three kings drawn than with ``K K K``.  The pictures are the table's
own card art as ``<img>`` elements with ``data:`` URIs, so they show the same in Voilà, in
JupyterLab, on Binder and in a notebook opened offline, and need no file server.  Each card
carries its name in the lesson's language as ``alt`` text (screen readers, and readers who
turn images off), and the row says in words which cards it shows.

    python -m canasta_teach.widgets.pictures ur "K K K | 9 10 J"

prints the HTML for a lesson cell; ``tests/test_lessons.py`` checks that every picture in a
lesson is exactly what this module draws for its cards, in the lesson's language.
"""

from __future__ import annotations

import base64
import html
import re
import sys
from functools import cache

from canasta_teach.engine.cards import TOKENS

from .cardart import BACK_TOKEN, HEIGHT, WIDTH, card_svg, suit_for

#: The marker a picture row carries (its cards, in notation), so tests can find and redraw it.
MARKER = "data-ct-cards"
PICTURE = re.compile(r'<p class="ct-cards" data-ct-cards="([^"]*)"[^>]*>.*?</p>', re.S)
_TOKEN_ALIASES = {"T": "10", "JOKER": "JK"}
CARD_WIDTH = 46
CARD_HEIGHT = round(CARD_WIDTH * HEIGHT / WIDTH)  # the card art's proportions


@cache
def _data_uri(token: str, suit: str | None) -> str:
    svg = card_svg(token, suit).encode("utf-8")
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def parse_groups(text: str) -> list[list[str]]:
    """ "K K K | 9 10 J" -> [["K", "K", "K"], ["9", "10", "J"]] (raises ``ValueError``).

    ``back`` is a card seen from the back (the stock)."""
    groups = []
    for part in text.split("|"):
        tokens = [_TOKEN_ALIASES.get(t.upper(), t.upper()) for t in part.split()]
        tokens = [BACK_TOKEN if t == BACK_TOKEN.upper() else t for t in tokens]
        if not tokens:
            raise ValueError(f"an empty group of cards in {text!r}")
        unknown = [t for t in tokens if t not in TOKENS and t != BACK_TOKEN]
        if unknown:
            raise ValueError(f"not cards: {', '.join(unknown)}")
        groups.append(tokens)
    return groups


def cards_html(text: str, lang: str) -> str:
    """The picture row for ``text`` ("K K K | 9 10 J") in language ``lang``."""
    from canasta_teach.i18n import get_translator

    from .table import spoken_card_name

    tr = get_translator(lang)
    groups = parse_groups(text)

    def name(token: str) -> str:
        return tr.ui("table.card_back") if token == BACK_TOKEN else spoken_card_name(tr, token)

    def group_label(group: list[str]) -> str:
        if BACK_TOKEN in group:
            return ", ".join(name(token) for token in group)
        return tr.cards(group)

    spans = []
    for group in groups:
        seen: dict[str, int] = {}
        suits = []
        for token in group:  # each copy in a row gets its own suit, as on the table
            suits.append(suit_for(token, seen.get(token, 0)))
            seen[token] = seen.get(token, 0) + 1
        # loading="lazy": a picture far below the screen is not decoded while the page opens
        # (an SVG picture is a small document of its own: the 42 of a long lesson cost about
        # 60 ms of the browser's main thread before its game could be drawn, issue 22); the
        # height keeps its place, so nothing moves when it arrives.
        images = "".join(
            f'<img src="{_data_uri(token, suit)}" alt="{html.escape(name(token))}" '
            f'width="{CARD_WIDTH}" height="{CARD_HEIGHT}" loading="lazy" decoding="async" '
            f'style="margin: 0 1px; vertical-align: middle;">'
            for token, suit in zip(group, suits, strict=True)
        )
        spans.append(f'<span style="display: inline-block; margin: 0 10px 4px 0;">{images}</span>')
    label = " · ".join(group_label(group) for group in groups)
    canonical = " | ".join(" ".join(group) for group in groups)
    # The cards run left to right in every language (a run of cards is not text), but in a
    # right-to-left page the row keeps to the reader's side, the right.
    align = ' style="text-align: right;"' if tr.direction == "rtl" else ""
    return (
        f'<p class="ct-cards" {MARKER}="{canonical}" dir="ltr"{align} role="img" '
        f'aria-label="{html.escape(label)}">' + "".join(spans) + "</p>"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m canasta_teach.widgets.pictures LANG 'K K K | 9 10 J'")
        return 2
    try:
        print(cards_html(args[1], args[0]))
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
