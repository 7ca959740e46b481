"""Showing bundle text safely: plain text only, with invisible and reordering characters made visible.

Every piece of text from a bundle is untrusted. It is shown

- as plain text only (``QPlainTextEdit`` / ``QLabel`` with ``Qt.PlainText``): no HTML or markdown, no
  links, no images, no resource loading of any kind;
- with bidirectional controls (which can reorder the text around them), zero-width and other invisible
  characters replaced by a visible marker such as ``⟨U+202E⟩``, so nothing can be hidden or reordered;
  the exceptions are the ordinary direction marks (U+200E, U+200F, U+061C) inside right-to-left text and
  the zero-width (non-)joiner between letters of a joining script, which such text needs to read right
  (:func:`kept_as_mark`; docs/RATER_GUIDE.md, "Language").

:class:`DisplayText` maps positions in the shown text (Qt counts UTF-16 units) back to code-point
offsets in the original text, so evidence spans point at the bundle's text exactly.
"""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextBlockFormat, QTextCharFormat, QTextCursor, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QWidget

BIDI_CONTROLS = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
INVISIBLES = set("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u3164\uffa0")


def needs_marker(ch: str) -> bool:
    """True for characters shown as a ``⟨U+XXXX⟩`` marker instead of themselves."""
    if ch in ("\n", "\t"):
        return False
    if ch in BIDI_CONTROLS or ch in INVISIBLES:
        return True
    cat = unicodedata.category(ch)
    # Control, format (other than the above), surrogates, private use, unassigned, line/paragraph separators.
    return cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


DIRECTION_MARKS = frozenset("\u200e\u200f\u061c")
"""LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK, ARABIC LETTER MARK: kept as marks inside right-to-left text."""
JOINERS = frozenset("\u200c\u200d")
"""ZERO WIDTH NON-JOINER / JOINER: kept between letters of scripts that join (Arabic, Persian, Indic...)."""
_MARK_REACH = 64
"""How far (characters, same line) a direction mark looks for the strong text it sits in."""


def _strong(ch: str) -> str | None:
    """``"rtl"``/``"ltr"`` for a strongly directional character, None for a neutral one (digits, spaces...)."""
    kind = unicodedata.bidirectional(ch)
    return "rtl" if kind in ("R", "AL") else "ltr" if kind == "L" else None


def _near_strong(text: str, i: int, step: int) -> str | None:
    j = i + step
    while 0 <= j < len(text) and abs(j - i) <= _MARK_REACH and text[j] != "\n":
        kind = _strong(text[j])
        if kind is not None:
            return kind
        j += step
    return None


def _joining_letter(ch: str) -> bool:
    """A letter of a script where joiners shape the text (not Latin, Greek, Cyrillic or the like)."""
    return unicodedata.category(ch).startswith(("L", "M")) and ord(ch) >= 0x0590 and not 0x1E00 <= ord(ch) < 0x2000


def kept_as_mark(text: str, i: int) -> bool:
    """True when ``text[i]`` does its ordinary job and is shown as itself: a direction mark (U+200E, U+200F,
    U+061C) inside right-to-left text (the nearest strong letter before or after it on its line is
    right-to-left), or a zero-width (non-)joiner between two letters of a joining script. Embedding,
    override and isolate controls, and these same characters anywhere else, get a visible marker."""
    ch = text[i]
    if ch in DIRECTION_MARKS:
        return "rtl" in (_near_strong(text, i, -1), _near_strong(text, i, 1))
    if ch in JOINERS:
        return 0 < i < len(text) - 1 and _joining_letter(text[i - 1]) and _joining_letter(text[i + 1])
    return False


