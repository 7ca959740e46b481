"""Shared pieces of the benchmark runner: statistics, figures, subprocess timing, cached data."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchmarks import synth

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
SYNTH_VERSION = "1"
"""Bump when synth.py output changes, so cached data is regenerated."""

RatioKind = Literal["time", "throughput", "difference", "limit"]
"""time: figure / floor, lower is better; throughput: floor time / figure time, higher is better;
difference: figure - floor (e.g. +MB); limit: the figure itself against an absolute limit (e.g. a stall of
at most 100 ms), the floor given beside it for context (the same measure of a bare window)."""


def qt_env() -> dict[str, str]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    # Repeated warnings from the offscreen plugin would only add noise (and time) to every run.
    env.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def stats(samples: Sequence[float]) -> dict[str, Any]:
    """Median and spread: IQR (quartiles) with 4 or more samples, always min and max."""
    xs = sorted(samples)
    out: dict[str, Any] = {
        "n": len(xs),
        "median": statistics.median(xs),
        "min": xs[0],
        "max": xs[-1],
        "samples": [round(x, 6) for x in samples],
    }
    if len(xs) >= 4:
        q = statistics.quantiles(xs, n=4, method="inclusive")
        out["q1"], out["q3"] = q[0], q[2]
    return out


@dataclass
class Figure:
    """One benchmark figure: the thing measured, its floor from the same run, and the verdict."""

    key: str
    title: str
    floor_title: str
    unit: str
    kind: RatioKind
    target: float
    target_text: str
    figure: dict[str, Any] | None = None
    floor: dict[str, Any] | None = None
    ratio: float | None = None
    passed: bool | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def settle(self, fig: Sequence[float], floor: Sequence[float]) -> Figure:
        """Compute statistics, ratio and pass/miss from the samples."""
        self.figure = stats(fig)
        self.floor = stats(floor)
        f, b = self.figure["median"], self.floor["median"]
        if self.kind == "time":
            # Figure time / floor time; lower is better.
            self.ratio = f / b if b > 0 else float("inf")
            self.passed = self.ratio <= self.target
        elif self.kind == "throughput":
            # Figure throughput / floor throughput = floor time / figure time; higher is better.
            self.ratio = b / f if f > 0 else float("inf")
            self.passed = self.ratio >= self.target
        elif self.kind == "limit":
            # The figure itself against an absolute limit; the floor is context.
            self.ratio = f
            self.passed = f <= self.target
        else:
            # An absolute difference (e.g. +MB over the floor); lower is better.
            self.ratio = f - b
            self.passed = self.ratio <= self.target
        return self

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class BenchError(Exception):
    """A benchmark could not be measured (a missing command, a failed run)."""


def run_timed(
    cmd: list[str], *, env: dict[str, str] | None = None, timeout: float = 600, cwd: Path | None = None,
    ok_codes: tuple[int, ...] = (0,),
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run ``cmd`` and return its wall time (seconds) and the completed process."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, env=env or qt_env(), capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode not in ok_codes:
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-8:]
        raise BenchError(f"{' '.join(cmd[:6])} exited with {proc.returncode}: " + " | ".join(tail))
    return elapsed, proc


def run_probe(args: list[str], *, timeout: float = 120) -> dict[str, Any]:
    """Run ``python -m benchmarks.qt_probe ARGS`` and return its JSON result, plus ``spawned`` (the
    parent's monotonic time just before the process was started)."""
    spawned = time.monotonic()
    proc = subprocess.run(
        [PY, "-m", "benchmarks.qt_probe", *args],
        env=qt_env(), capture_output=True, text=True, timeout=timeout, check=False, cwd=ROOT,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if lines and '"error"' in lines[-1]:
        raise BenchError(f"qt_probe {args[0]}: {json.loads(lines[-1])['error']}")
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-10:]
        raise BenchError(f"qt_probe {' '.join(args[:2])} failed ({proc.returncode}): " + " | ".join(tail))
    result: dict[str, Any] = json.loads(lines[-1])
    if "error" in result:
        raise BenchError(f"qt_probe {args[0]}: {result['error']}")
    result["spawned"] = spawned
    return result


class Cache:
    """Generated data kept between runs (keyed by name and synth version)."""

    def __init__(self, root: Path, fresh: bool = False) -> None:
        self.root = root
        self.fresh = fresh
        self.timings: dict[str, float] = {}
        root.mkdir(parents=True, exist_ok=True)

    def get(self, name: str, make: Callable[[Path], object]) -> Path:
        """``root/v<N>-name``, made by ``make(path)`` unless already complete."""
        path = self.root / f"v{SYNTH_VERSION}-{name}"
        done = self.root / f"v{SYNTH_VERSION}-{name}.done"
        if done.exists() and path.exists() and not self.fresh:
            return path
        done.unlink(missing_ok=True)
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        t0 = time.perf_counter()
        make(path)
        self.timings[name] = round(time.perf_counter() - t0, 3)
        done.write_text("ok\n")
        return path


def bundle_maker(n_tasks: int, shape: synth.Shape, rater_id: str | None = "R01") -> Callable[[Path], object]:
    return lambda p: synth.write_bundle(p, n_tasks, shape=shape, rater_id=rater_id)
