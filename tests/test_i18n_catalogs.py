"""The message catalogs: complete, translated, consistent, and compiled from their sources.

Reads the ``.po`` sources with Babel (a development dependency) and checks them against the
engine's registries, so a new reason code, score line, rule or card cannot ship without its
words in all four languages.
"""

from __future__ import annotations

import ast
import re
import shutil
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.reasons import FROZEN_BY, REASONS, RULES, SCORE_LINES
from canasta_teach.engine.state import Phase
from canasta_teach.i18n import LANGUAGES, LOCALE_DIR
from canasta_teach.i18n import compile as i18n_compile

REPO = Path(__file__).resolve().parents[1]
ENGINE_PO = {lang: LOCALE_DIR / lang / "LC_MESSAGES" / "engine.po" for lang in LANGUAGES}

#: Strings that are rightly the same in another language as in English: card ranks written
#: as digits (Telugu uses the digits the seed prints), and list punctuation.
SAME_AS_ENGLISH = {
    ("te", "list.comma"),
    ("te", "list.and"),  # "{first}, {last}": Telugu lists take commas, not మరియు
    ("hi", "list.comma"),
    ("te", "cli.replay_summary"),  # "{moves}; {hands}." is punctuation only
    *(("te", f"card.{d}.name") for d in ("4", "5", "6", "7", "8", "9", "10")),
}


def _load(lang: str) -> Catalog:
    with ENGINE_PO[lang].open("rb") as handle:
        return read_po(handle)


CATALOGS = {lang: _load(lang) for lang in LANGUAGES}


