"""Every count a hostile export can inflate has a bound (issue 25): an export of thousands of unlisted members
lists at most MAX_PROBLEMS_PER_EXPORT problems and one line counting the rest (99,999 members gave a 16 MB
collect-report.json of 99,993 problems), in ``results validate`` and ``results collect``; it is quarantined whole."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.results.reader import MAX_PROBLEMS_PER_EXPORT


def test_thousands_of_unlisted_members_give_a_bounded_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = build_study(tmp_path, n_items=4, n_raters=3, overlap=2)
    genuine = study.export("R1", study.records("R1"), "genuine.zip")
    buf = io.BytesIO(genuine.read_bytes())
    with zipfile.ZipFile(buf, "a") as zf:
        for i in range(3_000):
            zf.writestr(f"records/x{i}.json", b"")
    bloated = tmp_path / "bloated.zip"
    bloated.write_bytes(buf.getvalue())
    code = main(["results", "validate", str(bloated), "--json"])
    validated = json.loads(capsys.readouterr().out)
    assert code == 1 and len(validated["problems"]) == MAX_PROBLEMS_PER_EXPORT + 1
    assert validated["problems"][-1]["message"].startswith("and 2,800 more problems in this export, not listed")
    assert validated["valid_records"] == 0
    code = main(["results", "collect", str(bloated), "--key", str(study.key), "--out", str(tmp_path / "m"), "--json"])
    collected = json.loads(capsys.readouterr().out)
    assert code == 1 and collected["ratings"] == 0 and collected["quarantined"] == len(study.records("R1"))
    assert len(collected["problems"]) <= MAX_PROBLEMS_PER_EXPORT + 2  # and the quarantine line
    assert (tmp_path / "m" / "collect-report.json").stat().st_size < 200_000
