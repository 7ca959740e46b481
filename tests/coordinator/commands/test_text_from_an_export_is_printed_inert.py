"""Text read from a rater's export never drives the coordinator's terminal (issue 25): ids are checked against
the id rule where they are read (a rater id ``R-001\\x1b[2J`` in a manifest cleared the screen), and whatever
``wmcdp`` prints (notes, member names, file names, problems quoting them) has its control characters, line
separators and bidirectional controls written as visible ``\\uXXXX`` escapes, by one stream every command
prints through. ``--json`` output stays valid JSON with the same values."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import export_zip, record_obj
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.common import InertStream
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.commands.progress import ProgressBar
from wmcdp_desktop.core.inert import inert

LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What a terminal would act on (C0 but tab and line feed, DEL, C1, line separators, bidirectional controls)."""
NASTY = ["\x1b[2J", "\x1b]8;;https://evil.example\x07link\x1b]8;;\x07", "\x9b2J", "ok\rFORGED", "\u202eevil\u202c",
         "\x07\x08\x7f", "a\u2028b", "\x1bP+q\x1b\\", "\u2066x\u2069"]
"""Escape sequences (clear screen, a hyperlink, the one-byte CSI, a device control string), a carriage return
that rewrites the line, bell and backspace, a line separator and bidirectional overrides and isolates."""


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    built = build_study(tmp_path, n_items=3, n_raters=1, overlap=1)
    b = built.bundles["R1"]
    return {"bundle": b, "key": built.key, "root": tmp_path}


def _export(study: dict[str, Any], name: str, *, rater: str = "R1", note: str | None = None,
            extra_member: str | None = None) -> Path:
    b = study["bundle"]
    recs = [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256) for t in b.task_ids]
    if note is not None:
        recs[0]["coordinator_flag"] = {"note": note}
    data = export_zip(recs, study_id=b.manifest.study_id, rater_id=rater, bundle_id=b.manifest.bundle_id,
                      bundle_sha256=b.manifest_sha256, tasks_in_bundle=len(b.task_ids))
    if extra_member is not None:
        buf = io.BytesIO(data)
        with zipfile.ZipFile(buf, "a") as z:
            z.writestr(extra_member, b"{}")
        data = buf.getvalue()
    path: Path = study["root"] / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("nasty", NASTY)
def test_a_rater_id_that_is_no_id_is_refused_where_it_is_read_and_printed_inert(
    study: dict[str, Any], capsys: pytest.CaptureFixture[str], nasty: str
) -> None:
    export = _export(study, "export.zip", rater=f"R1{nasty}")
    for argv in (("results", "validate", export),
                 ("results", "collect", export, "--key", study["key"], "--out", study["root"] / "merged")):
        code, text = _run(capsys, *argv)
        assert code == 1, text
        assert "rater_id" in text and "Traceback" not in text
        assert not LIVE.search(text), repr(text[:400])
    kept = study["root"] / "merged" / "ratings.jsonl"
    assert not kept.exists() or kept.read_text(encoding="utf-8") == ""  # nothing of that export is collected


@pytest.mark.parametrize("nasty", NASTY)
def test_a_flag_note_is_printed_inert_and_kept_as_written(
    study: dict[str, Any], capsys: pytest.CaptureFixture[str], nasty: str
) -> None:
    note = f"please look {nasty} here"
    export = _export(study, "export.zip", note=note)
    merged = study["root"] / "merged"
    code, text = _run(capsys, "results", "collect", export, "--key", study["key"], "--out", merged)
    assert code == 0, text
    assert "flag: R1 on" in text and not LIVE.search(text), repr(text)
    kept = [json.loads(line) for line in (merged / "ratings.jsonl").read_text(encoding="utf-8").split("\n") if line]
    assert [r["coordinator_flag"]["note"] for r in kept if "coordinator_flag" in r] == [note]  # the data is unchanged
    code, text = _run(capsys, "results", "collect", export, "--key", study["key"], "--out", study["root"] / "again",
                      "--json")
    assert code == 0 and not LIVE.search(text)
    assert json.loads(text)["flagged"] == 1  # valid JSON
    report = json.loads((study["root"] / "again" / "collect-report.json").read_text(encoding="utf-8"))
    assert [f["note"] for f in report["flagged"]] == [note]  # the file keeps the note as written


@pytest.mark.parametrize("nasty", NASTY)
def test_a_member_name_and_a_file_name_are_printed_inert(
    study: dict[str, Any], capsys: pytest.CaptureFixture[str], nasty: str
) -> None:
    export = _export(study, "export.zip", extra_member=f"records/x{nasty}.json")
    code, text = _run(capsys, "results", "validate", export)
    assert code == 1 and not LIVE.search(text), repr(text)
    missing = study["root"] / f"gone{nasty}.zip"
    for argv in (("results", "validate", missing), ("bundle", "verify", missing)):
        code, text = _run(capsys, *argv)
        assert code != 0 and "gone" in text and not LIVE.search(text), repr(text)


def test_the_escapes_are_visible_and_every_script_is_kept() -> None:
    assert inert("R-001\x1b[2J") == "R-001\\u001b[2J"
    assert inert("ok\rFORGED\x9b") == "ok\\u000dFORGED\\u009b"
    assert inert("line one\n\tline two") == "line one\n\tline two"
    assert inert("line\none", keep_lines=False) == "line\\u000aone"
    text = "Ärztin 😀 עברית العربية 日本語 ‍👩‍⚕️"
    assert inert(text) == text


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_still_redraws_its_own_line() -> None:
    terminal = _Terminal()
    bar = ProgressBar("Checking", InertStream(terminal))
    bar(1, 2)
    bar(2, 2)
    bar.close()
    assert terminal.getvalue().startswith("\rChecking [") and terminal.getvalue().endswith("2/2\n")
    InertStream(terminal).write("\x1b[2J")
    assert terminal.getvalue().endswith("\\u001b[2J")
