"""Write the leak scan's two generated tables (docs/COORDINATORS.md, "The leak scan"):

- ``resources/leak/transliterations.json``: the names of the built-in list in other scripts. Source: the
  hand-curated conventional spellings of ``tools/leak_spellings.py``, plus rules: traditional Chinese of
  every Chinese spelling (OpenCC ``s2t``, ``s2tw``, ``s2hk``); Russian and Ukrainian case endings of
  one-word Cyrillic names (``Клод`` -> ``Клода``, ``Клоду``, ``Клодом``...); Ukrainian letters of Russian
  spellings (``Джемини`` -> ``Джеміні``); hiragana of katakana spellings of four kana or more (``クロード``
  -> ``くろーど``); Persian letters of Arabic spellings (``ك`` -> ``ک``, ``ي`` -> ``ی``); Hebrew spellings
  without the geresh (``ג'מיני`` -> ``גמיני``). Each entry names the Latin name it stands for, its vendor,
  language, script, how it was made and, for an ordinary word, what the word means.
- ``resources/leak/ordinary-words.json``: for each name looked for misspelt (and each part of a two-part
  name), the real words one edit away: every such word that the ``wordfreq`` lists of :data:`LANGUAGES` know
  with a Zipf frequency of at least :data:`MIN_ZIPF` (about once in 30 million words). The scan does not
  report these as misspellings (``mitral``, ``clause``, ``llamo``).

OpenCC and wordfreq are in the ``dev`` extra; the scan itself reads only the JSON. A test makes both tables
again and fails when a committed one differs::

    python -m tools.make_leak_tables            # write both tables
    python -m tools.make_leak_tables --check    # exit 1 when a committed table is not current
"""

from __future__ import annotations

import json
import sys
import unicodedata
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tools import leak_spellings
from wmcdp_desktop.coordinator.leak import misspellings
from wmcdp_desktop.coordinator.leak.normalise import skeleton
from wmcdp_desktop.coordinator.leak.terms import BUILT_IN, SHORT_FORMS

ROOT = Path(__file__).resolve().parents[1]
TRANSLITERATIONS = ROOT / "resources" / "leak" / "transliterations.json"
ORDINARY_WORDS = ROOT / "resources" / "leak" / "ordinary-words.json"
LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "nl")
"""The languages whose real words are not misspellings (those of most studies' texts; Romanian ``gemeni``,
"twins", is left a misspelling of Gemini on purpose)."""
MIN_ZIPF = 1.5
"""wordfreq's Zipf scale: 1.5 is about once in 30 million words (``mitral`` is 2.6 in English)."""

RU_ENDINGS = {
    "consonant": ("а", "у", "ом", "е", "ы", "ов", "ам", "ами", "ах"),
    "ь": ("я", "ю", "ем", "е", "и", "ей"),
    "й": ("я", "ю", "ем", "е", "и", "ев"),
    "а": ("ы", "и", "е", "у", "ой", "ою"),
    "я": ("и", "е", "ю", "ей", "ею"),
}
"""Russian case endings of a name by its last letter (a name ending in another vowel does not decline)."""
UK_ENDINGS = {
    "consonant": ("а", "у", "ом", "і", "ові", "и", "ів"),
    "ь": ("я", "ю", "ем", "і", "ем"),
    "й": ("я", "ю", "єм", "ї"),
    "а": ("и", "і", "у", "ою"),
    "я": ("і", "ю", "ею"),
}
CYRILLIC_VOWELS = set("аеёиоуыэюяіїє")
UK_LETTERS = str.maketrans({"и": "і", "ы": "и", "э": "е", "И": "І", "Ы": "И", "Э": "Е", "ъ": "ʼ"})
PERSIAN_LETTERS = str.maketrans({"ك": "ک", "ي": "ی", "ى": "ی"})


def vendors() -> dict[str, str]:
    """Latin name -> vendor, for every name of the built-in list."""
    out = {name: vendor for vendor, names in BUILT_IN.items() for name, _ in names}
    out.update({name: about for about, names in SHORT_FORMS.items() for name, _ in names})
    return out


def _declined(word: str, endings: dict[str, tuple[str, ...]]) -> list[str]:
    if " " in word or "-" in word or not word or not ("\u0400" <= word[-1] <= "\u04ff"):
        return []
    last = word[-1].lower()
    if last in endings:
        return [word[:-1] + e for e in endings[last]]
    if last in CYRILLIC_VOWELS:
        return []
    return [word + e for e in endings["consonant"]]


def _hiragana(word: str) -> str | None:
    if len(word) < 4 or not all("\u30a1" <= ch <= "\u30f6" or ch == "ー" for ch in word):
        return None
    return "".join(chr(ord(ch) - 0x60) if ch != "ー" else ch for ch in word)


