"""Run every benchmark and write ``results.json`` and ``results.md``.

    python -m benchmarks.run [--size smoke|full] [--out benchmarks/out] [--only KEY,...] [--fresh]

Each figure is a ratio against a floor measured in the same run, side by side (floor and figure
repetitions interleaved), so a slow or busy machine moves both. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import synth
from benchmarks.common import (
    PY,
    ROOT,
    BenchError,
    Cache,
    Figure,
    bundle_maker,
    run_probe,
    run_timed,
    stats,
)


@dataclass(frozen=True)
class Size:
    name: str
    reps: int
    """Repetitions of the quick benchmarks."""
    big_reps: int
    """Repetitions of the big ones (validate, build, report)."""
    open_tasks: int
    """Tasks of the big bundle opened in the app (10,000 in full)."""
    conversation_bytes: int
    huge_bytes: int
    """The single-line response."""
    validate_records: int
    build_tasks: int
    build_raters: int
    build_overlap: int
    report_tasks: int
    report_raters: int
    next_steps: int
    save_reps: int
    rate_tasks: int
    """Tasks rated by keyboard while the event loop's stalls are measured."""
    token_bytes: int
    """The response that is one unbroken token."""


SIZES = {
    "smoke": Size("smoke", reps=1, big_reps=1, open_tasks=300, conversation_bytes=100_000, huge_bytes=300_000,
                  validate_records=1_000, build_tasks=100, build_raters=5, build_overlap=5, report_tasks=100,
                  report_raters=3, next_steps=2, save_reps=5, rate_tasks=2, token_bytes=300_000),
    "full": Size("full", reps=5, big_reps=2, open_tasks=10_000, conversation_bytes=100_000, huge_bytes=5_000_000,
                 validate_records=100_000, build_tasks=10_000, build_raters=5, build_overlap=5,
                 report_tasks=10_000, report_raters=3, next_steps=8, save_reps=20, rate_tasks=6,
                 token_bytes=1_000_000),
}
RATER = "R01"


class Context:
    def __init__(self, size: Size, cache: Cache, work: Path) -> None:
        self.size = size
        self.cache = cache
        self.work = work

    def tmp(self, name: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.work))
        return path

    def bundle(self, n_tasks: int, shape: synth.Shape) -> Path:
        token = "t" if shape.huge_is_one_token else ""
        name = f"bundle-{n_tasks}-c{shape.conversation_bytes}-h{shape.huge_response_bytes}{token}.wmcdp"
        return self.cache.get(name, bundle_maker(n_tasks, shape))


def wmcdp(*args: str) -> list[str]:
    return [PY, "-m", "wmcdp_desktop.coordinator.commands.main", *args]


def has_command(*words: str) -> bool:
    """Whether ``wmcdp WORDS... --help`` works (the command has landed)."""
    proc = subprocess.run(wmcdp(*words, "--help"), capture_output=True, text=True, check=False, cwd=ROOT)
    return proc.returncode == 0


def has_app() -> bool:
    path = ROOT / "wmcdp_desktop" / "rater" / "app" / "main.py"
    return path.is_file() and "placeholder" not in path.read_text(encoding="utf-8")[:300].lower()


def marker_of_text(text: str) -> str:
    from benchmarks.qt_probe import marker_of

    return marker_of(text[:200])


def first_response_marker(bundle: Path) -> str:
    from wmcdp_desktop.core.bundle_reader import open_bundle

    opened = open_bundle(bundle)
    from benchmarks.qt_probe import marker_of

    return marker_of(opened.task(opened.task_ids[0]).candidate_response_text)


# --------------------------------------------------------------------------------------------------
# Qt figures


def bench_first_paint(ctx: Context, fig: Figure, small: Path) -> None:
    """Process start to the window painted and the event loop running, started on a 10-task bundle (as a
    rater's double-click does): the bundle opens off the GUI thread, the window does not wait for it."""
    figure, floor, cpu_app, cpu_bare = [], [], [], []
    for _ in range(ctx.size.reps):
        r = run_probe(["bare"])
        floor.append(r["ready"] - r["spawned"])
        cpu_bare.append(r["cpu_s"])
        r = run_probe(["paint", str(small), str(ctx.tmp("data")), RATER])
        figure.append(r["ready"] - r["spawned"])
        cpu_app.append(r["cpu_s"])
    fig.settle(figure, floor)
    fig.extra["bundle_tasks"] = 10
    # CPU time moves less than wall time on a shared machine (the process's own, from its start to that moment)
    cpu = {"app": stats(cpu_app)["median"], "bare": stats(cpu_bare)["median"]}
    fig.extra["cpu_median_s"] = {k: round(v, 4) for k, v in cpu.items()}
    fig.notes.append(f"Process CPU time to the first paint (median): app {cpu['app'] * 1000:.0f} ms, bare window "
                     f"{cpu['bare'] * 1000:.0f} ms ({cpu['app'] / cpu['bare']:.2f}x).")


