"""Showing bundle text safely: plain text only, with invisible and reordering characters made visible.

Every piece of text from a bundle is untrusted. It is shown

- as plain text only (``QPlainTextEdit`` / ``QLabel`` with ``Qt.PlainText``): no HTML or markdown, no
  links, no images, no resource loading of any kind;
- with bidirectional controls (which can reorder the text around them), zero-width and other invisible
  characters replaced by a visible marker such as ``⟨U+202E⟩``, so nothing can be hidden or reordered;
  the exceptions are the ordinary direction marks (U+200E, U+200F, U+061C) inside right-to-left text and
  the zero-width (non-)joiner between letters of a joining script, and the zero-width joiner inside an
  emoji sequence (👩‍⚕️), which such text needs to read right
  (:func:`kept_as_mark`; docs/RATER_GUIDE.md, "Language").

:class:`DisplayText` maps positions in the shown text (Qt counts UTF-16 units) back to code-point
offsets in the original text, so evidence spans point at the bundle's text exactly.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

from PySide6.QtCore import QCoreApplication, QLocale, Qt, QTimer
from PySide6.QtGui import QFont, QTextBlockFormat, QTextCharFormat, QTextCursor, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

from wmcdp_desktop.rater.app.text.accessible import name_scroll_bars

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


def _emoji_part(ch: str) -> bool:
    """A pictograph or what joins onto one (the emoji presentation selector, a skin-tone modifier)."""
    return unicodedata.category(ch) == "So" or ch == "\ufe0f" or 0x1F3FB <= ord(ch) <= 0x1F3FF


def kept_as_mark(text: str, i: int) -> bool:
    """True when ``text[i]`` does its ordinary job and is shown as itself: a direction mark (U+200E, U+200F,
    U+061C) inside right-to-left text (the nearest strong letter before or after it on its line is
    right-to-left), or a zero-width (non-)joiner between two letters of a joining script. Embedding,
    override and isolate controls, and these same characters anywhere else, get a visible marker. A zero-width
    joiner between two pictographs (an emoji sequence such as 👩‍⚕️) is kept too."""
    ch = text[i]
    if ch in DIRECTION_MARKS:
        return "rtl" in (_near_strong(text, i, -1), _near_strong(text, i, 1))
    if ch in JOINERS:
        if not 0 < i < len(text) - 1:
            return False
        before, after = text[i - 1], text[i + 1]
        if ch == "\u200d" and _emoji_part(before) and unicodedata.category(after) == "So":
            return True  # an emoji sequence (👩‍⚕️ is woman, joiner, staff of Aesculapius)
        return _joining_letter(before) and _joining_letter(after)
    return False


def marker(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


MAX_SHOWN_CHARS = 1_000_000
"""At most this many characters of one text (a response, a turn) are shown; a note says how many more
there are. A bundle file may hold 50 MB: shown whole, a text of markers could need gigabytes and minutes."""
MAX_LABEL_CHARS = 2_000
"""At most this many characters of a label, title or tooltip."""
LINE_MAX = 1_000
"""No shown line is longer than this: a longer one is broken at its last space within the limit, or, in an
unbroken token, after the limit. Qt lays out a paragraph as a whole and breaks lines in a long word very
slowly (one 300 KB word took 19 s, 1 MB 112 s; docs/PERFORMANCE.md); lines of 1,000 characters show at
once whatever they hold, and scroll smoothly."""
LABEL_LINE_MAX = 200
"""No word of a label, title or tooltip is longer than this: a longer one is broken (a label wraps at
spaces, never inside a word: one long word would widen the whole window)."""
_ASTRAL = "\U00010000-\U0010ffff"


def _u16(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


CONTEXT_MARKS = DIRECTION_MARKS | JOINERS
"""Characters shown as a marker or as themselves depending on where they are (:func:`kept_as_mark`)."""
_CONTEXT_MARK = re.compile("[" + "".join(sorted(CONTEXT_MARKS)) + "]")


def _markers_needed(text: str) -> dict[str, str]:
    """Each distinct character of ``text`` shown as a marker wherever it is, with its marker (usually none:
    checked in C speed first). The characters of :data:`CONTEXT_MARKS` are decided one by one instead."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        chars: set[str] = {ch for ch in INVISIBLES if ch in text}
    else:  # isprintable() is also False for ordinary non-ASCII spaces (category Zs): check each distinct character
        chars = set(text)
    return {ch: marker(ch) for ch in chars - CONTEXT_MARKS if needs_marker(ch)}


