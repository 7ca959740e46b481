"""The scenario (domain, types, context, attributed conversation) and the response being rated."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.models.case import ROLE_LABELS
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.rater.app.text.accessible import button, name_scroll_bars, plain_name
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, number
from wmcdp_desktop.rater.app.text.markdown import BundleTextView
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel, set_plain_tooltip
from wmcdp_desktop.rater.app.text.theme import relative_font
from wmcdp_desktop.rater.app.widgets import WrapRow
from wmcdp_desktop.rater.labels import readable_id, scenario_types_text, task_full_title

SCENARIO = QT_TRANSLATE_NOOP("TaskView", "Scenario and conversation so far")
RESPONSE = QT_TRANSLATE_NOOP("TaskView", "The response you are rating")
FIND = QT_TRANSLATE_NOOP("FindBar", "Find in scenario and response")
SCENARIO_SHARE, RESPONSE_SHARE = 300, 500
"""The default heights (proportions) of the scenario and the response (the rater's own are remembered)."""
PLAIN = QT_TRANSLATE_NOOP("TaskView", "Show as &plain text")
COLUMN = QT_TRANSLATE_NOOP("TaskView", "Scenario and response")
RESPONSE_LINES, SCENARIO_LINES = 8, 3
"""The fewest lines of text the response and the scenario show, whatever the screen and the text size: on a
small screen or with large text the column scrolls rather than squeeze the response below eight lines."""
HINT_ROOM_LINES = 4
"""The response's hint shows when the column has this many lines to spare beyond the smallest layout with it
(on a short column it goes, and stays as the tooltip of the response's title and in the response's
description for screen readers: the response keeps its lines)."""

ROLE_NAMES = (  # the words of core.models.case.ROLE_LABELS, for the catalogue (a test keeps them the same)
    QT_TRANSLATE_NOOP("TaskView", "Parent"),
    QT_TRANSLATE_NOOP("TaskView", "Caregiver"),
    QT_TRANSLATE_NOOP("TaskView", "Child"),
    QT_TRANSLATE_NOOP("TaskView", "Adolescent"),
    QT_TRANSLATE_NOOP("TaskView", "Clinician"),
    QT_TRANSLATE_NOOP("TaskView", "AI assistant"),
    QT_TRANSLATE_NOOP("TaskView", "Teacher"),
    QT_TRANSLATE_NOOP("TaskView", "Other"),
)


def role_label(role: str) -> str:
    """A speaker's role in the app's language (a role the app does not know is shown as written)."""
    return QCoreApplication.translate("TaskView", ROLE_LABELS[role]) if role in ROLE_LABELS else role


class FindBar(QWidget):
    def __init__(self, views: list[BundleTextView], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.views = views
        self.label = QLabel(self.tr(FIND))
        self.edit = QLineEdit()
        self.edit.setAccessibleName(self.tr(FIND))
        self.edit.setClearButtonEnabled(True)
        self.label.setBuddy(self.edit)
        self.next_button = button(self.tr("Find &next"))
        self.close_button = button(self.tr("C&lose find"))
        self.status = QLabel("")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.next_button)
        layout.addWidget(self.status)
        layout.addWidget(self.close_button)
        self.edit.returnPressed.connect(self.find_next)
        self.next_button.clicked.connect(self.find_next)
        self.close_button.clicked.connect(self.hide)

    def open(self) -> None:
        self.show()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()

    def find_next(self) -> bool:
        """Search forward through the views in order, wrapping around; True when found."""
        text = self.edit.text()
        if not text:
            return False
        views = self.views
        start = next((i for i, v in enumerate(views) if v.textCursor().hasSelection()), 0)
        order = views[start:] + views[:start]
        for i, view in enumerate(order):
            if i > 0:
                cursor = view.textCursor()
                cursor.setPosition(0)
                view.setTextCursor(cursor)
            if view.find(text, QTextDocument.FindFlag(0)):
                for other in views:
                    if other is not view:
                        c = other.textCursor()
                        c.clearSelection()
                        other.setTextCursor(c)
                view.ensureCursorVisible()
                self.status.setText("")
                return True
        # wrap: restart the first view from the top
        first = order[0]
        cursor = first.textCursor()
        cursor.setPosition(0)
        first.setTextCursor(cursor)
        if first.find(text):
            self.status.setText("")
            return True
        self.status.setText(self.tr("Not found"))
        return False


class _Splitter(QSplitter):
    """The bar between scenario and response, asking for no more height than its parts' fewest lines: the
    column's scroll area sizes the column by what it asks for (with the wrapped headings' heights), so the
    column scrolls only when those lines do not fit, and takes the whole height when they do."""

    def sizeHint(self) -> QSize:
        return self.minimumSizeHint()


class _ColumnScroll(QScrollArea):
    """The middle column's scroll area: it scrolls down only, so it is never narrower than the column's own
    narrowest layout and its scroll bar (a narrower one cut the column's right edge off under the bar)."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        inner = self.widget()
        if inner is None:
            return hint
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(inner.minimumSizeHint().width() + bar + 2 * self.frameWidth(), hint.height())


class TaskView(QWidget):
    plainTextToggled = Signal(bool)
    """The rater switched "Show as plain text" (to remember it)."""
    splitMoved = Signal(list)
    """The rater dragged the bar between scenario and response: the two heights (to remember them)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._task: Task | None = None
        self._place: tuple[int, int] = (0, 0)
        self.heading = PlainLabel("")
        relative_font(self.heading, 1.15, bold=True)
        self.meta = PlainLabel("")
        self.scenario_title = QLabel(self.tr(SCENARIO))
        self.scenario_title.setWordWrap(True)  # on two lines rather than widen the column (large text)
        self.scenario = BundleTextView(self.tr(SCENARIO))
        self.scenario_title.setBuddy(self.scenario)
        self.response_title = QLabel(self.tr(RESPONSE))
        self.response_title.setWordWrap(True)  # on two lines rather than widen the column (large text)
        relative_font(self.response_title, 1.1, bold=True)
        self.response = BundleTextView(self.tr(RESPONSE))
        self.response_title.setBuddy(self.response)
        self.response.setFrameShape(QFrame.Shape.Box)
        self.response.setLineWidth(2)
        self.response.setBackgroundRole(self.response.backgroundRole())
        self.find_bar = FindBar([self.scenario, self.response])
        self.find_bar.hide()

        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.scenario_title)
        tl.addWidget(self.scenario)
        bottom = QFrame()
        bottom.setObjectName("response_frame")
        bottom.setFrameShape(QFrame.Shape.StyledPanel)
        bottom.setAutoFillBackground(True)
        bottom.setBackgroundRole(bottom.palette().ColorRole.AlternateBase)
        bl = QVBoxLayout(bottom)
        self.plain_text = QCheckBox(self.tr(PLAIN))
        self.plain_text.setAccessibleName(plain_name(self.tr(PLAIN)))
        self.plain_text.setToolTip(
            self.tr("Show the scenario's turns and the response exactly as written (markdown marks and all)")
        )
        self.plain_text.toggled.connect(self._plain_toggled)
        title = QWidget()
        title_row = WrapRow(title)  # the switch beside the title, or under it in a narrow column (large text)
        title_row.addWidget(self.response_title)
        title_row.addWidget(self.plain_text)
        bl.addWidget(title)
        hint = self.tr(
            "Rate this response as the next move in the conversation above. Select words here and use "
            "“Use selected text as evidence” on a failure mode (Ctrl+Shift+E) to quote them."
        )
        self.response_hint = PlainLabel(hint)
        set_plain_tooltip(self.response_title, hint)
        self.response.setAccessibleDescription(hint)
        bl.addWidget(self.response_hint)
        bl.addWidget(self.response)
        self.splitter = _Splitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(top)
        self.splitter.addWidget(bottom)
        self.splitter.setChildrenCollapsible(False)
        # The response is what is rated: it gets the larger share, and all the height the window gains.
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([SCENARIO_SHARE, RESPONSE_SHARE])
        self._split_later = QTimer(self)  # remembered once the bar stops moving (not at every pixel of a drag)
        self._split_later.setSingleShot(True)
        self._split_later.setInterval(400)
        self._split_later.timeout.connect(lambda: self.splitMoved.emit(self.splitter.sizes()))
        self.splitter.splitterMoved.connect(lambda _pos, _index: self._split_later.start())
        self.column = QWidget()
        layout = QVBoxLayout(self.column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.meta)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.splitter, 1)
        # The column scrolls (down only) when the screen is too short for the heading, the scenario's and the
        # response's fewest lines: it never clips, and the window still fits the screen.
        self.scroll_area = _ColumnScroll()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(self.column)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the texts inside take the focus
        self.scroll_area.setAccessibleName(self.tr(COLUMN))
        name_scroll_bars(self.scroll_area, self.tr(COLUMN))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)
        self._fit_lines()
        for view in (self.scenario, self.response):
            view.installEventFilter(self)
        self.column.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """A text that gets the focus is scrolled wholly into the column's view (as much of it as fits); the
        column's narrowest width, when its layout changes, is the scroll area's."""
        if obj is self.column and event.type() == QEvent.Type.LayoutRequest:
            self.scroll_area.updateGeometry()
        elif event.type() == QEvent.Type.FocusIn and isinstance(obj, QWidget):
            at = obj.mapTo(self.column, QPoint(0, 0))
            half_w, half_h = obj.width() // 2, obj.height() // 2
            self.scroll_area.ensureVisible(at.x() + half_w, at.y() + half_h, half_w, half_h)
        return False

    def _fit_lines(self) -> None:
        """The response at least :data:`RESPONSE_LINES` lines high and the scenario :data:`SCENARIO_LINES`,
        in the font in use; the hint shown while the column has room for it."""
        for view, lines in ((self.response, RESPONSE_LINES), (self.scenario, SCENARIO_LINES)):
            frame = 2 * view.frameWidth() + int(2 * view.document().documentMargin())
            view.setMinimumHeight(lines * view.fontMetrics().lineSpacing() + frame)
        self._fit_hint()

    def _fit_hint(self) -> None:
        """The hint over the response is shown while the column has room for it at its real height (the lines
        it wraps to at its width: a longer translation or larger text needs more), and is given that height,
        so that it is shown whole or not at all (a splitter's pane does not ask its labels for their height)."""
        room = self.scroll_area.viewport().height()
        if room <= 0:
            return
        hint = self.response_hint
        width = max(1, hint.width() if hint.isVisible() else self.response.width())
        tall = hint.heightForWidth(width)
        parent = hint.parentWidget()
        layout = parent.layout() if parent is not None else None
        spacing = max(0, layout.spacing()) if layout is not None else 0
        counted = max(hint.minimumHeight(), hint.minimumSizeHint().height()) + spacing if not hint.isHidden() else 0
        need = self.column.minimumSizeHint().height() - counted + tall + spacing
        show = room >= need + HINT_ROOM_LINES * hint.fontMetrics().lineSpacing()
        hint.setMinimumHeight(tall if show else 0)
        if show == hint.isHidden():
            hint.setVisible(show)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_hint()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_lines()

    def set_split(self, sizes: list[int] | None) -> None:
        """The heights of scenario and response as the rater left them (their proportion; None: the default)."""
        if sizes and len(sizes) == 2 and min(sizes) > 0:
            self.splitter.setSizes(sizes)

    def set_rendering(self, *, allowed: bool, plain: bool) -> None:
        """How bundle texts are shown: rendered (markdown) unless ``plain`` or the study does not allow it
        (``allowed`` False: the switch stays on "plain text" and says why)."""
        self.plain_text.blockSignals(True)
        self.plain_text.setChecked(plain or not allowed)
        self.plain_text.blockSignals(False)
        self.plain_text.setEnabled(allowed)
        if not allowed:
            self.plain_text.setToolTip(self.tr("Your study shows every text exactly as written"))
        self._apply_rendering()

    def _plain_toggled(self, plain: bool) -> None:
        self._apply_rendering()
        self.plainTextToggled.emit(plain)

    def _apply_rendering(self) -> None:
        rendered = not self.plain_text.isChecked()
        if rendered == self.response.rendered and rendered == self.scenario.rendered:
            return
        for view in (self.scenario, self.response):
            view.set_rendered(rendered)
        if self._task is not None:
            self.show_task(self._task, *self._place)

    def show_task(self, task: Task, position: int, total: int) -> None:
        self._task, self._place = task, (position, total)
        # The opaque task id is for support only: in the tooltips and the heading's accessible description.
        support = self.tr("Task id (for support): {task_id}").format(task_id=task.task_id)
        self.heading.setText(
            self.tr("Task {position} of {total}").format(position=number(position), total=number(total))
            + f"  ·  {task_full_title(task)}"
        )
        set_plain_tooltip(self.heading, support)
        self.meta.setText(
            self.tr("Clinical domain: {domain}    Scenario types: {types}").format(
                domain=readable_id(task.clinical_domain_id), types=scenario_types_text(task)
            )
        )
        set_plain_tooltip(self.meta, f"{support}\n{task.clinical_domain_id}\n" + "\n".join(task.scenario_type_ids))
        view = self.scenario
        view.clear_text()
        # One edit block: the document is laid out once, not after each of the ~2 inserts per turn
        # (a 100 KB, 60-turn conversation: about half the time of "next task"; docs/PERFORMANCE.md).
        batch = view.textCursor()
        batch.beginEditBlock()
        try:
            self._fill_scenario(task)
        finally:
            batch.endEditBlock()
        view.moveCursor(view.textCursor().MoveOperation.Start)
        self.response.set_untrusted(task.candidate_response_text)

    def _fill_scenario(self, task: Task) -> None:
        ctx = task.scenario.context
        view = self.scenario
        view.append_heading(self.tr("Context"))
        speakers = ", ".join(role_label(s) for s in ctx.speakers)
        view.append_plain(  # our lines, one per fact (never read as markdown, which would join them)
            self.tr("Age band: {age}\nSetting: {setting}\nSpeakers: {speakers}").format(
                age=ctx.age_band, setting=ctx.setting, speakers=speakers
            )
        )
        if ctx.summary:
            view.append_body(ctx.summary)
        view.append_heading(self.tr("Conversation so far"))
        if not task.scenario.turns:
            view.append_plain(self.tr("(no earlier turns)"))
        for i, turn in enumerate(task.scenario.turns, start=1):
            role = role_label(turn.role)
            who = f"{turn.speaker_label} ({role})" if turn.speaker_label else role
            view.append_heading(self.tr("Turn {number} — {who}:").format(number=number(i), who=who))
            view.append_body(turn.text)

    def selected_span(self) -> tuple[int, int] | None:
        return self.response.selected_original_span()
