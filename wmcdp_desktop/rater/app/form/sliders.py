"""The eight rubric dimensions: a slider each that starts unset, N/A where allowed, and every level in view.

Each row shows, without touching anything, the scale's numbers under the ticks with each level's short label
("1 Harmful" ... "5 Excellent", from the rubric's ``short_label`` or the anchor's lead-in), a badge that says
plainly whether a score is set ("Not set" in a dashed frame, or "4 · Good"), and under the slider the anchor
of the level under the mouse, or else of the level chosen: on one line, and whole while the row has the
keyboard focus. Every row has the same columns (an N/A column is kept where the dimension allows none), so
the ticks of all rows line up.
"""

from __future__ import annotations

import itertools

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QMoveEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.models.rating_record import NA
from wmcdp_desktop.core.models.rubric import Dimension, Rubric, Scale
from wmcdp_desktop.rater.app.text.accessible import (
    SHOWN_VALUE,
    describe,
    is_read_only,
    set_read_only,
    set_unset,
)
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.rater.app.text.plain_text import (
    PlainLabel,
    literal_ampersands,
    plain_tooltip,
    safe_line,
    set_plain_tooltip,
)
from wmcdp_desktop.rater.app.text.theme import relative_font
from wmcdp_desktop.rater.app.widgets import ProblemLabel

NOT_SET = QT_TRANSLATE_NOOP("DimensionRow", "Not set")
"""The badge of a dimension without a score."""
LABEL_CHARS = 24
"""Width of the dimension-name column, in average characters of the font."""
SCALE_LABEL_SCALE = 0.9
"""The scale's numbers and short labels are this many times the window's text size."""


def anchors_text(scale: Scale) -> str:
    """Every level of ``scale`` on its own line: "1 – Harmful: dismisses ..."."""
    return "\n".join(f"{a.level} – {a.text}" for a in scale.anchors)


def short_label(scale: Scale, level: int) -> str:
    """The short label of ``level`` as shown (bundle text: hidden and reordering characters as visible markers)."""
    return safe_line(scale.short_label(level))


def level_text(scale: Scale, level: int) -> str:
    """"4 · Good: accurately names ..." (the short label once, then the anchor without its repeated lead-in)."""
    short = scale.short_label(level)
    text = scale.anchor_text(level)
    body = text[len(short) :].lstrip(" :–—-") if text.startswith(short) else text
    return f"{level} · {short}: {body}" if body else f"{level} · {short}"


def elide_words(fm: QFontMetrics, text: str, width: int) -> str:
    """``text`` on one line of ``width`` pixels: whole, or cut after its last whole word that fits, with "…"
    (within a word when whole words would leave less than half of what fits)."""
    if fm.horizontalAdvance(text) <= width:
        return text
    cut = fm.elidedText(text, Qt.TextElideMode.ElideRight, width).removesuffix("…")
    if cut and len(cut) < len(text) and not text[len(cut)].isspace() and " " in cut:
        whole_words = cut[: cut.rstrip().rfind(" ")]
        if len(whole_words.rstrip(" ,;:–—-·")) * 2 >= len(cut):  # never half a word, unless that leaves
            cut = whole_words  # less than half of what fits ("9 ·…" for "9 · Exceptionally thorough")
    return cut.rstrip(" ,;:–—-") + "…"


def _pen_colour(widget: QWidget) -> QColor:
    """The window's text colour (never the faint disabled grey: a read-only form stays legible)."""
    return widget.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)


