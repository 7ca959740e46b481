"""Checking every file of a big open bundle in a process of its own, so that the window's thread never waits.

The check (:meth:`OpenedBundle.verify`: each file's SHA-256, each task valid) is Python work that holds the
interpreter lock: hashlib, zlib and the JSON parser keep it for a task file of a few kilobytes, and pydantic
keeps it for the whole validation of a task. Done on a thread of the app, a 10,000-task check (1.6 s of
work) made the window's thread wait for the lock again and again while the first task was painted
(docs/PERFORMANCE.md, "Start-up and stalls"). In another process it takes nothing from the window: the app's
thread that waits for the answer only sleeps on a pipe.

:func:`check_in_process` (the app's side) starts the check process, passes it the bundle's path and the
SHA-256 of the bundle.json the app opened, turns its progress into ``progress(done, total)`` calls (where a
cancelled job stops: the process is then killed; the check only reads) and returns what it found.
:func:`serve` (the check process's side) opens the bundle again, refuses it as changed when its bundle.json
is not the one the app opened, and verifies it. The two speak one JSON object a line over the process's
standard input and output, which are pipes between the app and its own process, never a terminal. The
check process ends when the app does (its standard input closes).

The process is the app's own program: ``python -m wmcdp_desktop.rater.bundle_check`` from a source install,
the standalone program with :data:`WORKER_FLAG` when frozen (packaging/launch_desktop.py hands it over before
Qt is imported).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from wmcdp_desktop.core.errors import DocumentError, Problem, WmcdpError

Progress = Callable[[int, int], None]
WORKER_FLAG = "--check-bundle-files"
"""The standalone program's first argument that makes it the check process (never typed by a rater)."""
REPORT_EVERY = 0.05
"""Seconds between two progress lines of the check process."""
POLL_S = 0.05
"""How often the app's side looks at a cancel while the check process is silent."""
STDERR_KEPT = 2000
"""Characters of the check process's error output quoted when it ends without an answer."""


@dataclass(frozen=True)
class ProcessCheck:
    """What the check process found."""

    problems: list[Problem]
    changed: bool
    """bundle.json on disk is not the one the app opened (``problems`` is then empty)."""
    process_id: int
    """The process that checked (not the app's)."""


def worker_command() -> list[str]:
    """How the app starts its check process: the standalone program itself, or this module by the app's Python."""
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_FLAG]
    return [sys.executable, "-m", "wmcdp_desktop.rater.bundle_check"]


def check_in_process(
    path: Path, manifest_sha256: str, progress: Progress, *, started: Callable[[int], None] | None = None,
    bundle_key: bytes | None = None,
) -> ProcessCheck:
    """Check every file of the bundle at ``path`` in a process of its own (see the module docstring).

    ``progress`` is called at least every :data:`POLL_S` seconds (with the last counts), so that a cancel (it
    raises) is noticed even while the process is silent; the process is then killed and the exception goes on.
    ``started(pid)`` is called once the process runs. Raises :class:`OSError` when no process can be started
    (the caller may check on its own thread instead) and :class:`WmcdpError` when the process ends without an
    answer. ``bundle_key``: the bundle is encrypted; the process decrypts it in its memory with this key (sent over
    its standard input, never on its command line)."""
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            worker_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),  # Windows: no console window
        )
        try:
            if started is not None:
                started(proc.pid)
            return _talk(proc, path, manifest_sha256, progress, errors, bundle_key)
        finally:
            _end(proc)


