"""The normalisation the leak scan searches in (docs/COORDINATORS.md, "The leak scan").

Every character of a text becomes zero, one or more characters of a *normal form* in which the
spellings a reader takes for the same name are the same string:

- **NFKC, case folding, accents**: each character is NFKC-normalised and case-folded, then decomposed
  and stripped of combining marks (``Ｃｌａｕｄｅ``, ``𝐂𝐥𝐚𝐮𝐝𝐞``, ``CLAUDE`` and ``Cláude`` -> ``claude``);
  decimal digits of any script become ``0``-``9``;
- **look-alike letters**: letters of any script that look like a Latin letter or a digit (Cyrillic ``С``
  U+0421, Greek ``Ρ`` U+03A1, Armenian ``օ`` U+0585, Cherokee ``Ꮯ`` U+13DF, small capitals ``ᴄ``, Latin
  ``ɑ``...) become that letter or digit (:func:`confusables`: Unicode's confusables data, UTS #39, in
  ``resources/leak/confusables.json``, with a few hand-made choices on top);
- **invisible characters** (format characters such as zero-width spaces and joiners, soft hyphens,
  bidirectional controls, other control characters, combining marks, variation selectors, Hangul fillers)
  are removed;
- **soft separators** - every white space, every dash and hyphen look-alike (Unicode ``Pd`` plus minus
  signs), dots and underscores - become :data:`SOFT`. A name is matched across soft separators (``GPT 4o``,
  ``gpt-4o`` and ``G.P.T‑4o`` are ``gpt4o``), and a soft separator is also a word boundary;
- **hard separators** - every other punctuation mark or symbol - become :data:`HARD` (a word boundary
  that a name does not run across, unless the name itself has one there: ``meta-llama/Llama``).

Symbols whose NFKC form is not a single letter or digit (``™`` -> ``TM``, ``㎏`` -> ``kg``) become a hard
separator, so ``ChatGPT™`` still ends at ``chatgpt``; parenthesised letters and numbers (``⒞``, ``⑴``) are
the letter or number.

:func:`normalise` keeps a map from every position of the normal form back to the original text, so a
finding quotes the text the coordinator wrote. Plain texts (every character maps to exactly one) cost one
``str.translate``; only texts with characters that vanish or expand pay for the map, in proportion to
the number of such characters.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import cache

from wmcdp_desktop.coordinator.leak.confusables import look_alikes

SOFT = "\x01"
"""A space, dot, dash/hyphen or underscore in the normal form."""
HARD = " "
"""Any other separator in the normal form."""

DASHES = frozenset("\u2212\u2796\u02d7\u2043\ufe63\uff0d\u2010\u2011")
"""Dash look-alikes outside Unicode category Pd (every Pd character is a dash too)."""
DOTS = frozenset(".\u00b7\u2024\u2027\u30fb\uff0e\u0387\u2219\u22c5\uff61\u3002")
"""Full stops and middle dots."""
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Blank-looking letters and symbols (Hangul fillers, the blank Braille pattern): read as a space."""
ELONGATION = frozenset("\u0640\u07fa")
"""Letters that only stretch a word (Arabic tatweel ``كـلـود``, N'Ko lajanyalan): removed."""

_BY_HAND: dict[str, str] = {
    # Cyrillic, upper and lower case (before case folding, so the upper-case look-alikes map too)
    "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t",
    "Х": "x", "У": "y", "І": "i", "Ј": "j", "Ѕ": "s", "Ԛ": "q", "Ԝ": "w", "Ү": "y",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "Ӏ": "l", "ү": "y", "ɡ": "g", "ı": "i", "ȷ": "j",
    # Greek
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o",
    "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "ο": "o", "ν": "v", "ι": "i", "α": "a", "ρ": "p", "ϲ": "c",
    "Ϲ": "c", "ϳ": "j", "κ": "k", "τ": "t", "υ": "u", "χ": "x",
}
"""Cyrillic and Greek look-alikes as a reader takes them (``І`` is a capital I, where UTS #39 says ``l``)."""

@cache
def confusables() -> dict[str, str]:
    """Letters of other scripts that look like a Latin letter or digit; mapped before case folding (the
    generated table is read the first time a character outside ASCII is folded)."""
    return {**look_alikes(), **_BY_HAND}


def _look_alike(ch: str) -> str | None:
    return None if ch.isascii() else confusables().get(ch)

