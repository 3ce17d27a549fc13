"""The project's own card art: one SVG per card kind, drawn here in code.

Canasta tells cards apart only by kind (``engine.cards.TOKENS``), so there are 15 faces and a
back.  The art is generated (not loaded from files) so that an installed package carries it;
``assets/cards/*.svg`` holds the same markup for designers and the docs, and a test keeps the
two identical (``python -m canasta_teach.widgets.cardart assets/cards`` rewrites them).

The widget inlines this markup into the page: Voilà serves files under the notebook folder
only, and an inline SVG needs no extra request.  The SVGs carry no ids (several copies of a
card share one page) and no words: every card's name reaches the learner as translated text
beside it.  Red and black threes differ in shape (a diamond; a stop octagon), not only colour.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Final

from canasta_teach.engine.cards import TOKENS

WIDTH: Final = 60
HEIGHT: Final = 84
INK: Final = "#1d2b45"
RED: Final = "#b71c1c"
GOLD: Final = "#b8860b"
BACK_TOKEN: Final = "back"

_FRAME = (
    f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" rx="5" ry="5" '
    'fill="#fffdf7" stroke="#6b6b6b" stroke-width="1.2"/>'
)


def _open(extra: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" aria-hidden="true" focusable="false"{extra}>'
    )


def _index(text: str, colour: str) -> str:
    """The rank in the top-left corner and, upside down, in the bottom-right one."""
    size = 11 if len(text) > 1 else 13
    corner = (
        f'<text x="6" y="15" font-family="DejaVu Sans, Arial, sans-serif" font-size="{size}" '
        f'font-weight="700" fill="{colour}">{text}</text>'
    )
    return corner + f'<g transform="rotate(180 {WIDTH / 2} {HEIGHT / 2})">{corner}</g>'


def _centre_text(text: str, colour: str, size: int = 26, y: int = 52) -> str:
    return (
        f'<text x="{WIDTH / 2}" y="{y}" text-anchor="middle" '
        f'font-family="DejaVu Sans, Arial, sans-serif" font-size="{size}" font-weight="700" '
        f'fill="{colour}">{text}</text>'
    )


def _star(cx: float, cy: float, r: float, colour: str) -> str:
    """A five-pointed star: the mark of a wild card."""
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = math.pi / 2 + i * math.pi / 5
        points.append(f"{cx + radius * math.cos(angle):.1f},{cy - radius * math.sin(angle):.1f}")
    return f'<polygon points="{" ".join(points)}" fill="{colour}"/>'


def _crown(points: int) -> str:
    """A crown for the face cards: 3 points for J, 4 for Q, 5 for K."""
    left, right, base, top = 16, 44, 40, 22
    step = (right - left) / (points - 1)
    path = [f"M{left},{base}"]
    for i in range(points):
        x = left + i * step
        path.append(f"L{x:.1f},{top}")
        if i < points - 1:
            path.append(f"L{x + step / 2:.1f},{top + 9}")
    path.append(f"L{right},{base}Z")
    return (
        f'<path d="{" ".join(path)}" fill="{GOLD}" stroke="{INK}" stroke-width="1.2"/>'
        f'<rect x="{left}" y="{base}" width="{right - left}" height="4" fill="{INK}"/>'
    )


#: The four suits, drawn as shapes (no font needed): spades, hearts, diamonds, clubs.  The
#: engine ignores suits (only threes have a colour that matters); the table shows them so the
#: cards look like the cards on a real table, each copy of a card with a suit of its own.
SUITS: Final = ("S", "H", "D", "C")
RED_SUITS: Final = frozenset({"H", "D"})
_SUIT_SHAPES: Final = {
    "H": '<path d="M5,9.2 C2.6,7.4 0,5.4 0,3 C0,1.3 1.3,0 3,0 C4,0 4.7,0.6 5,1.5 C5.3,0.6 6,0 '
    '7,0 C8.7,0 10,1.3 10,3 C10,5.4 7.4,7.4 5,9.2 Z"/>',
    "D": '<path d="M5,0 L9,5 L5,10 L1,5 Z"/>',
    "S": '<path d="M5,0 C3.5,2 0,4 0,6.4 C0,8 1.2,9 2.6,9 C3.5,9 4.2,8.6 4.6,8 L4,10 L6,10 '
    'L5.4,8 C5.8,8.6 6.5,9 7.4,9 C8.8,9 10,8 10,6.4 C10,4 6.5,2 5,0 Z"/>',
    "C": '<circle cx="5" cy="2.7" r="2.5"/><circle cx="2.5" cy="6.3" r="2.5"/>'
    '<circle cx="7.5" cy="6.3" r="2.5"/><path d="M4.4,6 L3.6,10 L6.4,10 L5.6,6 Z"/>',
}


#: Drawing "in any suit": a face drawn once with these two marks for the suit's colour and
#: shape, filled in per suit (here, and by the page from the same template: one face per
#: kind crosses the wire instead of one per suit).
TEMPLATE: Final = "*"
COLOUR_MARK: Final = "%C%"
SHAPE_MARK: Final = "%S%"


def suit_colour(suit: str) -> str:
    if suit == TEMPLATE:
        return COLOUR_MARK
    return RED if suit in RED_SUITS else INK


def _suit(suit: str, x: float, y: float, size: float) -> str:
    """A suit shape ``size`` wide with its top-left corner at (x, y)."""
    shape = SHAPE_MARK if suit == TEMPLATE else _SUIT_SHAPES[suit]
    return (
        f'<g transform="translate({x:.1f},{y:.1f}) scale({size / 10:.2f})" '
        f'fill="{suit_colour(suit)}">{shape}</g>'
    )


def _corner_suit(suit: str) -> str:
    """The suit under the corner index, and upside down in the opposite corner."""
    mark = _suit(suit, 5.5, 18, 8)
    return mark + f'<g transform="rotate(180 {WIDTH / 2} {HEIGHT / 2})">{mark}</g>'


def _natural(token: str, suit: str | None = None) -> str:
    colour = suit_colour(suit) if suit else INK
    body = [_FRAME, _index(token, colour)]
    if suit:
        body.append(_corner_suit(suit))
    body.append(
        f'<rect x="13" y="19" width="{WIDTH - 26}" height="{HEIGHT - 38}" rx="3" fill="none" '
        f'stroke="{INK}" stroke-opacity="0.25"/>'
    )
    if token in ("J", "Q", "K"):
        body.append(_crown({"J": 3, "Q": 4, "K": 5}[token]))
        body.append(_centre_text(token, colour, size=16, y=60))
    elif suit:
        body.append(_centre_text(token, colour, size=20 if len(token) > 1 else 24, y=44))
        body.append(_suit(suit, WIDTH / 2 - 7, 49, 14))
    else:
        body.append(_centre_text(token, INK, size=24 if len(token) > 1 else 28))
    return "".join(body)


def _wild_two(suit: str | None = None) -> str:
    return "".join(
        [
            _FRAME,
            f'<rect x="4" y="4" width="{WIDTH - 8}" height="{HEIGHT - 8}" rx="4" fill="none" '
            f'stroke="{GOLD}" stroke-width="2.5"/>',
            _index("2", suit_colour(suit) if suit else INK),
            _corner_suit(suit) if suit else "",
            _star(WIDTH / 2, 34, 11, GOLD),
            _centre_text("2", suit_colour(suit) if suit else INK, size=20, y=66),
        ]
    )


def _joker() -> str:
    # A jester's cap: three curved points with bells, over a star.
    cap = (
        f'<path d="M14,50 Q18,26 30,22 Q42,26 46,50 Z" fill="#6a1b9a"/>'
        f'<path d="M14,50 Q10,34 6,30 M30,22 Q30,14 30,10 M46,50 Q50,34 54,30" '
        f'stroke="#6a1b9a" stroke-width="3" fill="none"/>'
        f'<circle cx="6" cy="29" r="3" fill="{GOLD}"/><circle cx="30" cy="9" r="3" fill="{GOLD}"/>'
        f'<circle cx="54" cy="29" r="3" fill="{GOLD}"/>'
        f'<rect x="13" y="50" width="34" height="5" rx="2" fill="{GOLD}"/>'
    )
    return "".join(
        [
            _FRAME,
            f'<rect x="4" y="4" width="{WIDTH - 8}" height="{HEIGHT - 8}" rx="4" fill="none" '
            f'stroke="{GOLD}" stroke-width="2.5"/>',
            cap,
            _star(WIDTH / 2, 40, 6, "#fffdf7"),
            _centre_text("JK", INK, size=13, y=72),
        ]
    )


def _red_three(suit: str | None = None) -> str:
    diamond = f'<polygon points="30,20 44,40 30,60 16,40" fill="{RED}"/>'
    return "".join(
        [
            _FRAME,
            _index("3", RED),
            _corner_suit(suit) if suit else "",
            diamond,
            _centre_text("3", "#fffdf7", size=20, y=47),
            f'<polygon points="30,64 35,70 30,76 25,70" fill="{RED}"/>',
        ]
    )


def _black_three(suit: str | None = None) -> str:
    # A stop octagon (C-BLK-1: a black three stops the next player).
    pts = []
    for i in range(8):
        angle = math.pi / 8 + i * math.pi / 4
        pts.append(f"{30 + 16 * math.cos(angle):.1f},{40 + 16 * math.sin(angle):.1f}")
    octagon = f'<polygon points="{" ".join(pts)}" fill="#111111"/>'
    return "".join(
        [
            _FRAME,
            _index("3", "#111111"),
            _corner_suit(suit) if suit else "",
            octagon,
            _centre_text("3", "#fffdf7", size=20, y=47),
            '<rect x="22" y="64" width="16" height="10" fill="#111111"/>',
        ]
    )


def _back() -> str:
    stripes = "".join(
        f'<line x1="{x}" y1="6" x2="{x - 30}" y2="78" stroke="#f2e6c9" stroke-width="2"/>'
        for x in range(18, 100, 8)
    )
    return "".join(
        [
            f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" rx="5" fill="#1f4e79" '
            'stroke="#6b6b6b" stroke-width="1.2"/>',
            f'<svg x="5" y="5" width="{WIDTH - 10}" height="{HEIGHT - 10}" '
            f'viewBox="5 5 {WIDTH - 10} {HEIGHT - 10}">{stripes}</svg>',
            f'<rect x="5" y="5" width="{WIDTH - 10}" height="{HEIGHT - 10}" rx="3" fill="none" '
            'stroke="#f2e6c9" stroke-width="1.5"/>',
        ]
    )


def suits_of(token: str) -> tuple[str, ...]:
    """The suits a card kind comes in: none for the joker and the back; hearts and diamonds
    for a red three, spades and clubs for a black one; all four for the rest."""
    if token in ("JK", BACK_TOKEN):
        return ()
    if token == "3R":
        return ("H", "D")
    if token == "3B":
        return ("S", "C")
    return SUITS


def suit_for(token: str, nth: int) -> str | None:
    """The suit shown on the ``nth`` copy of ``token`` in a row of cards: copies differ, and
    single cards of different ranks do too (the same rule in the page and in the lessons)."""
    suits = suits_of(token)
    if not suits:
        return None
    offset = TOKENS.index(token) if token in TOKENS else 0
    return suits[(nth + offset) % len(suits)]


def card_template(token: str) -> str:
    """A suited kind's face with the suit left open (``COLOUR_MARK``, ``SHAPE_MARK``)."""
    if not suits_of(token):
        raise KeyError(token)
    return _face(token, TEMPLATE)