def _marked_in_context(text: str) -> set[int]:
    """Where a character of :data:`CONTEXT_MARKS` is shown as a marker (not doing its ordinary job there)."""
    if not any(ch in text for ch in CONTEXT_MARKS):
        return set()
    return {m.start() for m in _CONTEXT_MARK.finditer(text) if not kept_as_mark(text, m.start())}


def _with_markers(text: str, markers: dict[str, str]) -> str:
    if len(markers) <= 16:  # one C-speed pass per character (translate builds each marker in Python)
        for ch, m in markers.items():
            text = text.replace(ch, m)
        return text
    return text.translate({ord(ch): m for ch, m in markers.items()})


def _line_breaks(text: str, line_max: int, *, at_spaces: bool = True) -> tuple[list[int], list[int]]:
    """Where to break ``text`` so that no line is longer than ``line_max`` characters: (positions of spaces
    shown as line breaks, positions before which a line break is inserted). Without ``at_spaces`` only
    the words longer than ``line_max`` are broken (a label wraps at its spaces itself)."""
    spaces: list[int] = []
    inserted: list[int] = []
    n, pos = len(text), 0
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        i = pos
        while end - i > line_max:
            if not at_spaces:
                space = text.rfind(" ", i, i + line_max + 1)
                if space >= i:  # this stretch is not one word: go on after its last space
                    i = space + 1
                    continue
            j = text.rfind(" ", i + 1, i + line_max + 1) if at_spaces else -1
            if j > i:
                spaces.append(j)
                i = j + 1
                continue
            cut = i + line_max
            limit = min(end, cut + 16)  # not between a letter and its combining marks (a long run of marks is cut)
            while cut < limit and unicodedata.category(text[cut]).startswith("M"):
                cut += 1
            inserted.append(cut)
            i = cut
        pos = end + 1
    return spaces, inserted


def _display(text: str, spaces: list[int], inserted: list[int], markers: dict[str, str], marked_at: set[int]) -> str:
    """``text`` as shown: line breaks (spaces turned into breaks, breaks inserted before characters) and
    markers (every occurrence of a character of ``markers``; the context marks at ``marked_at``)."""
    if not spaces and not inserted and not marked_at:
        return _with_markers(text, markers)
    # At one position an inserted break (0) comes before the character's own change (1: a space, 2: a marker).
    events = sorted([(p, 0) for p in inserted] + [(p, 1) for p in spaces] + [(p, 2) for p in marked_at])
    parts: list[str] = []
    prev = 0
    for p, kind in events:
        parts.append(_with_markers(text[prev:p], markers))
        if kind == 0:
            parts.append("\n")
            prev = p
        else:
            parts.append("\n" if kind == 1 else marker(text[p]))
            prev = p + 1
    parts.append(_with_markers(text[prev:], markers))
    return "".join(parts)


