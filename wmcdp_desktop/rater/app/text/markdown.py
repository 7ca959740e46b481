"""Bundle text rendered as its reader saw it (CommonMark with GitHub tables), safely, or as its exact source.

A chatbot's answer is markdown: shown raw, a rater reads ``**Guide**``, ``---`` and ``###``, and the
asterisks of one model tell it apart from another. :class:`BundleTextView` shows every text of a response
and of the scenario's turns rendered the same way for every model, by Qt's own markdown reader (md4c,
CommonMark with the GitHub dialect: tables, task lists, strikethrough, autolinks) with raw HTML off, or,
when the rater or the study asks for it, as the exact source (plain text, as :mod:`plain_text` shows it).

Rendering is safe by construction:

- raw HTML is never interpreted (``MarkdownNoHTML``: a tag is shown as the characters it is);
- nothing is loaded: an image is replaced by our own words naming its description and address (Qt would
  otherwise read a local file named by ``![](...)``), and the documents load no resource of any kind;
- no link can be followed: a link keeps its text, loses its target (the address is written after it), and no
  tooltip (Qt shows a tooltip as rich text) is left on any character;
- the source is first made safe as plain text is (:class:`~.plain_text.DisplayText`: hidden and reordering
  characters as visible markers, long lines broken, a very long text cut with a note), so what markdown
  reads never holds a character that could hide or reorder anything.

Every character the app adds (image and link notes, the note of a cut text) carries :data:`OWN_TEXT`, so that
:class:`SourceMap` can map a selection in the rendered text back to offsets in the original: each rendered
character of the source is found, in order, in the source (markdown only removes syntax around the words it
shows, and entities such as ``&amp;`` are matched as the character they stand for).
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass
from typing import Any, cast

from PySide6.QtCore import QCoreApplication, QMimeData, QUrl
from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
    QTextFrame,
    QTextTable,
)
from PySide6.QtWidgets import QTextEdit, QWidget

from wmcdp_desktop.rater.app.text.plain_text import DisplayText, make_reading_view, safe_line

FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownNoHTML.value | QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
)
"""CommonMark + GitHub (tables, task lists, strikethrough, autolinks), raw HTML shown as text."""
OWN_TEXT = int(QTextFormat.Property.UserProperty) + 27
"""A character property: text the app wrote (not the bundle's), left out when a selection is mapped."""
MAX_ADDRESS = 120
"""At most this many characters of a link's or an image's address are written (a data: address can be huge)."""
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_PIECES = re.compile(r"\S+")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_FALLBACK_REACH = 4096
"""How far (characters) a rendered character that is not found verbatim is looked for in the source."""


def _u16(text: str) -> int:
    return len(text) + sum(1 for _ in _ASTRAL.finditer(text)) if not text.isascii() else len(text)


class InertDocument(QTextDocument):
    """A text document that loads nothing: no image, no style sheet, no file, no data: address."""

    def loadResource(self, type: int, name: QUrl | str, /) -> Any:
        return None


def _own_format(base: QTextCharFormat | None = None) -> QTextCharFormat:
    """The format of the app's own words (italic; the font of ``base``, never its link, image or tooltip)."""
    fmt = QTextCharFormat()
    if base is not None and not base.isImageFormat():
        fmt.setFont(base.font())
    fmt.setProperty(OWN_TEXT, True)
    fmt.setFontItalic(True)
    fmt.setFontUnderline(False)
    return fmt


def _address(url: str) -> str:
    url = safe_line(url)
    return url if len(url) <= MAX_ADDRESS else url[:MAX_ADDRESS] + "…"


def _fragments(doc: QTextDocument) -> list[tuple[int, int, str, QTextCharFormat]]:
    """Every fragment of ``doc`` in order: (position, length in UTF-16 units, text, format)."""
    out: list[tuple[int, int, str, QTextCharFormat]] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.isValid():
                out.append((frag.position(), frag.length(), frag.text(), frag.charFormat()))
            it += 1
        block = block.next()
    return out


def _same_address(text: str, href: str) -> bool:
    """True for an autolink: its text is its address (``www.x.org`` for ``http://www.x.org``)."""
    text, href = text.strip().rstrip("/"), href.strip().rstrip("/")
    return href in {text, "http://" + text, "https://" + text, "mailto:" + text}


@dataclass
class _Link:
    end: int
    href: str
    text: str
    fmt: QTextCharFormat


def _defuse(doc: QTextDocument) -> None:
    """Images replaced by our words, links made inert (address written after them), tooltips removed."""
    images: list[tuple[int, int, str, str, QTextCharFormat]] = []
    links: list[_Link] = []
    """Each link (adjacent fragments of one link joined)."""
    for pos, length, text, fmt in _fragments(doc):
        if fmt.isImageFormat():
            image = fmt.toImageFormat()
            alt = str(image.property(QTextFormat.Property.ImageAltText) or "")
            images.append((pos, length, alt, image.name(), fmt))
            continue
        href = fmt.anchorHref()
        if fmt.isAnchor() or href or fmt.hasProperty(QTextFormat.Property.TextToolTip):
            inert = QTextCharFormat(fmt)
            inert.setAnchor(False)
            inert.setAnchorHref("")
            inert.setAnchorNames([])
            inert.clearProperty(QTextFormat.Property.TextToolTip)
            inert.clearForeground()
            cursor = QTextCursor(doc)
            cursor.setPosition(pos)
            cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.setCharFormat(inert)
        if href:
            if links and links[-1].end == pos and links[-1].href == href:
                links[-1].end = pos + length
                links[-1].text += text
            else:
                links.append(_Link(pos + length, href, text, fmt))
    link_note = QCoreApplication.translate("BundleText", "[link: {address}]")
    edits: list[tuple[int, int, str, QTextCharFormat]] = [
        (link.end, 0, " " + link_note.format(address=_address(link.href)), link.fmt)
        for link in links
        if not _same_address(link.text, link.href)
    ]
    for pos, length, alt, url, fmt in images:
        note = QCoreApplication.translate("BundleText", "[image not shown: {description} ({address})]").format(
            description=safe_line(alt) or QCoreApplication.translate("BundleText", "no description"),
            address=_address(url),
        )
        edits.append((pos, length, note, fmt))
    for pos, length, note, fmt in sorted(edits, key=lambda e: e[0], reverse=True):
        cursor = QTextCursor(doc)
        cursor.setPosition(pos)
        cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(note, _own_format(fmt))


def _space_tables(frame: QTextFrame) -> None:
    """Tables with room in their cells and one thin border (Qt's markdown tables have neither)."""
    for child in frame.childFrames():
        if isinstance(child, QTextTable):
            fmt = child.format()
            fmt.setCellPadding(4)
            fmt.setCellSpacing(0)
            fmt.setBorder(1)
            fmt.setBorderCollapse(True)
            child.setFormat(fmt)
        _space_tables(child)


def render_markdown(display: str) -> QTextDocument:
    """``display`` (text already made safe by :class:`DisplayText`) read as markdown into a defused document."""
    doc = InertDocument()
    doc.setMarkdown(display, FEATURES)
    _defuse(doc)
    _space_tables(doc.rootFrame())
    return doc


class SourceMap:
    """Where each rendered character of a text came from in its shown source (UTF-16 units both sides).

    Built from the document's fragments in order: each run of non-space characters not written by the app is
    found in the source at or after the end of the last one found (markdown removes the syntax between the
    words it shows and never reorders them); an entity (``&amp;``) matches the character it stands for.
    Spaces and line ends are not mapped (markdown changes them), so a selection's ends are its first and
    last characters that are not spaces."""

    def __init__(self, doc: QTextDocument, source: str, start: int = 0, end: int | None = None) -> None:
        self.doc_starts: list[int] = []
        self.src_starts: list[int] = []
        self.lengths: list[int] = []
        self._source = source
        self._entity_ends: dict[int, int] = {}
        """Runs that stand for an entity: where the entity ends in the source."""
        self._astral = [m.start() for m in _ASTRAL.finditer(source)]
        cursor = 0
        for pos, _length, text, fmt in _fragments(doc):
            if pos < start or (end is not None and pos >= end) or fmt.property(OWN_TEXT) or fmt.isImageFormat():
                continue
            for piece in _PIECES.finditer(text):
                word = piece.group()
                doc_at = pos + _u16(text[: piece.start()])
                k = source.find(word, cursor)
                if k >= 0 and "&" not in source[cursor:k]:
                    self._add(doc_at, k, word)
                    cursor = k + len(word)
                else:
                    cursor = self._by_character(word, doc_at, cursor)

    def _src16(self, index: int) -> int:
        return index + bisect.bisect_left(self._astral, index)

    def _add(self, doc_at: int, src_index: int, word: str) -> None:
        src_at = self._src16(src_index)
        n = _u16(word)
        if self.doc_starts and self.doc_starts[-1] + self.lengths[-1] == doc_at and (
            self.src_starts[-1] + self.lengths[-1] == src_at
        ):
            self.lengths[-1] += n
            return
        self.doc_starts.append(doc_at)
        self.src_starts.append(src_at)
        self.lengths.append(n)

    def _by_character(self, word: str, doc_at: int, cursor: int) -> int:
        source = self._source
        for ch in word:
            reach = min(len(source), cursor + _FALLBACK_REACH)
            j = source.find(ch, cursor, reach)
            amp = source.find("&", cursor, j if j >= 0 else reach)
            entity = _ENTITY.match(source, amp) if amp >= 0 else None
            if entity is not None and html.unescape(entity.group()).startswith(ch):
                # the character an entity stands for: the whole entity is its source (one unit of the map)
                self.doc_starts.append(doc_at)
                self.src_starts.append(self._src16(entity.start()))
                self.lengths.append(_u16(ch))
                self._entity_ends[len(self.doc_starts) - 1] = self._src16(entity.end())
                cursor = entity.end()
            elif j >= 0:
                self._add(doc_at, j, ch)
                cursor = j + 1
            doc_at += _u16(ch)
        return cursor

    def source_span(self, start16: int, end16: int) -> tuple[int, int] | None:
        """The shown-source span (UTF-16) of the rendered selection ``[start16, end16)``, None when it holds
        nothing from the source (only spaces, or only the app's own words)."""
        lo, hi = min(start16, end16), max(start16, end16)
        if not self.doc_starts or lo == hi:
            return None
        i = bisect.bisect_right(self.doc_starts, lo) - 1
        if i >= 0 and lo < self.doc_starts[i] + self.lengths[i]:
            begin = self.src_starts[i] + (lo - self.doc_starts[i]) if i not in self._entity_ends else self.src_starts[i]
        else:
            i += 1
            if i >= len(self.doc_starts):
                return None
            begin = self.src_starts[i]
        j = bisect.bisect_left(self.doc_starts, hi) - 1
        if j < i:
            return None
        if j in self._entity_ends:
            finish = self._entity_ends[j]
        elif hi < self.doc_starts[j] + self.lengths[j]:
            finish = self.src_starts[j] + (hi - self.doc_starts[j])
        else:
            finish = self.src_starts[j] + self.lengths[j]
        return (begin, finish) if finish > begin else None


def _selection_bounds(cursor: QTextCursor) -> tuple[int, int]:
    """Where a selection starts and ends; for cells selected inside one table (Qt selects whole cells), from
    the first selected cell's start to the last one's end."""
    table = cursor.currentTable() if cursor.hasComplexSelection() else None
    if table is not None:
        first_row, rows, first_column, columns = cast(tuple[int, int, int, int], cursor.selectedTableCells())
        if rows > 0 and columns > 0:
            first = table.cellAt(first_row, first_column)
            last = table.cellAt(first_row + rows - 1, first_column + columns - 1)
            return first.firstPosition(), last.lastPosition()
    return cursor.selectionStart(), cursor.selectionEnd()


class BundleTextView(QTextEdit):
    """Read-only, selectable, keyboard-reachable bundle text, rendered (markdown) or as its exact source.

    The same calls as :class:`~.plain_text.PlainTextView` (``clear_text``, ``append_heading``,
    ``append_body``, ``set_untrusted``, ``selected_original_span``); :meth:`set_rendered` chooses how the
    bundle's texts are shown from the next text on."""

    def __init__(self, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocument(InertDocument(self))
        make_reading_view(self, accessible_name)
        self.setAcceptRichText(False)
        self.rendered = True
        """Bundle texts read as markdown (False: shown as their exact source)."""
        self.segments: list[tuple[int, DisplayText]] = []
        """(UTF-16 start in the document, DisplayText) of every bundle text inserted."""
        self._ends: list[int] = []
        self._maps: dict[int, SourceMap] = {}

    def loadResource(self, type: int, name: QUrl | str, /) -> Any:
        return None  # nothing is ever loaded for the document (images are replaced before it sees them)

    def createMimeDataFromSelection(self) -> QMimeData:
        data = super().createMimeDataFromSelection()
        data.setHtml("")  # a copy is plain text: nothing of the document's formatting reaches another program
        data.removeFormat("text/html")
        return data

    def set_rendered(self, rendered: bool) -> None:
        self.rendered = rendered

    def clear_text(self) -> None:
        self.document().clear()
        self.segments = []
        self._ends = []
        self._maps = {}

    def _end_cursor(self) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def append_heading(self, text: str) -> None:
        """A bold heading line (our own words, or a speaker label made safe)."""
        cursor = self._end_cursor()
        if not self.document().isEmpty():
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Weight.Bold)
        fmt.setProperty(OWN_TEXT, True)
        cursor.insertText(safe_line(text), fmt)

    def append_plain(self, text: str) -> None:
        """Lines as written in either mode (the app's own lines of facts, such as the scenario's context)."""
        rendered, self.rendered = self.rendered, False
        try:
            self.append_body(text)
        finally:
            self.rendered = rendered

    def append_body(self, text: str, *, new_block: bool = True) -> DisplayText:
        """A bundle text, rendered or as its source; returns its DisplayText (for span mapping)."""
        shown = DisplayText.of(text)
        cursor = self._end_cursor()
        if new_block and not self.document().isEmpty():
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        start = cursor.position()
        if self.rendered:
            cursor.insertFragment(QTextDocumentFragment(render_markdown(shown.display)))
        else:
            cursor.insertText(shown.display, QTextCharFormat())
        self.segments.append((start, shown))
        self._ends.append(cursor.position())
        if shown.omitted:
            note = _own_format()
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            cursor.insertText(shown.omitted_note(), note)
        return shown

    def set_untrusted(self, text: str) -> DisplayText:
        self.clear_text()
        shown = self.append_body(text, new_block=False)
        self.moveCursor(QTextCursor.MoveOperation.Start)
        return shown

    def selected_original_span(self) -> tuple[int, int] | None:
        """The selection as code-point offsets into the single bundle text (``set_untrusted``)."""
        cursor = self.textCursor()
        if not cursor.hasSelection() or len(self.segments) != 1:
            return None
        base, shown = self.segments[0]
        lo, hi = _selection_bounds(cursor)
        if self.rendered:
            source_map = self._maps.get(0)
            if source_map is None:
                source_map = self._maps[0] = SourceMap(self.document(), shown.display, base, self._ends[0])
            span16 = source_map.source_span(lo, hi)
            if span16 is None:
                return None
            start, end = shown.original_span(*span16)
        else:
            start, end = shown.original_span(lo - base, hi - base)
        return (start, end) if end > start else None