def bench_first_task(ctx: Context, fig: Figure, small: Path) -> None:
    marker = first_response_marker(small)
    figure, floor, mem_app = [], [], []
    phases: dict[str, list[float]] = {k: [] for k in (
        "app_python_start", "app_module_import", "app_qt_import_and_qapplication", "app_window_bundle_paint",
        "bare_python_start", "bare_qt_import", "bare_qapplication_window_paint")}
    if ctx.size.name == "full":
        run_probe(["bare"])  # warm the file cache for both
    for _ in range(ctx.size.reps):
        r = run_probe(["bare"])
        floor.append(r["ready"] - r["spawned"])
        phases["bare_python_start"].append(r["t_start"] - r["spawned"])
        phases["bare_qt_import"].append(r["t_open"] - r["t_start"])
        phases["bare_qapplication_window_paint"].append(r["ready"] - r["t_open"])
        r = run_probe(["app", str(small), str(ctx.tmp("data")), RATER, marker])
        figure.append(r["ready"] - r["spawned"])
        mem_app.append(r["rss_mb"])
        phases["app_python_start"].append(r["t_start"] - r["spawned"])
        phases["app_module_import"].append(r["t_app_imported"] - r["t_start"])
        phases["app_qt_import_and_qapplication"].append(r["t_open"] - r["t_app_imported"])
        phases["app_window_bundle_paint"].append(r["ready"] - r["t_open"])
    fig.settle(figure, floor)
    fig.extra["phases_median_s"] = {k: round(stats(v)["median"], 3) for k, v in phases.items()}
    fig.notes.append(
        "Median phases (s): " + ", ".join(f"{k.replace('_', ' ')} {v:.3f}" for k, v in fig.extra["phases_median_s"].items())
    )
    fig.extra["bundle_tasks"] = 10


def bench_stalls(ctx: Context, fig_open: Figure, fig_rate: Figure, big: Path) -> None:
    """The longest time the event loop could not run (a 10 ms timer firing late): while a big bundle opens
    and every file of it is checked in the background, and while tasks are rated by keyboard."""
    m_big = first_response_marker(big)
    rate_bundle = ctx.bundle(ctx.size.rate_tasks + 1, synth.Shape(conversation_bytes=ctx.size.conversation_bytes))
    opening, rating, idle, checked = [], [], [], []
    cpu_open: list[float] = []
    cpu_rate: list[float] = []
    for _ in range(max(1, ctx.size.reps - 2)):
        r = run_probe(["stall-open", str(big), str(ctx.tmp("data")), RATER, m_big], timeout=600)
        opening.append(r["longest_ms"] / 1000)
        cpu_open.append(r["longest_cpu_ms"])
        checked.append(r["checked_s"])
        r = run_probe(["stall-rate", str(rate_bundle), str(ctx.tmp("data")), RATER, str(ctx.size.rate_tasks)],
                      timeout=600)
        rating.append(r["longest_ms"] / 1000)
        cpu_rate.append(r["longest_cpu_ms"])
        r = run_probe(["stall-idle", "3"])
        idle.append(r["longest_ms"] / 1000)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    for fig, cpu in ((fig_open, cpu_open), (fig_rate, cpu_rate)):
        fig.extra["gui_thread_cpu_ms_in_longest_stall"] = stats(cpu)
        fig.notes.append(
            f"Of the longest stall, the GUI thread's own work (its CPU time) took {stats(cpu)['median']:.0f} ms "
            "(median); the rest was waiting for a processor or for the interpreter lock"
            + (f" (load average {load:.1f} on {os.cpu_count()} cores during the run)." if load is not None else ".")
        )
    fig_open.settle(opening, idle)
    fig_open.extra["big_tasks"] = ctx.size.open_tasks
    fig_open.notes.append(
        f"Measured from the window shown until the first task was painted and the background check of all "
        f"{ctx.size.open_tasks:,} task files was over (median {stats(checked)['median']:.1f} s after start)."
    )
    fig_rate.settle(rating, idle)
    fig_rate.notes.append(
        f"{ctx.size.rate_tasks} tasks rated by keyboard (a digit on each score, the rationale typed key by key, "
        "a pause for the autosave, Ctrl+Enter, the next task painted; 100 KB conversations)."
    )


def bench_open_and_memory(ctx: Context, fig_open: Figure, fig_mem: Figure, small: Path, big: Path) -> None:
    m_small, m_big = first_response_marker(small), first_response_marker(big)
    t_small, t_big, rss_big, rss_bare = [], [], [], []
    if ctx.size.name == "full":
        run_probe(["app", str(big), str(ctx.tmp("data")), RATER, m_big])  # warm-up
    for _ in range(ctx.size.reps):
        r = run_probe(["app", str(small), str(ctx.tmp("data")), RATER, m_small])
        t_small.append(r["ready"] - r["t_open"])
        r = run_probe(["app", str(big), str(ctx.tmp("data")), RATER, m_big])
        t_big.append(r["ready"] - r["t_open"])
        rss_big.append(r["rss_mb"])
        r = run_probe(["bare"])
        rss_bare.append(r["rss_mb"])
    fig_open.settle(t_big, t_small)
    fig_open.extra["big_tasks"] = ctx.size.open_tasks
    fig_open.extra["bundle_mb"] = round(big.stat().st_size / 1e6, 1)
    fig_mem.settle(rss_big, rss_bare)
    fig_mem.extra["big_tasks"] = ctx.size.open_tasks