def fill_template(template: str, suit: str) -> str:
    return template.replace(COLOUR_MARK, suit_colour(suit)).replace(SHAPE_MARK, _SUIT_SHAPES[suit])


def card_svg(token: str, suit: str | None = None) -> str:
    """The SVG markup of one card kind (a notation token such as ``7``, ``JK``, ``3R``), or
    of the card back (``"back"``), in ``suit`` when given.  Raises ``KeyError`` for anything
    else (or a suit the kind does not come in)."""
    if suit is not None and suit not in suits_of(token):
        raise KeyError(f"{token}:{suit}")
    if suit is not None:
        return fill_template(card_template(token), suit)
    return _face(token, None)


def _face(token: str, suit: str | None) -> str:
    if token == BACK_TOKEN:
        inner = _back()
    elif token == "JK":
        inner = _joker()
    elif token == "2":
        inner = _wild_two(suit)
    elif token == "3R":
        inner = _red_three(suit)
    elif token == "3B":
        inner = _black_three(suit)
    elif token in TOKENS:
        inner = _natural(token, suit)
    else:
        raise KeyError(token)
    return _open() + inner + "</svg>"


def all_card_art() -> dict[str, str]:
    """What the page draws cards with: every kind's plain face and the back, keyed by token;
    each suited kind's template (``"tpl:<token>"``); each suit's shape (``"shape:<suit>"``) and
    colour (``"colour:<suit>"``).  The page fills a template as ``fill_template`` does."""
    art = {token: card_svg(token) for token in (*TOKENS, BACK_TOKEN)}
    for token in TOKENS:
        if suits_of(token):
            art[f"tpl:{token}"] = card_template(token)
    for suit in SUITS:
        art[f"shape:{suit}"] = _SUIT_SHAPES[suit]
        art[f"colour:{suit}"] = suit_colour(suit)
    return art


def file_name(token: str) -> str:
    """The asset file name of a token (``3R`` -> ``3R.svg``)."""
    return f"{token}.svg"


def write_assets(folder: Path) -> list[Path]:
    """Write one SVG file per kind (and the back) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for token in (*TOKENS, BACK_TOKEN):
        svg = card_svg(token)
        path = folder / file_name(token)
        path.write_text(svg + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    for written_path in write_assets(Path(sys.argv[1] if len(sys.argv) > 1 else "assets/cards")):
        print(written_path)
