"""Paths that are not regular files (a FIFO, a device) are refused at once, never waited on, wherever the
project opens a path; and every read is capped (issue 13, item 13).

A FIFO opened for reading waits for a writer that never comes: before, a FIFO given as a bundle, or named
``*.json`` in a records folder, hung the app or the command forever. Each test has a timeout, so a
regression fails instead of hanging.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import ASSIGNED_TO_R1, bundle_files
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.files import MAX_DOCUMENT_BYTES, FileTooLargeError, NotRegularFileError, read_regular
from wmcdp_desktop.core.zips.reader import open_zip_file
from wmcdp_desktop.rater.settings import load_settings
from wmcdp_desktop.rater.storage import RaterStore

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes (FIFOs) are a POSIX thing"),
    pytest.mark.timeout(30),
]
FIFO_WORDS = "is a named pipe (FIFO), not a regular file"


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _printed(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_a_fifo_given_as_a_bundle_is_refused(tmp_path: Path) -> None:
    path = fifo(tmp_path / "bundle.wmcdp")
    with pytest.raises(DocumentError) as info:
        open_bundle(path)
    assert str(info.value) == f"bundle.wmcdp: {FIFO_WORDS}; give the zip file itself"
    with pytest.raises(DocumentError, match="named pipe"):
        open_zip_file(path)


def test_a_fifo_given_to_bundle_verify_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bundle", "verify", str(fifo(tmp_path / "b.wmcdp"))]) == 1
    assert "named pipe" in _printed(capsys)


def test_a_fifo_inside_a_folder_bundle_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    for name, data in bundle_files(2, **ASSIGNED_TO_R1).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "tasks" / "t0001.json").unlink()
    fifo(root / "tasks" / "t0001.json")
    with pytest.raises(DocumentError) as info:
        open_bundle(root)
    assert "bundle/tasks/t0001.json: is not a regular file" in str(info.value)


def test_a_fifo_named_json_in_a_records_folder_is_reported_by_results_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo(tmp_path / "records" / "t1.r1.json")
    assert main(["results", "validate", str(tmp_path / "records")]) == 1
    assert f"t1.r1.json: {FIFO_WORDS}" in _printed(capsys)


def test_a_fifo_given_as_a_results_export_or_record_is_refused(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", "validate", str(fifo(tmp_path / "export.zip")), str(fifo(tmp_path / "export"))]) == 1
    out = _printed(capsys)
    assert f"export.zip: {FIFO_WORDS}" in out and f"export: {FIFO_WORDS}" in out


def test_a_fifo_given_as_the_unblinding_key_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = fifo(tmp_path / "study-unblinding-key.json")
    code = main(["results", "collect", "--key", str(key), "--out", str(tmp_path / "out"), str(tmp_path / "none.zip")])
    assert code == 1
    assert FIFO_WORDS in _printed(capsys)


def test_fifos_in_the_raters_data_folder_are_refused_not_waited_on(tmp_path: Path) -> None:
    store = RaterStore(tmp_path / "data", "B-TEST", "R1")
    fifo(store.draft_path("t0000"))
    assert store.load_draft("t0000") is None  # set aside like any damaged draft, never waited on
    (moved,) = store.quarantined
    assert moved.parent == store.quarantine_dir and not store.draft_path("t0000").exists()
    fifo(tmp_path / "data" / "settings.json")
    _, warning = load_settings(tmp_path / "data")
    assert warning is not None and "named pipe" in warning


def test_a_device_is_refused_as_a_document_and_as_a_bundle(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(DocumentError, match="is a device, not a regular file"):
        read_file_bytes("/dev/zero")
    with pytest.raises(DocumentError, match="is a device"):
        open_bundle(Path("/dev/zero"))


def test_document_reads_are_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "records" / "t1.r1.json"
    big.parent.mkdir()
    with big.open("wb") as fh:  # sparse: no disk space used
        fh.truncate(MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(DocumentError, match="is larger than 50 MB; not a WM-CDP document"):
        read_file_bytes(big)
    assert main(["results", "validate", str(big.parent)]) == 1
    assert "t1.r1.json: is larger than 50 MB" in _printed(capsys)
    assert len(read_file_bytes(big, max_bytes=MAX_DOCUMENT_BYTES + 1)) == MAX_DOCUMENT_BYTES + 1


def test_read_regular_stops_at_the_cap_even_when_the_file_grows(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    with pytest.raises(FileTooLargeError):
        read_regular(path, 9)
    with pytest.raises(NotRegularFileError) as info:
        read_regular(tmp_path, 9)
    assert info.value.is_folder


def test_a_4_gb_draft_or_record_in_the_data_folder_is_set_aside_and_blocks_nothing(tmp_path: Path, sample_docs: Any) -> None:
    # Probed as an attacker (issue 13): a 4 GB sparse draft refused the whole bundle, and a 4 GB "record" or a
    # FIFO in records/ made every export fail. Neither is a file the app wrote: each is moved to quarantine/,
    # read not at all, audited; the bundle opens and the export holds the real records.
    from tests.kit.sessions import rated_session
    from wmcdp_desktop.coordinator.results.reader import read_export

    session = rated_session(tmp_path, sample_docs)
    store = session.store
    with open(store.draft_path("T-0003"), "wb") as fh:
        fh.truncate(4 * 2**30)
    with open(store.record_path("T-0003", 1), "wb") as fh:
        fh.truncate(4 * 2**30)
    fifo(store.record_path("T-0003", 2))
    assert store.load_draft("T-0003") is None
    manifest = session.export_results(tmp_path / "e.zip")
    assert sorted(f.path for f in manifest.files) == [
        "records/T-0001.r1.json", "records/T-0001.r2.json", "records/T-0002.r1.json"]
    assert sorted(p.name.split(".20")[0] for p in store.quarantine_dir.iterdir()) == [
        "T-0003.json", "T-0003.r1.json", "T-0003.r2.json"]
    events = [e["event"] for e in store.read_audit()]
    assert events.count("record_quarantined") == 2 and events.count("draft_quarantined") == 1
    export = read_export(tmp_path / "e.zip")
    assert export.problems == [] and export.chain is not None