def bench_next_task(ctx: Context, fig: Figure) -> None:
    n = ctx.size.next_steps + 1
    bundle = ctx.bundle(n, synth.Shape(conversation_bytes=ctx.size.conversation_bytes))
    r = run_probe(["next", str(bundle), str(ctx.tmp("data")), RATER, str(ctx.size.next_steps)], timeout=300)
    fig.settle(r["figure"], r["floor"])
    fig.extra["chars_per_task"] = r["chars"]


def bench_huge(ctx: Context, fig: Figure, *, token: bool = False) -> None:
    """A task whose response is one huge line (prose; or, with ``token``, one unbroken token): shown, then
    scrolled top to bottom. The app shows at most the first 1,000,000 characters of a text (and a note
    saying how many more there are), in lines of at most 1,000 characters; the floor shows all of it."""
    size = ctx.size.token_bytes if token else ctx.size.huge_bytes
    bundle = ctx.bundle(4, synth.Shape(huge_response_bytes=size, huge_is_one_token=token))
    from wmcdp_desktop.core.bundle_reader import open_bundle

    opened = open_bundle(bundle)
    text = opened.task(opened.task_ids[0]).candidate_response_text
    assert "\n" not in text
    text_file = ctx.tmp("huge") / "response.txt"
    # The floor of a token is prose of the same size: a bare QPlainTextEdit takes minutes to lay out one
    # unbroken megabyte (19 s for 300 KB), the very freeze the app avoids.
    floor_text = synth.prose(__import__("random").Random(7), len(text.encode()), single_line=True) if token else text
    text_file.write_text(floor_text, encoding="utf-8")
    figure, floor, steps_fig, steps_floor = [], [], [], []
    reps = max(1, ctx.size.reps - 2)
    for _ in range(reps):
        r = run_probe(["huge-floor", str(text_file)], timeout=300)
        floor.append(r["show"] + r["scroll"])
        steps_floor.append(r["longest_step"])
        r = run_probe(["huge", str(bundle), str(ctx.tmp("data")), RATER, marker_of_text(text)], timeout=300)
        figure.append(r["show"] + r["scroll"])
        steps_fig.append(r["longest_step"])
    fig.settle(figure, floor)
    longest = max(steps_fig)
    fig.extra["response_bytes"] = len(text.encode())
    fig.extra["response_characters"] = len(text)
    shown = min(len(text), 1_000_000)
    fig.notes.append(
        f"The response: {len(text):,} characters ({len(text.encode()) / 1e6:.1f} MB){', no space' if token else ''}, "
        f"one line. The app shows the first {shown:,} characters in lines of at most 1,000"
        + (f" and a note that {len(text) - shown:,} more are not shown." if shown < len(text) else ".")
    )
    fig.extra["longest_scroll_step_s"] = {"app": stats(steps_fig), "floor": stats(steps_floor)}
    responsive = longest <= 0.1
    fig.extra["responsive"] = responsive
    fig.notes.append(
        f"Longest single scroll step (jump + repaint) in the app: {longest * 1000:.0f} ms "
        f"({'within' if responsive else 'over'} the 100 ms responsiveness limit)."
    )
    if fig.passed and not responsive:
        fig.passed = False


# --------------------------------------------------------------------------------------------------
# Autosave and submit


def bench_save_submit(ctx: Context, fig: Figure) -> None:
    from wmcdp_desktop.core.bundle_reader import open_bundle
    from wmcdp_desktop.rater.session import RaterIdentity, RatingSession
    from wmcdp_desktop.rater.storage import RaterStore
    from wmcdp_desktop.rater.timing import SystemClock

    reps = ctx.size.save_reps
    bundle = ctx.bundle(reps + 1, synth.Shape())
    opened = open_bundle(bundle)
    data = ctx.tmp("data")
    store = RaterStore(data, opened.manifest.bundle_id, RATER)
    session = RatingSession(opened, store, RaterIdentity(RATER, "child psychologist"), SystemClock())
    rubric = opened.rubric
    floor_dir = ctx.tmp("floor")
    figure, floor, protocol, fsyncs = [], [], [], []
    with count_fsyncs() as counter:
        for k, tid in enumerate(opened.task_ids[:reps]):
            session.open_task(tid)
            for dim in rubric.dimensions:
                session.set_score(dim.id, 3)
            session.set_note("brief_rationale", "Validates the worry and coaches the parent well.")
            session.set_confidence(4)
            counter.n = 0
            t0 = time.perf_counter()
            ok = session.save_draft()
            outcome = session.submit()
            figure.append(time.perf_counter() - t0)
            fsyncs.append(counter.n)
            if not ok or not outcome.ok:
                raise BenchError(f"save/submit failed: {session.save_error or outcome.problems}")
            record_bytes = next(data.rglob(f"{tid}.r1.json")).read_bytes()
            draft = session_draft_bytes(session, tid)
            # Floor: the same bytes (draft and record) with write + fsync + replace.
            t0 = time.perf_counter()
            for name, payload in ((f"d{k}.json", draft), (f"r{k}.json", record_bytes)):
                plain_durable_write(floor_dir / name, payload)
            floor.append(time.perf_counter() - t0)
            # Reference (not the floor): the same durability protocol the app follows, without Python
            # work: the draft fsync'd; the record and its folder fsync'd; an audit line per save (not
            # fsync'd: see rater/storage.py).
            t0 = time.perf_counter()
            for name, payload, sync_dir in ((f"pd{k}.json", draft, False), (f"pr{k}.json", record_bytes, True)):
                plain_durable_write(floor_dir / name, payload, fsync_dir=sync_dir)
                append_line(floor_dir / "audit.jsonl", b'{"event": "x"}\n')
            protocol.append(time.perf_counter() - t0)
    fig.settle(figure, floor)
    fig.extra["record_bytes"] = len(record_bytes)
    fig.extra["draft_bytes"] = len(draft)
    fig.extra["fsyncs_per_save_and_submit"] = max(fsyncs)
    fig.extra["same_protocol_reference"] = stats(protocol)
    ref = fig.figure["median"] / stats(protocol)["median"]  # type: ignore[index]
    fig.notes.append(
        f"The app calls fsync {max(fsyncs)} times per autosave + submit (the draft; the record and its "
        f"folder, so that a submitted record survives a power cut) where the floor calls it 2 times; against "
        f"the same protocol done with bare os calls the ratio is {ref:.2f}x."
    )