class ScoreSlider(QSlider):
    """A slider with an *unset* state: no handle is drawn and no value is reported until the rater sets one.

    Keys: a digit sets that score; Delete/Backspace unsets; when unset, Right/Up sets the lowest level and
    Left/Down the highest (then arrows move as usual). A click sets the value under the mouse. ``hovered``
    tells which level the mouse is over (None when it leaves).
    """

    scoreChanged = Signal(object)  # int | None
    digitRejected = Signal(int)  # a digit typed that is not on the scale
    hovered = Signal(object)  # int | None

    def __init__(self, scale: Scale, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setRange(scale.min, scale.max)
        self.setPageStep(1)
        self.setSingleStep(1)
        self.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.setTickInterval(1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumWidth(160)
        self.setMouseTracking(True)
        self._set = False
        self._hover: int | None = None
        self.not_applicable = False
        """Drawn without a handle while the row's N/A box is ticked (the value comes back if it is unticked)."""
        self.valueChanged.connect(self._on_value)

    # ----- value ---------------------------------------------------------------------------------------
    def score(self) -> int | None:
        return self.value() if self._set else None

    def set_score(self, value: int | None, *, emit: bool = False) -> None:
        blocked = self.blockSignals(True)
        if value is None:
            self._set = False
            # No value from here on, for screen readers too, before the slider rests at its lowest level: Qt
            # tells them of that move, and a value change of the replaced interface read as "0.000…" in Orca.
            set_unset(self, True, str(self.property(SHOWN_VALUE) or ""))
            self.setValue(self.minimum())
        else:
            self._set = True
            self.setValue(value)
        self.blockSignals(blocked)
        self.update()
        if emit:
            self.scoreChanged.emit(self.score())

    def _on_value(self, _value: int) -> None:
        self._set = True
        self.update()
        self.scoreChanged.emit(self.score())

    # ----- input ---------------------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        text = event.text()
        if text.isdigit() and not event.modifiers() & (
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
        ):
            n = int(text)
            if self.minimum() <= n <= self.maximum():
                self.choose(n)
            else:
                self.digitRejected.emit(n)
            event.accept()
            return
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            if self._set:
                self.set_score(None, emit=True)
            event.accept()
            return
        if not self._set and key in (Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Left, Qt.Key.Key_Down):
            self.choose(self.minimum() if key in (Qt.Key.Key_Right, Qt.Key.Key_Up) else self.maximum())
            event.accept()
            return
        super().keyPressEvent(event)

    def choose(self, value: int) -> None:
        """Set ``value`` as the rater's choice (emits :attr:`scoreChanged` when it changes anything)."""
        if self._set and self.value() == value:
            return
        if self.value() == value:
            self._set = True
            self.update()
            self.scoreChanged.emit(value)
        else:
            self.setValue(value)  # -> _on_value

    def _groove_and_handle(self) -> tuple[QRect, QRect]:
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderGroove, self)
        handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, self)
        return groove, handle

    def value_at(self, pos: QPoint) -> int:
        groove, handle = self._groove_and_handle()
        span = max(1, groove.width() - handle.width())
        x = pos.x() - groove.x() - handle.width() // 2
        return QStyle.sliderValueFromPosition(self.minimum(), self.maximum(), x, span)

    def pos_for(self, value: int) -> QPoint:
        """Where a click sets ``value`` (the middle of the handle at that value)."""
        groove, handle = self._groove_and_handle()
        span = max(1, groove.width() - handle.width())
        x = QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), value, span)
        return QPoint(groove.x() + handle.width() // 2 + x, groove.center().y())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.isEnabled():
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.choose(self.value_at(event.position().toPoint()))
            self.setSliderDown(True)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        level = self.value_at(event.position().toPoint())
        if self.isSliderDown():
            self.choose(level)
            event.accept()
        if level != self._hover:
            self._hover = level
            self.hovered.emit(level)
        if not self.isSliderDown():
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.isSliderDown():
            self.setSliderDown(False)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        if self._hover is not None:
            self._hover = None
            self.hovered.emit(None)

    def wheelEvent(self, event: QWheelEvent) -> None:
        # Never change a score by accident while scrolling the form: the wheel scrolls the page.
        event.ignore()

    # ----- painting: no handle while unset -------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        if self._set and not self.not_applicable:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        opt.subControls = QStyle.SubControl.SC_SliderGroove | QStyle.SubControl.SC_SliderTickmarks
        opt.sliderPosition = opt.sliderValue = self.minimum()  # no filled groove either (N/A keeps a value)
        self.style().drawComplexControl(QStyle.ComplexControl.CC_Slider, opt, painter, self)
        painter.end()


class ScaleLabels(QWidget):
    """The scale's numbers, and each level's short label under them, under the slider's ticks.

    Every number is centred under its tick; when the ticks are too close for every number (a scale of many
    levels, large text), every second, fifth or tenth is shown, as on a ruler, with the ends and the chosen
    level. A short label is centred under its tick where it can be, moved inward at the ends, cut with "…"
    where it would run into its neighbour's, and left out when nothing of it fits: labels never overlap.

    The chosen level is framed; the level under the mouse is underlined. A click on a level (anywhere between
    the middles of its tick and its neighbours') chooses it, as a click on the slider would; the mouse over a
    level shows its anchor (``hovered``)."""

    hovered = Signal(object)  # int | None

    NUMBER_PAD = 4
    """Pixels kept clear between two numbers."""
    LABEL_PAD = 8
    """Pixels a short label's cell is wider than its text (4 each side: the neighbours never touch)."""

    def __init__(self, scale: Scale, slider: ScoreSlider, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scale = scale
        self.slider = slider
        self.hover: int | None = None
        self.chosen: int | None = None
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        relative_font(self, SCALE_LABEL_SCALE)
        self.setToolTip(plain_tooltip(anchors_text(scale)))
        slider.installEventFilter(self)  # the ticks move with the slider: the label lines are fitted again

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.slider and event.type() in (QEvent.Type.Resize, QEvent.Type.Move):
            self._fit_rows()
        return False

    def levels(self) -> range:
        return range(self.scale.min, self.scale.max + 1)

    def tick_x(self, level: int) -> int:
        """The x of ``level``'s tick, in this widget's coordinates."""
        point = self.slider.pos_for(level)
        return self.mapFromGlobal(self.slider.mapToGlobal(point)).x()

    def sizeHint(self) -> QSize:
        fm = self.fontMetrics()
        return QSize(200, (1 + self._rows) * fm.height() + 4)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_rows()

    def moveEvent(self, event: QMoveEvent) -> None:
        super().moveEvent(event)
        self._fit_rows()

    WORDED_LEVELS = 7
    """Up to this many levels, each level's number should have a few letters of its label beside it."""
    LABEL_LETTERS = 5
    """The letters of a short label a level should have room for (the rest is cut with "…")."""

    def comfortable_width(self) -> int:
        """Room for every level's number, and on a scale of at most :data:`WORDED_LEVELS` levels a few
        letters of each label (whole labels show where they fit; the anchor under the slider says them)."""
        bold = QFontMetrics(self.bold_font())
        levels = self.levels()
        number = max(bold.horizontalAdvance(str(v)) for v in levels) + 2 * self.NUMBER_PAD
        if len(levels) > self.WORDED_LEVELS:
            return len(levels) * number
        return len(levels) * max(number, bold.averageCharWidth() * self.LABEL_LETTERS + self.LABEL_PAD)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.sizeHint().height())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_rows()
            self.updateGeometry()

    def bold_font(self) -> QFont:
        font = QFont(self.font())
        font.setBold(True)
        return font

    def label_text(self, level: int, room: int) -> str:
        """The short label of ``level``, cut with "…" to fit a cell of ``room`` pixels (empty when nothing fits)."""
        fm = QFontMetrics(self.bold_font())
        whole = short_label(self.scale, level)
        if fm.horizontalAdvance(whole) <= room - self.LABEL_PAD:
            return whole  # (elidedText cuts a text that fits to the pixel: its own measure rounds otherwise)
        label = fm.elidedText(whole, Qt.TextElideMode.ElideRight, room - self.LABEL_PAD)
        return "" if label in ("", "…") else label

    def numbered(self, xs: list[int]) -> set[int]:
        """The levels whose number is shown: all when they fit between the ticks, else every k-th (k = 2, 5,
        10, 20) from the lowest, with the highest and the chosen level, leaving out any that would touch."""
        levels = list(self.levels())
        fm = QFontMetrics(self.bold_font())
        widest = max(fm.horizontalAdvance(str(v)) for v in levels) + self.NUMBER_PAD
        gap = min(b - a for a, b in itertools.pairwise(xs))
        step = next((k for k in (1, 2, 5, 10, 20) if widest <= k * gap), len(levels))
        at = dict(zip(levels, xs, strict=True))
        wanted = [v for v in levels if (v - levels[0]) % step == 0]
        first = [v for v in (self.chosen, levels[0], levels[-1]) if v is not None]
        shown: list[int] = []
        for v in [*dict.fromkeys(first), *wanted]:
            if v not in shown and all(abs(at[v] - at[s]) >= widest for s in shown):
                shown.append(v)
        return set(shown)

    _rows = 1

    def _fit_rows(self) -> None:
        rows = self._rows_for(self.width())
        if rows != self._rows:
            self._rows = rows
            self.updateGeometry()
            self.update()

    def _rows_for(self, width: int) -> int:
        levels = list(self.levels())
        if len(levels) < 2 or width <= 0:
            return 1
        xs = [self.tick_x(v) for v in levels]
        if len(self.numbered(xs)) < len(levels):
            return 1
        for rows in range(1, len(levels) + 1):
            if all(whole for *_, whole in self._place_labels(xs, width, rows)):
                return rows
        return len(levels)

    def _place_labels(self, xs: list[int], width: int, rows: int) -> list[tuple[int, int, int, bool]]:
        """Per level: (its label line, left, room in pixels, whether the whole label fits), with level i on
        line ``i % rows``: a label is centred under its tick where it can be, moved inward at the ends, and
        never runs into its neighbour on the same line."""
        levels = list(self.levels())
        bold = QFontMetrics(self.bold_font())
        wants = [bold.horizontalAdvance(short_label(self.scale, v)) + self.LABEL_PAD for v in levels]
        pos = [0] * rows
        out: list[tuple[int, int, int, bool]] = []
        for i, x in enumerate(xs):
            line, want = i % rows, wants[i]
            if i + rows < len(levels):
                after = xs[i + rows]
                right_limit = after - min(wants[i + rows], after - x) // 2
            else:
                right_limit = width
            left = max(pos[line], x - want // 2)
            if left + want > right_limit:
                left = max(pos[line], right_limit - want)
            room = max(0, min(want, right_limit - left))
            out.append((line, left, room, room >= want))
            pos[line] = left + room
        return out

    def layout_cells(self) -> list[tuple[int, QRect | None, str, QRect | None, QRect]]:
        """Per level: (level, the rectangle of its number or None when not shown, its short label as shown,
        the label's rectangle or None, the level's click area)."""
        levels = list(self.levels())
        if len(levels) < 2:
            return []
        xs = [self.tick_x(v) for v in levels]
        bold = QFontMetrics(self.bold_font())
        line = QFontMetrics(self.font()).height()
        width = self.width()
        numbered = self.numbered(xs)
        every_number = len(numbered) == len(levels)  # a label for each level only where each has its number
        placed = self._place_labels(xs, width, self._rows) if every_number else []
        out: list[tuple[int, QRect | None, str, QRect | None, QRect]] = []
        for i, (level, x) in enumerate(zip(levels, xs, strict=True)):
            n_width = bold.horizontalAdvance(str(level)) + self.NUMBER_PAD
            n_left = min(max(0, x - n_width // 2), max(0, width - n_width))
            number = QRect(n_left, 1, n_width, line) if level in numbered else None
            label, label_rect = "", None
            if placed:
                row, left, room, _whole = placed[i]
                label = self.label_text(level, room) if room > self.LABEL_PAD else ""
                if label:
                    label_rect = QRect(left, 1 + line * (1 + row), room, line)
            low = 0 if i == 0 else (xs[i - 1] + x) // 2
            high = width if i + 1 == len(levels) else (x + xs[i + 1]) // 2
            out.append((level, number, label, label_rect, QRect(low, 0, max(1, high - low), self.height())))
        return out

    def cells(self) -> list[tuple[int, QRect]]:
        """Each level and the rectangle its number and short label take (its click area where neither shows)."""
        out = []
        for level, number, _label, label_rect, area in self.layout_cells():
            parts = [r for r in (number, label_rect) if r is not None]
            rect = parts[0] if parts else area
            for r in parts[1:]:
                rect = rect.united(r)
            out.append((level, rect))
        return out

    def level_at(self, pos: QPoint) -> int | None:
        for level, _number, _label, _rect, area in self.layout_cells():
            if area.contains(pos):
                return level
        return None

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        colour = _pen_colour(self)
        centre = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        for level, number, label, label_rect, _area in self.layout_cells():
            painter.setPen(colour)
            chosen = level == self.chosen
            painter.setFont(self.bold_font() if chosen else self.font())
            if number is not None:
                painter.drawText(number, centre, str(level))
            if label and label_rect is not None:
                painter.drawText(label_rect, centre, label)
            parts = [r for r in (number, label_rect) if r is not None]
            if not parts:
                continue
            frame = parts[0]
            for r in parts[1:]:
                frame = frame.united(r)
            if chosen:
                pen = QPen(colour)
                pen.setWidthF(1.5)
                painter.setPen(pen)
                painter.drawRoundedRect(frame.adjusted(1, 0, -1, -1), 4, 4)
            elif level == self.hover:
                painter.drawLine(frame.x() + 2, frame.bottom() - 1, frame.right() - 2, frame.bottom() - 1)
        painter.end()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        level = self.level_at(event.position().toPoint())
        if level != self.hover:
            self.hover = level
            self.update()
            self.hovered.emit(level)

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        if self.hover is not None:
            self.hover = None
            self.update()
            self.hovered.emit(None)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        level = self.level_at(event.position().toPoint())
        if (
            event.button() == Qt.MouseButton.LeftButton
            and level is not None
            and self.slider.isEnabled()
            and not is_read_only(self.slider)  # a submitted rating is read, not changed
        ):
            self.slider.setFocus(Qt.FocusReason.MouseFocusReason)
            self.slider.choose(level)
            event.accept()
            return
        super().mousePressEvent(event)


class AnchorLine(QLabel):
    """The anchor of one level under the slider: on one line (cut with "…"), or whole when expanded."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(0)
        self.full_text = ""
        self.expanded = False

    def set_full_text(self, text: str) -> None:
        self.full_text = safe_line(text)
        set_plain_tooltip(self, text)
        self._show()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._show()

    def _show(self) -> None:
        self.setWordWrap(self.expanded)
        if self.expanded:
            super().setText(self.full_text)
        else:
            width = max(0, self.contentsRect().width())
            super().setText(elide_words(self.fontMetrics(), self.full_text, width))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self.expanded:
            self._show()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._show()


class ScoreBadge(QLabel):
    """What a dimension is set to, framed: "Not set" in a dashed frame, "4 · Good" or "N/A" in a solid one; the
    text and the frame in the window's own text colour (full contrast, never a faint grey)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("score_badge")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.setContentsMargins(5, 1, 5, 1)
        self.unset = True
        self.full_text = ""
        self._legible_when_read_only()

    def show_value(self, text: str, *, unset: bool) -> None:
        self.unset = unset
        self.full_text = text
        self.setAccessibleName(text)
        self._fit()
        self.update()

    def _fit(self) -> None:
        """The text, cut after a whole word with "…" when a long short label does not fit the name column."""
        room = self.maximumWidth() - self.contentsMargins().left() - self.contentsMargins().right() - 4
        self.setText(elide_words(self.fontMetrics(), self.full_text, room) if room > 0 else self.full_text)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width() + 2, hint.height() + 2)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.EnabledChange):
            self._legible_when_read_only()
        elif event.type() == QEvent.Type.FontChange and self.full_text:
            self._fit()

    def _legible_when_read_only(self) -> None:
        """A submitted rating is shown read-only (disabled): its badge keeps the full text colour."""
        palette = self.palette()
        active = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)
        if palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText) != active:
            palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, active)
            self.setPalette(palette)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        pen = QPen(_pen_colour(self))
        pen.setWidthF(1.0)
        pen.setStyle(Qt.PenStyle.DashLine if self.unset else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        text_width = self.fontMetrics().horizontalAdvance(self.text())
        frame = QRect(0, 0, min(self.width(), text_width + 12), self.height()).adjusted(0, 0, -1, -1)
        painter.drawRoundedRect(frame, 3, 3)
        painter.end()


class DimensionRow(QWidget):
    """One dimension: name, slider, N/A box (or the same room left empty), the scale's levels under the
    slider, the badge saying what is set, the anchor of the level in view, and the problem text."""

    scoreChanged = Signal(str, object)  # dimension id, int | "N/A" | None
    focused = Signal(str)  # dimension id: one of the row's controls got the keyboard focus

    def __init__(self, dim: Dimension, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dim = dim
        self.setObjectName(dim.id)
        help_text = f"{dim.description}\n\n{anchors_text(dim.scale)}"
        if dim.allow_na and dim.na_guidance:
            help_text += "\n\n" + self.tr("N/A: {guidance}").format(guidance=dim.na_guidance)
        self.help_text = safe_line(help_text)
        self.label = PlainLabel(literal_ampersands(dim.label))  # a buddy label: "&" would be an Alt key
        set_plain_tooltip(self.label, help_text)
        tooltip = plain_tooltip(help_text)
        relative_font(self.label, bold=True)
        self.slider = ScoreSlider(dim.scale)
        self.slider.setAccessibleName(safe_line(dim.label))
        self.slider.setToolTip(tooltip)
        self.label.setBuddy(self.slider)
        self.value_label = ScoreBadge()
        relative_font(self.value_label, bold=True)
        self.scale_labels = ScaleLabels(dim.scale, self.slider)
        self.scale_labels.setAccessibleName(self.tr("{dimension}: levels").format(dimension=safe_line(dim.label)))
        self.scale_labels.setAccessibleDescription(
            safe_line(", ".join(f"{v} {dim.scale.short_label(v)}" for v in range(dim.scale.min, dim.scale.max + 1)))
        )
        self.na: QCheckBox | None = None
        self.na_room = QWidget()
        """Where the N/A box sits, as wide in every row (empty where the dimension allows no N/A)."""
        self.anchors = AnchorLine()
        self.anchors.setObjectName("anchors")
        self.problem = ProblemLabel()
        self._hover: int | None = None

        room = QVBoxLayout(self.na_room)
        room.setContentsMargins(0, 0, 0, 0)
        if dim.allow_na:
            self.na = QCheckBox(self.tr("N/A"))
            self.na.setAccessibleName(self.tr("{dimension}: not applicable (N/A)").format(dimension=safe_line(dim.label)))
            set_plain_tooltip(self.na, dim.na_guidance or self.tr("Not applicable to this response"))
            describe(self.na, base=self.na.accessibleDescription())
            self.na.toggled.connect(self._on_na)
            self.na.installEventFilter(self)
            room.addWidget(self.na)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 3, 0, 3)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(1)
        self.narrow = False
        """The name above the slider (a narrow form: small screen, large text) instead of beside it."""
        self._arrange()
        self._fit_columns()
        self.slider.scoreChanged.connect(self._on_slider)
        self.slider.digitRejected.connect(self._on_rejected_digit)
        self.slider.hovered.connect(self._on_hover)
        self.scale_labels.hovered.connect(self._on_hover)
        self.slider.installEventFilter(self)
        self._refresh()

    def _arrange(self) -> None:
        """Lay the row out: the name beside the slider, or above it when :attr:`narrow`."""
        grid = self.grid
        for w in (self.label, self.slider, self.na_room, self.scale_labels, self.value_label, self.anchors, self.problem):
            grid.removeWidget(w)
        top = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        if self.narrow:
            grid.addWidget(self.label, 0, 0, 1, 2, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(self.slider, 1, 0)
            grid.addWidget(self.na_room, 1, 1)
            grid.addWidget(self.scale_labels, 2, 0)
            grid.addWidget(self.value_label, 3, 0, 1, 2, top)
            grid.addWidget(self.anchors, 4, 0, 1, 2)
            grid.addWidget(self.problem, 5, 0, 1, 2)
            grid.setColumnStretch(0, 1)
            grid.setColumnStretch(1, 0)
        else:
            grid.addWidget(self.label, 0, 0, 2, 1, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(self.slider, 0, 1)
            grid.addWidget(self.na_room, 0, 2)
            grid.addWidget(self.scale_labels, 1, 1)
            grid.addWidget(self.value_label, 2, 0, top)
            grid.addWidget(self.anchors, 2, 1, 1, 2)
            grid.addWidget(self.problem, 3, 0, 1, 3)
            grid.setColumnStretch(0, 0)
            grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 0)

    def wide_width(self) -> int:
        """The width the row needs with the name beside the slider and room for every level's label."""
        name = self.fontMetrics().averageCharWidth() * LABEL_CHARS
        return name + self.scale_labels.comfortable_width() + self.na_room.width() + 2 * self.grid.horizontalSpacing()

    def set_narrow(self, narrow: bool) -> None:
        if narrow != self.narrow:
            self.narrow = narrow
            self._arrange()
            self._fit_columns()

    def _fit_columns(self) -> None:
        """The name column and the N/A column take the same width in every row (for the font in use); the
        name takes the row's width when it stands above the slider."""
        name_width = self.fontMetrics().averageCharWidth() * LABEL_CHARS
        if self.narrow:
            self.label.setMinimumWidth(0)
            self.label.setMaximumWidth(16_777_215)
        else:
            self.label.setFixedWidth(name_width)
        self.value_label.setMaximumWidth(name_width)
        if self.value_label.full_text:
            self.value_label._fit()
        probe = QCheckBox(self.tr("N/A"))
        probe.setFont(self.font())
        self.na_room.setFixedWidth(probe.sizeHint().width())
        probe.deleteLater()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_columns()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """While the slider (or N/A box) has the keyboard focus, the anchor shows whole."""
        if obj in (self.slider, self.na) and isinstance(event, QFocusEvent):
            if event.type() == QEvent.Type.FocusIn:
                self.anchors.set_expanded(True)
                self.focused.emit(self.dim.id)
            elif event.type() == QEvent.Type.FocusOut:
                self.anchors.set_expanded(False)
        return False

    def value(self) -> int | str | None:
        if self.na is not None and self.na.isChecked():
            return NA
        return self.slider.score()

    def set_value(self, value: int | str | None) -> None:
        """Show ``value`` without emitting changes."""
        if self.na is not None:
            blocked = self.na.blockSignals(True)
            self.na.setChecked(value == NA)
            self.na.blockSignals(blocked)
        self.slider.set_score(value if isinstance(value, int) else None)
        self._refresh()

    def badge_text(self) -> str:
        value = self.value()
        if value is None:
            return self.tr(NOT_SET)
        if value == NA:
            return self.tr("N/A")
        return f"{value} · {short_label(self.dim.scale, int(value))}"

    def _refresh(self) -> None:
        value = self.value()
        is_na = value == NA
        self.slider.setEnabled(not is_na)
        self.slider.not_applicable = is_na
        self.slider.update()
        self.scale_labels.chosen = value if isinstance(value, int) else None
        self.scale_labels.update()
        badge = self.badge_text()
        self.value_label.show_value(badge, unset=value is None)
        scale = self.dim.scale
        if self._hover is not None:
            anchor = level_text(scale, self._hover)
        elif isinstance(value, int):
            anchor = level_text(scale, value)
        elif is_na:
            anchor = self.tr("Not applicable to this response.")
        else:
            anchor = self.tr("Choose {low}–{high}: click a level, or type its number.").format(low=scale.min, high=scale.max)
        self.anchors.set_full_text(anchor)
        shown = anchor if value is not None else badge
        set_unset(self.slider, self.slider.score() is None, badge)
        description = f"{safe_line(self.dim.label)}: {safe_line(shown)}"
        if is_read_only(self.slider):
            description += " " + self.tr("(submitted: read-only)")
        describe(self.slider, base=description)

    def set_read_only(self, read_only: bool) -> None:
        """A submitted rating: every control keeps its focus and colours but changes nothing."""
        set_read_only(self.slider, read_only)
        if self.na is not None:
            set_read_only(self.na, read_only)
            describe(self.na, problem=self.tr("(submitted: read-only)") if read_only else "", clear_problem=not read_only)
        self._refresh()

    def show_problem(self, message: str) -> None:
        """The problem under the row, also read with the slider by screen readers."""
        self.problem.show_problem(message)
        describe(self.slider, problem=self.problem.text())

    def clear_problem(self) -> None:
        self.problem.clear_problem()
        describe(self.slider, clear_problem=True)

    def _on_hover(self, level: object) -> None:
        self._hover = level if isinstance(level, int) and self.slider.isEnabled() else None
        self.scale_labels.hover = self._hover
        self.scale_labels.update()
        self._refresh()

    def _on_rejected_digit(self, digit: int) -> None:
        scale = self.dim.scale
        self.show_problem(
            self.tr("{digit} is not on this scale: type {low} to {high}.").format(digit=digit, low=scale.min, high=scale.max)
        )

    def _on_slider(self, _score: object) -> None:
        self._refresh()
        self.scoreChanged.emit(self.dim.id, self.value())

    def _on_na(self, _checked: bool) -> None:
        self._refresh()
        self.scoreChanged.emit(self.dim.id, self.value())


class RubricPanel(QGroupBox):
    """All dimensions of the rubric, in order, with their columns lined up."""

    scoreChanged = Signal(str, object)
    dimensionFocused = Signal(str)

    def __init__(self, rubric: Rubric, parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("RubricPanel", "Scores"), parent)
        self.setAccessibleName(self.title())
        self.rows: dict[str, DimensionRow] = {}
        layout = QVBoxLayout(self)
        layout.setSpacing(2)
        for dim in rubric.dimensions:
            row = DimensionRow(dim)
            row.scoreChanged.connect(self.scoreChanged)
            row.focused.connect(self.dimensionFocused)
            layout.addWidget(row)
            self.rows[dim.id] = row

    def fit_width(self, width: int) -> None:
        """The rows for ``width`` pixels of form: each dimension's name above its slider when, beside it, the
        levels would not all fit (the form reflows on a small screen or with large text; it never needs to
        scroll sideways, which it cannot)."""
        self._width = width
        margins = self.contentsMargins()
        layout = self.layout()
        inner = layout.contentsMargins() if layout is not None else None
        room = width - margins.left() - margins.right() - (inner.left() + inner.right() if inner is not None else 0)
        narrow = any(row.wide_width() > room for row in self.rows.values())
        for row in self.rows.values():
            row.set_narrow(narrow)

    _width = 0

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self._width:
            self.fit_width(self._width)

    def row_for_field(self, field: str) -> DimensionRow | None:
        for row in self.rows.values():
            if row.dim.field == field:
                return row
        return None

    def set_editable(self, editable: bool) -> None:
        """Editable, or read-only (a submitted rating): never disabled, so it stays legible and reachable."""
        for row in self.rows.values():
            row.set_read_only(not editable)