_WORD = re.compile(r"[a-z0-9]")


def _is_soft(ch: str) -> bool:
    return ch.isspace() or ch == "_" or ch in DOTS or ch in DASHES or ch in BLANKS or unicodedata.category(ch) == "Pd"


def _fold_one(ch: str) -> str:
    """One character of an NFKC/case-folded expansion, reduced to the normal form's alphabet."""
    if (like := _look_alike(ch)) is not None:
        return like
    if ch.isascii():
        if ch.isalnum():
            return ch.lower()
        if _is_soft(ch):
            return SOFT
        return "" if unicodedata.category(ch) == "Cc" else HARD
    if _is_soft(ch):
        return SOFT
    category = unicodedata.category(ch)
    if category in ("Cf", "Cc", "Mn", "Me"):
        return ""
    if category == "Nd":
        return str(unicodedata.decimal(ch))
    if ch in ELONGATION:
        return ""
    if category[0] in "LN" or category == "Mc":
        return ch  # a spacing vowel sign (Devanagari ा, ॉ) is part of its word, not a break
    return HARD


_PARENTHESISED = re.compile(r"\(([^\W_]+)\)")


def _fold(ch: str) -> str:
    if (like := _look_alike(ch)) is not None:
        return like
    if _is_soft(ch):
        return SOFT
    if unicodedata.category(ch) in ("Cf", "Cc", "Mn", "Me"):
        return ""
    expanded = unicodedata.normalize("NFKC", ch)
    enclosed = _PARENTHESISED.fullmatch(expanded)
    if enclosed and unicodedata.category(ch)[0] in "SN":
        expanded = enclosed.group(1)  # a parenthesised letter or number (⒞, ⑴) reads as the letter
    elif unicodedata.category(ch)[0] == "S" and not (len(expanded) == 1 and expanded.isalnum()):
        return HARD  # a symbol such as (TM) is punctuation here, not the letters it abbreviates
    parts = []
    for part in expanded:
        part = _look_alike(part) or part
        for piece in unicodedata.normalize("NFKD", part.casefold()):
            parts.append(_fold_one(piece))
    out = "".join(parts)
    if not out and expanded.strip() and unicodedata.category(ch)[0] in "PSZ":
        return HARD
    return out


TABLE_LIMIT = 200_000
"""Characters remembered in :data:`_TABLE` (hostile text cannot grow it without bound)."""
_TABLE: dict[int, str] = {i: _fold(chr(i)) for i in range(128)}
"""What each character seen so far becomes (a ``str.translate`` table)."""


def fold_char(ch: str) -> str:
    """What one character of a text becomes in the normal form (``""`` when it vanishes)."""
    folded = _TABLE.get(ord(ch))
    return folded if folded is not None else _fold(ch)


def _table_for(chars: set[str]) -> dict[int, str]:
    """A translate table covering ``chars``: the shared one, grown, unless it is full."""
    new = [ch for ch in chars if ord(ch) not in _TABLE]
    if len(_TABLE) + len(new) <= TABLE_LIMIT:
        for ch in new:
            _TABLE[ord(ch)] = _fold(ch)
        return _TABLE
    table = dict(_TABLE)
    for ch in new:
        table[ord(ch)] = _fold(ch)
    return table


_NON_ASCII = re.compile(r"([^\x00-\x7f]+)")
_ASCII_VANISHING = "".join(chr(i) for i in range(128) if _TABLE[i] == "")
_ASCII_BYTES = bytes(ord(_TABLE[i]) if len(_TABLE[i]) == 1 else 0 for i in range(128)) + bytes(128)
_ASCII_DELETE = _ASCII_VANISHING.encode("ascii")


def _fold_ascii(text: str) -> str:
    """An ASCII text's normal form (byte translation: every ASCII character maps to at most one)."""
    return text.encode("ascii").translate(_ASCII_BYTES, _ASCII_DELETE).decode("ascii")


_KEPT_ASCII: dict[tuple[tuple[str, str], ...], bytes] = {}


