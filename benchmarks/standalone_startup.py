"""Start-up of the standalone app against the same app installed from the wheel, side by side.

    python packaging/build.py --no-archive
    QT_QPA_PLATFORM=offscreen python -m benchmarks.standalone_startup dist/wmcdp-desktop-<version>-<platform>

Both programs run ``wmcdp-desktop --self-test --demo`` (fresh data folder each time, offscreen), in
alternating order so that a busy machine slows both. Start-up is the time from starting the process to
its first line, ``self-test: window ready``, which it prints once the window shows the demo's first task
and the event loop has run; the whole run adds rating one task and exporting. The floor is the wheel: by
default this script builds a wheel of this checkout and installs it into a fresh virtual environment
(about a minute; pip's cache serves the dependencies); ``--wheel-venv DIR`` reuses one. Target: the
standalone app within 1.2x of the wheel (docs/PACKAGING.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT

TARGET = 1.2
READY = "self-test: window ready"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["QT_LOGGING_RULES"] = "qt.qpa.*=false"
    return env


def wheel_venv(where: Path) -> Path:
    """A fresh virtual environment with this checkout installed from its wheel (not editable)."""
    wheels = where / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True)
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    wheel = next(wheels.glob("wmcdp_desktop-*.whl"))
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], check=True)
    return venv


def launcher(venv: Path) -> Path:
    return venv / ("Scripts/wmcdp-desktop.exe" if os.name == "nt" else "bin/wmcdp-desktop")


def one_run(program: Path) -> tuple[float, float]:
    """(seconds to the first line, seconds to the end) of one ``--self-test --demo``."""
    with tempfile.TemporaryDirectory() as data:
        command = [str(program), "--self-test", "--demo", "--data-dir", data, "--rater", "R"]
        started = time.monotonic()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=_env())
        assert proc.stdout is not None
        first = proc.stdout.readline()
        ready = time.monotonic() - started
        rest = proc.stdout.read()
        code = proc.wait()
        total = time.monotonic() - started
    if code != 0 or not first.startswith(READY):
        raise SystemExit(f"{program} --self-test failed (exit {code}):\n{first}{rest}")
    return ready, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.standalone_startup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("app_folder", type=Path, help="the built folder (dist/wmcdp-desktop-<version>-<platform>)")
    parser.add_argument("--wheel-venv", type=Path, help="a virtual environment with the wheel installed (default: make one)")
    parser.add_argument("--runs", type=int, default=7, help="runs of each program (default 7)")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args(argv)
    frozen = args.app_folder / ("wmcdp-desktop.exe" if os.name == "nt" else "wmcdp-desktop")
    with tempfile.TemporaryDirectory(prefix="wmcdp-startup-") as tmp:
        venv = args.wheel_venv or wheel_venv(Path(tmp))
        wheel = launcher(venv)
        one_run(frozen), one_run(wheel)  # warm the file cache: both start from the page cache, as a second start does
        samples: dict[str, list[tuple[float, float]]] = {"standalone": [], "wheel": []}
        for i in range(args.runs):
            order = [("standalone", frozen), ("wheel", wheel)]
            for name, program in order if i % 2 == 0 else reversed(order):
                samples[name].append(one_run(program))
    result: dict[str, object] = {"runs": args.runs, "target": TARGET}
    for phase, index in (("start-up", 0), ("whole self-test", 1)):
        frozen_median = statistics.median(s[index] for s in samples["standalone"])
        wheel_median = statistics.median(s[index] for s in samples["wheel"])
        ratio = frozen_median / wheel_median
        result[phase] = {"standalone_s": round(frozen_median, 3), "wheel_s": round(wheel_median, 3),
                         "ratio": round(ratio, 3),
                         "standalone_samples": [round(s[index], 3) for s in samples["standalone"]],
                         "wheel_samples": [round(s[index], 3) for s in samples["wheel"]]}
        verdict = "meets" if ratio <= TARGET else "misses"
        print(f"{phase:16} standalone {frozen_median:.3f} s   wheel {wheel_median:.3f} s   "
              f"ratio {ratio:.2f}x ({verdict} the {TARGET}x target; medians of {args.runs})")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
