"""``wmcdp results validate`` with a process pool (``--jobs``): the same output as reading in one process.

The folder mixes everything ``core/coordinator/results_reader.py`` handles: valid records of several raters, bad
JSON, duplicate keys, schema errors, bad encodings, records that fail the bundle checks, symbolic links
(file and folder), skipped drafts/ and hidden files, export zips (valid, a member changed after export,
a zip that is no export), a record file named directly, a missing path and an empty folder.
"""

from __future__ import annotations

import gc
import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.studyfix import export_zip, record_obj, write_json, write_study
from wmcdp_desktop.cli.main import main
from wmcdp_desktop.core import parallel
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.coordinator import results_reader
from wmcdp_desktop.core.coordinator.results_reader import (
    ReadResult,
    _record_files,
    _record_sources,
    read_records,
)
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError

HAS_FORK = "fork" in multiprocessing.get_all_start_methods()
POSIX = os.name == "posix"


@dataclass
class Mixed:
    root: Path
    paths: list[Path]
    bundles: Path
    """The folder `bundle build` wrote (every rater's bundle)."""


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Mixed:
    root = tmp_path_factory.mktemp("mixed")
    study = write_study(root / "study", n_items=4, n_raters=3, overlap=2)
    assert main(["bundle", "build", str(study), "--out", str(root / "out")]) == 0
    bundles = {r: open_bundle(root / "out" / f"STUDY-T1-{r}.wmcdp") for r in ("R1", "R2", "R3")}

    def recs(rater: str, **kw: Any) -> list[dict[str, Any]]:
        b = bundles[rater]
        return [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, **kw) for t in b.task_ids]

    data = root / "data"
    for copy in range(4):  # enough files for several chunks
        for rec in recs("R1", score=1 + copy):
            write_json(data / "R1" / f"c{copy}" / f"{rec['envelope']['task_id']}.r1.json", rec)
    r2 = recs("R2")
    for rec in r2:
        write_json(data / "R2" / f"{rec['envelope']['task_id']}.r1.json", rec)
    bad_score = dict(r2[0], scoring={**r2[0]["scoring"], "overall_clinical_judgment_score": 99})
    write_json(data / "R2" / "bundle-rule" / "score99.json", bad_score)  # valid shape, fails --bundle
    wrong_sha = dict(r2[1], envelope={**r2[1]["envelope"], "bundle_sha256": "0" * 64})
    write_json(data / "R2" / "bundle-rule" / "wrongsha.json", wrong_sha)
    no_rater = {k: v for k, v in r2[0].items() if k != "rater_id"}
    write_json(data / "bad" / "schema-missing.json", no_rater)
    write_json(data / "bad" / "schema-type.json", dict(r2[0], time_spent_scoring_seconds="long"))
    bad = data / "bad"
    (bad / "syntax.json").write_text('{"a": 1,}', encoding="utf-8")
    (bad / "dupkey.json").write_text('{"a": 1, "a": 2}', encoding="utf-8")
    (bad / "empty.json").write_bytes(b"")
    (bad / "bom.json").write_bytes(b"\xef\xbb\xbf{}")
    (bad / "latin1.json").write_bytes(b'{"a": "caf\xe9"}')
    (bad / "array.json").write_text("[]", encoding="utf-8")
    write_json(data / "drafts" / "skipped.json", r2[0])
    write_json(data / ".hidden" / "skipped.json", r2[0])
    (data / ".dot.json").write_text("{", encoding="utf-8")
    (data / "notes.txt").write_text("not a record", encoding="utf-8")
    if POSIX:
        (data / "link.json").symlink_to(data / "R2" / f"{r2[0]['envelope']['task_id']}.r1.json")
        (data / "linkdir").symlink_to(data / "R1")

    b3 = bundles["R3"]
    export_args: dict[str, Any] = {"study_id": "STUDY-T1", "rater_id": "R3", "bundle_id": b3.manifest.bundle_id,
                   "bundle_sha256": b3.manifest_sha256, "tasks_in_bundle": len(b3.task_ids)}
    good = root / "export-R3.zip"
    good.write_bytes(export_zip(recs("R3"), **export_args))
    tampered = root / "export-R3-changed.zip"
    with zipfile.ZipFile(io.BytesIO(good.read_bytes())) as src, zipfile.ZipFile(tampered, "w") as dst:
        names = src.namelist()
        for name in names:
            content = src.read(name)
            if name == names[-1]:
                content = content.replace(b'"confidence_rating": 4', b'"confidence_rating": 5')
            dst.writestr(name, content)
    other = root / "not-an-export.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("hello.txt", "hi")
    direct = root / "direct.json"
    write_json(direct, recs("R1")[0])
    (root / "empty-folder").mkdir()
    paths = [data, good, tampered, other, direct, root / "missing.json", root / "empty-folder"]
    return Mixed(root, paths, root / "out")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Chunks of 3 files (several per worker), and a count of the pool runs."""
    monkeypatch.setattr(results_reader, "MIN_CHUNK", 3)
    monkeypatch.setattr(results_reader, "MAX_CHUNK", 3)
    calls: list[int] = []
    real = results_reader._read_parallel

    def spy(*args: Any, **kw: Any) -> None:
        calls.append(1)
        real(*args, **kw)

    monkeypatch.setattr(results_reader, "_read_parallel", spy)
    return calls


@pytest.mark.parametrize("with_bundle", [False, True], ids=["alone", "bundle"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_parallel_output_is_identical(
    mixed: Mixed, small_chunks: list[int], capsys: pytest.CaptureFixture[str], with_bundle: bool, as_json: bool
) -> None:
    extra = (["--bundle", mixed.bundles] if with_bundle else []) + (["--json"] if as_json else [])
    serial = run(capsys, "results", "validate", *mixed.paths, *extra, "--jobs", "1")
    assert small_chunks == []
    pooled = run(capsys, "results", "validate", *mixed.paths, *extra, "--jobs", "3")
    assert small_chunks == [1]
    assert pooled == serial
    assert serial[0] == 1
    # The folder really holds every kind of problem (so the comparison above means something).
    text = serial[1] + serial[2]
    for expected in (
        "appears more than once",
        "is not valid JSON",
        "byte-order mark",
        "is not valid UTF-8",
        "is empty",
        "does not match the SHA-256",
        "is not a WM-CDP results export",
        "file not found",
        "holds no record files",
        "rater_id",
        "time_spent_scoring_seconds",
    ) + (("is a symbolic link (skipped)",) if POSIX else ()) + (("does not match this bundle's bundle.json",) if with_bundle else ()):
        assert expected in text, expected
    assert "skipped.json" not in text and ".dot.json" not in text
    if as_json:
        summary = json.loads(serial[1])
        assert summary["valid_records"] > 20 and summary["exports"] == 3
        assert set(summary["by_rater"]) == {"R1", "R2", "R3"}


def test_auto_jobs_uses_the_pool_only_for_big_folders(
    mixed: Mixed, small_chunks: list[int], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    small = run(capsys, "results", "validate", *mixed.paths, "--json")
    assert small_chunks == []  # under PARALLEL_MIN_FILES files
    monkeypatch.setattr(results_reader, "PARALLEL_MIN_FILES", 10)
    assert run(capsys, "results", "validate", *mixed.paths, "--json") == small
    assert small_chunks == [1]
    monkeypatch.setattr(parallel, "available_cpus", lambda: 1)
    assert run(capsys, "results", "validate", *mixed.paths, "--json") == small
    assert small_chunks == [1]  # one CPU: read here


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5"])
def test_jobs_must_be_a_positive_whole_number(capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["results", "validate", str(tmp_path), "--jobs", bad])
    assert exc.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def same_result(a: ReadResult, b: ReadResult) -> None:
    assert a.problems == b.problems
    assert a.files_read == b.files_read
    assert a.summaries == b.summaries
    assert [(r.source, r.sha256, r.export, r.record) for r in a.records] == [
        (r.source, r.sha256, r.export, r.record) for r in b.records
    ]
    assert [(e.label, e.problems, len(e.records)) for e in a.exports] == [
        (e.label, e.problems, len(e.records)) for e in b.exports
    ]


@pytest.mark.parametrize("start_method", ["spawn", "fork"])
def test_core_reader_same_under_each_start_method(mixed: Mixed, start_method: str) -> None:
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} here")
    serial = read_records(mixed.paths, jobs=1)
    pooled = read_records(mixed.paths, jobs=2, chunk_size=4, start_method=start_method)
    same_result(serial, pooled)
    assert len(serial.records) == len(serial.summaries) > 20
    slim = read_records(mixed.paths, jobs=2, chunk_size=4, keep_records=False, start_method=start_method)
    assert slim.records == [] and slim.summaries == serial.summaries and slim.problems == serial.problems
    assert multiprocessing.active_children() == []


def test_progress_advances_while_workers_run(mixed: Mixed) -> None:
    serial: list[tuple[int, int]] = []
    read_records(mixed.paths, lambda d, t: serial.append((d, t)), jobs=1)
    total = serial[-1][1]
    assert serial == [(i, total) for i in range(1, total + 1)]
    pooled: list[tuple[int, int]] = []
    read_records(mixed.paths, lambda d, t: pooled.append((d, t)), jobs=2, chunk_size=3)
    done = [d for d, _ in pooled]
    assert len(pooled) > 5 and done == sorted(set(done)) and pooled[-1] == (total, total)
    assert {t for _, t in pooled} == {total}


# ------------------------------------------------------------------ failures and Ctrl-C


def _failing_load(kind: str) -> Any:
    real = results_reader.load_bytes  # type: ignore[attr-defined]

    def load(model: Any, data: bytes, source: str) -> Any:
        if source.endswith("syntax.json"):
            if kind == "raise":
                raise RuntimeError("disk on fire")
            os._exit(7)  # the worker dies
        return real(model, data, source)

    return load


@pytest.mark.skipif(not HAS_FORK, reason="the failure is injected into forked workers")
@pytest.mark.parametrize("kind", ["raise", "die"])
def test_worker_failure_is_a_plain_error(
    mixed: Mixed, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(parallel, "START_METHOD", "fork")
    monkeypatch.setattr(results_reader, "load_bytes", _failing_load(kind))
    with pytest.raises(parallel.WorkerError) as exc:
        read_records(mixed.paths, jobs=2, chunk_size=3)
    assert ("RuntimeError: disk on fire" if kind == "raise" else "BrokenProcessPool") in str(exc.value)
    assert "syntax.json" in str(exc.value) or kind == "die"  # the chunk's files are named
    assert multiprocessing.active_children() == []
    code, out, err = run(capsys, "results", "validate", *mixed.paths, "--jobs", "2")
    assert code == 1 and out == ""
    assert err.startswith("error: a worker process failed: ") and err.rstrip().endswith(
        "run again with --jobs 1 to read in one process"
    )
    code, out, _ = run(capsys, "results", "validate", *mixed.paths, "--jobs", "2", "--json")
    assert code == 1 and json.loads(out)["ok"] is False and "worker process failed" in json.loads(out)["error"]
    assert multiprocessing.active_children() == []


def test_interrupt_in_the_parent_stops_the_workers(mixed: Mixed) -> None:
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        read_records(mixed.paths, interrupt, jobs=2, chunk_size=3)
    assert time.monotonic() - started < 30
    assert multiprocessing.active_children() == []


def _sigint_in_worker(chunk: list[int]) -> list[str]:
    return [str(signal.getsignal(signal.SIGINT))] * len(chunk)


@pytest.mark.parametrize("start_method", ["spawn", "fork"])
def test_workers_ignore_ctrl_c(start_method: str) -> None:
    """Ctrl-C reaches the whole process group: only the parent acts (a worker would print a traceback)."""
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} here")
    before = signal.getsignal(signal.SIGINT)
    with parallel.ChunkPool(_sigint_in_worker, [[1], [2], [3]], workers=2, start_method=start_method) as pool:
        assert signal.getsignal(signal.SIGINT) == before  # the parent's handler is back
        seen = {v for _, values in pool.completed() for v in values}
    assert seen == {str(signal.SIG_IGN)}
    assert multiprocessing.active_children() == []


def _children(pid: int) -> list[int]:
    try:
        found = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
        return found
    except OSError:
        return []


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="needs /proc children")
@pytest.mark.usefixtures("python_ctrl_c")  # the command inherits it: Ctrl-C not ignored
def test_ctrl_c_stops_the_pool_without_tracebacks(mixed: Mixed, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    one = mixed.root / "direct.json"
    for i in range(20_000):  # hard links: a big folder in a fraction of a second
        os.link(one, folder / f"T{i:06d}.r1.json")
    proc = subprocess.Popen(
        [sys.executable, "-m", "wmcdp_desktop.cli.main", "results", "validate", str(folder), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.005)
    assert len(workers) >= 2, "the pool never started"
    time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    for pid in workers:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue  # gone
        assert state == "Z", f"worker {pid} still running"


# ------------------------------------------------------------------ the per-file pieces


def test_read_file_bytes_reads_whole_files_and_words_errors_plainly(tmp_path: Path) -> None:
    # documents.read_file_bytes reads with os.open + os.read (the record files of results validate).
    (tmp_path / "big.json").write_bytes(b"x" * 3_000_000)
    (tmp_path / "empty.json").write_bytes(b"")
    for name in ("big.json", "empty.json"):
        assert read_file_bytes(str(tmp_path / name)) == (tmp_path / name).read_bytes()
        assert read_file_bytes(tmp_path / name) == (tmp_path / name).read_bytes()
    for name, message in (("missing.json", "file not found"), ("", "is a folder, not a file")):
        path = tmp_path / name
        with pytest.raises(DocumentError) as raised:
            read_file_bytes(str(path))
        assert [p.message for p in raised.value.problems] == [message]
        assert raised.value.problems[0].file == str(path)


def _old_record_files(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).parts
        if any(part in results_reader.SKIPPED_FOLDERS or part.startswith(".") for part in rel[:-1]):
            continue
        if path.is_symlink() or any((folder.joinpath(*rel[:i])).is_symlink() for i in range(1, len(rel))):
            continue
        if path.is_file() and path.name.endswith(".json") and not path.name.startswith("."):
            found.append(str(path))
    return found


def test_record_sources_are_the_pathlib_strings_in_pathlib_order(
    mixed: Mixed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for rel in ("b/t2.json", "b/t1.json", "b.json", "a-b/x.json", "a/z.json", "a.b/y.json", "ab.json", "a/b/c/d.json"):
        write_json(tmp_path / "tree" / rel, {})
    for folder in (mixed.root / "data", tmp_path / "tree"):
        problems: list[Any] = []
        assert _record_sources(folder, problems) == _old_record_files(folder)
        assert _record_files(folder, []) == [Path(p) for p in _old_record_files(folder)]
    monkeypatch.chdir(tmp_path / "tree")
    assert _record_sources(Path("."), []) == [str(Path(".") / p) for p in _old_record_files(Path("."))]
    assert _record_sources(Path("."), [])[0] == "a/b/c/d.json"
    monkeypatch.chdir(tmp_path)
    assert _record_sources(Path("tree/"), []) == [str(Path("tree") / Path(p).relative_to("tree")) for p in _old_record_files(Path("tree"))]


@pytest.mark.parametrize("jobs", [1, 2])
def test_garbage_collector_left_as_it_was(mixed: Mixed, jobs: int) -> None:
    assert gc.isenabled()
    seen: list[bool] = []
    read_records(mixed.paths, lambda d, t: seen.append(gc.isenabled()), jobs=jobs, chunk_size=3)
    assert gc.isenabled() and seen and not any(seen)  # paused while reading, back on after

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        read_records(mixed.paths, interrupt, jobs=jobs, chunk_size=3)
    assert gc.isenabled()
    gc.disable()
    try:
        read_records(mixed.paths, jobs=jobs, chunk_size=3)
        assert not gc.isenabled()
    finally:
        gc.enable()