def transliterations() -> dict[str, Any]:
    import opencc  # the dev extra: only to make the table

    converters = {name: opencc.OpenCC(name) for name in ("s2t", "s2tw", "s2hk")}
    names = vendors()
    entries: dict[str, dict[str, Any]] = {}
    left_out = {skeleton(s) for s in leak_spellings.LEFT_OUT}

    def add(spelling: str, latin: str, language: str, how: str, ordinary: str | None) -> None:
        key = skeleton(spelling)
        if not key or key.isascii() or key in left_out or spelling in entries:
            return
        entries[spelling] = {
            "spelling": spelling, "stands_for": latin, "vendor": names[latin], "language": language,
            "script": leak_spellings.SCRIPTS[language], "how": how,
            **({"ordinary": ordinary} if ordinary else {}),
        }

    for latin, by_language in leak_spellings.SPELLINGS.items():
        if latin not in names:
            raise SystemExit(f"tools/leak_spellings.py: {latin!r} is not a name of the built-in list")
        for language, spellings in by_language.items():
            for spelling in spellings:
                ordinary = leak_spellings.ORDINARY.get(spelling)
                add(spelling, latin, language, "conventional", ordinary)
                if language == "zh":
                    for converter in converters.values():
                        add(converter.convert(spelling), latin, "zh-Hant",
                            f"traditional Chinese of {spelling} (OpenCC)", ordinary)
                if language == "ru":
                    for form in _declined(spelling, RU_ENDINGS):
                        add(form, latin, "ru", f"a Russian case of {spelling}", ordinary)
                    ukrainian = spelling.translate(UK_LETTERS)
                    if ukrainian != spelling:
                        add(ukrainian, latin, "uk", f"Ukrainian letters of {spelling}", ordinary)
                if language in ("ru", "uk"):
                    base = spelling.translate(UK_LETTERS) if language == "ru" else spelling
                    for form in _declined(base, UK_ENDINGS):
                        add(form, latin, "uk", f"a Ukrainian case of {base}", ordinary)
                if language == "ja":
                    hiragana = _hiragana(spelling)
                    if hiragana and not ordinary:
                        add(hiragana, latin, "ja", f"hiragana of {spelling}", None)
                if language == "ar":
                    persian = spelling.translate(PERSIAN_LETTERS)
                    if persian != spelling:
                        add(persian, latin, "fa", f"Persian letters of {spelling}", ordinary)
                if language == "he" and ("'" in spelling or "\u05f3" in spelling):
                    add(spelling.replace("'", "").replace("\u05f3", ""), latin, "he",
                        f"{spelling} without the geresh", ordinary)
    ordered = sorted(entries.values(), key=lambda e: (e["stands_for"].casefold(), e["language"], e["spelling"]))
    return {
        "about": "Names of the leak scan's built-in list in other scripts (docs/COORDINATORS.md, 'The leak "
                 "scan'). Generated by python -m tools.make_leak_tables from tools/leak_spellings.py; do not "
                 "edit by hand.",
        "source": f"tools/leak_spellings.py; traditional Chinese by OpenCC {version('opencc')}",
        "unidata_version": unicodedata.unidata_version,
        "entries": ordered,
        "left_out": dict(sorted(leak_spellings.LEFT_OUT.items())),
    }


def misspelt_names() -> list[tuple[str, str]]:
    """(skeleton, display) of every name of the built-in list looked for misspelt."""
    out: dict[str, str] = {}
    for group in (BUILT_IN, SHORT_FORMS):
        for names in group.values():
            for name, mode in names:
                key = skeleton(name)
                if misspellings.eligible(key, name, mode):
                    out.setdefault(key, name)
    return sorted(out.items())


def ordinary_words() -> dict[str, Any]:
    from wordfreq import zipf_frequency  # the dev extra: only to make the table

    def real(word: str) -> bool:
        return any(zipf_frequency(word, language) >= MIN_ZIPF for language in LANGUAGES)

    names: dict[str, list[str]] = {}
    parts: dict[str, list[str]] = {}
    for key, display in misspelt_names():
        names[key] = sorted({w for w in misspellings.one_edit(key) if real(w)})
        split = misspellings.two_parts(key, display)
        for part in split or ():
            parts[part] = sorted({w for w in misspellings.one_edit(part) if w and real(w)})
    return {
        "about": "Real words one edit from a name of the leak scan's built-in list: not misspellings "
                 "(docs/COORDINATORS.md, 'The leak scan'). Generated by python -m tools.make_leak_tables; do "
                 "not edit by hand. Word frequencies from wordfreq (Robyn Speer; data CC BY-SA 4.0).",
        "source": f"wordfreq {version('wordfreq')}",
        "languages": list(LANGUAGES),
        "min_zipf": MIN_ZIPF,
        "names": names,
        "parts": dict(sorted(parts.items())),
    }


def dumps(table: dict[str, Any]) -> str:
    """The table as committed: one entry a line, so a change shows as a line."""
    lines = ["{"]
    items = list(table.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            inner = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            lines.append(f"  {json.dumps(key)}: [\n{inner}\n  ]{comma}")
        elif isinstance(value, dict) and value:
            inner = ",\n".join(f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
                               for k, v in value.items())
            lines.append(f"  {json.dumps(key)}: {{\n{inner}\n  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generated() -> dict[Path, str]:
    return {TRANSLITERATIONS: dumps(transliterations()), ORDINARY_WORDS: dumps(ordinary_words())}


def main(argv: list[str]) -> int:
    tables = generated()
    if "--check" in argv:
        stale = [p for p, text in tables.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            sys.stderr.write(f"{path.relative_to(ROOT)} is not current: run python -m tools.make_leak_tables\n")
        return 1 if stale else 0
    for path, text in tables.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {path.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
