"""Real ``kill -9`` of the real app, at random moments, on one data folder.

    python -m tests.reliability.kill_probe [RUNS] [--seed N]      # from the repository root; POSIX

The suite's kill tests stop a process at every step of a save (``test_store_kills.py``); this probe does
what a power button or a task manager does instead: it starts ``wmcdp-desktop --self-test`` (open a
300-task bundle, rate the next task by keyboard with autosaves, submit, export) again and again on the same
data folder, and sends SIGKILL after a random 0.5-4 s, letting every fourth run finish. After each run it
notes every record file and its SHA-256; at the end every record seen must still be there, byte for byte,
the audit chain must hold, one more run must pass and leave no temp file in drafts/ or records/, and
``wmcdp results validate``
must find every record valid. Prints one line of figures; exit status 1 if anything was lost or changed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.kit.bundles import bundle_zip
from wmcdp_desktop.core import audit_chain


def _app(data: Path, bundle: Path) -> list[str]:
    return [sys.executable, "-m", "wmcdp_desktop", "--self-test", "--data-dir", str(data), "--rater", "R01", str(bundle)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.reliability.kill_probe", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="?", type=int, default=40)
    p.add_argument("--seed", type=int, default=13)
    args = p.parse_args(argv)
    if not hasattr(signal, "SIGKILL"):
        print("kill_probe: needs SIGKILL (POSIX)")
        return 2
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_LOGGING_RULES="qt.qpa.*=false")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="wmcdp-kill-probe-") as tmp:
        bundle = Path(tmp) / "b.wmcdp"
        bundle.write_bytes(bundle_zip(300))
        data = Path(tmp) / "data"
        records = data / "bundles" / "B-REL" / "R01" / "records"
        seen: dict[str, str] = {}
        changed: set[str] = set()
        kills = passed = 0
        for i in range(args.runs):
            proc = subprocess.Popen(_app(data, bundle), env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            delay = rng.uniform(0.5, 4.0) if i % 4 else None
            try:
                out, _ = proc.communicate(timeout=delay if delay is not None else 120)
                passed += "self-test: passed" in out
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.communicate()  # reaps it and closes its stdout pipe (left open: a ResourceWarning, an error here)
                kills += 1
            for path in sorted(records.glob("*.json")) if records.exists() else []:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                if seen.setdefault(path.name, digest) != digest:
                    changed.add(path.name)
        lost = [name for name in seen if not (records / name).exists()]
        chain = audit_chain.verify_chain((records.parent / "audit.jsonl").read_bytes())
        final = subprocess.run(_app(data, bundle), env=env, capture_output=True, text=True).stdout
        # Opening the bundle removes what a kill left in drafts/ and records/; a kill during an export leaves
        # its hidden temp file in the folder chosen for the export (docs/RELIABILITY.md, Limits).
        temps = [t for t in data.rglob(".tmp-*") if t.parent.name in ("drafts", "records")]
        export_temps = [t for t in data.glob(".tmp-*")]
        check = subprocess.run([sys.executable, "-m", "wmcdp_desktop.coordinator.commands.main", "results", "validate", str(data)],
                               env=env, capture_output=True, text=True)
        print(f"runs {args.runs}: killed {kills}, finished and passed {passed}; records seen {len(seen)}, lost {len(lost)}, "
              f"changed {len(changed)}; audit chain holds: {chain.ok}; then one more run "
              f"{'passed' if 'self-test: passed' in final else 'FAILED'}, temp files left in drafts/ and records/ "
              f"{len(temps)} (and {len(export_temps)} of a killed export beside it), "
              f"results validate exit {check.returncode}")
        return 0 if not lost and not changed and chain.ok and not temps and check.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
