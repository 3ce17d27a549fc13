"""Recompile every ``.po`` catalog under ``canasta_teach/i18n/locale`` into its ``.mo``.

    python -m canasta_teach.i18n.compile                  # rewrite every stale .mo
    python -m canasta_teach.i18n.compile --domain engine  # only the engine catalogs
    python -m canasta_teach.i18n.compile --check          # exit 1 if any .mo is stale
    python -m canasta_teach.i18n.compile --english-comments  # "#. en:" comments from English

A ``.mo`` whose contents already match its ``.po`` is left alone (``--force`` rewrites it),
so recompiling one domain never touches the bytes of another owner's files.

The compiled ``.mo`` files are committed so that the package needs no Babel at run time;
this script (and ``tests/test_i18n_catalogs.py``) keeps them true to their ``.po`` sources.
Babel is a development dependency only, so it is imported here, never by the package.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

LOCALE_DIR = Path(__file__).with_name("locale")


def po_files(locale_dir: Path = LOCALE_DIR, domain: str = "*") -> Iterator[Path]:
    yield from sorted(locale_dir.glob(f"*/LC_MESSAGES/{domain}.po"))


def compile_po(po_path: Path) -> bytes:
    """The ``.mo`` bytes for one ``.po`` file (fuzzy entries left out, as msgfmt does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path.open("rb") as handle:
        catalog = read_po(handle)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def _frozen(value: object) -> object:
    """Plural ids and strings come back from ``read_mo`` as lists; make them comparable."""
    return tuple(value) if isinstance(value, (list, tuple)) else value


def catalog_contents(mo_bytes: bytes) -> dict[object, object]:
    """A compiled catalog as {msgid: msgstr}, plural entries as tuples, header included.

    Comparing contents rather than bytes keeps the staleness check independent of how
    a Babel version orders or pads the file."""
    from babel.messages.mofile import read_mo

    catalog = read_mo(io.BytesIO(mo_bytes))
    contents: dict[object, object] = {_frozen(m.id): _frozen(m.string) for m in catalog if m.id}
    contents["<header>"] = sorted(
        (k, v) for k, v in catalog.mime_headers if k.lower() in ("language", "plural-forms")
    )
    return contents


def stale(po_path: Path) -> bool:
    mo_path = po_path.with_suffix(".mo")
    if not mo_path.exists():
        return True
    return catalog_contents(mo_path.read_bytes()) != catalog_contents(compile_po(po_path))


def english_texts(locale_dir: Path, domain: str) -> dict[str, str]:
    """Key -> the English text as a translator's ``#. en:`` comment shows it (plural
    entries as "one | other")."""
    from babel.messages.pofile import read_po

    with (locale_dir / "en" / "LC_MESSAGES" / f"{domain}.po").open("rb") as handle:
        catalog = read_po(handle)
    texts: dict[str, str] = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
        string = message.string
        # A plural entry's string is a tuple; an entry never translated has None (Babel's type).
        texts[key] = " | ".join(string) if isinstance(string, (list, tuple)) else string or ""
    return texts


def with_english_comments(po_path: Path, locale_dir: Path = LOCALE_DIR) -> str:
    """The text of a translated ``.po`` with each ``#. en:`` comment set to the English
    entry of the same key, so a translator never works from a stale English sentence."""
    english = english_texts(locale_dir, po_path.stem)
    lines = po_path.read_text(encoding="utf-8").split("\n")
    for index, line in enumerate(lines):
        if not line.startswith("#. en: "):
            continue
        for following in lines[index + 1 :]:
            if following.startswith("msgid "):
                key = following[len('msgid "') : -1]
                if key in english:
                    lines[index] = "#. en: " + english[key].replace("\n", " ")
                break
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m canasta_teach.i18n.compile",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    parser.add_argument("--check", action="store_true", help="only report stale catalogs")
    parser.add_argument("--force", action="store_true", help="rewrite up-to-date catalogs too")
    parser.add_argument("--domain", default="*", help="only this domain (engine, ui)")
    parser.add_argument("--locale-dir", type=Path, default=LOCALE_DIR)
    parser.add_argument("--english-comments", action="store_true",
                        help="first refresh the '#. en:' comments from English")  # fmt: skip
    args = parser.parse_args(argv)
    bad = 0
    if args.english_comments:
        for po_path in po_files(args.locale_dir, args.domain):
            if po_path.parent.parent.name == "en":
                continue
            text = with_english_comments(po_path, args.locale_dir)
            if text != po_path.read_text(encoding="utf-8"):
                po_path.write_text(text, encoding="utf-8")
                print(f"refreshed the English comments of {po_path}")
    for po_path in po_files(args.locale_dir, args.domain):
        mo_path = po_path.with_suffix(".mo")
        if not args.force and not stale(po_path):
            continue
        if args.check:
            print(f"stale: {mo_path}")
            bad += 1
            continue
        mo_path.write_bytes(compile_po(po_path))
        print(f"compiled {po_path} -> {mo_path.name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