def normal_form_keeping(text: str, others: set[str], keep: dict[str, str]) -> str:
    """``text``'s normal form in which the characters of ``keep`` become what ``keep`` says instead (each
    one character, as the normal form maps every one of them: the offsets are the normal form's). For
    :mod:`artefacts`, which needs the punctuation of chat templates."""
    key = tuple(sorted((ch, to) for ch, to in keep.items() if ch.isascii()))
    table = _KEPT_ASCII.get(key)
    if table is None:
        kept = bytearray(_ASCII_BYTES)
        for ch, to in key:
            kept[ord(ch)] = ord(to)
        table = _KEPT_ASCII[key] = bytes(kept)
    delete = bytes(b for b in _ASCII_DELETE if chr(b) not in keep)
    if text.isascii():
        return text.encode("ascii").translate(table, delete).decode("ascii")
    pieces = _NON_ASCII.split(text)
    translate = {ord(ch): keep[ch] if ch in keep else fold_char(ch) for ch in others}
    return "".join(piece.translate(translate) if i % 2 else piece.encode("ascii").translate(table, delete).decode("ascii")
                   for i, piece in enumerate(pieces))


def normal_form(text: str) -> str:
    """``text`` in normal form (see the module's docstring), without the map back to its offsets."""
    return normal_form_and_others(text)[0]


def normal_form_and_others(text: str) -> tuple[str, set[str]]:
    """``text`` in normal form, and the set of its characters outside ASCII.

    The ASCII stretches of a text are translated as bytes, its other characters through a table that
    grows with the characters met (most texts are mostly ASCII: a curly quote or a dash here and there).
    """
    if text.isascii():
        return _fold_ascii(text), set()
    pieces = _NON_ASCII.split(text)  # ASCII, other, ASCII, other, ..., ASCII
    others = set("".join(pieces[1::2]))
    table = _table_for(others)
    return "".join(piece.translate(table) if i % 2 else _fold_ascii(piece) for i, piece in enumerate(pieces)), others


class Normalised:
    """A text in normal form, with the way back to the original's offsets (worked out when first asked:
    the scan needs it only where it found something)."""

    __slots__ = ("_linear", "_origins", "_starts", "original", "text")

    def __init__(self, original: str, text: str | None = None) -> None:
        self.original = original
        """The text as written."""
        self.text = normal_form(original) if text is None else text
        """The normal form."""
        self._starts: list[int] | None = None

    def _map(self) -> None:
        """Anchors at every character that vanishes or expands (between them, one to one)."""
        text = self.original
        uneven = "".join(sorted(ch for ch in set(text) if len(fold_char(ch)) != 1))
        self._starts, self._origins, self._linear = [], [], []
        if not uneven:
            return
        done_original = done_normal = 0
        for match in re.finditer("[" + re.escape(uneven) + "]", text):
            at = match.start()
            if at > done_original:
                self._starts.append(done_normal)
                self._origins.append(done_original)
                self._linear.append(True)
                done_normal += at - done_original
            width = len(fold_char(text[at]))
            if width:
                self._starts.append(done_normal)
                self._origins.append(at)
                self._linear.append(False)
                done_normal += width
            done_original = at + 1
        if done_original < len(text):
            self._starts.append(done_normal)
            self._origins.append(done_original)
            self._linear.append(True)

    def origin(self, position: int) -> int:
        """The original offset of the character at ``position`` of the normal form."""
        if self._starts is None:
            self._map()
        assert self._starts is not None
        if not self._starts:
            return position
        k = bisect_right(self._starts, position) - 1
        if k < 0:
            return position
        if self._linear[k]:
            return self._origins[k] + (position - self._starts[k])
        return self._origins[k]

    def position(self, offset: int) -> int:
        """The position in the normal form of the original character at ``offset`` (one that does not
        vanish: for an expanding character, where its expansion starts)."""
        if self._starts is None:
            self._map()
        assert self._starts is not None
        if not self._starts:
            return offset
        k = bisect_right(self._origins, offset) - 1
        if k < 0:
            return offset
        if self._linear[k]:
            return self._starts[k] + (offset - self._origins[k])
        return self._starts[k]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original ``[start, end)`` of the normal form's ``[start, end)`` (``end > start``)."""
        return self.origin(start), self.origin(end - 1) + 1


def normalise(text: str) -> Normalised:
    """``text`` in normal form, with the map back to its offsets."""
    return Normalised(text)


def skeleton(term: str) -> str:
    """A name as the scan looks for it: normal form without soft separators, hard ones as one space."""
    text = normal_form(term).replace(SOFT, "")
    return re.sub(" +", " ", text).strip(" ")


def is_word_char(ch: str) -> bool:
    """A letter or digit of the normal form's basic alphabet (``a``-``z``, ``0``-``9``)."""
    return bool(_WORD.fullmatch(ch))