def _talk(
    proc: subprocess.Popen[bytes], path: Path, manifest_sha256: str, progress: Progress, errors: IO[bytes],
    bundle_key: bytes | None = None,
) -> ProcessCheck:
    assert proc.stdin is not None
    request: dict[str, Any] = {"path": os.fspath(path), "manifest_sha256": manifest_sha256}
    if bundle_key is not None:
        request["bundle_key"] = bundle_key.hex()
    proc.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
    proc.stdin.flush()  # stdin stays open: the process ends when it closes (the app has ended)
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=_read_lines, args=(proc.stdout, lines), name="bundle-check-reader", daemon=True).start()
    done = total = 0
    while True:
        try:
            line = lines.get(timeout=POLL_S)
        except queue.Empty:
            progress(done, total)  # raises when cancelled
            continue
        if not line:  # the process ended without an answer
            raise WmcdpError(_ended_text(proc, errors))
        message = _message(line)
        if message is None:
            continue  # not ours (a library writing to standard output): the answer is still to come
        if "done" in message:
            done, total = int(message["done"]), int(message["total"])
            progress(done, total)
        elif "error" in message:
            raise WmcdpError(str(message["error"]))
        else:
            problems = [Problem(str(f), str(p), str(m)) for f, p, m in message["problems"]]
            return ProcessCheck(problems, bool(message["changed"]), proc.pid)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process if it still runs (a cancel: the check only reads, nothing is left half-done) and wait."""
    with contextlib.suppress(OSError):
        if proc.poll() is None:
            proc.kill()
    for stream in (proc.stdin, proc.stdout):
        with contextlib.suppress(OSError, ValueError):
            if stream is not None:
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _message(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _read_lines(stream: IO[bytes] | None, into: queue.Queue[bytes]) -> None:
    assert stream is not None
    with contextlib.suppress(OSError, ValueError):
        for line in stream:
            into.put(line)
    into.put(b"")


def _ended_text(proc: subprocess.Popen[bytes], errors: IO[bytes]) -> str:
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    errors.seek(0)
    said = errors.read().decode("utf-8", "replace").strip()[-STDERR_KEPT:]
    text = f"the checking process ended without an answer (exit status {proc.returncode})"
    return f"{text}:\n{said}" if said else text


# ----- the check process ------------------------------------------------------------------------------------


def serve(requests: IO[bytes], answers: IO[bytes]) -> int:
    """The check process: one request line from the app (``path``, ``manifest_sha256``), progress lines and
    one answer line back (``problems`` as [file, path, message] and ``changed``, or ``error``)."""
    request = json.loads(requests.readline() or b"{}")
    # The app holds our standard input open while it waits: when it ends (closed, crashed) so does the check.
    threading.Thread(target=_exit_when_closed, args=(requests.fileno(),), daemon=True).start()
    write = _line_writer(answers)
    try:
        key = request.get("bundle_key")
        answer = _check(Path(request["path"]), str(request["manifest_sha256"]), write,
                        None if key is None else bytes.fromhex(str(key)))
    except (KeyError, TypeError) as exc:
        answer = {"error": f"the checking process got a request it cannot read ({exc})"}
    except WmcdpError as exc:
        answer = {"error": str(exc)}
    except Exception as exc:  # a bug or MemoryError: said to the app in words, which shows it in its banner
        answer = {"error": f"the check failed unexpectedly ({type(exc).__name__}: {exc})"}
    write(answer)
    return 0


def _check(path: Path, manifest_sha256: str, write: Callable[[dict[str, Any]], None],
           bundle_key: bytes | None = None) -> dict[str, Any]:
    from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle

    try:
        bundle: OpenedBundle = open_bundle(path) if bundle_key is None else _decrypted(path, bundle_key)
    except DocumentError as exc:  # no longer opens: what is wrong with it is what the check found
        return {"problems": [_listed(p) for p in exc.problems], "changed": False}
    if bundle.manifest_sha256 != manifest_sha256:
        return {"problems": [], "changed": True}
    last = [0.0]

    def each_file(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= REPORT_EVERY or done == total:
            last[0] = now
            write({"done": done, "total": total})

    return {"problems": [_listed(p) for p in bundle.verify(each_file).problems], "changed": False}


def _decrypted(path: Path, bundle_key: bytes) -> Any:
    """The encrypted bundle at ``path`` decrypted in this process's memory with the app's key (DocumentError when
    it no longer opens with it: changed, or not encrypted any more)."""
    from wmcdp_desktop.core.bundle_reader import open_encrypted_bundle, read_encrypted_bundle
    from wmcdp_desktop.core.encryption.bundle_envelope import SessionKeys

    data = read_encrypted_bundle(path)
    if data is None:
        raise DocumentError.single(path.name, "is not the encrypted bundle the app opened any more")
    return open_encrypted_bundle(data, SessionKeys(bundle_key=bundle_key, data_key=b""), path)


def _listed(problem: Problem) -> list[str]:
    return [problem.file, problem.path, problem.message]


def _line_writer(answers: IO[bytes]) -> Callable[[dict[str, Any]], None]:
    def write(message: dict[str, Any]) -> None:
        try:
            answers.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
            answers.flush()
        except (BrokenPipeError, OSError, ValueError):
            os._exit(0)  # the app is gone: nobody is waiting for the answer

    return write


def _exit_when_closed(fd: int) -> None:
    """Reads the descriptor itself, not the buffered file: a thread blocked in the buffered file's read holds its
    lock, and Python cannot end while it does."""
    with contextlib.suppress(OSError):
        while os.read(fd, 4096):
            pass
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer))