def _entries(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """msgid -> its msgstr forms (one for a plain entry, nplurals for a plural one)."""
    out: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
        forms = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        out[key] = tuple(forms)
    return out


ENTRIES = {lang: _entries(cat) for lang, cat in CATALOGS.items()}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def required_keys() -> set[str]:
    keys = {f"reason.{code}" for code in REASONS}
    keys |= {f"score.{code}" for code in SCORE_LINES}
    keys |= {f"rule.{rule}" for rule in RULES}
    keys |= {f"frozen_by.{value}" for value in FROZEN_BY}
    keys |= {f"seat.{s}" for s in "SWNE"} | {f"team.{t}" for t in ("NS", "EW", "S", "N")}
    keys |= {f"phase.{p.value}" for p in Phase}
    for token in TOKENS:
        keys |= {f"card.{token}", f"card.{token}.name", f"card.{token}.pl", f"card.{token}.of"}
    keys |= {f"num.{n}" for n in range(2, 11)}
    keys |= {"list.and", "list.comma", "list.or", "hold.none", "count.wild", "count.canasta",
             "error.unknown_language"}  # fmt: skip
    return keys


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_required_key_is_in_the_catalog(lang: str) -> None:
    missing = required_keys() - set(ENTRIES[lang])
    assert not missing, f"{lang} lacks {sorted(missing)}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogs_hold_the_same_keys_and_no_empty_string(lang: str) -> None:
    assert set(ENTRIES[lang]) == set(ENTRIES["en"])
    empty = [key for key, forms in ENTRIES[lang].items() if not all(f.strip() for f in forms)]
    assert not empty, f"{lang}: empty translations {empty}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_header_and_entries(lang: str) -> None:
    catalog = CATALOGS[lang]
    assert catalog.num_plurals == 2
    assert catalog.plural_expr.replace(" ", "") == "(n!=1)"
    for message in catalog:
        if message.pluralizable:
            assert len(message.string) == catalog.num_plurals, message.id


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_non_english_strings_are_translated(lang: str) -> None:
    same = [
        key
        for key, forms in ENTRIES[lang].items()
        if forms == ENTRIES["en"][key] and (lang, key) not in SAME_AS_ENGLISH
    ]
    assert not same, f"{lang}: still English: {same}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_script_of_each_language(lang: str) -> None:
    """A translation is written in its own script (a catalog pasted into the wrong language
    would otherwise pass every other check)."""
    ranges = {"ur": (0x0600, 0x06FF), "hi": (0x0900, 0x097F), "te": (0x0C00, 0x0C7F)}
    low, high = ranges[lang]
    for key, forms in ENTRIES[lang].items():
        english_words = re.sub(r"\{[a-z_0-9]+\}", "", " ".join(ENTRIES["en"][key]))
        if (lang, key) in SAME_AS_ENGLISH or not any(ch.isalpha() for ch in english_words):
            continue  # nothing to write in a script (digits, punctuation)
        letters = [ch for form in forms for ch in form if ch.isalpha()]
        native = [ch for ch in letters if low <= ord(ch) <= high]
        assert native, f"{lang} {key}: no {lang} script in {forms}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_placeholders_match_english(lang: str) -> None:
    for key, forms in ENTRIES["en"].items():
        theirs = ENTRIES[lang][key]
        assert len(theirs) == len(forms), key
        for index, (english, translated) in enumerate(zip(forms, theirs, strict=True)):
            assert _fields(translated) == _fields(english), (lang, key, index, translated)


def test_reason_variants_belong_to_engine_codes() -> None:
    """Variants (``reason.<code>.<variant>``) exist only for codes the engine has."""
    for key in ENTRIES["en"]:
        if key.startswith("reason."):
            assert key.split(".")[1] in REASONS, key


def test_no_stray_characters_in_templates() -> None:
    """Braces only as placeholders; Telugu's joiner marks never doubled or left as '~'."""
    for lang, entries in ENTRIES.items():
        for key, forms in entries.items():
            for form in forms:
                stripped = re.sub(r"\{[a-z_0-9]+\}", "", form)
                assert "{" not in stripped and "}" not in stripped, (lang, key, form)
                assert "~" not in form and "\u200c\u200c" not in form, (lang, key, form)
                assert form == form.strip() and "  " not in form, (lang, key, form)


# ---------------------------------------------------------------------- compiled catalogs


def all_po_files() -> list[Path]:
    return list(i18n_compile.po_files())


@pytest.mark.parametrize("po_path", all_po_files(), ids=lambda p: str(p.relative_to(LOCALE_DIR)))
def test_compiled_catalog_is_up_to_date(po_path: Path) -> None:
    """The committed .mo holds exactly what compiling its .po gives
    (fix: ``python -m canasta_teach.i18n.compile``)."""
    mo_path = po_path.with_suffix(".mo")
    assert mo_path.exists(), f"{mo_path} missing"
    committed = i18n_compile.catalog_contents(mo_path.read_bytes())
    fresh = i18n_compile.catalog_contents(i18n_compile.compile_po(po_path))
    assert committed == fresh, f"{mo_path} is stale"


def test_staleness_check_notices_an_edited_po(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR / "en", locale / "en")
    assert i18n_compile.main(["--check", "--locale-dir", str(locale)]) == 0
    po = locale / "en" / "LC_MESSAGES" / "engine.po"
    text = po.read_text(encoding="utf-8")
    edited = text.replace('msgstr "Meld"', 'msgstr "Meld now"', 1)
    assert edited != text
    po.write_text(edited, encoding="utf-8")
    assert i18n_compile.stale(po)
    assert i18n_compile.main(["--check", "--locale-dir", str(locale)]) == 1
    # Another domain whose .mo is up to date but not byte-for-byte what Babel would write
    # (another tool compiled it): recompiling leaves it alone.
    other_po = po.with_name("other.po")
    shutil.copy(LOCALE_DIR / "en" / "LC_MESSAGES" / "engine.po", other_po)
    other_mo = other_po.with_suffix(".mo")
    other_mo.write_bytes(i18n_compile.compile_po(other_po) + b"\0" * 8)
    assert not i18n_compile.stale(other_po)
    before = other_mo.read_bytes()
    assert i18n_compile.main(["--locale-dir", str(locale)]) == 0
    assert not i18n_compile.stale(po)
    assert other_mo.read_bytes() == before
    assert i18n_compile.main(["--domain", "other", "--force", "--locale-dir", str(locale)]) == 0
    assert other_mo.read_bytes() != before and not i18n_compile.stale(other_po)
    assert i18n_compile.main(["--check", "--domain", "engine", "--locale-dir", str(locale)]) == 0


def test_every_language_has_an_engine_catalog_and_nothing_else_unexpected() -> None:
    langs = {p.parent.parent.name for p in all_po_files()}
    assert set(LANGUAGES) <= langs
    assert langs <= set(LANGUAGES)


# ---------------------------------------------------------------------- the command line


def _cli_keys() -> dict[str, str | tuple[str, str]]:
    """Every ``_t(tr, "cli.x", "English default", ...)`` and ``_InputError("cli.x", ...)``
    of ``canasta_teach/cli.py``, with its English default (``_nt`` plural entries: both forms)."""
    tree = ast.parse((REPO / "canasta_teach" / "cli.py").read_text(encoding="utf-8"))
    found: dict[str, str | tuple[str, str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        args = node.args
        if node.func.id == "_t" and len(args) >= 3:
            key, default = args[1], args[2]
        elif node.func.id == "_InputError" and len(args) >= 2:
            key, default = args[0], args[1]
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(default, ast.Constant):
            found[key.value] = default.value
    # _nt(tr, key, n, one, other): a plural entry whose English forms are one and other.
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_nt":
            key, one, other = node.args[1], node.args[3], node.args[4]
            assert isinstance(key, ast.Constant) and isinstance(one, ast.Constant)
            assert isinstance(other, ast.Constant)
            found[key.value] = (one.value, other.value)
    # f"cli.ended_{end.how}" with its defaults in _ENDED.
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_ENDED" for t in node.targets
        ):
            for k, v in zip(node.value.keys, node.value.values, strict=True):  # type: ignore[attr-defined]
                found[f"cli.ended_{k.value}"] = v.value
    return found


@pytest.mark.skipif(not (REPO / "canasta_teach" / "cli.py").exists(), reason="no CLI yet")
def test_command_line_words_are_in_every_catalog_with_the_same_placeholders() -> None:
    keys = _cli_keys()
    assert keys, "found no translatable words in cli.py"
    for key, default in keys.items():
        for lang in LANGUAGES:
            assert key in ENTRIES[lang], f"{lang} lacks {key} ({default!r})"
            defaults = default if isinstance(default, tuple) else (default,)
            assert len(ENTRIES[lang][key]) == len(defaults), (lang, key, "plural or not")
            for text in ENTRIES[lang][key]:
                assert _fields(text) == _fields(defaults[0]), (lang, key, text)
        assert ENTRIES["en"][key] == defaults, f"English {key} differs from cli.py's default"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_project_glossary_lists_the_card_names_the_catalogs_use(lang: str) -> None:
    """docs/glossary.md is the reference for lesson writers: it must not drift from the
    words the engine actually prints."""
    glossary = (REPO / "docs" / "glossary.md").read_text(encoding="utf-8")
    for token in TOKENS:
        for form in ENTRIES[lang][f"card.{token}.name"] + ENTRIES[lang][f"card.{token}.of"]:
            assert form in glossary, f"{lang} {token}: {form!r} not in docs/glossary.md"


# ---------------------------------------------------------------------- notation and saves

_LOCATION = {"line", "column", "expected"}  # shown by the CLI itself, or English-only


def _error_sites(module: str, constructors: dict[str, int]) -> dict[str, list[set[str] | None]]:
    """code -> for each place the engine raises it, the facts a message may use (None when
    the facts cannot be read statically).  ``constructors`` maps a callable's name to the
    position of its ``code`` argument."""
    tree = ast.parse((REPO / "canasta_teach" / "engine" / module).read_text(encoding="utf-8"))
    sites: dict[str, list[set[str] | None]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in constructors or len(node.args) <= constructors[name]:
            continue
        code = node.args[constructors[name]]
        if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
            continue  # a helper passing its own parameter on
        facts: set[str] | None = set()
        has_token = name in ("_tok_error", "error", "key_error", "read_one")
        for keyword in node.keywords:
            if keyword.arg == "token":
                has_token = True
            elif keyword.arg == "params":
                value = keyword.value
                if isinstance(value, ast.Dict) and all(k is not None for k in value.keys):
                    facts |= {k.value for k in value.keys}  # type: ignore[union-attr]
                else:
                    facts = None
                    break
            elif keyword.arg is None:
                facts = None
                break
            elif keyword.arg not in _LOCATION:
                facts.add(keyword.arg)
        if facts is not None and has_token:
            facts.add("token")
        sites.setdefault(code.value, []).append(facts)
    return sites


#: The notation's raise sites: ``Tok.error``, ``Line.error`` and ``Line.key_error`` (code first),
#: ``read_one`` (code after the line), ``NotationError`` itself.
_NOTATION_CALLS = {"error": 0, "key_error": 0, "read_one": 1, "NotationError": 0}
NOTATION_SITES = _error_sites("notation.py", _NOTATION_CALLS)
# Hand and Foot positions (engine/handfoot_notation.py) raise the same kind of errors.
for _code, _facts in _error_sites("handfoot_notation.py", _NOTATION_CALLS).items():
    NOTATION_SITES.setdefault(_code, []).extend(_facts)
SAVE_SITES = _error_sites("savefile.py", {"SaveFileError": 0})


@pytest.mark.parametrize(
    ("prefix", "sites"), [("notation", NOTATION_SITES), ("save", SAVE_SITES)],
    ids=["notation", "save"],
)  # fmt: skip
def test_every_engine_input_error_has_a_message_that_fits_every_place_it_is_raised(
    prefix: str, sites: dict[str, list[set[str] | None]]
) -> None:
    assert len(sites) >= 10, "the scan found too few error codes"
    for code, facts_per_site in sites.items():
        key = f"{prefix}.{code}"
        assert key in ENTRIES["en"], f"no message for {key}"
        known = [facts for facts in facts_per_site if facts is not None]
        usable = set.intersection(*known) if known else {"token"}
        used = _fields(ENTRIES["en"][key][0])
        assert used <= usable, f"{key} uses {sorted(used - usable)}, not given everywhere"
    extra = {k for k in ENTRIES["en"] if k.startswith(prefix + ".")} - {
        f"{prefix}.{code}" for code in sites
    }
    assert not extra, f"messages for codes the engine no longer raises: {sorted(extra)}"


SHARED_GLOSSARY = REPO.parent / "shared" / "glossary.md"
#: Rows of the seeds' glossary whose terms the catalogs use as they stand, per language
#: (docs/glossary.md says where and why we chose other words).
SEED_ROWS = {
    "ur": ("red three", "black three", "wild card", "natural card", "natural pair", "joker",
           "deuce (2)", "ace", "stock", "turn", "team / partner"),
    "hi": ("red three", "black three", "wild card", "joker", "deuce (2)", "ace", "stock", "turn",
           "team / partner", "first meld / going down"),
    "te": ("natural pair", "wild card", "joker", "stock", "team / partner"),
}  # fmt: skip


@pytest.mark.skipif(not SHARED_GLOSSARY.exists(), reason="../shared exists only for developers")
@pytest.mark.parametrize("lang", ["ur", "hi", "te"])
def test_catalogs_use_the_seeds_words(lang: str) -> None:
    column = {"ur": 1, "hi": 2, "te": 3}[lang]
    rows = {}
    for line in SHARED_GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4:
            rows[cells[0]] = cells[column]
    text = " ".join(form for forms in ENTRIES[lang].values() for form in forms)
    text = text.replace("\u200c", "")
    for row in SEED_ROWS[lang]:
        cell = re.sub(r"\(.*?\)", "", rows[row])
        terms = [t.strip() for t in re.split(r"[/،,]", cell) if t.strip() and t.strip() != "—"]
        assert terms, row
        for term in terms:
            assert term in text, f"{lang}: the seeds' {term!r} ({row}) is not used"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("domain", ["engine", "ui"])
def test_translators_see_the_current_english(lang: str, domain: str) -> None:
    # Each entry's "#. en:" comment is the English a translator renders; a stale one (the
    # English changed, the comment did not) invites a translation of the old sentence.
    from canasta_teach.i18n.compile import LOCALE_DIR, with_english_comments

    po_path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"
    text = po_path.read_text(encoding="utf-8")
    assert with_english_comments(po_path) == text, (
        f"stale English comments in {lang}/{domain}.po: run "
        "python -m canasta_teach.i18n.compile --english-comments"
    )
    assert text.count("#. en: ") >= text.count("\nmsgid ") - 1  # every entry but the header
