"""The names of the built-in list in other scripts, and how a name of each script sits in a text
(docs/COORDINATORS.md, "The leak scan").

The spellings are a generated table, ``resources/leak/transliterations.json``: ``python -m
tools.make_leak_tables`` makes it from the hand-curated conventional spellings of ``tools/leak_spellings.py``
(Cyrillic, Greek, Japanese, Chinese, Korean, Arabic, Persian, Hebrew, Devanagari, Thai) and from rules
(traditional Chinese by OpenCC, Russian and Ukrainian case endings, Ukrainian letters, hiragana, Persian
letters, Hebrew without the geresh). Each entry names the Latin name it stands for. A spelling that is also
an ordinary word of its language (``クラウド`` "cloud", ``双子座`` the star sign) is a warning, not a refusal.

A name is searched in the scan's normal form (:mod:`normalise`), like every term; where its word starts and
ends depends on its script (:func:`fits`):

- scripts written without spaces between words (Chinese, hiragana and kanji, Thai): anywhere in a text;
- katakana: not right after another katakana (``ドラマ`` "drama" does not hold ``ラマ``); anything may follow;
- Hangul: not right after another Hangul letter; particles may follow (``클로드는``, ``클로드가``);
- Arabic and Hebrew: a whole word, or after one of the letters these languages write in front of a word
  (Arabic ``و``, ``ب``, ``ال``..., Hebrew ``ו``, ``ה``, ``ב``...: ``وكلود``, ``וקלוד``);
- other scripts (Cyrillic, Greek, Devanagari): a whole word; the table spells the case endings out
  (``Клода``, ``Клодом``).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from wmcdp_desktop.coordinator.leak.normalise import HARD, SOFT, normal_form, skeleton
from wmcdp_desktop.core.resources import resources_dir

TABLE_NAME = "transliterations.json"
"""The table's file, in ``resources/leak/``."""


def table_path() -> Any:
    return resources_dir() / "leak" / TABLE_NAME


@dataclass(frozen=True)
class NativeSpelling:
    spelling: str
    stands_for: str
    """The Latin name of the built-in list (``Claude``)."""
    vendor: str
    script: str
    """How findings name the script (``Cyrillic (Russian)``)."""
    ordinary: str | None
    """What the spelling also means as an ordinary word, when it does (then it is a warning)."""
    skeletons: tuple[str, ...]
    """What is searched: the spelling's skeleton as written, in lower case and in upper case (letters that
    look like Latin ones are read as Latin in one case and not the other: ``Κλοντ``, ``ΚΛΟΝΤ``)."""


def _skeletons(spelling: str) -> tuple[str, ...]:
    out: list[str] = []
    for form in (spelling, spelling.lower(), spelling.upper(), spelling[:1].upper() + spelling[1:].lower()):
        key = skeleton(form)
        if key and key not in out:
            out.append(key)
    return tuple(out)


@cache
def native_spellings() -> tuple[NativeSpelling, ...]:
    """Every entry of the table (read once)."""
    data = json.loads(table_path().read_text(encoding="utf-8"))
    return tuple(
        NativeSpelling(e["spelling"], e["stands_for"], e["vendor"], e["script"], e.get("ordinary"),
                       _skeletons(e["spelling"]))
        for e in data["entries"]
    )


# ------------------------------------------------------------------------------------- word boundaries

def _block(ch: str) -> str:
    """The writing system of a character of the normal form, as far as word boundaries go."""
    o = ord(ch)
    if 0x30A0 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0xFF66 <= o <= 0xFF9F:
        return "katakana"
    if 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F or 0xAC00 <= o <= 0xD7AF or 0xA960 <= o <= 0xA97F \
            or 0xD7B0 <= o <= 0xD7FF:
        return "hangul"
    if 0x3040 <= o <= 0x309F or 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF \
            or 0x0E00 <= o <= 0x0EFF or 0x1000 <= o <= 0x109F or 0x1780 <= o <= 0x17FF or 0x3005 <= o <= 0x3007:
        return "unspaced"  # Han, hiragana, Thai, Lao, Myanmar, Khmer: no spaces between words
    if 0x0600 <= o <= 0x06FF or 0x0750 <= o <= 0x077F or 0x08A0 <= o <= 0x08FF or 0xFB50 <= o <= 0xFDFF \
            or 0xFE70 <= o <= 0xFEFF:
        return "arabic"
    if 0x0590 <= o <= 0x05FF or 0xFB1D <= o <= 0xFB4F:
        return "hebrew"
    return "spaced"


PREFIXES: dict[str, frozenset[str]] = {
    "arabic": frozenset(normal_form(p) for p in (
        "و", "ف", "ب", "ل", "ك", "ال", "وال", "بال", "فال", "كال", "لل", "ولل", "وب", "ول", "فب", "وك")),
    "hebrew": frozenset(normal_form(p) for p in (
        "ו", "ה", "ב", "ל", "מ", "ש", "כ", "וה", "וב", "ול", "ומ", "וש", "וכ", "שה", "שב", "של", "שמ", "מה", "כש",
        "לה", "בה", "כה", "ושה", "מה")),
}
"""Letters written in front of a word (and, the, with, for...) in Arabic and Hebrew, in normal form."""


_GLUED = frozenset({"unspaced", "katakana", "hangul"})
"""Scripts whose words are written against their neighbours: a letter of one of them next to a name is no
part of it (``チャットGPTで``, ``用Claude``)."""


def _other_glued(neighbour: str, edge: str) -> bool:
    """Whether ``neighbour`` is a letter of a glued script other than that of the name's ``edge`` letter."""
    block = _block(neighbour)
    return block in _GLUED and block != _block(edge)


def _letter(ch: str) -> bool:
    return ch.isalpha() or unicodedata.category(ch) == "Mc"


def fits(text: str, start: int, end: int) -> bool:
    """Whether a name in another script found at ``[start, end)`` of the normal form ``text`` sits there
    as a word of its script (see the module's docstring)."""
    first, last = text[start], text[end - 1]
    if start > 0 and _letter(text[start - 1]) and not _other_glued(text[start - 1], first):
        before, kind = text[start - 1], _block(first)
        if kind == "katakana":
            if _block(before) == "katakana":
                return False
        elif kind == "hangul":
            if _block(before) == "hangul":
                return False
        elif kind in PREFIXES:
            k = start
            while k > 0 and _letter(text[k - 1]):
                k -= 1
            if text[k:start] not in PREFIXES[kind]:
                return False
        elif kind != "unspaced":
            return False
    if end < len(text) and _letter(text[end]) and not _other_glued(text[end], last):
        kind = _block(last)
        if kind not in ("unspaced", "katakana", "hangul"):
            return False
    return True


def trigger_characters(skeletons: list[str]) -> frozenset[str]:
    """The characters outside ASCII of these skeletons: a text whose normal form has none of them holds
    none of the names (most texts: the search is skipped)."""
    return frozenset(ch for key in skeletons for ch in key if not ch.isascii() and ch not in (SOFT, HARD))
