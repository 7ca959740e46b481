"""`wmcdp results collect` writes typed Parquet tables, a Frictionless codebook and REDCap files loadable
without edits; `--names r` gives R/REDCap-safe CSV names; without pyarrow the CSV and JSONL still come."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import MODELS, build_study
from wmcdp_desktop.coordinator.collect import codebook
from wmcdp_desktop.coordinator.commands.main import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


GUESSES: list[dict[str, str] | None] = [{"answer": "label", "label": "System A"}, {"answer": "cannot_tell"}, None,
                                        {"answer": "label", "label": "System C (decoy)"}]
"""Blinding-check answers given in turn to a rater's records (with ``guesses``)."""


def _collect(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str,
             guesses: bool = False) -> tuple[Path, dict[str, Any]]:
    # with guesses the study asks the blinding check, and the raters answer it
    check = {"blinding_check": {"labels": [{"label": "System A", "model_source": MODELS[0]},
                                           {"label": "System B", "model_source": MODELS[1]},
                                           {"label": "System C (decoy)"}]}}
    built = build_study(tmp_path, n_items=4, n_raters=3, overlap=2, study_extra=check if guesses else None)
    exports = []
    for n, rater in enumerate(("R1", "R2", "R3")):
        b = built.bundles[rater]
        recs = [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=2 + (n + i) % 3)
                for i, t in enumerate(b.task_ids)]
        recs[0]["clinician_notes"]["brief_rationale"] = "=1+1, \"quoted\"\nand | pipes"
        for i, rec in enumerate(recs if guesses else []):
            if GUESSES[i % len(GUESSES)] is not None:
                rec["blinding_guess"] = GUESSES[i % len(GUESSES)]
        exports.append(str(built.export(rater, recs, f"export-{rater}.zip")))
    out = tmp_path / "results"
    code = main(["results", "collect", *exports, "--key", str(built.key),
                 "--out", str(out), "--json", *extra])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result["problems"]
    return out, result


def test_parquet_columns_are_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, result = _collect(tmp_path, capsys)
    table = pq.read_table(out / "ratings.parquet")
    rows = table.num_rows
    assert rows == result["ratings"] > 0
    schema = table.schema
    assert schema.field("overall_judgment").type == pa.int16()
    safety = table.column("safety_scope_boundaries").to_pylist()
    safety_na = table.column("safety_scope_boundaries_na").to_pylist()
    assert safety == [None] * rows and safety_na == [True] * rows  # N/A is null plus a flag, never text
    assert table.column("overall_judgment_na").to_pylist() == [False] * rows
    assert schema.field("submitted_at").type == pa.timestamp("us", tz="UTC")
    assert table.column("submitted_at").to_pylist()[0] == datetime.fromisoformat("2026-11-29T10:07:30+00:00")
    fm = next(f for f in schema if f.name.startswith("fm_") and not f.name.startswith("fmn_"))
    assert pa.types.is_dictionary(fm.type) and table.column(fm.name).to_pylist()[0] in ("none", "minor")
    assert schema.field("scenario_type_ids").type == pa.list_(pa.string())
    assert schema.field(fm.name).metadata[b"wmcdp:name"].startswith(b"failure_mode.WM-FM-")
    long = pq.read_table(out / "failure_modes.parquet")
    assert long.num_rows == rows * len([f for f in schema if f.name.startswith("fm_")])
    assert set(long.column("severity").to_pylist()) <= set(codebook.SEVERITIES)
    assert long.column("present").to_pylist() == [s != "none" for s in long.column("severity").to_pylist()]
    # the collect report records every output's sha256 (wmcdp report checks ratings.parquet against it)
    report = json.loads((out / "collect-report.json").read_text(encoding="utf-8"))
    import hashlib

    assert report["outputs"]["ratings.parquet"] == hashlib.sha256((out / "ratings.parquet").read_bytes()).hexdigest()