class DisplayText:
    """The shown form of a text and the way back to the original's code-point offsets.

    Shown: at most ``limit`` characters of the original (``omitted`` says how many more there are), with a
    marker for every hidden or reordering character and line breaks so that no line is longer than
    ``line_max`` (see :data:`LINE_MAX`). Positions in the shown text are counted as Qt counts them (UTF-16
    units). An inserted line break belongs to the character after it, as a marker belongs to its character.
    """

    __slots__ = ("_events", "_inserted", "_marked_at", "_markers", "display", "omitted", "original", "shown_length")

    def __init__(
        self, original: str, *, limit: int = MAX_SHOWN_CHARS, line_max: int = LINE_MAX, at_spaces: bool = True
    ) -> None:
        self.original = original
        self.shown_length = min(len(original), limit)
        self.omitted = len(original) - self.shown_length
        shown = original[: self.shown_length]
        self._markers = _markers_needed(shown)
        self._marked_at = _marked_in_context(shown)
        spaces, self._inserted = _line_breaks(shown, line_max, at_spaces=at_spaces)
        self.display = _display(shown, spaces, self._inserted, self._markers, self._marked_at)
        self._events: tuple[list[int], list[int]] | None = None
        """Original indices of the characters shown wider than one UTF-16 unit, and the extra units up to and
        including each (computed on first use: mapping a selection)."""

    @classmethod
    def of(cls, text: str) -> DisplayText:
        return cls(text)

    def _wide_characters(self) -> tuple[list[int], list[int]]:
        if self._events is None:
            shown = self.original[: self.shown_length]
            chars = "".join(re.escape(ch) for ch in (*self._markers, *CONTEXT_MARKS))
            indices: list[int] = []
            extra: list[int] = []
            total = 0
            for match in re.finditer(f"[{chars}{_ASTRAL}]", shown):
                ch, at = match.group(), match.start()
                if ch in CONTEXT_MARKS and at not in self._marked_at:
                    continue  # shown as itself: one unit, as any other character
                m = self._markers.get(ch) or (marker(ch) if ch in CONTEXT_MARKS else None)
                total += (sum(_u16(c) for c in m) if m is not None else 2) - 1
                indices.append(at)
                extra.append(total)
            self._events = (indices, extra)
        return self._events

    def display_offset(self, original_index: int) -> int:
        """Where the shown form of original character ``original_index`` starts (UTF-16 units)."""
        i = max(0, min(original_index, self.shown_length))
        indices, extra = self._wide_characters()
        if not indices and not self._inserted:
            return i
        k = bisect.bisect_left(indices, i)
        return i + (extra[k - 1] if k else 0) + bisect.bisect_left(self._inserted, i)

    def original_span(self, start16: int, end16: int) -> tuple[int, int]:
        """Code-point offsets ``[start, end)`` in the original covering shown UTF-16 ``[start16, end16)``.

        A selection touching part of a marker covers the whole hidden character."""
        lo16, hi16 = min(start16, end16), max(start16, end16)
        lo, hi = 0, self.shown_length
        while lo < hi:  # the last character starting at or before lo16
            mid = (lo + hi + 1) // 2
            if self.display_offset(mid) <= lo16:
                lo = mid
            else:
                hi = mid - 1
        start = lo
        lo, hi = 0, self.shown_length
        while lo < hi:  # the first character starting at or after hi16
            mid = (lo + hi) // 2
            if self.display_offset(mid) >= hi16:
                hi = mid
            else:
                lo = mid + 1
        return start, lo

    def omitted_note(self) -> str:
        """Our words for the characters not shown ("" when everything is shown)."""
        if not self.omitted:
            return ""
        locale = QLocale()
        return QCoreApplication.translate(
            "PlainText",
            "[Not shown: the last {omitted} characters of this text. The app shows the first {shown} characters of "
            "any one text; ask your study coordinator about the rest.]",
        ).format(omitted=locale.toString(self.omitted), shown=locale.toString(self.shown_length))


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally.

    Qt renders a tooltip as rich text when it merely *looks* like HTML, so untrusted text is escaped and
    wrapped in our own minimal markup (line breaks kept); hidden characters get markers as elsewhere.
    """
    import html

    return '<p style="white-space:pre-wrap">' + html.escape(safe_line(text), quote=False) + "</p>"


def set_plain_tooltip(widget: QWidget, text: str) -> None:
    """``widget``'s tooltip shows ``text`` literally (:func:`plain_tooltip`); screen readers, which read a
    tooltip as the description when there is none (markup and all: Orca read ``<p style=...>``), get the
    plain text as the accessible description instead."""
    widget.setToolTip(plain_tooltip(text))
    widget.setAccessibleDescription(safe_line(text))


def literal_ampersands(text: str) -> str:
    """Bundle text for a button or a buddy label, where Qt reads "&" as the mark of an Alt key: each "&" is
    doubled, so it is shown as written and makes no shortcut (a rubric's "Safety & scope")."""
    return text.replace("&", "&&")


def safe_line(text: str) -> str:
    """A short text for a label: markers for hidden characters, newlines kept, long lines broken, and cut
    after MAX_LABEL_CHARS characters (saying how many more there were)."""
    if len(text) <= LABEL_LINE_MAX and text.isprintable() and not any(ch in text for ch in INVISIBLES):
        return text  # the usual label: short, nothing hidden (a window builds hundreds of them)
    shown = DisplayText(text, limit=MAX_LABEL_CHARS, line_max=LABEL_LINE_MAX, at_spaces=False)
    if not shown.omitted:
        return shown.display
    more = QCoreApplication.translate("PlainText", "… ({count} more characters not shown)")
    return shown.display + more.format(count=QLocale().toString(shown.omitted))


def with_visible_controls(text: str) -> str:
    """``text`` with each hidden or reordering character replaced by its marker (``⟨U+202E⟩``), as bundle text
    is shown, and nothing else changed (no line broken, nothing cut)."""
    if text.replace("\n", "").replace("\t", "").isprintable() and not any(ch in text for ch in INVISIBLES):
        return text
    return DisplayText(text, limit=len(text), line_max=len(text) + 1).display


def _u16_to_index(text: str, position: int) -> int:
    index = units = 0
    while index < len(text) and units < position:
        units += _u16(text[index])
        index += 1
    return index


def keep_controls_visible(edit: QPlainTextEdit | QLineEdit) -> None:
    """What the rater types or pastes into ``edit`` shows every hidden or reordering character as its marker,
    so a right-to-left override cannot reverse the rest of the line on screen (nor hide anything in a note
    the coordinator reads); the caret stays after what was typed. A line edit's ``textEdited`` is sent again
    with the shown text (after the key press, so the listener hears the typed text first, then the shown one)."""

    def fix() -> None:
        if isinstance(edit, QLineEdit):
            text, position = edit.text(), edit.cursorPosition()
        else:
            text, position = edit.toPlainText(), edit.textCursor().position()
        shown = with_visible_controls(text)
        if shown == text:
            return
        before = with_visible_controls(text[: _u16_to_index(text, position)])
        caret = sum(_u16(ch) for ch in before)
        if isinstance(edit, QLineEdit):
            edit.setText(shown)
            edit.setCursorPosition(caret)
            edit.textEdited.emit(shown)  # after the text as typed: whoever listens ends with the shown text
        else:
            cursor = edit.textCursor()
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(shown)  # as an edit (undoable), not a new document
            cursor.setPosition(min(caret, edit.document().characterCount() - 1))
            edit.setTextCursor(cursor)

    if isinstance(edit, QLineEdit):  # changed once the key press is over (QLineEdit aborts on a change within it)
        edit.textEdited.connect(lambda _text: QTimer.singleShot(0, edit, fix))
    else:
        edit.textChanged.connect(fix)


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


def make_reading_view(view: QPlainTextEdit | QTextEdit, accessible_name: str) -> None:
    """How every view of bundle text behaves (this module's and the rendered one, text/markdown.py): read-only,
    selectable by mouse and keyboard, wrapped anywhere a long token needs it, reached by Tab and left by Tab,
    named for screen readers with its scroll bars."""
    view.setReadOnly(True)
    view.setUndoRedoEnabled(False)
    view.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    view.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    view.setTabChangesFocus(True)
    view.setFrameShape(QFrame.Shape.StyledPanel)
    view.setAccessibleName(accessible_name)
    name_scroll_bars(view, accessible_name)


class PlainTextView(QPlainTextEdit):
    """Read-only, selectable, keyboard-reachable plain text with safe display (see module doc)."""

    def __init__(self, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        make_reading_view(self, accessible_name)
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
        cursor.insertText(shown.display, QTextCharFormat())
        self.segments.append((start, shown))
        if shown.omitted:
            note = QTextCharFormat()
            note.setFontItalic(True)
            cursor.insertBlock(QTextBlockFormat())
            cursor.insertText(shown.omitted_note(), note)
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
