"""Every control is named by its visible label, and the tab order follows the screen."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QSlider,
    QWidget,
)

from tests.rater.app.window_helpers import (
    rows,
    show_page,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_every_control_is_named_by_its_visible_label_and_tab_order_follows_the_screen(window: MainWindow) -> None:
    assert window.page is not None
    window.rating.go_to("T-0001")
    from PySide6.QtWidgets import QLabel

    controls: list[QWidget] = []
    for page in ("Failure modes", "Notes", "Scores"):  # every page of the form in turn
        show_page(window, page)
        controls += [
            w
            for w in window.findChildren(QWidget)
            if isinstance(w, QAbstractButton | QSlider | QComboBox | QLineEdit | QPlainTextEdit | QListView)
            and w.isVisibleTo(window) and w not in controls
        ]
    assert len(controls) > 20
    buddies = {lbl.buddy(): lbl.text().replace("&", "") for lbl in window.findChildren(QLabel) if lbl.buddy()}
    for w in controls:
        name = w.accessibleName()
        assert name, f"{type(w).__name__} {w.objectName()!r} has no accessible name"
        if isinstance(w, QAbstractButton) and w.text() and not isinstance(w.parent(), QComboBox):
            assert w.text().replace("&", "") in name, (name, w.text())  # the visible words, maybe with whose they are
        if w in buddies:
            assert name == buddies[w], (name, buddies[w])
    # Tab order: task list -> scenario -> response -> sliders in rubric order -> failure modes -> notes -> submit
    order: list[QWidget] = []
    w: QWidget = window.page.task_list.list
    for _ in range(400):
        order.append(w)
        w = w.nextInFocusChain()
        if w is window.page.task_list.list:
            break
    p = window.page
    sliders = [r.slider for r in rows(window)]
    key = [p.task_list.list, p.task_view.scenario, p.task_view.response, *sliders,
           next(iter(p.form.failure_modes.rows.values())).check,
           p.form.notes.edits["brief_rationale"], p.form.submit_button]
    positions = [order.index(k) for k in key]
    assert positions == sorted(positions)