def test_datapackage_is_valid_frictionless(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frictionless = pytest.importorskip("frictionless")
    out, _ = _collect(tmp_path, capsys, guesses=True)
    package = json.loads((out / "datapackage.json").read_text(encoding="utf-8"))
    names = {r["path"] for r in package["resources"]}
    assert {"ratings.csv", "ratings.parquet", "failure_modes.parquet", "ratings.jsonl", "redcap-data-dictionary.csv",
            "redcap-import.csv", "summary.json"} <= names
    # The descriptor, every file's hash and every table's every cell against its schema, by frictionless; the
    # Parquet columns' Arrow types against their schemas with pyarrow below.
    report = frictionless.validate(str(out / "datapackage.json"))
    assert report.valid, [(e.type, e.note) for t in report.tasks for e in t.errors][:10]
    arrow_types = {"integer": (pa.types.is_integer,), "string": (pa.types.is_string, pa.types.is_dictionary),
                   "boolean": (pa.types.is_boolean,), "datetime": (pa.types.is_timestamp,),
                   "any": (pa.types.is_list,)}
    for resource in (r for r in package["resources"] if r["path"].endswith(".parquet")):
        schema = pq.read_schema(out / resource["path"])
        assert [f["name"] for f in resource["schema"]["fields"]] == schema.names
        for f in resource["schema"]["fields"]:
            assert any(test(schema.field(f["name"]).type) for test in arrow_types[f["type"]]), f
        table = pq.read_table(out / resource["path"])
        for f in resource["schema"]["fields"]:
            values = [v for v in table.column(f["name"]).to_pylist() if v is not None]
            limits = f.get("constraints", {})
            assert all(v in limits["enum"] for v in values) if "enum" in limits else True
            assert all(v >= limits["minimum"] for v in values) if "minimum" in limits else True
            assert all(v <= limits["maximum"] for v in values) if "maximum" in limits else True
    csv_schema = next(r for r in package["resources"] if r["path"] == "ratings.csv")["schema"]
    score = next(f for f in csv_schema["fields"] if f["name"] == "overall_clinical_judgment_score")
    assert score["type"] == "integer" and score["missingValues"] == ["", "NA"]
    assert score["constraints"] == {"minimum": 1, "maximum": 5} and score["x-r-name"] == "overall_judgment"
    assert package["x-name-mapping"]["failure_mode.WM-FM-REASSURANCE"] == "fm_reassurance"


def test_the_blinding_check_answer_is_in_every_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _collect(tmp_path, capsys, guesses=True)
    jsonl = [json.loads(line) for line in (out / "ratings.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = [None if "blinding_guess" not in r else r["blinding_guess"].get("label", "cannot_tell") for r in jsonl]
    assert {"System A", "System C (decoy)", "cannot_tell", None} == set(expected)
    rows = list(csv.DictReader(io.StringIO((out / "ratings.csv").read_text(encoding="utf-8"))))
    # the last columns, in the order they came: scripts that read the earlier ones by place still work
    assert list(rows[0])[-2:] == ["blinding_guess", "clock_suspect"]
    assert [row["blinding_guess"] or None for row in rows] == expected
    assert pq.read_table(out / "ratings.parquet").column("blinding_guess").to_pylist() == expected
    redcap = list(csv.DictReader(io.StringIO((out / "redcap-import.csv").read_text(encoding="utf-8"))))
    assert [row["blinding_guess"] or None for row in redcap] == expected
    package = json.loads((out / "datapackage.json").read_text(encoding="utf-8"))
    csv_fields = next(r for r in package["resources"] if r["path"] == "ratings.csv")["schema"]["fields"]
    assert csv_fields[-2]["name"] == "blinding_guess" and "cannot_tell" in csv_fields[-2]["description"]
    assert csv_fields[-1]["name"] == "clock_suspect"


NAME = re.compile(r"^[a-z][a-z0-9_]*$")
FIELD_TYPES = {"text", "notes", "dropdown", "radio", "checkbox", "yesno", "truefalse", "calc", "file", "slider",
               "descriptive", "sql"}
VALIDATIONS = {"", "date_ymd", "date_mdy", "date_dmy", "datetime_ymd", "datetime_seconds_ymd", "time", "integer",
               "number", "email", "phone", "zipcode", "alpha_only"}
CHOICES = re.compile(r"^\s*-?[0-9A-Za-z_]+\s*,\s*[^|]+(\|\s*-?[0-9A-Za-z_]+\s*,\s*[^|]+)*$")


def test_redcap_files_follow_the_data_dictionary_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, result = _collect(tmp_path, capsys)
    rows = list(csv.reader(io.StringIO((out / "redcap-data-dictionary.csv").read_text(encoding="utf-8"))))
    assert tuple(rows[0]) == codebook.REDCAP_COLUMNS and len(rows[0]) == 18
    fields = rows[1:]
    names = [r[0] for r in fields]
    assert names[0] == "record_id" and len(set(names)) == len(names)
    choices_of: dict[str, set[str]] = {}
    for name, form, _, ftype, label, choices, _, validation, lo, hi, *_ in fields:
        assert NAME.match(name) and len(name) <= 26 and "__" not in name, name
        assert form == "ratings" and label.strip()
        assert ftype in FIELD_TYPES and validation in VALIDATIONS
        if ftype in ("radio", "dropdown", "checkbox"):
            assert CHOICES.match(choices), (name, choices)
            choices_of[name] = {c.split(",", 1)[0].strip() for c in choices.split("|")}
        else:
            assert choices == ""
        if lo or hi:
            assert validation in ("integer", "number")
    score_choices = next(r[5] for r in fields if r[0] == "overall_judgment")
    assert score_choices.startswith("1, level 1 | 2, level 2")
    data = list(csv.DictReader(io.StringIO((out / "redcap-import.csv").read_text(encoding="utf-8"))))
    assert list(data[0]) == names and len(data) == result["ratings"]
    by_name = {r[0]: r for r in fields}
    for row in data:
        for name, value in row.items():
            if value == "":
                continue
            ftype, validation, lo, hi = by_name[name][3], by_name[name][7], by_name[name][8], by_name[name][9]
            if name in choices_of:
                assert value in choices_of[name], (name, value)
            elif ftype == "yesno":
                assert value in ("0", "1")
            elif validation == "integer":
                assert (not lo or int(value) >= int(lo)) and (not hi or int(value) <= int(hi))
            elif validation == "datetime_seconds_ymd":
                datetime.strptime(value, "%Y-%m-%d %H:%M:%S")


def test_names_r_gives_safe_unique_csv_names_mapped_in_the_codebook(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _collect(tmp_path, capsys, "--names", "r")
    header = next(csv.reader(io.StringIO((out / "ratings.csv").read_text(encoding="utf-8"))))
    assert all(NAME.match(h) and len(h) <= 26 for h in header), header
    assert len(set(header)) == len(header)
    package = json.loads((out / "datapackage.json").read_text(encoding="utf-8"))
    fields = next(r for r in package["resources"] if r["path"] == "ratings.csv")["schema"]["fields"]
    assert [f["name"] for f in fields] == header
    assert {f.get("x-original-name", f["name"]) for f in fields} >= {"failure_mode.WM-FM-REASSURANCE",
                                                                     "overall_clinical_judgment_score"}


def test_safe_names_are_short_unique_and_stable() -> None:
    long = [f"failure_mode.WM-FM-{'X' * 40}-{i}" for i in range(12)] + ["2nd-score", "a__b", "same", "same"]
    names = codebook.safe_names(long)
    values = list(names.values())
    assert all(NAME.match(v) and len(v) <= 26 and "__" not in v for v in values)
    assert len(set(values)) == len(set(long)) and names == codebook.safe_names(long)
    assert names["2nd-score"] == "v_2nd_score"
    assert codebook.safe_names(["emotional_attunement_validation_score_na"])[
        "emotional_attunement_validation_score_na"].endswith("_na")


def test_summary_medians_are_always_numbers_of_one_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _collect(tmp_path, capsys)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    medians = [s["median"] for m in summary["models"].values() for s in m["scores"].values() if s["median"] is not None]
    medians += [r["median_time_seconds"] for r in summary["raters"].values() if r["median_time_seconds"] is not None]
    assert medians and all(type(m) is float for m in medians)


def test_without_pyarrow_csv_and_jsonl_still_come_and_it_says_how_to_get_parquet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codebook, "have_pyarrow", lambda: False)
    out, result = _collect(tmp_path, capsys)
    assert (out / "ratings.csv").is_file() and (out / "ratings.jsonl").is_file()
    assert not (out / "ratings.parquet").exists()
    assert 'pip install "wmcdp-desktop[analysis]"' in result["parquet"]


def test_parquet_severities_are_ordered_categoricals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pd = pytest.importorskip("pandas")
    out, _ = _collect(tmp_path, capsys)
    for name, column in (("ratings.parquet", "fm_reassurance"), ("failure_modes.parquet", "severity")):
        field = pq.read_schema(out / name).field(column)
        assert pa.types.is_dictionary(field.type) and field.type.ordered, (name, field.type)
        series = pd.read_parquet(out / name)[column]
        assert series.cat.ordered and list(series.cat.categories) == list(codebook.SEVERITIES)
        # compared and sorted by severity, not by the alphabet ("major" < "minor" < "none" alphabetically)
        assert (series.dropna() >= "minor").tolist() == [s != "none" for s in series.dropna()]
        assert series.sort_values().dropna().tolist() == sorted(series.dropna(), key=codebook.SEVERITIES.index)