def marker(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def _u16(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


class DisplayText:
    """The shown form of a text and the way back to the original's code-point offsets."""

    __slots__ = ("_starts", "display", "original")

    def __init__(self, original: str, display: str, starts: tuple[int, ...] | None) -> None:
        self.original = original
        self.display = display
        self._starts = starts
        """UTF-16 offset in ``display`` where each original code point starts (plus one past the end);
        computed on first use when the text needed no markers (the common case, kept fast for long texts)."""

    @staticmethod
    def _clean(text: str) -> bool:
        """True when no character needs a marker (checked in C speed for the common case)."""
        if not text.replace("\n", "").replace("\t", "").isprintable():
            # isprintable() is also False for ordinary non-ASCII spaces (category Zs): check per character.
            return not any(needs_marker(ch) for ch in text)
        return not any(ch in text for ch in INVISIBLES)

    @classmethod
    def of(cls, text: str) -> DisplayText:
        if cls._clean(text):
            return cls(text, text, None)
        parts: list[str] = []
        starts: list[int] = []
        pos = 0
        for i, ch in enumerate(text):
            starts.append(pos)
            shown = marker(ch) if needs_marker(ch) and not kept_as_mark(text, i) else ch
            parts.append(shown)
            pos += sum(_u16(c) for c in shown)
        starts.append(pos)
        return cls(text, "".join(parts), tuple(starts))

    @property
    def starts(self) -> tuple[int, ...]:
        if self._starts is None:
            if self.original.isascii() or all(ord(c) <= 0xFFFF for c in self.original):
                self._starts = tuple(range(len(self.original) + 1))
            else:
                out, pos = [], 0
                for ch in self.original:
                    out.append(pos)
                    pos += _u16(ch)
                out.append(pos)
                self._starts = tuple(out)
        return self._starts

    def original_span(self, start16: int, end16: int) -> tuple[int, int]:
        """Code-point offsets ``[start, end)`` in the original covering display UTF-16 ``[start16, end16)``.

        A selection touching part of a marker covers the whole hidden character.
        """
        import bisect

        starts = self.starts
        lo, hi = min(start16, end16), max(start16, end16)
        start = bisect.bisect_right(starts, lo) - 1
        end = bisect.bisect_left(starts, hi)
        n = len(self.original)
        return max(0, min(start, n)), max(0, min(end, n))

    def display_offset(self, original_index: int) -> int:
        return self.starts[max(0, min(original_index, len(self.original)))]


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally.

    Qt renders a tooltip as rich text when it merely *looks* like HTML, so untrusted text is escaped and
    wrapped in our own minimal markup (line breaks kept); hidden characters get markers as elsewhere.
    """
    import html

    return '<p style="white-space:pre-wrap">' + html.escape(safe_line(text), quote=False) + "</p>"


def safe_line(text: str) -> str:
    """A short text for a label: markers for hidden characters, newlines kept."""
    return DisplayText.of(text).display


class PlainLabel(QLabel):
    """A label that never interprets its text (no rich text, no links)."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, wrap: bool = True) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setOpenExternalLinks(False)
        self.setWordWrap(wrap)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(safe_line(text))


SOFT_BREAK_EVERY = 2_000
"""Lines longer than this many characters are shown with some spaces turned into line breaks."""


def soft_breaks(display: str, every: int = SOFT_BREAK_EVERY) -> str:
    """``display`` with the first space after every ``every`` characters of a long line made a line break.

    Qt lays out and paints a paragraph as a whole: a 5 MB single-line response took about 3 s to show and
    every scroll step repainted it (about 300 ms, an unresponsive window). Short paragraphs show in 0.1 s
    and scroll in 20 ms steps (docs/PERFORMANCE.md). A space and a line break are one character each, so
    every offset (and the evidence-span mapping) stays the same; it looks like word wrap. A long line
    without spaces is left as it is.
    """
    if len(display) <= every:
        return display
    lines = display.split("\n")
    if all(len(line) <= every for line in lines):
        return display
    out: list[str] = []
    for line in lines:
        if len(line) > every:
            parts: list[str] = []
            i = 0
            while len(line) - i > every:
                j = line.find(" ", i + every)
                if j < 0:
                    break
                parts.append(line[i:j])
                i = j + 1
            parts.append(line[i:])
            line = "\n".join(parts)
        out.append(line)
    return "\n".join(out)


class PlainTextView(QPlainTextEdit):
    """Read-only, selectable, keyboard-reachable plain text with safe display (see module doc)."""

    def __init__(self, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(accessible_name)
        self.segments: list[tuple[int, DisplayText]] = []
        """(UTF-16 start in the document, DisplayText) of every untrusted text block inserted."""

    def clear_text(self) -> None:
        self.clear()
        self.segments = []

    def _end_cursor(self) -> QTextCursor:
        # A cursor on the document, not a copy of the view's (textCursor() costs twice as much per call,
        # and a 60-turn conversation makes 125 of them on every "next task"; docs/PERFORMANCE.md).
        return QTextCursor(self.document())

    def append_heading(self, text: str) -> None:
        """A bold heading line (our own words, or a speaker label made safe)."""
        cursor = self._end_cursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if not self.document().isEmpty():
            cursor.insertBlock(QTextBlockFormat())  # an empty line between sections
            cursor.insertBlock(QTextBlockFormat())
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Weight.Bold)
        cursor.insertText(safe_line(text), fmt)

    def append_body(self, text: str, *, new_block: bool = True) -> DisplayText:
        """Untrusted text as plain characters; returns its DisplayText (for span mapping)."""
        shown = DisplayText.of(text)
        cursor = self._end_cursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if new_block and not self.document().isEmpty():
            cursor.insertBlock(QTextBlockFormat())
        start = cursor.position()
        cursor.insertText(soft_breaks(shown.display), QTextCharFormat())
        self.segments.append((start, shown))
        return shown

    def set_untrusted(self, text: str) -> DisplayText:
        self.clear_text()
        shown = self.append_body(text, new_block=False)
        self.moveCursor(QTextCursor.MoveOperation.Start)
        return shown

    def selected_original_span(self) -> tuple[int, int] | None:
        """The selection as code-point offsets into the single untrusted text (``set_untrusted``)."""
        cursor = self.textCursor()
        if not cursor.hasSelection() or len(self.segments) != 1:
            return None
        base, shown = self.segments[0]
        start, end = shown.original_span(cursor.selectionStart() - base, cursor.selectionEnd() - base)
        return (start, end) if end > start else None
