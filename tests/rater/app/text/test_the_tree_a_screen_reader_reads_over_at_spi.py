"""What a Linux screen reader (Orca) really reads: the app on Qt's X11 platform under Xvfb, its accessibility
exported over AT-SPI (the desktop's accessibility bus), and the tree walked from outside the process with
the same library Orca uses (pyatspi), on the demo after start, after a failed Submit and after a score was
typed: exactly one focused node, no unnamed control that shows, nothing reported as showing inside a hidden
part (the calibration tab, closed drop-downs), the three rating pages as tabs, and task names without line
breaks or glyphs. Skipped where the system's AT-SPI, Xvfb, xdotool or pyatspi is missing (Debian: apt install
xvfb xdotool at-spi2-core python3-pyatspi dbus-x11)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BUS = Path("/usr/libexec/at-spi-bus-launcher")
REGISTRY = Path("/usr/libexec/at-spi2-registryd")
SYSTEM_PYTHON = "/usr/bin/python3"

WALK = """
import json, sys, time, pyatspi
interactive = {pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_COMBO_BOX, pyatspi.ROLE_SLIDER,
               pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY, pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_PAGE_TAB,
               pyatspi.ROLE_SPIN_BUTTON, pyatspi.ROLE_LIST, pyatspi.ROLE_TREE, pyatspi.ROLE_TABLE}
app = None
for _ in range(120):
    app = next((a for a in pyatspi.Registry.getDesktop(0) if a is not None and "WM-CDP" in (a.name or "")), None)
    if app is not None:
        break
    time.sleep(0.5)
seen = {"nodes": 0, "focused": [], "unnamed": [], "hidden_showing": [], "tabs": [], "items": []}
def walk(acc, parent_showing, depth):
    seen["nodes"] += 1
    state, role, name = acc.getState(), acc.getRole(), acc.name or ""
    showing = state.contains(pyatspi.STATE_SHOWING)
    if state.contains(pyatspi.STATE_FOCUSED):
        seen["focused"].append([acc.getRoleName(), name])
    if role in interactive and showing and not name.strip():
        seen["unnamed"].append(acc.getRoleName())
    if showing and not parent_showing:
        seen["hidden_showing"].append([acc.getRoleName(), name])
    if role == pyatspi.ROLE_PAGE_TAB and showing and parent_showing:
        seen["tabs"].append(name)
    if role in (pyatspi.ROLE_LIST_ITEM, pyatspi.ROLE_TABLE_CELL) and showing and parent_showing:
        seen["items"].append(name)
    for i in range(acc.childCount if depth < 60 else 0):
        child = acc.getChildAtIndex(i)
        if child is not None:
            walk(child, showing and parent_showing, depth + 1)
if app is not None:
    walk(app, True, 0)
print(json.dumps(seen))
"""

SESSION = """
set -u
"$BUS" --launch-immediately & sleep 1
"$REGISTRY" & sleep 1
"$APP_PYTHON" -m wmcdp_desktop --demo --data-dir "$DATA" --rater R01 > "$DATA/app.log" 2>&1 &
app=$!
for _ in $(seq 60); do w=$(xdotool search --name "WM-CDP" | head -1); [ -n "$w" ] && break; sleep 0.5; done
sleep 4
xdotool windowfocus --sync "$w"; sleep 1
"$WALK_PYTHON" "$WALK" > "$DATA/start.json"
xdotool key ctrl+Return; sleep 1.5
"$WALK_PYTHON" "$WALK" > "$DATA/failed.json"
xdotool key 3; sleep 1
"$WALK_PYTHON" "$WALK" > "$DATA/typed.json"
kill $app
"""


def _have_at_spi() -> bool:
    tools = all(shutil.which(t) for t in ("xvfb-run", "xdotool", "dbus-run-session"))
    if not (tools and BUS.exists() and REGISTRY.exists() and Path(SYSTEM_PYTHON).exists()):
        return False
    return subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _have_at_spi(), reason="needs AT-SPI, Xvfb, xdotool and pyatspi (see the module's text)")
def test_orca_hears_one_focus_named_controls_and_nothing_hidden(repo_root: Path, tmp_path: Path) -> None:
    walk = tmp_path / "walk.py"
    walk.write_text(WALK, encoding="utf-8")
    script = tmp_path / "session.sh"
    script.write_text(SESSION, encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "BUS": str(BUS),
           "REGISTRY": str(REGISTRY), "APP_PYTHON": sys.executable, "WALK_PYTHON": SYSTEM_PYTHON,
           "WALK": str(walk), "DATA": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(repo_root), os.environ.get("PYTHONPATH", "")])}
    env.pop("QT_SCALE_FACTOR", None)
    done = subprocess.run(["dbus-run-session", "--", "xvfb-run", "-a", "-s", "-screen 0 1440x900x24", "bash",
                           str(script)], env=env, capture_output=True, text=True, timeout=180, cwd=repo_root,
                          check=False)
    for moment in ("start", "failed", "typed"):
        path = tmp_path / f"{moment}.json"
        assert path.exists(), (moment, done.stderr[-2000:])
        seen = json.loads(path.read_text(encoding="utf-8"))
        assert seen["nodes"] > 100, (moment, seen["nodes"], done.stderr[-2000:])
        assert len(seen["focused"]) == 1, (moment, seen["focused"])
        assert seen["focused"][0][0] == "slider", (moment, seen["focused"])
        assert seen["unnamed"] == [], (moment, seen["unnamed"])
        assert seen["hidden_showing"] == [], (moment, seen["hidden_showing"])
        assert [t.split(" – ")[0] for t in seen["tabs"]] == ["Scores", "Failure modes", "Notes"], (moment, seen["tabs"])
        assert ("to fix" in seen["tabs"][0]) == (moment != "start"), (moment, seen["tabs"])  # a failed Submit says it
        tasks = [name for name in seen["items"] if name[:1].isdigit()]
        assert tasks and all("\n" not in t and "  " not in t and "○" not in t for t in tasks), (moment, tasks)
    typed = json.loads((tmp_path / "typed.json").read_text(encoding="utf-8"))
    assert any(t.startswith("1. ") and t.endswith("In progress") for t in typed["items"]), typed["items"]