BENCH_PASSPHRASE = "acid-acorn-acre-acts-afar-affix"


def encrypted_copy(ctx: Context, plain: Path) -> Path:
    """``plain`` (a bundle zip) as an encrypted bundle with the default key derivation (cached)."""
    from wmcdp_desktop.core.encryption.bundle_envelope import encrypt_bundle

    return ctx.cache.get(f"encrypted-{plain.name}", lambda p: p.write_bytes(encrypt_bundle(plain.read_bytes(),
                                                                                            BENCH_PASSPHRASE)))


def bench_open_encrypted(ctx: Context, fig: Figure, big: Path) -> None:
    """Opening an encrypted bundle as the app does once the passphrase is typed (read it whole, the header, the key
    derivation, the decryption, the zip opened from memory), against opening the same plain bundle from its file plus
    one bare scrypt of the same parameters (the derivation is slow on purpose: what is measured is what comes on top)."""
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    from wmcdp_desktop.core.bundle_reader import open_bundle, open_encrypted_bundle, read_encrypted_bundle
    from wmcdp_desktop.core.encryption.bundle_envelope import derive_keys, read_header

    encrypted = encrypted_copy(ctx, big)
    figure, floor, kdf, rest, bare_kdf = [], [], [], [], []
    for _ in range(ctx.size.reps):
        t0 = time.perf_counter()
        plain = open_bundle(big)
        t1 = time.perf_counter()
        header_kdf = read_header(encrypted.read_bytes(), encrypted.name).kdf
        t1b = time.perf_counter()
        Scrypt(salt=header_kdf.salt, length=32, n=header_kdf.n, r=header_kdf.r, p=header_kdf.p).derive(b"x")
        t2 = time.perf_counter()
        floor.append((t1 - t0) + (t2 - t1b))
        bare_kdf.append(t2 - t1b)
        t0 = time.perf_counter()
        data = read_encrypted_bundle(encrypted)
        assert data is not None
        keys = derive_keys(BENCH_PASSPHRASE, read_header(data, encrypted.name))
        t1 = time.perf_counter()
        opened = open_encrypted_bundle(data, keys, encrypted)
        t2 = time.perf_counter()
        figure.append(t2 - t0)
        kdf.append(t1 - t0)
        rest.append(t2 - t1)
        if opened.task_ids != plain.task_ids:
            raise BenchError("the encrypted bundle opened with other tasks than the plain one")
        del data, opened, plain
    fig.settle(figure, floor)
    fig.extra.update(tasks=ctx.size.open_tasks, bundle_mb=round(big.stat().st_size / 1e6, 1),
                     read_header_and_kdf=stats(kdf), decrypt_and_open=stats(rest), bare_scrypt=stats(bare_kdf),
                     plain_open=stats([f - k for f, k in zip(floor, bare_kdf, strict=True)]))
    fig.notes.append(
        f"Of the encrypted opening, the file read and the key derivation (scrypt N=2^{header_kdf.n.bit_length() - 1}, "
        f"r={header_kdf.r}, on a worker thread in the app) took {stats(kdf)['median']:.2f} s, a bare scrypt of the "
        f"same parameters {stats(bare_kdf)['median']:.2f} s, and the decryption and zip checks "
        f"{stats(rest)['median']:.2f} s (medians)."
    )


def bench_autosave_encrypted(ctx: Context, fig: Figure, big: Path) -> None:
    """One autosave (``RatingSession.save_draft``) in an encrypted bundle's data folder (the draft sealed, its name
    opaque), against the same autosave in a plain bundle's, same bundle, same entries, interleaved."""
    from wmcdp_desktop.core.bundle_reader import open_bundle
    from wmcdp_desktop.core.encryption.data_cipher import DataCipher
    from wmcdp_desktop.rater.session import RaterIdentity, RatingSession
    from wmcdp_desktop.rater.storage import RaterStore
    from wmcdp_desktop.rater.timing import SystemClock

    opened = open_bundle(big)
    sessions = []
    for cipher in (None, DataCipher(os.urandom(32))):
        store = RaterStore(ctx.tmp("data"), opened.manifest.bundle_id, RATER, cipher=cipher)
        session = RatingSession(opened, store, RaterIdentity(RATER), SystemClock())
        session.open_task(opened.task_ids[0])
        sessions.append(session)
    figure, floor = [], []
    for k in range(ctx.size.save_reps):
        pairs = [(sessions[0], floor), (sessions[1], figure)]
        for session, out in pairs if k % 2 else reversed(pairs):  # each goes first half of the time
            for dim in opened.rubric.dimensions:
                session.set_score(dim.id, 1 + (k % 5))
            session.set_note("brief_rationale", f"Validates the worry and coaches the parent well ({k}).")
            t0 = time.perf_counter()
            ok = session.save_draft()
            out.append(time.perf_counter() - t0)
            if not ok:
                raise BenchError(f"autosave failed: {session.save_error}")
    fig.settle(figure, floor)
    fig.extra["tasks"] = len(opened.task_ids)


