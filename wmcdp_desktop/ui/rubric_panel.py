"""The eight rubric dimensions: a slider each that starts unset, N/A where allowed, anchors on hover/focus."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPoint, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.models.rating_record import NA
from wmcdp_desktop.core.models.rubric import Dimension, Rubric, Scale
from wmcdp_desktop.ui.accessible import SHOWN_VALUE, describe, is_read_only, set_read_only, set_unset
from wmcdp_desktop.ui.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.ui.plain_text import (
    PlainLabel,
    literal_ampersands,
    plain_tooltip,
    safe_line,
    set_plain_tooltip,
)
from wmcdp_desktop.ui.problem_label import ProblemLabel
from wmcdp_desktop.ui.theme import relative_font

NOT_SET = QT_TRANSLATE_NOOP("DimensionRow", "Not set")


def anchors_text(scale: Scale) -> str:
    return "\n".join(f"{a.level} – {a.text}" for a in scale.anchors)


class ScoreSlider(QSlider):
    """A slider with an *unset* state: no handle is drawn and no value is reported until the rater sets one.

    Keys: a digit sets that score; Delete/Backspace unsets; when unset, Right/Up sets the lowest level and
    Left/Down the highest (then arrows move as usual). A click sets the value under the mouse.
    """

    scoreChanged = Signal(object)  # int | None
    digitRejected = Signal(int)  # a digit typed that is not on the scale

    def __init__(self, scale: Scale, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setRange(scale.min, scale.max)
        self.setPageStep(1)
        self.setSingleStep(1)
        self.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.setTickInterval(1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumWidth(160)
        self._set = False
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
                self._choose(n)
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
            self._choose(self.minimum() if key in (Qt.Key.Key_Right, Qt.Key.Key_Up) else self.maximum())
            event.accept()
            return
        super().keyPressEvent(event)

    def _choose(self, value: int) -> None:
        if self._set and self.value() == value:
            return
        if self.value() == value:
            self._set = True
            self.update()
            self.scoreChanged.emit(value)
        else:
            self.setValue(value)  # -> _on_value

    def value_at(self, pos: QPoint) -> int:
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderGroove, self)
        handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, self)
        span = max(1, groove.width() - handle.width())
        x = pos.x() - groove.x() - handle.width() // 2
        return QStyle.sliderValueFromPosition(self.minimum(), self.maximum(), x, span)

    def pos_for(self, value: int) -> QPoint:
        """Where a click sets ``value`` (the middle of the handle at that value)."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderGroove, self)
        handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, self)
        span = max(1, groove.width() - handle.width())
        x = QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), value, span)
        return QPoint(groove.x() + handle.width() // 2 + x, groove.center().y())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.isEnabled():
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self._choose(self.value_at(event.position().toPoint()))
            self.setSliderDown(True)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.isSliderDown():
            self._choose(self.value_at(event.position().toPoint()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.isSliderDown():
            self.setSliderDown(False)
            event.accept()
            return
        super().mouseReleaseEvent(event)

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


class DimensionRow(QWidget):
    """Label, slider, value text, N/A box (only where allowed), anchors shown while focused, problem text."""

    scoreChanged = Signal(str, object)  # dimension id, int | "N/A" | None

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
        help_text = plain_tooltip(help_text)
        relative_font(self.label, bold=True)
        self.slider = ScoreSlider(dim.scale)
        self.slider.setAccessibleName(safe_line(dim.label))
        self.slider.setToolTip(help_text)
        self.label.setBuddy(self.slider)
        self.value_label = PlainLabel(self.tr(NOT_SET))
        self.value_label.setObjectName("score_value")
        self.value_label.setMinimumWidth(60)
        self.na: QCheckBox | None = None
        self.anchors = PlainLabel(anchors_text(dim.scale))
        self.anchors.setObjectName("anchors")
        self.anchors.hide()
        self.problem = ProblemLabel()

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.slider, 1)
        if dim.allow_na:
            self.na = QCheckBox(self.tr("N/A"))
            self.na.setAccessibleName(self.tr("{dimension}: not applicable (N/A)").format(dimension=safe_line(dim.label)))
            set_plain_tooltip(self.na, dim.na_guidance or self.tr("Not applicable to this response"))
            describe(self.na, base=self.na.accessibleDescription())
            self.na.toggled.connect(self._on_na)
            top.addWidget(self.na)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(2)
        layout.addWidget(self.label)
        layout.addLayout(top)
        layout.addWidget(self.value_label)
        layout.addWidget(self.anchors)
        layout.addWidget(self.problem)
        self.slider.scoreChanged.connect(self._on_slider)
        self.slider.digitRejected.connect(self._on_rejected_digit)
        self.slider.installEventFilter(self)
        self._refresh()

    def eventFilter(self, obj: object, event: object) -> bool:  # show anchors while the slider has focus
        from PySide6.QtCore import QEvent

        if obj is self.slider and isinstance(event, QFocusEvent):
            if event.type() == QEvent.Type.FocusIn:
                self.anchors.show()
            elif event.type() == QEvent.Type.FocusOut:
                self.anchors.hide()
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

    def _refresh(self) -> None:
        value = self.value()
        is_na = value == NA
        self.slider.setEnabled(not is_na)
        self.slider.not_applicable = is_na
        self.slider.update()
        if value is None:
            text = self.tr(NOT_SET)
        elif is_na:
            text = self.tr("N/A – not applicable")
        else:
            text = f"{value} – {safe_line(self.dim.scale.anchor_text(int(value)))}"
        self.value_label.setText(text)
        relative_font(self.value_label, italic=value is None)
        set_unset(self.slider, self.slider.score() is None, text)
        description = f"{safe_line(self.dim.label)}: {text}"
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

    def _on_rejected_digit(self, digit: int) -> None:
        scale = self.dim.scale
        self.show_problem(self.tr("{digit} is not on this scale: type {low} to {high}.").format(digit=digit, low=scale.min, high=scale.max))

    def _on_slider(self, _score: object) -> None:
        self._refresh()
        self.scoreChanged.emit(self.dim.id, self.value())

    def _on_na(self, _checked: bool) -> None:
        self._refresh()
        self.scoreChanged.emit(self.dim.id, self.value())


class RubricPanel(QGroupBox):
    """All dimensions of the rubric, in order."""

    scoreChanged = Signal(str, object)

    def __init__(self, rubric: Rubric, parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("RubricPanel", "Scores"), parent)
        self.setAccessibleName(self.title())
        self.rows: dict[str, DimensionRow] = {}
        grid = QGridLayout(self)
        for i, dim in enumerate(rubric.dimensions):
            row = DimensionRow(dim)
            row.scoreChanged.connect(self.scoreChanged)
            grid.addWidget(row, i, 0)
            self.rows[dim.id] = row

    def row_for_field(self, field: str) -> DimensionRow | None:
        for row in self.rows.values():
            if row.dim.field == field:
                return row
        return None

    def set_editable(self, editable: bool) -> None:
        """Editable, or read-only (a submitted rating): never disabled, so it stays legible and reachable."""
        for row in self.rows.values():
            row.set_read_only(not editable)
