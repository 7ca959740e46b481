"""Other readings of a text in which a name can show, for the leak scan (docs/COORDINATORS.md, "The leak
scan").

The scan searches a text as it is written. Some texts read differently from how they are stored:

- a **right-to-left override** (U+202E) shows the characters after it in reverse order, so the stored
  ``edualC`` reads ``Claude`` in a text editor or a browser (the app itself shows the override as a marker);
- **tag characters** (U+E0020-U+E007E) are invisible copies of ASCII: a name spelled in them is hidden
  text that any program can read back (so-called ASCII smuggling);
- **HTML character references** (``&#67;laude``, ``&#x43;``, ``&eacute;``) and **percent-encoding**
  (``Cl%61ude``) spell a character in ASCII, the way web tools export text;
- **JSON and Python escapes written out as text** (``\\u003c|im_end|\\u003e``, ``Cl\\u0061ude``, ``\\x3c``), the
  way a response copied from a JSON log or an API reply carries them;
- **HTML tags** inside a word (``Cl<b>aude</b>``, ``Cl<!-- -->aude``) vanish when the text is shown as a
  web page, and a reader skips them in plain text.

:func:`readings` gives each such reading of a text, with the way back to the original's offsets, so a
finding quotes what was written (``«&#67;laude»``). Texts without any of these characters have none: the
checks are a few substring searches.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from urllib.parse import unquote

RLO = "\u202e"
"""RIGHT-TO-LEFT OVERRIDE: what follows is shown in reverse order, up to the end of the override."""
_OVERRIDE_RUN = re.compile("\u202e([^\u202a-\u202e\u2066-\u2069\n\r\u2028\u2029\x85]+)")
"""An override and what it reverses: up to a bidirectional embedding, override or isolate, or the end of
a paragraph."""
_TAGS = re.compile("[\U000e0020-\U000e007e]+")
_HTML_REF = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_ESCAPE = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2})+")
_HTML_TAG = re.compile(r"(?:</?[A-Za-z][A-Za-z0-9-]{0,31}(?:[\s/][^<>]{0,256})?>|<!--.{0,256}?-->)+", re.DOTALL)


class Reading:
    """A text as it reads, and the way back to the original's offsets: the original cut into pieces that
    read as they are, as what they spell, or reversed."""

    __slots__ = ("_anchors", "_pieces", "text", "what")

    def __init__(self, text: str, what: str, anchors: list[int], pieces: list[tuple[int, int, int]]) -> None:
        self.text = text
        self.what = what
        """Why it reads so (``right-to-left override``, ``HTML character references``...)."""
        self._anchors = anchors
        """Offsets in ``text`` where a piece starts (sorted)."""
        self._pieces = pieces
        """For each anchor: the original's start and end of the piece, and how it maps."""

    def _origin(self, position: int) -> tuple[int, int]:
        k = bisect_right(self._anchors, position) - 1
        o_start, o_end, how = self._pieces[k]
        if how == WHOLE:
            return o_start, o_end
        offset = position - self._anchors[k]
        at = o_start + offset if how == LINEAR else o_end - 1 - offset
        return at, at + 1

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original ``[start, end)`` of this reading's ``[start, end)``."""
        first, last = self._origin(start), self._origin(end - 1)
        return min(first[0], last[0]), max(first[1], last[1])


LINEAR, WHOLE, REVERSED = 0, 1, 2
"""How a piece of a reading maps to the original: character by character, as a whole (a decoded
reference), or character by character in reverse (an override run)."""


class _Builder:
    def __init__(self, what: str) -> None:
        self.what = what
        self.parts: list[str] = []
        self.anchors: list[int] = []
        self.pieces: list[tuple[int, int, int]] = []
        self.length = 0
        self.changed = False

    def add(self, text: str, o_start: int, o_end: int, how: int) -> None:
        self.changed |= how != LINEAR
        if text:
            self.anchors.append(self.length)
            self.pieces.append((o_start, o_end, how))
            self.parts.append(text)
            self.length += len(text)

    def reading(self) -> Reading:
        return Reading("".join(self.parts), self.what, self.anchors, self.pieces)


