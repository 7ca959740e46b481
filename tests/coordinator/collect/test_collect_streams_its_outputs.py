"""``results collect`` writes its tables as the records come back from its temporary file, a few thousand at a
time: the outputs do not depend on how many are read back at once or on the Parquet row-group size, a failure
part-way leaves the previous outputs whole (and no temporary file), and nothing of the records is left behind
but the outputs and the collection's cache."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import record_obj
from tests.kit.faults import Faults
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.collect import codebook
from wmcdp_desktop.coordinator.collect import merge as collect
from wmcdp_desktop.coordinator.collect import outputs as collect_outputs
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core import atomic

pq = pytest.importorskip("pyarrow.parquet")


def _cannot_rate(rec: dict[str, Any]) -> dict[str, Any]:
    keep = ("envelope", "benchmark_item_id", "clinical_domain_id", "scenario_type_ids", "candidate_response_id",
            "candidate_response_text", "rater_id", "time_spent_scoring_seconds")
    out = {k: rec[k] for k in keep}
    out["record_kind"] = "cannot_rate"
    out["cannot_rate"] = {"reason": "other", "detail": "I treated this family."}
    return out


def _exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    """Three raters' exports: ratings, a "cannot rate", a flag with formula-like text, a revision."""
    built = build_study(tmp_path, n_items=6, n_raters=3, overlap=2)
    paths = []
    for n, rater in enumerate(("R1", "R2", "R3")):
        b = built.bundles[rater]
        recs = []
        for i, t in enumerate(b.task_ids):
            rec = record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=1 + (n + i) % 5)
            if i == 0:
                rec = _cannot_rate(rec)
            if i == 1:
                rec["coordinator_flag"] = {"note": "=SUM(A1) please look at this one"}
            recs.append(rec)
            if i == 2:
                recs.append(record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, revision=2,
                                       score=5, submitted_at="2026-11-29T11:00:00Z",
                                       supersedes=rec["envelope"]["record_id"]))
        path = built.export(rater, recs, f"wmcdp-results-{rater}.zip")
        paths.append(str(path))
    return paths, str(built.key)


def _collect(capsys: pytest.CaptureFixture[str], key: str, out: Path, *exports: str, extra: tuple[str, ...] = ()) -> int:
    code = main(["results", "collect", *exports, "--key", key, "--out", str(out), "--json", *extra])
    capsys.readouterr()
    return code


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _disk_full_after(faults: Faults, free: int) -> Callable[[int, bytes], int]:
    """Every atomic write takes ``free`` more bytes, then fails as a full disk does; returns the real writer."""
    real_write = atomic.os_calls().write
    budget = [free]

    def full(fd: int, data: bytes) -> int:
        if len(data) > budget[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        budget[0] -= len(data)
        return real_write(fd, data)

    faults.inject(write=full)
    return real_write


def test_outputs_do_not_depend_on_how_many_records_are_read_back_at_a_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    exports, key = _exports(tmp_path, capsys)
    whole = tmp_path / "whole"
    assert _collect(capsys, key, whole, *exports, extra=("--excel-safe", "--names", "r")) == 0
    monkeypatch.setattr(collect_outputs, "CHUNK", 2)
    monkeypatch.setattr(codebook.ParquetOut, "ROW_GROUP", 3)
    pieces = tmp_path / "pieces"
    assert _collect(capsys, key, pieces, *exports, extra=("--excel-safe", "--names", "r")) == 0
    a, b = _files(whole), _files(pieces)
    assert a.keys() == b.keys()
    rows = [json.loads(line) for line in a["ratings.jsonl"].splitlines()]
    assert {r["record_kind"] for r in rows} == {"rating", "cannot_rate"} and any(r.get("coordinator_flag") for r in rows)
    assert any(r["envelope"]["revision"] == 2 for r in rows)
    for name in ("ratings.jsonl", "ratings.csv", "ratings-excel.csv", "redcap-import.csv", "redcap-data-dictionary.csv",
                 "summary.json"):
        assert a[name] == b[name], name
    for name in ("ratings.parquet", "failure_modes.parquet"):
        assert pq.read_table(whole / name).equals(pq.read_table(pieces / name), check_metadata=True), name
        assert pq.ParquetFile(pieces / name).metadata.num_row_groups > 1  # really written in pieces
    assert pq.read_table(whole / "ratings.parquet").num_rows == len(rows)


def test_a_full_disk_part_way_leaves_the_previous_outputs_and_no_temporary_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], faults: Faults) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    assert _collect(capsys, key, out, exports[0]) == 0
    before = {name: data for name, data in _files(out).items() if not name.startswith("collected-exports/")}
    dry = tmp_path / "dry"
    assert _collect(capsys, key, dry, exports[1], exports[2]) == 0
    cache_bytes = sum(p.stat().st_size for p in (dry / "collected-exports").iterdir())
    _disk_full_after(faults, cache_bytes + 2_000)  # the new cache entries, not every table
    code = main(["results", "collect", exports[1], exports[2], "--key", key, "--out", str(out)])
    err = capsys.readouterr().err
    assert code != 0 and "the disk is full" in err and "Traceback" not in err
    after = {name: data for name, data in _files(out).items() if not name.startswith("collected-exports/")}
    assert after == before, "every output is the previous one, whole"
    assert not [p for p in out.rglob("*") if p.name.startswith((".tmp-", ".wmcdp-collect-"))]
    faults.clear()
    assert _collect(capsys, key, out, exports[1], exports[2]) == 0  # given again once there is room: all there
    at_once = tmp_path / "at-once"
    assert _collect(capsys, key, at_once, *exports) == 0
    for name in ("ratings.jsonl", "ratings.csv", "summary.json"):
        assert (out / name).read_bytes() == (at_once / name).read_bytes()


