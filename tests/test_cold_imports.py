"""The rater app paints before it imports pydantic and the models, and then does not build document models it
never uses (cold start, docs/PERFORMANCE.md)."""

from __future__ import annotations

import json
import subprocess
import sys

CODE = """
import json, sys
import wmcdp_desktop.rater.app.main
import wmcdp_desktop.rater.app.bundle.opening, wmcdp_desktop.rater.app.rating.controller  # what setup builds
print(json.dumps(sorted(m for m in sys.modules if m.startswith("wmcdp_desktop.core."))))
"""
FIRST_PAINT = """
import json, sys
import wmcdp_desktop.rater.app.main
print(json.dumps(sorted(sys.modules)))
"""


def test_the_launcher_imports_neither_pydantic_nor_the_models_before_the_first_paint() -> None:
    proc = subprocess.run([sys.executable, "-c", FIRST_PAINT], capture_output=True, text=True, timeout=120,
                          check=False, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert "PySide6.QtWidgets" in loaded
    heavy = {"pydantic", "filelock", "PySide6.QtNetwork", "wmcdp_desktop.rater.session", "wmcdp_desktop.rater.storage",
             # the widget modules (QStyle's and the message box's enumerations are made when they are imported)
             "wmcdp_desktop.rater.app.widgets", "wmcdp_desktop.rater.app.text.plain_text", "subprocess",
             "hashlib", "platform",  # (hashlib loads OpenSSL: only a running app's name needs it)
             "wmcdp_desktop.rater.app.window.outside"}  # (the file-open listener: macOS only)
    assert not heavy & loaded, sorted(heavy & loaded)
    assert not [m for m in loaded if m.startswith("wmcdp_desktop.core.models")]


def test_rater_app_import_leaves_unused_models_unbuilt() -> None:
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120, check=False,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert "wmcdp_desktop.core.models.task" in loaded  # the check sees model modules at all
    for unused in ("benchmark_item", "study", "unblinding_key", "results_manifest"):
        assert f"wmcdp_desktop.core.models.{unused}" not in loaded
    assert "wmcdp_desktop.rater.export" not in loaded  # imported when the rater exports


def test_public_model_names_still_import() -> None:
    import wmcdp_desktop.core.models as models
    from wmcdp_desktop.core.models import BenchmarkItem, Study, Task
    from wmcdp_desktop.core.models.benchmark_item import SPLITS, AcceptableDecision, Split  # noqa: F401

    assert BenchmarkItem.__name__ == "BenchmarkItem" and Study.__name__ == "Study" and Task.__name__ == "Task"
    assert set(models.__all__) <= set(dir(models))
    assert all(getattr(models, name).__name__ == name for name in models.__all__)
    assert "held_out_project" in SPLITS
    try:
        models.NoSuchModel  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchModel" in str(exc)
    else:
        raise AssertionError("unknown names must raise AttributeError")


WELCOME = """
import json, sys, tempfile, time
from wmcdp_desktop.rater.app import main
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication([])
window = main.start(["--data-dir", tempfile.mkdtemp(), "--rater", "R01"])
page = "wmcdp_desktop.rater.app.rating.controller"
seen = {}
def look():
    if window.ready and page in sys.modules or time.monotonic() > end:
        seen["page"] = page in sys.modules
        seen["on_welcome"] = window.stack.currentWidget() is window.welcome and window.rating is None
        app.quit()
end = time.monotonic() + 30
timer = QTimer()
timer.timeout.connect(look)
timer.start(5)
app.exec()
window.shutdown()
print(json.dumps(seen))
"""


def test_the_rating_page_modules_are_imported_while_the_welcome_screen_shows() -> None:
    """After the first paint, with no bundle asked for: the page's modules are imported in idle turns, so that
    opening a bundle later builds its page without importing them in that turn (docs/PERFORMANCE.md)."""
    proc = subprocess.run([sys.executable, "-c", WELCOME], capture_output=True, text=True, timeout=120, check=False,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"page": True, "on_welcome": True}