def _word_char(ch: str) -> bool:
    return ch.isalnum()


def _matters(text: str, start: int, end: int, decoded: str) -> bool:
    """Whether replacing ``text[start:end]`` by ``decoded`` can make a name: it stands between two words (a
    tag inside a word, an encoded hyphen), puts a letter or digit against a word, or spells two or more
    letters or digits itself. A reference or a tag between words (``&amp;``, ``%20``, ``<b>not``) changes
    no name."""
    letters = sum(1 for ch in decoded if _word_char(ch))
    before = start > 0 and _word_char(text[start - 1])
    after = end < len(text) and _word_char(text[end])
    if decoded and all(ch in TEMPLATE_PUNCTUATION for ch in decoded):
        return True  # the punctuation of a chat-template token (&lt;|im_end|&gt;, \u003c)
    if letters == 0:  # a tag, or a space or hyphen (resp%2D0001): joins the words on each side
        return before and after
    return letters >= 2 or before or after


def _substituted(text: str, pattern: re.Pattern[str], decode: Callable[[str], str], what: str) -> Reading | None:
    """``text`` with every match of ``pattern`` that can make a name replaced by ``decode(match)``; None
    when there is none (most texts: the reading is not searched)."""
    out = _Builder(what)
    done = 0
    for match in pattern.finditer(text):
        decoded = decode(match.group())
        if decoded == match.group() or not _matters(text, match.start(), match.end(), decoded):
            continue
        out.add(text[done:match.start()], done, match.start(), LINEAR)
        out.add(decoded, match.start(), match.end(), WHOLE)
        done = match.end()
    if not out.changed:
        return None
    out.add(text[done:], done, len(text), LINEAR)
    return out.reading()


TEMPLATE_PUNCTUATION = frozenset("<>|[]")
"""Characters a serving artefact is made of (:mod:`artefacts`): decoding one of them always matters."""


def _unescape(encoded: str) -> str:
    """``\\u003c`` and the like as the characters they stand for (surrogate pairs joined)."""
    out = re.sub(r"\\U([0-9a-fA-F]{8})|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})",
                 lambda m: _char(int(m.group(1) or m.group(2) or m.group(3), 16)), encoded)
    return out.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _char(code: int) -> str:
    return chr(code) if code <= 0x10FFFF else "\ufffd"


def _nothing(_tag: str) -> str:
    return ""


def _percent(encoded: str) -> str:
    return unquote(encoded, errors="replace")


def _tags(run: str) -> str:
    return "".join(chr(ord(ch) - 0xE0000) for ch in run)


def _overrides(text: str) -> Reading | None:
    """``text`` with each right-to-left override run reversed, as it is shown; None without a run."""
    out = _Builder("right-to-left override")
    done = 0
    for run in _OVERRIDE_RUN.finditer(text):
        start, end = run.span(1)
        out.add(text[done:start], done, start, LINEAR)
        out.add(run.group(1)[::-1], start, end, REVERSED)
        done = end
    if not out.changed:
        return None
    out.add(text[done:], done, len(text), LINEAR)
    return out.reading()


def readings(text: str, others: set[str]) -> Iterator[Reading]:
    """Every other reading of ``text`` (none for most texts); ``others``: its characters outside ASCII."""
    if RLO in others:
        reversed_runs = _overrides(text)
        if reversed_runs is not None:
            yield reversed_runs
    if others and any("\U000e0020" <= ch <= "\U000e007e" for ch in others):
        found = _substituted(text, _TAGS, _tags, "tag characters")
        if found is not None:
            yield found
    if "&" in text:
        found = _substituted(text, _HTML_REF, html.unescape, "HTML character references")
        if found is not None:
            yield found
    if "\\" in text:
        found = _substituted(text, _ESCAPE, _unescape, "escapes written as text")
        if found is not None:
            yield found
    if "%" in text:
        found = _substituted(text, _PERCENT, _percent, "percent-encoding")
        if found is not None:
            yield found
    if "<" in text:
        found = _substituted(text, _HTML_TAG, _nothing, "HTML tags")
        if found is not None:
            yield found