class _Counter:
    n = 0


@contextlib.contextmanager
def count_fsyncs() -> Iterator[_Counter]:
    """Count os.fsync calls (the app's atomic writes and audit log) while inside."""
    from wmcdp_desktop.core import atomic

    counter = _Counter()
    real = os.fsync

    def counting(fd: Any) -> None:
        counter.n += 1
        real(fd)

    os.fsync = counting
    try:
        with atomic.using_os_calls(fsync=counting):
            yield counter
    finally:
        os.fsync = real


def append_line(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def session_draft_bytes(session: Any, task_id: str) -> bytes:
    """Bytes of a draft like the one autosave wrote (it is deleted on submit, so rebuild it)."""
    from wmcdp_desktop.core.strict_json import dumps_canonical
    from wmcdp_desktop.rater.working_rating import WorkingRating

    record = session.viewing_record
    rating = WorkingRating.from_record(record, session.rubric)
    draft = rating.to_draft(session.manifest.bundle_id, session.rater.rater_id, record.envelope.submitted_at)
    return dumps_canonical(draft.to_json_obj()).encode()


def plain_durable_write(path: Path, data: bytes, *, fsync_dir: bool = False) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    if fsync_dir:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


# --------------------------------------------------------------------------------------------------
# CLI figures

FLOOR_JSON_LOADS = """
import json, pathlib, sys
n = 0
for p in pathlib.Path(sys.argv[1]).rglob("*.json"):
    json.loads(p.read_bytes()); n += 1
print(n)
"""


def bench_validate(ctx: Context, fig: Figure) -> None:
    n = ctx.size.validate_records
    records = ctx.cache.get(f"records-{n}", lambda p: synth.write_records(p, n))
    cmd = wmcdp("results", "validate", str(records))
    floor_cmd = [PY, "-c", FLOOR_JSON_LOADS, str(records)]
    run_timed(floor_cmd)  # warm the file cache
    figure, floor = [], []
    for _ in range(ctx.size.big_reps):
        t, proc = run_timed(floor_cmd)
        if int(proc.stdout.strip()) != n:
            raise BenchError(f"expected {n} record files, the floor read {proc.stdout.strip()}")
        floor.append(t)
        t, _ = run_timed(cmd)
        figure.append(t)
    fig.settle(figure, floor)
    fig.extra["records"] = n
    fig.extra["records_per_s"] = {"wmcdp": round(n / fig.figure["median"]), "json.loads": round(n / fig.floor["median"])}  # type: ignore[index]


def zip_members(out: Path) -> list[tuple[str, list[tuple[zipfile.ZipInfo, bytes]]]]:
    zips = []
    for path in sorted(out.rglob("*")):
        if path.is_file() and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                zips.append((path.name, [(info, zf.read(info)) for info in zf.infolist()]))
    return zips


def write_zips(zips: list[tuple[str, list[tuple[zipfile.ZipInfo, bytes]]]], out: Path, level: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, members in zips:
        with zipfile.ZipFile(out / name, "w") as zf:
            for info, data in members:
                zf.writestr(info, data, compress_type=info.compress_type, compresslevel=level)


def bench_build(ctx: Context, fig: Figure) -> None:
    s = ctx.size
    study = ctx.cache.get(
        f"study-{s.build_tasks}-r{s.build_raters}-o{s.build_overlap}",
        lambda p: synth.write_study(p, s.build_tasks, n_raters=s.build_raters, overlap=s.build_overlap),
    )
    level = 9  # wmcdp bundle build writes deterministic zips at level 9 (core/zips/writer.deterministic_zip)
    figure, floor = [], []
    zips: list[tuple[str, list[tuple[zipfile.ZipInfo, bytes]]]] = []
    for rep in range(s.big_reps):
        out = ctx.tmp("build")
        t, _ = run_timed(wmcdp("bundle", "build", str(study), "--out", str(out), "--seed", "7"))
        figure.append(t)
        if not zips:
            zips = zip_members(out)
            if not zips:
                raise BenchError("wmcdp bundle build wrote no zip")
        shutil.rmtree(out)
        floor_out = ctx.tmp("floor")
        t0 = time.perf_counter()
        write_zips(zips, floor_out, level)
        floor.append(time.perf_counter() - t0)
        shutil.rmtree(floor_out)
        del rep
    fig.settle(figure, floor)
    fig.extra.update(tasks=s.build_tasks, raters=s.build_raters, overlap=s.build_overlap,
                     zips=len(zips), members=sum(len(m) for _, m in zips),
                     megabytes=round(sum(len(d) for _, m in zips for _, d in m) / 1e6, 1))


def bench_report(ctx: Context, fig: Figure, with_bootstrap: bool = True) -> None:
    import numpy as np

    s = ctx.size
    study = ctx.cache.get(
        f"study-{s.report_tasks}-r{s.report_raters}-o{s.report_raters}",
        lambda p: synth.write_study(p, s.report_tasks, n_raters=s.report_raters, overlap=s.report_raters),
    )
    collected = ctx.cache.get(  # ratings.parquet, as results collect writes it: what the report reads
        f"collected-{s.report_tasks}-r{s.report_raters}-parquet",
        lambda p: synth.write_collected_parquet(p, s.report_tasks, n_raters=s.report_raters),
    )
    import krippendorff

    from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS

    # The floor's matrix: raters x tasks per dimension, N/A as missing (built outside the timing).
    raters: dict[str, int] = {}
    tasks: dict[str, int] = {}
    rows = [json.loads(line) for line in (collected / "ratings.jsonl").read_text(encoding="utf-8").splitlines()]
    for rec in rows:
        raters.setdefault(rec["rater_id"], len(raters))
        tasks.setdefault(rec["envelope"]["task_id"], len(tasks))
    matrices = []
    for fld in DIMENSION_FIELDS.values():
        m = np.full((len(raters), len(tasks)), np.nan)
        for rec in rows:
            v = rec["scoring"][fld]
            if v != "N/A":
                m[raters[rec["rater_id"]], tasks[rec["envelope"]["task_id"]]] = v
        matrices.append(m)
    del rows
    figure, floor = [], []
    phases: dict[str, list[float]] = {}
    for _ in range(s.big_reps):
        t0 = time.perf_counter()
        for m in matrices:
            krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal")
        floor.append(time.perf_counter() - t0)
        out = ctx.tmp("report")
        t, proc = run_timed(
            wmcdp("report", str(collected), "--study", str(study), "--out", str(out), "--bootstrap", "0", "--timings")
        )
        figure.append(t)
        for phase, seconds in re.findall(r"^  (\w+): ([0-9.]+) s$", proc.stderr, re.MULTILINE):
            phases.setdefault(phase, []).append(float(seconds))
        shutil.rmtree(out)
    fig.settle(figure, floor)
    if phases:
        # Where the command's time goes (its own --timings), and the statistics alone against the floor.
        med = {k: stats(v)["median"] for k, v in phases.items()}
        fig.extra["phases_median_s"] = {k: round(v, 3) for k, v in med.items()}
        statistics = sum(med.get(k, 0.0) for k in ("agreement", "models", "gold_behaviour"))
        fig.notes.append(
            "Phases of the command (median s, its --timings): "
            + ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in med.items())
            + f". The statistics phases together (agreement, models, gold and behaviour) take {statistics:.2f} s, "
            f"{statistics / fig.floor['median']:.1f}x the floor (importing the statistics libraries included)."  # type: ignore[index]
        )
    fig.extra.update(tasks=s.report_tasks, raters=s.report_raters, dimensions=len(matrices))
    # Context, not the floor: a fresh process that only imports pyarrow and reads the same Parquet columns.
    from wmcdp_desktop.coordinator.collect.codebook import SHORT_NAMES

    score_columns = [SHORT_NAMES[f] for f in DIMENSION_FIELDS.values()]
    read_cmd = [PY, "-c", "import sys, pyarrow.parquet as pq; pq.read_table(sys.argv[1], columns=sys.argv[2].split(','))",
                str(collected / "ratings.parquet"), ",".join(["rater_id", "task_id", *score_columns])]
    read, _ = run_timed(read_cmd)
    fig.extra["process_reading_the_parquet_s"] = round(read, 3)
    fig.notes.append(
        f"The command reads ratings.parquet (as written by results collect). A fresh process that only imports "
        f"pyarrow and reads its rater, task and score columns takes {read:.2f} s ({read / fig.floor['median']:.0f}x "  # type: ignore[index]
        f"the floor); against that read + alpha the ratio is {fig.figure['median'] / (read + fig.floor['median']):.1f}x."  # type: ignore[index]
    )
    if with_bootstrap and s.name == "full":
        out = ctx.tmp("report")
        t, _ = run_timed(wmcdp("report", str(collected), "--study", str(study), "--out", str(out)))
        fig.extra["with_default_bootstrap_s"] = round(t, 3)
        fig.notes.append(f"With the default bootstrap the report took {t:.1f} s (reported apart, no target).")


# --------------------------------------------------------------------------------------------------


def figures(s: Size) -> dict[str, Figure]:
    """The figures of the issue's table, titled with the sizes of this run."""
    conv = f"{s.conversation_bytes // 1000} KB"
    huge = f"{s.huge_bytes / 1e6:g} MB"
    token = f"{s.token_bytes / 1e6:g} MB"
    return {
        f.key: f
        for f in (
            Figure("first_paint", "First paint: process start to the window painted and responsive",
                   "bare PySide6 QMainWindow process painting once", "s", "time", 1.3, "<= 1.3x"),
            Figure("first_task", "First task interactive: process start to the first task painted (10-task bundle)",
                   "bare PySide6 QMainWindow process painting once", "s", "time", 2.5, "<= 2.5x"),
            Figure("stall_open", f"Longest event-loop stall while a {s.open_tasks:,}-task bundle opens and is checked",
                   "the same timer in a bare idle window", "s", "limit", 0.1, "<= 100 ms"),
            Figure("stall_rate", "Longest event-loop stall while rating by keyboard",
                   "the same timer in a bare idle window", "s", "limit", 0.1, "<= 100 ms"),
            Figure("next_task", f"Next task: click to the new task fully rendered ({conv} conversation)",
                   "setPlainText of the same text into a bare QPlainTextEdit, painted", "s", "time", 1.5, "<= 1.5x"),
            Figure("save_submit", "Autosave and submit: validated, atomic, fsync'd draft + record",
                   "the same bytes with write + fsync + replace", "s", "time", 1.5, "<= 1.5x"),
            Figure("open_big", f"Opening a {s.open_tasks:,}-task bundle to first task shown",
                   "opening a 10-task bundle", "s", "time", 1.5, "<= 1.5x"),
            Figure("memory", f"Peak memory with a {s.open_tasks:,}-task bundle open",
                   "the bare window process", "MB", "difference", 45.0, "<= +45 MB"),
            Figure("validate", f"wmcdp results validate on {s.validate_records:,} records",
                   "json.loads of the same files (throughput)", "s", "throughput", 1 / 3, ">= 1/3 of floor throughput"),
            Figure("build", f"wmcdp bundle build, {s.build_tasks:,} tasks x {s.build_raters} raters",
                   "writing the same bytes into zips", "s", "time", 3.0, "<= 3x"),
            Figure("report", f"wmcdp report on {s.report_tasks:,} tasks x {s.report_raters} raters (bootstrap excluded)",
                   "krippendorff alpha on the same matrix x 8 dimensions", "s", "time", float("inf"),
                   "reported (the report's targets are at 1,000,000 ratings: benchmarks.scale)"),
            Figure("open_encrypted", f"Opening an encrypted {s.open_tasks:,}-task bundle once its passphrase is typed "
                   "(key derivation, decryption, checks; core)",
                   f"opening the same {s.open_tasks:,}-task bundle unencrypted, plus one bare scrypt of its parameters",
                   "s", "difference", 0.5, "<= +0.5 s"),
            Figure("autosave_encrypted", f"Autosave in an encrypted bundle's data folder ({s.open_tasks:,}-task bundle)",
                   "the same autosave in a plain bundle's data folder", "s", "time", 1.5, "<= 1.5x"),
            Figure("huge_response", f"{huge} single-line response: show and scroll",
                   "the same text in a bare QPlainTextEdit", "s", "time", 2.0, "<= 2x, and responsive"),
            Figure("long_token", f"{token} response that is one unbroken token: show and scroll",
                   "prose of the same size in a bare QPlainTextEdit", "s", "time", 2.0, "<= 2x, and responsive"),
        )
    }


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "unknown"
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    try:
        import PySide6
        from PySide6.QtCore import qVersion

        info["pyside6"] = PySide6.__version__
        info["qt"] = qVersion()
    except ImportError:
        pass
    try:
        import pydantic

        info["pydantic"] = pydantic.VERSION
    except ImportError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT, check=False)
        info["commit"] = commit.stdout.strip()
    except OSError:
        pass
    return info


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "MB":
        return f"{value:.1f} MB"
    if value < 1:
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"


