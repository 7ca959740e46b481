"""R's ``read.csv("ratings.csv")``, with its defaults, reads every score column of a collection as integers
(N/A and "cannot rate" as NA) and, with ``--names r``, keeps every column name. Checked by R's documented
rules (``?read.table``, ``?type.convert``, ``?make.names``), and by ``Rscript`` itself where it is installed."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.coordinator.collect.varied_collection import collection
from wmcdp_desktop.coordinator.collect.codebook import R_RESERVED, SCORE_FIELDS, safe_names

R_NA_STRINGS = ("NA",)
"""read.csv's default ``na.strings``."""
R_LOGICAL = {"T", "F", "TRUE", "FALSE", "true", "false", "True", "False"}
R_KEYWORDS = R_RESERVED | {"TRUE", "FALSE", "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_", "NA_character_"}
INT32 = 2**31 - 1


def make_names(names: list[str]) -> list[str]:
    """R's ``make.names(names, unique = TRUE)``, as ``read.csv``'s default ``check.names = TRUE`` applies it."""
    out = []
    for name in names:
        n = re.sub(r"[^A-Za-z0-9._]", ".", name)
        if not re.match(r"^([A-Za-z]|\.(?![0-9]))", n):
            n = "X" + n
        if n in R_KEYWORDS:
            n += "."
        out.append(n)
    seen: dict[str, int] = {}
    unique = []
    for n in out:  # make.unique: the second "a" becomes "a.1"
        if n in seen:
            seen[n] += 1
            n = f"{n}.{seen[n]}"
        else:
            seen[n] = 0
        unique.append(n)
    return unique


def column_class(cells: list[str]) -> str:
    """The class ``type.convert(as.is = TRUE)`` gives a column read by ``read.csv`` with ``na.strings = "NA"``:
    the first of logical, integer, numeric that every cell that is not NA fits (a blank cell is NA in those),
    else character."""
    values = [c for c in cells if c not in R_NA_STRINGS and c != ""]
    if all(v in R_LOGICAL for v in values):
        return "logical"
    if all(re.fullmatch(r"[-+]?[0-9]+", v) and abs(int(v)) <= INT32 for v in values):
        return "integer"
    try:
        for v in values:
            float(v)
    except ValueError:
        return "character"
    return "numeric"


def r_read_csv(path: Path) -> tuple[list[str], dict[str, str]]:
    """Column names and classes as ``read.csv(path)`` gives them (R's documented rules)."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    header, body = rows[0], rows[1:]
    names = make_names(header)
    return names, {n: column_class([row[i] for row in body]) for i, n in enumerate(names)}


def rscript_read_csv(path: Path) -> tuple[list[str], dict[str, str]] | None:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    code = 'd <- read.csv(commandArgs(TRUE)[1]); for (n in names(d)) cat(n, class(d[[n]])[1], "\\n")'
    run = subprocess.run([rscript, "-e", code, str(path)], capture_output=True, text=True, timeout=120, check=True)
    pairs = [line.split() for line in run.stdout.splitlines() if line.strip()]
    return [p[0] for p in pairs], {p[0]: p[1] for p in pairs}


def _scores_are_integers(path: Path, names: list[str], classes: dict[str, str], header: list[str]) -> None:
    by_header = dict(zip(header, names, strict=True))
    mapping = safe_names(SCORE_FIELDS)
    for field in SCORE_FIELDS:
        r_name = by_header.get(field) or by_header[mapping[field]]
        assert classes[r_name] == "integer", (field, classes[r_name])
    for name in ("revision", "revisions_submitted", "time_spent_scoring_seconds", "confidence_rating"):
        assert classes[by_header[name]] == "integer", name


@pytest.mark.slow
def test_read_csv_defaults_read_scores_as_integers_and_names_r_keeps_every_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = collection(tmp_path, capsys, "--names", "r")
    path = out / "ratings.csv"
    header = next(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    text = path.read_text(encoding="utf-8")
    assert ",NA," in text and "N/A" not in text  # the N/A answers are there, spelled as R reads them
    names, classes = r_read_csv(path)
    assert names == header  # check.names leaves every safe name as it is
    _scores_are_integers(path, names, classes, header)
    by_r = rscript_read_csv(path)
    if by_r is not None:
        assert by_r == (names, classes)


@pytest.mark.slow
def test_original_names_are_mangled_by_r_and_the_old_na_spelling_needs_na_strings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Why the docs tell R users to collect with --names r, and what --csv-na N/A gives back."""
    out = collection(tmp_path, capsys, "--csv-na", "N/A")
    path = out / "ratings.csv"
    header = next(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    names, classes = r_read_csv(path)
    assert "failure_mode.WM.FM.REASSURANCE" in names and "failure_mode.WM-FM-REASSURANCE" in header
    assert classes["safety_scope_boundaries_score"] == "character"  # "N/A" is text to read.csv's defaults
    assert classes["overall_clinical_judgment_score"] == "integer"


def test_the_r_rules_of_this_test_are_rs() -> None:
    """The oracle against cases R's help pages give."""
    assert make_names(["a b", "1x", ".2", "if", "a", "a", "ok_name.1", "TRUE"]) == [
        "a.b", "X1x", "X.2", "if.", "a", "a.1", "ok_name.1", "TRUE."]
    assert column_class(["1", "NA", "", "-3"]) == "integer"
    assert column_class(["1", "N/A"]) == "character"
    assert column_class(["1.5", "2"]) == "numeric"
    assert column_class(["TRUE", "", "F"]) == "logical"
    assert column_class(["3000000000"]) == "numeric"


def test_no_safe_name_is_an_r_reserved_word() -> None:
    names = safe_names(["if", "for_score", "in", "function", "break_score_na", "next"])
    assert not set(names.values()) & R_KEYWORDS
    assert make_names(list(names.values())) == list(names.values())
