"""Render the README screenshots: ``python -m wmcdp_desktop.ui.screenshots docs/screenshots``.

Uses the shipped demo bundle, a throw-away data folder and a fake clock, and drives the real window:
welcome screen, a task being rated, the validation state after an incomplete submit, and (when the demo
has one) the feedback after a calibration task.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from wmcdp_desktop.core.rater.timing import FakeClock
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.ui.app import create_main_window
from wmcdp_desktop.ui.main_window import MainWindow

SIZE = (1500, 950)


def _settle(app: QApplication) -> None:
    """Let the window finish what a user would see it finish (layouts, the task list naming its rows)."""
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        app.processEvents()


def render(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock()
        data = Path(tmp) / "data"
        window = create_main_window(["--data-dir", str(data), "--rater", "R07", "--role", "child psychologist"], clock=clock)
        assert isinstance(window, MainWindow)
        window.resize(*SIZE)
        window.show()
        window.welcome.show_recent([str(demo_bundle_path())])
        _settle(app)

        def shot(name: str) -> None:
            _settle(app)
            path = out / name
            window.grab().save(str(path))
            written.append(path)

        shot("welcome.png")
        if not window.open_demo():
            raise SystemExit("the demo bundle is missing; build it first (wmcdp bundle build)")
        session, page = window.session, window.page
        assert session is not None and page is not None
        # A task being rated: some scores, one failure mode with a quote, the rationale.
        rows = list(page.form.rubric.rows.values())
        for row, value in zip(rows[:5], (4, 3, 4, 2, 3), strict=False):
            row.slider.set_score(value, emit=True)
        fm_row = next(iter(page.form.failure_modes.rows.values()))
        fm_row.check.setChecked(True)
        fm_row.severity.setCurrentIndex(1)
        fm_row.severity.activated.emit(1)
        text = page.task_view.response.toPlainText()
        cursor = page.task_view.response.textCursor()
        cursor.setPosition(0)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor)
        cursor.movePosition(QTextCursor.MoveOperation.NextWord, QTextCursor.MoveMode.KeepAnchor, 4)
        page.task_view.response.setTextCursor(cursor)
        if text:
            fm_row.use_selection.click()
        fm_row.note.setText("Offers the answer the child is seeking")
        fm_row.note.textEdited.emit(fm_row.note.text())
        page.form.notes.edits["brief_rationale"].setPlainText(
            "Warm and validating, but partly answers the reassurance question."
        )
        for _ in range(95):
            clock.advance(1)
            session.user_input()
        window.save_now()
        window.refresh_time()
        page.form.scroll_area.verticalScrollBar().setValue(0)
        rows[5].slider.setFocus(Qt.FocusReason.TabFocusReason)
        shot("rating.png")
        # Validation: submit while scores are still unset.
        window.submit()
        page.form.scroll_area.ensureWidgetVisible(rows[5])
        shot("validation.png")
        # Calibration feedback, when the demo has a calibration task.
        for tid in session.task_ids:
            if session.task(tid).calibration_feedback is not None:
                window.go_to(tid)
                for row in page.form.rubric.rows.values():
                    row.slider.set_score(4, emit=True)
                page.form.notes.edits["brief_rationale"].setPlainText("Solid next move.")
                window.submit()
                page.form.scroll_area.verticalScrollBar().setValue(0)
                shot("calibration.png")
                break
        window.close()
        window.shutdown()
        window.deleteLater()
        _settle(app)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else Path("docs/screenshots")
    for path in render(out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