def spread(st: dict[str, Any] | None, unit: str) -> str:
    if not st:
        return "-"
    if "q1" in st:
        return f"IQR {fmt(st['q1'], unit)}–{fmt(st['q3'], unit)}"
    return f"{fmt(st['min'], unit)}–{fmt(st['max'], unit)}"


def ratio_text(fig: Figure) -> str:
    if fig.ratio is None:
        return "-"
    if fig.kind == "difference":
        return f"{fig.ratio:+.1f} MB" if fig.unit == "MB" else ("+" if fig.ratio >= 0 else "-") + fmt(abs(fig.ratio), fig.unit)
    if fig.kind == "limit":
        return f"{fmt(fig.ratio, fig.unit)} (limit)"
    return f"{fig.ratio:.2f}x"


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"# Benchmark results ({results['size']})",
        "",
        f"Run {results['started_at']} in {results['wall_seconds']:.0f} s on {results['machine']['nproc']} cores, "
        f"{results['machine']['cpu']}, Python {results['machine']['python']}, "
        f"PySide6 {results['machine'].get('pyside6', '?')} (Qt {results['machine'].get('qt', '?')}), "
        f"commit {results['machine'].get('commit', '?')}.",
        "",
        "| figure | median (spread, n) | floor median (spread, n) | ratio | target | result |",
        "|---|---|---|---|---|---|",
    ]
    for raw in results["figures"]:
        fig = Figure(**raw)
        if fig.error:
            lines.append(f"| {fig.title} | not measured | {fig.floor_title} | - | {fig.target_text} | error: {fig.error} |")
            continue
        f, b = fig.figure or {}, fig.floor or {}
        verdict = "reported" if fig.target == float("inf") else "pass" if fig.passed else "**miss**"
        lines.append(
            f"| {fig.title} | {fmt(f.get('median'), fig.unit)} ({spread(f, fig.unit)}, n={f.get('n')}) "
            f"| {fig.floor_title}: {fmt(b.get('median'), fig.unit)} ({spread(b, fig.unit)}, n={b.get('n')}) "
            f"| {ratio_text(fig)} | {fig.target_text} | {verdict} |"
        )
    notes = [(fig["title"], n) for fig in results["figures"] for n in fig["notes"]]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {title}: {note}" for title, note in notes]
    if results.get("generation_seconds"):
        gen = ", ".join(f"{k} {v:.1f} s" for k, v in results["generation_seconds"].items())
        lines += ["", f"Synthetic data generated in this run (cached for the next): {gen}."]
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="smoke")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--only", default="", help="comma-separated figure keys")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "wmcdp-bench-cache")
    parser.add_argument("--fresh", action="store_true", help="regenerate cached synthetic data")
    parser.add_argument("--write-docs", action="store_true",
                        help="also put the table into docs/PERFORMANCE.md (between its table markers)")
    args = parser.parse_args(argv)
    size = SIZES[args.size]
    only = {k for k in args.only.split(",") if k}
    figs = figures(size)
    unknown = only - set(figs)
    if unknown:
        parser.error(f"unknown {'figure' if len(unknown) == 1 else 'figures'}: {', '.join(sorted(unknown))}; known: {', '.join(figs)}")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t_run = time.perf_counter()
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="wmcdp-bench-"))
    ctx = Context(size, Cache(args.cache / size.name, fresh=args.fresh), work)
    try:
        small = ctx.bundle(10, synth.Shape())
        big = ctx.bundle(size.open_tasks, synth.Shape())
        app_ready = has_app()
        jobs: list[tuple[list[str], Callable[[], None], str | None]] = [
            (["first_paint"], lambda: bench_first_paint(ctx, figs["first_paint"], small), None if app_ready else "app"),
            (["first_task"], lambda: bench_first_task(ctx, figs["first_task"], small), None if app_ready else "app"),
            (["stall_open", "stall_rate"], lambda: bench_stalls(ctx, figs["stall_open"], figs["stall_rate"], big),
             None if app_ready else "app"),
            (["open_big", "memory"], lambda: bench_open_and_memory(ctx, figs["open_big"], figs["memory"], small, big),
             None if app_ready else "app"),
            (["next_task"], lambda: bench_next_task(ctx, figs["next_task"]), None if app_ready else "app"),
            (["save_submit"], lambda: bench_save_submit(ctx, figs["save_submit"]), None),
            (["open_encrypted"], lambda: bench_open_encrypted(ctx, figs["open_encrypted"], big), None),
            (["autosave_encrypted"], lambda: bench_autosave_encrypted(ctx, figs["autosave_encrypted"], big), None),
            (["validate"], lambda: bench_validate(ctx, figs["validate"]),
             None if has_command("results", "validate") else "wmcdp results validate"),
            (["build"], lambda: bench_build(ctx, figs["build"]),
             None if has_command("bundle", "build") else "wmcdp bundle build"),
            (["report"], lambda: bench_report(ctx, figs["report"]),
             None if has_command("report") else "wmcdp report"),
            (["huge_response"], lambda: bench_huge(ctx, figs["huge_response"]), None if app_ready else "app"),
            (["long_token"], lambda: bench_huge(ctx, figs["long_token"], token=True), None if app_ready else "app"),
        ]
        for keys, job, missing in jobs:
            if only and not (only & set(keys)):
                continue
            t0 = time.perf_counter()
            print(f"[bench] {', '.join(keys)} ...", file=sys.stderr, flush=True)
            try:
                if missing:
                    raise BenchError(f"{missing} is not available in this checkout yet")
                job()
            except Exception as exc:
                for key in keys:
                    figs[key].error = f"{type(exc).__name__}: {exc}"[:400]
            for key in keys:
                figs[key].seconds = round(time.perf_counter() - t0, 2)
            print(f"[bench] {', '.join(keys)} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    chosen = [f for f in figs.values() if not only or f.key in only]
    results = {
        "size": size.name,
        "started_at": started,
        "wall_seconds": round(time.perf_counter() - t_run, 1),
        "machine": machine(),
        "generation_seconds": ctx.cache.timings,
        "figures": [f.to_json() for f in chosen],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (args.out / "results.md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))
    if args.write_docs:
        write_docs(ROOT / "docs" / "PERFORMANCE.md", markdown(results))
    return 0


def compile_bytecode() -> None:
    """Compile the app's and the probes' modules to bytecode before anything is timed.

    An installed app starts from bytecode (pip compiles a wheel's modules; a source checkout writes
    ``__pycache__`` on its first start), and so does PySide6, which the floors import. Without this, a
    machine that sets ``PYTHONDONTWRITEBYTECODE`` (CI images often do) would compile every module of
    the app from source at every start it measures.
    """
    for folder in ("wmcdp_desktop", "benchmarks"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def write_docs(path: Path, table: str) -> None:
    """Replace the text between ``<!-- table: ... -->`` and ``<!-- /table -->`` with ``table``."""
    text = path.read_text(encoding="utf-8")
    start = text.index("<!-- table:")
    start = text.index("\n", start) + 1
    end = text.index("<!-- /table -->")
    body = table.split("\n", 1)[1].strip()  # without its "# Benchmark results" title
    path.write_text(text[:start] + body + "\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
