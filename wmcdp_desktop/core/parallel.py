"""Running a function over chunks of work in a pool of worker processes (used by ``results validate``).

Only plain data crosses to the workers (lists of path strings and flags), and the function is a
top-level function of an importable module, so the pool works with every start method ('fork' on Linux,
'spawn' on Windows and macOS, 'forkserver'). Workers ignore Ctrl-C: the parent gets it (also when it
comes while the workers start), stops the workers and lets the interrupt go on. A worker that raises, or
dies, becomes :class:`WorkerError` (a plain :class:`WmcdpError`, never a traceback).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Generic, TypeVar

from wmcdp_desktop.core.errors import WmcdpError

T = TypeVar("T")
R = TypeVar("R")

START_METHOD: str | None = None
"""multiprocessing start method of every pool (``None``: the platform's default); tests set it."""

MAX_AUTO_WORKERS = 8
"""Most workers chosen automatically (more rarely helps: the disk and the parent become the limit)."""

WINDOWS_MAX_WORKERS = 61
"""``ProcessPoolExecutor`` on Windows refuses more workers than this (it waits on at most 63 handles)."""


class WorkerError(WmcdpError):
    """A worker process raised or stopped while working on one chunk."""

    def __init__(self, chunk: int, cause: str) -> None:
        super().__init__(f"a worker process failed: {cause}")
        self.chunk = chunk
        self.cause = cause


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def auto_workers() -> int:
    return min(available_cpus(), MAX_AUTO_WORKERS)


SLOW_START_FACTOR = 5
"""Workers started by 'spawn' or 'forkserver' (Windows, macOS) import the app afresh: 0.3-0.4 s each on
the benchmark machine, against a few milliseconds for 'fork' (Linux). An automatic pool of such workers
waits for this many times more work before it pays (measured: 2,000 ratings read in 0.24 s in one
process, 0.27 s by 2 forked workers, 0.62 s by 2 spawned ones)."""


def workers_for(jobs: int | None, n_items: int, min_items: int) -> int:
    """Worker processes for ``n_items`` of work: ``jobs`` when the user said (``--jobs N``; 1 = this
    process); else one per CPU (at most MAX_AUTO_WORKERS) for at least ``min_items`` (forked workers) or
    ``min_items * SLOW_START_FACTOR`` (other start methods), fewer in this process."""
    if jobs is not None:
        return max(1, jobs)
    method = multiprocessing.get_context(START_METHOD).get_start_method()
    needed = min_items if method == "fork" else min_items * SLOW_START_FACTOR
    return auto_workers() if n_items >= needed else 1


def _ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; only the parent acts on it (no traceback per worker).
    # A Ctrl-C held back while the worker started (see _sigint_held) is discarded by SIG_IGN.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start_worker() -> None:
    """Initializer of every worker: Ctrl-C ignored, and the worker ends when its parent is gone.

    A pool's workers wait on their task queue for ever; a parent killed without cleaning up (``kill``,
    ``kill -9``, a closed terminal, a cancelled CI job) would leave them behind, and holding its output
    pipe they would keep whoever reads it waiting too. A daemon thread waits on the parent's sentinel
    (the end of a pipe only the parent holds on POSIX, the parent's process handle on Windows) and
    ends the worker when it fires.
    """
    _ignore_sigint()
    parent = multiprocessing.parent_process()
    if parent is not None and parent.sentinel is not None:
        threading.Thread(
            target=_exit_with_parent, args=(parent.sentinel,), name="wmcdp-parent-watch", daemon=True
        ).start()


def _exit_with_parent(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(1)  # the parent is gone: nobody is left to take this worker's results


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Ctrl-C held back for the block, then acted on as usual (POSIX): never lost, never inside the block.

    The workers start inside the block. A Ctrl-C must not reach one before its initializer ignores it (a
    traceback per worker) nor stop this process half-way through starting them. So SIGINT is blocked in
    this thread, and workers started here inherit it blocked (across fork and exec); a Ctrl-C that another
    thread of this process takes is caught by a handler that only notes it; one still pending at the end
    is taken with ``sigwait``. After the block the previous handler is back and is called once per Ctrl-C
    noted (``KeyboardInterrupt`` by default), also when the block failed: stopping is what the user asked.
    Where signals cannot be blocked (Windows) a Ctrl-C while the workers start is ignored. Only the main
    thread can change handlers; elsewhere, and when Ctrl-C is ignored anyway, nothing changes.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous in (None, signal.SIG_IGN):
        yield  # not ours to change, or ignored anyway (a background job): workers inherit that
        return
    if not hasattr(signal, "pthread_sigmask"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
        return
    came: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if signal.SIGINT in signal.sigpending():
            came.append(signal.sigwait({signal.SIGINT}))
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
        for _ in came:  # raising here replaces an error of the block (kept as the interrupt's context)
            if callable(previous):
                previous(signal.SIGINT, None)
            else:  # SIG_DFL: what Ctrl-C would have done
                signal.raise_signal(signal.SIGINT)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ChunkPool(Generic[T, R]):
    """``with ChunkPool(fn, chunks, workers=2) as pool: ...; for i, value in pool.completed(): ...``.

    Every chunk is submitted when the ``with`` block starts, so the parent can do other work while the
    workers run. :meth:`completed` yields ``(chunk index, fn(chunk, *extra))`` in the order chunks
    finish. Leaving the block with an exception (Ctrl-C included) cancels what has not started and
    stops the workers; leaving it normally waits for them to exit.
    """

    def __init__(
        self,
        fn: Callable[..., R],
        chunks: list[list[T]],
        *,
        workers: int,
        extra: tuple[Any, ...] = (),
        start_method: str | None = None,
    ) -> None:
        self.fn = fn
        self.chunks = chunks
        limit = WINDOWS_MAX_WORKERS if sys.platform == "win32" else workers
        self.workers = max(1, min(workers, len(chunks), limit))
        self.extra = extra
        self.start_method = start_method
        self._executor: ProcessPoolExecutor | None = None
        self._futures: dict[Future[R], int] = {}

    def __enter__(self) -> ChunkPool[T, R]:
        context = multiprocessing.get_context(self.start_method or START_METHOD)
        if context.get_start_method() == "forkserver":
            # The fork server outlives this pool and forks every later 'forkserver' process: started in
            # the block below it would keep Ctrl-C blocked, and pass that on, for good.
            from multiprocessing import forkserver

            forkserver.ensure_running()
        self._executor = ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=_start_worker)
        try:
            with _sigint_held():
                # The workers start during these submits; started with Ctrl-C held back, none of them can
                # be interrupted before its initializer runs (not even a 'spawn' worker still importing).
                for index, chunk in enumerate(self.chunks):
                    self._futures[self._executor.submit(self.fn, chunk, *self.extra)] = index
        except BaseException:
            self._stop()
            raise
        return self

    def completed(self) -> Iterator[tuple[int, R]]:
        for future in as_completed(self._futures):
            index = self._futures[future]
            try:
                value = future.result()
            except Exception as exc:  # raised in the worker, or the worker died (BrokenProcessPool)
                raise WorkerError(index, _describe(exc)) from None
            yield index, value

    def _stop(self) -> None:
        executor = self._executor
        if executor is None:
            return
        # The queued chunks are cancelled by the executor's own manager thread (``cancel_futures`` below),
        # never from here: on Python 3.11 that thread sets BrokenProcessPool on every queued future once a
        # worker is stopped, and a future cancelled from this thread made it raise InvalidStateError and die
        # before closing its queues (a traceback, and often a process that never exited).
        # Stop the running chunks too: waiting for them would keep a Ctrl-C waiting for seconds.
        # (``_processes`` is the executor's own table of worker processes; if a later Python drops it,
        # shutdown below still waits for the running chunks and then stops.)
        processes = getattr(executor, "_processes", None) or {}
        for process in list(processes.values()):
            if process.is_alive():
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            self._stop()
        elif self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
