"""Write ``confusables.txt`` (beside this file): Unicode's confusable mappings (UTS #39), one
source code point to its prototype a line, for ``names.skeleton``.

Unicode's own ``confusables.txt`` cannot be downloaded where this project is built, but the
PyPI package ``confusable-homoglyphs`` (MIT, pure Python) ships every line of it, as a JSON file
that holds each mapping in both directions (``{char: [{"c": other, "n": name}, ...]}``, the
characters read from the comment of each line of ``confusables.txt``).  The direction comes
back because in ``confusables.txt`` every source is one code point mapped once, and a prototype
is never itself a source: a single character with two or more partners, or whose partner is
several characters, is a prototype or a source respectively; a pair of single characters that
only have each other is one mapping whose direction does not matter for comparing skeletons
(we take the lower code point as the prototype).

usage: pip download --no-deps confusable-homoglyphs==3.3.1 && unzip it, then
       python -m canasta_teach.leaderboard.make_confusables path/to/confusables.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUTPUT = Path(__file__).with_name("confusables.txt")
SOURCE = "confusable-homoglyphs 3.3.1 (confusables.json, from Unicode's security/confusables.txt)"
LRM = "\u200e"  # confusables.txt's comments wrap right-to-left characters in it


def _text(value: str) -> str:
    if len(value) > 1 and value.startswith(LRM) and value.endswith(LRM):
        return value[1:-1]
    return value


def mappings(partners: dict[str, list[str]]) -> dict[str, str]:
    """Source code point -> prototype, from the two-way table ``partners``."""
    mapping: dict[str, str] = {}
    for char, others in partners.items():
        if len(char) != 1:
            continue  # a prototype of several characters: its sources say where they go
        if len(others) >= 2:
            for other in others:  # ``char`` is a prototype; each partner is one of its sources
                if len(other) == 1:
                    mapping.setdefault(other, char)
            continue
        (other,) = others
        if len(other) > 1 or len(partners.get(other, [])) >= 2:
            mapping[char] = other  # ``char`` is the only kind of thing with one partner: a source
        elif other != char:
            low, high = sorted((char, other))
            mapping[high] = low
    return mapping


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    raw = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    partners = {
        _text(char): [_text(entry["c"]) for entry in entries] for char, entries in raw.items()
    }
    mapping = mappings(partners)
    lines = [
        "# UTS #39 confusables: a source code point, then its prototype's code points.",
        f"# From {SOURCE};",
        "# written by python -m canasta_teach.leaderboard.make_confusables (see its docstring).",
    ]
    for source in sorted(mapping, key=ord):
        proto = " ".join(f"{ord(c):04X}" for c in mapping[source])
        lines.append(f"{ord(source):04X}\t{proto}")
    OUTPUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(mapping)} mappings written to {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
