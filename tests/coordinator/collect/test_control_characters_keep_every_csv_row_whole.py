"""Every control character in every free-text field of a record stays inside its cell in every CSV table that
collect and the report write (issue 25): each table reads back with Python's csv, pandas, DuckDB and R's
quoting rules to the same rows and the same values. A bare carriage return was written unquoted and split the
row there, so a flag note ``"\\r=1+1"`` became a new row starting with a formula in ``ratings-excel.csv``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import FAILURE_MODES, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.csv_text import csv_field, csv_line

CONTROLS = [chr(c) for c in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, 0xFEFF)]
"""C0, DEL, C1 (NEL among them), the Unicode line and paragraph separators and a byte-order mark."""


def _text(n: int, field: str) -> str:
    """A free text holding every control character, starting with a different one (and a formula) each time."""
    turn = CONTROLS[n % len(CONTROLS):] + CONTROLS[: n % len(CONTROLS)]
    return f"{turn[0]}=1+1 {field} \"q\", ;|\t" + "".join(f"{c}x" for c in turn) + "\r\n=2+2\r"


def _records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], Path]:
    built = build_study(tmp_path, n_items=4, n_raters=3, overlap=2)
    exports, n = [], 0
    for rater in ("R1", "R2", "R3"):
        b = built.bundles[rater]
        recs = []
        for i, t in enumerate(b.task_ids):
            rec = record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=2 + i % 3)
            n += 1
            rec["rater_role_or_background"] = _text(n, "role")
            rec["coordinator_flag"] = {"note": _text(n, "flag")}
            if i == 0:  # a "cannot rate" record with its detail
                for key in ("scoring", "failure_mode_annotations", "failure_mode_evidence_notes", "clinician_notes"):
                    del rec[key]
                rec["record_kind"] = "cannot_rate"
                rec["cannot_rate"] = {"reason": "other", "detail": _text(n, "detail")}
            else:
                rec["clinician_notes"] = {"brief_rationale": _text(n, "rationale"), "best_aspect": _text(n, "best"),
                                          "main_concern": _text(n, "concern"),
                                          "suggested_better_clinical_move": _text(n, "move"), "confidence_rating": 3}
                rec["failure_mode_evidence_notes"] = {fm: _text(n, fm) for fm in FAILURE_MODES}
            recs.append(rec)
        path = built.export(rater, recs, f"export-{rater}.zip")
        exports.append(str(path))
    return exports, built.key


def r_style_rows(text: str) -> list[list[str]]:
    """The rows as R's ``read.csv`` (and RFC 4180) split them: a quoted field may hold anything, a doubled quote
    is a quote, and outside quotes a CR, an LF or a CR LF ends the row."""
    rows: list[list[str]] = []
    row: list[str] = []
    field: list[str] = []
    i, quoted = 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"' and text[i + 1: i + 2] == '"':
                field.append('"')
                i += 1
            elif c == '"':
                quoted = False
            else:
                field.append(c)
        elif c == '"' and not field:
            quoted = True
        elif c == ",":
            row.append("".join(field))
            field = []
        elif c in "\r\n":
            if c == "\r" and text[i + 1: i + 2] == "\n":
                i += 1
            row.append("".join(field))
            rows.append(row)
            row, field = [], []
        else:
            assert c != '"', f"a quote inside an unquoted field at character {i}"
            field.append(c)
        i += 1
    assert not quoted and not field and not row, "the text ends inside a row"
    return rows


def _readers(path: Path) -> dict[str, list[list[str]]]:
    text = path.read_bytes().decode("utf-8-sig")  # no newline translation: a CR stays a CR
    readers = {"csv": list(csv.reader(io.StringIO(text, newline=""))), "r": r_style_rows(text)}
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig", header=None)
    readers["pandas"] = frame.to_numpy().tolist()
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    got = con.execute(f"SELECT * FROM read_csv('{path}', header=false, all_varchar=true, delim=',', quote='\"', "
                      "escape='\"', auto_detect=false, null_padding=false, columns=" +
                      "{" + ", ".join(f"'c{i}': 'VARCHAR'" for i in range(len(readers["csv"][0]))) + "})").fetchall()
    readers["duckdb"] = [["" if v is None else v for v in row] for row in got]
    return readers


def _check_table(path: Path, expected_rows: int | None = None) -> list[dict[str, str]]:
    readers = _readers(path)
    base = readers["csv"]
    if expected_rows is not None:
        assert len(base) == expected_rows + 1, path.name
    for name, rows in readers.items():
        if name == "duckdb" and path.name.startswith("ratings-excel"):
            rows = [[base[0][0], *rows[0][1:]], *rows[1:]]  # DuckDB keeps the BOM of the first name
        assert len(rows) == len(base), (path.name, name, len(rows), len(base))
        assert rows == base, (path.name, name)
    return [dict(zip(base[0], row, strict=True)) for row in base[1:]]


def _excel(value: str) -> str:
    return "'" + value if value.startswith(("=", "+", "-", "@", "\t", "\r")) else value


def test_every_control_character_stays_in_its_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _records(tmp_path, capsys)
    out = tmp_path / "results"
    code = main(["results", "collect", *exports, "--key", str(key), "--out", str(out), "--excel-safe", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result["problems"]
    records = [json.loads(line) for line in (out / "ratings.jsonl").read_text(encoding="utf-8").split("\n") if line]
    assert len(records) == result["ratings"] + result["cannot_rate"] > 0
    free_text: dict[str, Any] = {
        "rater_role_or_background": lambda r: r["rater_role_or_background"],
        "brief_rationale": lambda r: r.get("clinician_notes", {}).get("brief_rationale", ""),
        "best_aspect": lambda r: r.get("clinician_notes", {}).get("best_aspect", ""),
        "main_concern": lambda r: r.get("clinician_notes", {}).get("main_concern", ""),
        "suggested_better_clinical_move": lambda r: r.get("clinician_notes", {}).get("suggested_better_clinical_move", ""),
        "coordinator_flag": lambda r: r["coordinator_flag"]["note"],
        "cannot_rate_detail": lambda r: r.get("cannot_rate", {}).get("detail", ""),
        **{f"failure_mode_note.{fm}": (lambda r, fm=fm: r.get("failure_mode_evidence_notes", {}).get(fm, ""))
           for fm in FAILURE_MODES},
    }
    rows = _check_table(out / "ratings.csv", len(records))
    for name, value in free_text.items():
        assert name in rows[0], name
        assert sorted(row[name] for row in rows) == sorted(value(r) for r in records), name
    excel = _check_table(out / "ratings-excel.csv", len(records))
    for name, value in free_text.items():
        assert sorted(row[name] for row in excel) == sorted(_excel(value(r)) for r in records), name
    redcap = _check_table(out / "redcap-import.csv", len(records))
    for name in ("coordinator_flag", "brief_rationale", "cannot_rate_detail", "rater_role_or_background"):
        assert sorted(row[name] for row in redcap) == sorted(free_text[name](r) for r in records), name
    _check_table(out / "redcap-data-dictionary.csv")

    report = tmp_path / "report"
    assert main(["report", str(out), "--study", str(tmp_path / "study"), "--out", str(report)]) == 0, capsys.readouterr()
    tables = sorted((report / "tables").glob("*.csv"))
    assert tables
    for table in tables:
        _check_table(table)


@pytest.mark.parametrize("char", CONTROLS)
def test_a_field_is_quoted_exactly_when_a_reader_would_split_it(char: str) -> None:
    value = f"a{char}b"
    field = csv_field(value)
    assert (field != value) == (char in "\r\n"), repr(char)
    assert list(csv.reader(io.StringIO(csv_line([value, char, "x"]), newline=""))) == [[value, char, "x"]]
    assert r_style_rows(csv_line([value, char, "x"])) == [[value, char, "x"]]


def test_fields_are_written_as_the_csv_module_writes_them() -> None:
    row = ["plain", 'say "hi"', "a,b", None, 3, 2.5, True, "", "é 😀 עברית"]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(row)
    assert csv_line(row) == buf.getvalue()
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([""])
    assert csv_line([""]) == buf.getvalue() == '""\n'
