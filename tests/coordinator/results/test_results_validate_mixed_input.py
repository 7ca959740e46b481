"""``wmcdp results validate`` on a mixed input: every kind of problem reported, in a stable order, and
Ctrl-C stops it plainly.

The folder mixes everything ``coordinator/results/reader.py`` handles: valid records of several raters, bad
JSON, duplicate keys, schema errors, bad encodings, records that fail the bundle checks, symbolic links
(file and folder), skipped drafts/ and hidden files, export zips (valid, a member changed after export,
a zip that is no export), a record file named directly, a missing path and an empty folder.
"""

from __future__ import annotations

import io
import json
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

from tests.kit.commands import run
from tests.kit.exports import export_zip, record_obj
from tests.kit.studies import build_study, write_json
from wmcdp_desktop.coordinator.results.reader import read_records
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError

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
    built = build_study(root, n_items=4, n_raters=3, overlap=2)
    bundles = {r: built.bundles[r] for r in ("R1", "R2", "R3")}

    def recs(rater: str, **kw: Any) -> list[dict[str, Any]]:
        b = bundles[rater]
        return [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, **kw) for t in b.task_ids]

    data = root / "data"
    for copy in range(4):  # several copies: a folder tree with many files
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


@pytest.mark.parametrize("with_bundle", [False, True], ids=["alone", "bundle"])
def test_every_kind_of_problem_is_reported_the_same_way_each_run(
    mixed: Mixed, capsys: pytest.CaptureFixture[str], with_bundle: bool
) -> None:
    extra = ["--bundle", mixed.bundles] if with_bundle else []
    first = run(capsys, "results", "validate", *mixed.paths, *extra)
    assert run(capsys, "results", "validate", *mixed.paths, *extra) == first
    code, out, err = first
    assert code == 1
    text = out + err
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
    code, out, _ = run(capsys, "results", "validate", *mixed.paths, *extra, "--json")
    summary = json.loads(out)
    assert code == 1 and summary["valid_records"] > 10 and summary["exports"] == 3
    # the export with a changed record has no valid record (issue 25: counted means verified)
    assert set(summary["by_rater"]) == {"R1", "R2"} and summary["quarantined"] > 0
    # The text lists exactly the problems of the JSON, in the same order.
    listed = [line.strip() for line in err.splitlines() if line.startswith("  ")]
    assert listed == [
        (f"{p['file']}: {p['path']}: {p['message']}" if p["path"] else f"{p['file']}: {p['message']}")
        for p in summary["problems"]
    ]


def test_progress_counts_every_file_and_export(mixed: Mixed) -> None:
    seen: list[tuple[int, int]] = []
    read_records(mixed.paths, lambda d, t: seen.append((d, t)))
    total = seen[-1][1]
    assert total > 20 and seen == [(i, total) for i in range(1, total + 1)]


def _reads_from(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` has a file or folder under ``folder`` open (it is reading the records)."""
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if os.readlink(fd).startswith(str(folder)):
                    return True
            except OSError:
                continue
    except OSError:
        pass
    return False


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/fd").is_dir(), reason="needs /proc/PID/fd")
@pytest.mark.usefixtures("python_ctrl_c")  # the command inherits it: Ctrl-C not ignored
def test_ctrl_c_while_reading_exits_130_without_a_traceback(mixed: Mixed, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    one = mixed.root / "direct.json"
    for i in range(20_000):  # hard links: a big folder in a fraction of a second
        os.link(one, folder / f"T{i:06d}.r1.json")
    proc = subprocess.Popen(
        [sys.executable, "-m", "wmcdp_desktop.coordinator.commands.main", "results", "validate", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not _reads_from(proc.pid, folder):
        time.sleep(0.002)
    assert proc.poll() is None, "finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == "interrupted\n" and out == ""


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


