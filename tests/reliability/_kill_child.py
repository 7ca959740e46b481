"""Child process for the kill-at-every-step tests: performs one save scenario and dies at event N.

Usage: ``python _kill_child.py SCENARIO DIR N``. Events, in order, are every write call inside
:func:`wmcdp_desktop.core.atomic.atomic_write_bytes` (the kill then happens after half of that chunk has
reached the file: a torn write), every step hook (``written``, ``fsynced``, ``before_replace``,
``replaced``) and every audit-log append (``audit-append``: half the line reaches the file). At event ``N`` the process ends at once with ``os._exit(KILLED)`` (no cleanup, no
``finally``, no flush: what a power cut or ``kill -9`` leaves). When the scenario finishes before event
``N`` the child prints ``DONE <events>`` and exits 0.

Scenarios are defined in :data:`SCENARIOS`; they only use the project's public APIs.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

KILLED = 86

_events = 0
_kill_at = 0
_log: list[str] = []


def _event(name: str) -> bool:
    global _events
    _events += 1
    _log.append(name)
    return _events == _kill_at


def _install() -> None:
    from wmcdp_desktop.core import atomic

    real_write = atomic.os_calls().write

    def write(fd: int, data: bytes) -> int:
        if _event("mid-write"):
            half = data[: max(1, len(data) // 2)]
            real_write(fd, half)
            os._exit(KILLED)
        return real_write(fd, data)

    def hook(step: str) -> None:
        if _event(step):
            os._exit(KILLED)

    atomic.install_os_calls(atomic.OsCalls(write=write, step=hook))

    # Appends to the audit log (rater/storage.py writes them with os.write): torn in the middle too. An encrypted
    # bundle's log has one sealed line in base64 per event.
    real_os_write = os.write
    sealed_line = re.compile(rb"\n?[A-Za-z0-9+/]+={0,2}\n")

    def os_write(fd: int, data: Any) -> int:
        is_audit = data.lstrip(b"\n").startswith(b'{"at"') or sealed_line.fullmatch(data) is not None
        if is_audit and _event("audit-append"):
            real_os_write(fd, data[: len(data) // 2])
            os._exit(KILLED)
        return real_os_write(fd, data)

    os.write = os_write


def old_content(name: str) -> bytes:
    return f'{{"name": "{name}", "version": "old", "pad": "{"o" * 3000}"}}\n'.encode()


def new_content(name: str) -> bytes:
    return f'{{"name": "{name}", "version": "new", "pad": "{"n" * 5000}"}}\n'.encode()


def scenario_atomic(root: Path) -> None:
    """Replace existing.json (old -> new), then create fresh.json (absent -> new)."""
    from wmcdp_desktop.core.atomic import atomic_write_bytes

    atomic_write_bytes(root / "existing.json", new_content("existing.json"))
    atomic_write_bytes(root / "fresh.json", new_content("fresh.json"))


def setup_atomic(root: Path) -> None:
    (root / "existing.json").write_bytes(old_content("existing.json"))


SCENARIOS: dict[str, Callable[[Path], None]] = {"atomic": scenario_atomic}


def main(argv: list[str]) -> int:
    global _kill_at
    scenario, folder, n = argv[0], Path(argv[1]), int(argv[2])
    _kill_at = n
    _install()
    SCENARIOS[scenario](folder)
    print("DONE", _events, " ".join(_log))
    return 0


# ----- scenarios on the rater's store (rater/storage.py through rater/session.py) ---------------
DATA_KEY_FILE = "data-key"
"""In a scenario's folder: the data folder's key, for the store of an encrypted bundle (sealed files, opaque names)."""


def _session(root: Path):  # type: ignore[no-untyped-def]
    from tests.kit import sessions

    if not (root / "bundle").exists():
        return sessions, None
    key = root / DATA_KEY_FILE
    return sessions, sessions.new_session(root / "bundle", root / "data", rater=sessions.RATER,
                                          data_key=key.read_bytes() if key.exists() else None)


def setup_draft(root: Path) -> None:
    """t0000 has a saved draft with every score 2."""
    kit, s = _session(root)
    s.open_task("t0000")
    kit.fill(s, 2, "first draft")
    assert s.save_draft()


def scenario_draft(root: Path) -> None:
    """Autosave t0000 again with every score 3."""
    kit, s = _session(root)
    s.open_task("t0000")
    kit.fill(s, 3, "second draft")
    assert s.save_draft()


def setup_submit(root: Path) -> None:
    """t0000 submitted (r1, scores 2); t0001 a complete draft (scores 4)."""
    kit, s = _session(root)
    s.open_task("t0000")
    kit.fill(s, 2, "first submit")
    assert s.submit().ok
    s.open_task("t0001")
    kit.fill(s, 4, "ready to submit")
    assert s.save_draft()


def scenario_submit(root: Path) -> None:
    """Submit t0001, then revise t0000 (r2, scores 5) and submit the revision."""
    kit, s = _session(root)
    s.open_task("t0001")
    assert s.submit().ok
    s.open_task("t0000")
    s.revise()
    kit.fill(s, 5, "revised")
    assert s.submit().ok


def setup_export(root: Path) -> None:
    (root / "out").mkdir()
    setup_submit(root)
    scenario_submit_no_kill(root)


def scenario_submit_no_kill(root: Path) -> None:
    _kit, s = _session(root)
    s.open_task("t0001")
    assert s.submit().ok


def scenario_export(root: Path) -> None:
    from wmcdp_desktop.rater.export import ExportPlan

    _kit, s = _session(root)
    ExportPlan(
        s.store,
        bundle_id=s.manifest.bundle_id,
        bundle_sha256=s.bundle.manifest_sha256,
        study_id=s.manifest.study_id,
        task_ids=s.task_ids,
        drafts_not_submitted=s.drafts_not_submitted(),
        clock=s.clock,
    ).run(root / "out" / "results.zip")


SCENARIOS.update({"draft": scenario_draft, "submit": scenario_submit, "export": scenario_export})


def _encrypted(setup: Callable[[Path], None]) -> Callable[[Path], None]:
    def encrypted_setup(root: Path) -> None:
        (root / DATA_KEY_FILE).write_bytes(os.urandom(32))
        setup(root)

    return encrypted_setup


setup_draft_encrypted = _encrypted(setup_draft)
setup_submit_encrypted = _encrypted(setup_submit)


def batch(scenario: str) -> int:
    """``--batch SCENARIO``: import everything once, then for each ``FOLDER N`` line on stdin fork a
    child that runs the scenario and dies at event N (POSIX only; much faster than a fresh interpreter
    per N, and the kill is just as real). Prints ``RESULT N EXITCODE`` per line."""
    global _kill_at, _events
    _install()
    _session(Path("."))  # import the session machinery before forking (its first call does the imports)
    from wmcdp_desktop.rater import export  # noqa: F401

    for line in sys.stdin:
        folder, n = line.rsplit(" ", 1)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:  # the child
            _kill_at, _events = int(n), 0
            _log.clear()
            try:
                SCENARIOS[scenario](Path(folder))
            except BaseException as exc:
                print("ERROR", type(exc).__name__, exc, file=sys.stderr)
                sys.stderr.flush()
                os._exit(3)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        print("RESULT", n.strip(), os.waitstatus_to_exitcode(status), flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--batch":
        raise SystemExit(batch(sys.argv[2]))
    raise SystemExit(main(sys.argv[1:]))