def test_only_the_outputs_and_the_cache_are_left_in_the_collection(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    assert _collect(capsys, key, out, *exports) == 0
    names = {p.relative_to(out).as_posix() for p in out.rglob("*")}
    cached = {n for n in names if n.startswith("collected-exports")}
    assert len(cached) == len(exports) + 1  # the folder and one entry per export
    assert names - cached == {"ratings.jsonl", "ratings.csv", "ratings.parquet", "failure_modes.parquet",
                              "redcap-data-dictionary.csv", "redcap-import.csv", "summary.json", "datapackage.json",
                              "collect-report.json", "quarantine.csv", "quarantine.parquet", collect_outputs.LOCK_NAME}
    for path in out.rglob("*"):
        if path.is_file():
            assert path.stat().st_mode & 0o077 == 0, f"{path} is readable by others"


def test_a_full_disk_while_the_records_wait_in_the_temporary_file_is_said_plainly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, faults: Faults) -> None:
    exports, key = _exports(tmp_path, capsys)
    dry = tmp_path / "dry"
    assert _collect(capsys, key, dry, exports[1]) == 0
    _disk_full_after(faults, sum(p.stat().st_size for p in (dry / "collected-exports").iterdir()))  # its cache entry
    monkeypatch.setattr(collect.Spool, "BUFFER", 1)  # each record written to the temporary file as it is read
    out = tmp_path / "c"
    code = main(["results", "collect", exports[1], "--key", key, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and "internal error" not in err
    assert f"Could not keep the records in a temporary file in {out}: the disk is full." in err
    assert list(_files(out)) == [collect_outputs.LOCK_NAME, *(f"collected-exports/{n}" for n in
                                                             _files(dry / "collected-exports"))]  # nothing else left


def test_a_collection_folder_that_cannot_take_the_temporary_file_is_said_plainly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    assert _collect(capsys, key, out, exports[0]) == 0

    def read_only(*args: Any, **kwargs: Any) -> Any:  # a read-only folder (tests may run as root: no chmod)
        raise PermissionError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(collect.tempfile, "TemporaryFile", read_only)
    code = main(["results", "collect", exports[1], "--key", key, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "internal error" not in err
    assert f"Could not keep the records in a temporary file in {out}: the folder is read-only" in err


def test_a_full_disk_names_the_table_being_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], faults: Faults) -> None:
    exports, key = _exports(tmp_path, capsys)
    dry = tmp_path / "dry"
    assert _collect(capsys, key, dry, exports[0]) == 0
    _disk_full_after(faults, sum(p.stat().st_size for p in (dry / "collected-exports").iterdir()))  # the cache entry
    out = tmp_path / "c"
    code = main(["results", "collect", exports[0], "--key", key, "--out", str(out)])
    err = capsys.readouterr().err
    # ratings.csv's header is the first thing written after the cache entry (all the tables are open at once)
    assert code == 1 and f"Could not save ratings.csv in {out}: the disk is full." in err, err


def test_the_key_of_a_million_rating_study_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A key of 333,333 tasks is about 200 MB, more than any other document the app reads (50 MB)."""
    exports, key = _exports(tmp_path, capsys)
    big = tmp_path / "big-key.json"
    big.write_bytes(Path(key).read_bytes() + b" " * (51 * 1024 * 1024))
    out = tmp_path / "c"
    assert _collect(capsys, str(big), out, *exports) == 0
    assert (out / "ratings.csv").read_bytes().count(b"\n") > len(exports)


def test_a_second_collect_into_the_same_folder_is_refused_while_the_first_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    with collect_outputs.hold_collection(out):
        code = main(["results", "collect", *exports, "--key", key, "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 1 and f"another `wmcdp results collect` is writing into {out}" in err
        assert not (out / "ratings.csv").exists()
    assert _collect(capsys, key, out, *exports) == 0  # once it is done


def test_the_temporary_files_of_a_killed_collect_are_removed_by_the_next(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    assert _collect(capsys, key, out, exports[0]) == 0
    left = [out / ".tmp-ratings.csv.4242.1", out / ".tmp-ratings.parquet.4242.2",
            out / "collected-exports" / ".tmp-0123.json.4242.3"]
    for path in left:  # what a kill -9 while the tables were written leaves: unblinded rows under no final name
        path.write_bytes(b"R1,t1,model-x")
    mine = out / "my notes.txt"
    mine.write_text("kept", encoding="utf-8")
    assert _collect(capsys, key, out, exports[1]) == 0
    assert not any(path.exists() for path in left) and mine.read_text(encoding="utf-8") == "kept"


def test_a_file_that_is_no_export_is_said_once_not_recorded_for_every_later_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    stray = tmp_path / "receipts.zip"  # a glob that picked up the wrong file
    stray.write_text("R1 ABCD-EFGH\n", encoding="utf-8")
    out = tmp_path / "c"
    assert _collect(capsys, key, out, exports[0], str(stray)) == 1
    assert _collect(capsys, key, out, exports[1]) == 0
