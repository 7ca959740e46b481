"""What ``wmcdp results collect`` writes (:func:`write_outputs`), from a :class:`~.collect.CollectResult`.

Every file is written owner-only (they name the models) and atomically: the kept records are read back from
the collect spool in (rater, task) order, a few thousand at a time, and each table gets its rows as they
come (``ratings.jsonl``, ``ratings.csv``, ``ratings.parquet`` and ``failure_modes.parquet`` in row groups,
the REDCap import file), so memory does not grow with the number of ratings; ``summary.json``,
``datapackage.json`` and ``collect-report.json`` (which hold counts and the others' SHA-256) come last. Every
file is complete in its temporary file before the first replaces its previous version: a failure leaves the
previous outputs as they were; a kill in the moment the files are replaced one after the other can leave
some new and some old, and then ``collect-report.json`` (replaced last) does not hold the new tables' SHA-256,
so ``wmcdp report`` refuses them until collect is run again. :func:`hold_collection` keeps a second collect
out of the folder and removes the temporary files a killed one left.
"""

from __future__ import annotations

import contextlib
import json
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.collect import codebook
from wmcdp_desktop.coordinator.collect.cache import CACHE_DIR
from wmcdp_desktop.coordinator.collect.codebook import SCORE_FIELDS
from wmcdp_desktop.coordinator.collect.merge import (
    CSV_FIXED_COLUMNS,
    CSV_KIND_COLUMNS,
    CollectResult,
)
from wmcdp_desktop.core.atomic import (
    OWNER_ONLY,
    AtomicFile,
    atomic_writer,
    orphan_temp_files,
    plain_os_error,
)
from wmcdp_desktop.core.csv_text import csv_text
from wmcdp_desktop.core.digests import sha256_hex
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.core.models.rating_record import NA
from wmcdp_desktop.core.paths import child_path
from wmcdp_desktop.core.strict_json import dumps_canonical

CSV_NA = {"NA": "NA", "N/A": NA, "empty": ""}
"""How ``ratings.csv`` spells an N/A score (``--csv-na``): ``NA`` (the default: R's ``read.csv`` and pandas'
``read_csv`` read it as missing with their defaults, so a score column is read as integers), ``N/A`` (the
records' own spelling, what collect wrote before; R then needs ``na.strings = "N/A"``) or ``empty``."""
NAMES = ("original", "r")
"""``ratings.csv`` column names: as the records name the fields, or R/REDCap-safe (``--names r``)."""
SPREADSHEET_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet may run a cell that starts with one of these as a formula (CSV/formula injection)."""
EXCEL_CSV_NAME = "ratings-excel.csv"
CHUNK = 4096
"""Records read back from the spool at a time."""


def excel_safe_cell(value: Any) -> Any:
    """``value``, or a text that starts like a formula with a ``'`` in front (Excel shows it as text)."""
    if isinstance(value, str) and value.startswith(SPREADSHEET_FORMULA_START):
        return "'" + value
    return value


def csv_columns(fm_ids: Sequence[str]) -> list[str]:
    """Every ``ratings.csv`` column for the failure modes ``fm_ids``."""
    return [
        *CSV_FIXED_COLUMNS,
        *SCORE_FIELDS,
        *(f"failure_mode.{fm}" for fm in fm_ids),
        *(f"failure_mode_note.{fm}" for fm in fm_ids),
        *CSV_KIND_COLUMNS,
    ]


CSV_TRUE, CSV_FALSE = "TRUE", "FALSE"
"""A yes/no column of ``ratings.csv`` (``clock_suspect``): R's ``read.csv`` reads it as logical, pandas as bool."""


def csv_row(r: Mapping[str, Any], fm_ids: Sequence[str], split_of: Mapping[str, str],
            revisions: Mapping[tuple[str, str], int], *, na: str = CSV_NA["NA"],
            clock_suspect: frozenset[str] = frozenset()) -> list[Any]:
    """One ``ratings.csv`` row of a collected record (as its JSON object). Scores are numbers or ``na`` (an
    N/A answer; :data:`CSV_NA`), empty on a "cannot rate" row; the cells hold exactly what the raters
    wrote. ``clock_suspect``: the record ids whose times a wrong clock explains."""
    env = r["envelope"]
    task = env["task_id"]
    seconds = r.get("time_spent_scoring_seconds")
    row: list[Any] = [
        r["rater_id"],
        r.get("rater_role_or_background") or "",
        task,
        r["benchmark_item_id"],
        split_of.get(task, ""),
        r["candidate_response_id"],
        r.get("model_source") or "",
        r["clinical_domain_id"],
        ";".join(r["scenario_type_ids"]),
        env["revision"],
        revisions.get((r["rater_id"], task), 1),
        env["record_id"],
        env["bundle_id"],
        env["started_at"],
        env["submitted_at"],
        "" if seconds is None else seconds,
    ]
    if r.get("record_kind") != "cannot_rate":
        notes = r["clinician_notes"]
        fm_notes = r.get("failure_mode_evidence_notes") or {}
        annotations = r["failure_mode_annotations"]
        confidence = notes.get("confidence_rating")
        row += [
            "" if confidence is None else confidence,
            notes["brief_rationale"],
            notes.get("best_aspect") or "",
            notes.get("main_concern") or "",
            notes.get("suggested_better_clinical_move") or "",
        ]
        scoring = r["scoring"]
        row += [na if scoring[f] == NA else scoring[f] for f in SCORE_FIELDS]
        row += [annotations.get(fm, "") for fm in fm_ids]
        row += [fm_notes.get(fm, "") for fm in fm_ids]
        row += ["rating", "", ""]
    else:
        cannot = r["cannot_rate"]
        row += [""] * (5 + len(SCORE_FIELDS) + 2 * len(fm_ids))
        row += ["cannot_rate", cannot["reason"], cannot.get("detail") or ""]
    flag = r.get("coordinator_flag")
    row.append("" if flag is None else flag["note"])
    row.append(codebook.blinding_answer(r) or "")
    row.append(CSV_TRUE if env["record_id"] in clock_suspect else CSV_FALSE)
    return row


class _Summary:
    """``summary.json``'s counts, gathered record by record."""

    def __init__(self, result: CollectResult) -> None:
        self.result = result
        self.raters: dict[str, dict[str, Any]] = {}
        self.models: dict[str, dict[str, Any]] = {}

    def _rater(self, rater: str) -> dict[str, Any]:
        return self.raters.setdefault(
            rater, {"ratings": 0, "cannot_rate": 0, "flagged": 0, "revised_tasks": 0, "times": []}
        )

    def add(self, r: Mapping[str, Any]) -> None:
        env = r["envelope"]
        rs = self._rater(r["rater_id"])
        rs["flagged"] += r.get("coordinator_flag") is not None
        if self.result.revisions.get((r["rater_id"], env["task_id"]), 1) > 1 or env["revision"] > 1:
            rs["revised_tasks"] += 1
        if r.get("record_kind") == "cannot_rate":
            rs["cannot_rate"] += 1
            return
        rs["ratings"] += 1
        seconds = r.get("time_spent_scoring_seconds")
        if seconds is not None:
            rs["times"].append(seconds)
        ms = self.models.setdefault(r.get("model_source") or "", {
            "ratings": 0, "tasks": set(), "scores": {f: [] for f in SCORE_FIELDS}, "failure_modes": {}})
        ms["ratings"] += 1
        ms["tasks"].add(env["task_id"])
        scoring = r["scoring"]
        for f in SCORE_FIELDS:
            ms["scores"][f].append(scoring[f])
        for fm, severity in r["failure_mode_annotations"].items():
            counts = ms["failure_modes"].setdefault(fm, {})
            counts[severity] = counts.get(severity, 0) + 1

    def done(self) -> dict[str, Any]:
        result, key = self.result, self.result.key
        report = result.report
        split_of = {e.task_id: e.split for e in key.entries}
        assigned: dict[str, int] = {}
        in_key: dict[str, int] = {}
        for e in key.entries:
            in_key[e.model_source] = in_key.get(e.model_source, 0) + 1
            for rater in e.raters:
                assigned[rater] = assigned.get(rater, 0) + 1
        for rater in set(assigned) | set(self.raters):
            rs = self._rater(rater)
            times = rs.pop("times")
            rs["assigned"] = assigned.get(rater)
            rs["median_time_seconds"] = float(statistics.median(times)) if times else None
            rs["total_time_seconds"] = sum(times) if times else 0
            rs["assigned_not_returned"] = len(report["missing_by_rater"].get(rater, []))
        model_out: dict[str, Any] = {}
        for model, ms in self.models.items():
            model_out[model] = {
                "ratings": ms["ratings"],
                "tasks_rated": len(ms["tasks"]),
                "tasks_in_key": in_key.get(model, 0),
                "scores": {f: _score_stats(v) for f, v in ms["scores"].items()},
                "failure_modes": {fm: dict(sorted(c.items())) for fm, c in sorted(ms["failure_modes"].items())},
            }
        return {
            "study_id": key.study_id,
            "ratings": len(result.ratings),
            "tasks": {
                "in_key": len(key.entries),
                "rated": len({r.task_id for r in result.ratings}),
                "nobody_rated": len(report["tasks_nobody_rated"]),
                "cannot_rate": len({c.task_id for c in result.cannot_rate}),
                "every_rater_could_not_rate": len(report["tasks_every_rater_could_not_rate"]),
                "calibration_ratings": sum(1 for r in result.ratings if split_of.get(r.task_id) == "calibration"),
            },
            "cannot_rate": len(result.cannot_rate),
            "flagged": len(report["flagged"]),
            "raters": dict(sorted(self.raters.items())),
            "models": dict(sorted(model_out.items())),
            "problems": len(result.problems),
        }


def _score_stats(values: list[int | str]) -> dict[str, Any]:
    numbers = [v for v in values if isinstance(v, int)]
    return {
        "n": len(numbers),
        "n_na": sum(1 for v in values if v == NA),
        "mean": round(statistics.fmean(numbers), 4) if numbers else None,
        "median": float(statistics.median(numbers)) if numbers else None,
    }


class _CsvOut:
    def __init__(self, out: AtomicFile, header: list[str], *, excel_safe: bool = False) -> None:
        self.out, self.excel_safe = out, excel_safe
        if excel_safe:
            out.write("\ufeff".encode())
        self.add([header], safe_cells=False)

    def add(self, rows: Sequence[Sequence[Any]], *, safe_cells: bool = True) -> None:
        if self.excel_safe and safe_cells:
            rows = [[excel_safe_cell(v) for v in row] for row in rows]
        self.out.write(csv_text(rows).encode("utf-8"))


def _close_quietly(table: codebook.ParquetOut) -> None:
    """Close a Parquet writer whose file is being given up (the error that stopped it is the one reported)."""
    with contextlib.suppress(Exception):
        table.close()


def make_output_folder(out_dir: Path) -> None:
    """Create ``out_dir`` owner-only (like what it will hold), or say in plain words why it cannot be."""
    try:
        out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise WmcdpError(f"cannot create the output folder {out_dir}: {exc.strerror or exc}") from None


LOCK_NAME = ".collect.lock"
"""Held in the collection folder while a collect writes there (a second one into the same folder is refused)."""


@contextlib.contextmanager
def hold_collection(out_dir: Path) -> Iterator[None]:
    """Make ``out_dir`` (owner-only) and hold it for one collect: a second collect into it is refused in plain
    words, and the temporary files a killed collect left there (they hold unblinded records) are removed first."""
    from filelock import FileLock, Timeout

    make_output_folder(out_dir)
    lock = FileLock(str(out_dir / LOCK_NAME), timeout=0, mode=OWNER_ONLY, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise WmcdpError(f"another `wmcdp results collect` is writing into {out_dir}: wait for it to finish, or "
                         "collect into another folder") from None
    except OSError as exc:
        raise WmcdpError(f"cannot lock the output folder {out_dir}: {plain_os_error(exc)}") from None
    try:
        for folder in (out_dir, out_dir / CACHE_DIR):
            for orphan in orphan_temp_files(folder):  # only a killed collect leaves them: none runs here now
                with contextlib.suppress(OSError):
                    orphan.unlink()
        yield
    finally:
        lock.release()


SMALL_FILES = ("collect-report.json", "datapackage.json", "summary.json", "redcap-data-dictionary.csv")
"""Written after the tables, from their counts and SHA-256; replaced last (``collect-report.json`` the very
last: until it is, the SHA-256 it holds does not match new tables, and ``wmcdp report`` refuses them)."""


def write_outputs(result: CollectResult, out_dir: Path, *, excel_csv: bool = False, names: str = "original",
                  csv_na: str = "NA", progress: Callable[[int, int], None] | None = None) -> list[Path]:
    """Write every output file (owner-only), ``ratings-excel.csv`` when ``excel_csv``; returns their paths.
    ``names``: :data:`NAMES`; ``csv_na``: a key of :data:`CSV_NA`, how ``ratings.csv`` spells an N/A score;
    ``progress(done, total)`` hears the records written.
    Every file is complete in its temporary file before the first one replaces its previous version, so a
    failure leaves all the previous outputs. Fills in ``result.summary``; ``result.report["outputs"]`` gets the
    SHA-256 of every data file (``wmcdp report`` checks ``ratings.parquet`` against it) and
    ``result.report["parquet"]`` says when Parquet was not written."""
    make_output_folder(out_dir)
    key = result.key
    fm_ids = sorted(set().union(*(k.fm_ids for k in result.ratings))) if result.ratings else []
    columns = codebook.table_columns(fm_ids, key.rubric)
    rename = {c.name: c.safe for c in columns} if names == "r" else None
    header = [rename.get(c, c) for c in csv_columns(fm_ids)] if rename else csv_columns(fm_ids)
    split_of = {e.task_id: e.split for e in key.entries}
    na = CSV_NA[csv_na]
    clock = result.clock_suspect
    parquet = codebook.have_pyarrow()
    tables_in_order = ["ratings.jsonl", "ratings.csv", *([EXCEL_CSV_NAME] if excel_csv else []),
                       *([codebook.PARQUET_NAME, codebook.FM_PARQUET_NAME] if parquet else []),
                       codebook.QUARANTINE_CSV_NAME, *([codebook.QUARANTINE_PARQUET_NAME] if parquet else []),
                       "redcap-import.csv"]
    summary = _Summary(result)
    with contextlib.ExitStack() as stack:
        # Entered first, replaced last (an ExitStack unwinds in reverse).
        small = {name: stack.enter_context(atomic_writer(child_path(out_dir, name), mode=OWNER_ONLY))
                 for name in SMALL_FILES}
        paths = {name: child_path(out_dir, name) for name in tables_in_order}
        files = {name: stack.enter_context(atomic_writer(path, mode=OWNER_ONLY, sha256=True))
                 for name, path in paths.items()}
        jsonl = files["ratings.jsonl"]
        csv_out = _CsvOut(files["ratings.csv"], header)
        excel = _CsvOut(files[EXCEL_CSV_NAME], header, excel_safe=True) if excel_csv else None
        redcap = _CsvOut(files["redcap-import.csv"], codebook.redcap_header(columns))
        # The quarantine table: every record a check of whose provenance failed, and the coordinator's decision.
        quarantined = codebook.quarantine_rows(result.report)
        # A table for reading, like the report's: its texts (an export's file name is the sender's choice) never run
        # as a formula when it is double-clicked open; quarantine.parquet holds them exactly.
        files[codebook.QUARANTINE_CSV_NAME].write(codebook.quarantine_csv(
            [{k: excel_safe_cell(v) for k, v in row.items()} for row in quarantined]).encode("utf-8"))
        if parquet:
            files[codebook.QUARANTINE_PARQUET_NAME].write(codebook.parquet_bytes(
                codebook.quarantine_columns(), codebook.quarantine_data(quarantined), title="quarantine"))
        tables = None
        if parquet:
            tables = (codebook.ParquetOut(files[codebook.PARQUET_NAME], columns, title="ratings"),
                      codebook.ParquetOut(files[codebook.FM_PARQUET_NAME], codebook.fm_columns(), title="failure_modes"))
            for table in tables:  # closed before their files when something fails (their temp files are removed)
                stack.callback(_close_quietly, table)
        records = result.records
        for start in range(0, len(records), CHUNK):
            lines = list(result.lines(records[start:start + CHUNK]))
            jsonl.write(b"".join(lines))
            chunk = [json.loads(line) for line in lines]
            rows = [csv_row(r, fm_ids, split_of, result.revisions, na=na, clock_suspect=clock) for r in chunk]
            csv_out.add(rows)
            if excel is not None:
                excel.add(rows)
            data = codebook.table_data(chunk, columns, fm_ids, split_of, result.revisions, clock)
            redcap.add(list(codebook.redcap_rows(columns, data)))
            if tables is not None:
                tables[0].add(data)
                tables[1].add(codebook.failure_mode_rows(chunk, clock))
            for r in chunk:
                summary.add(r)
            if progress is not None:
                progress(min(start + CHUNK, len(records)), len(records))
        if tables is not None:
            for table in tables:
                table.close()
        hashes = {name: files[name].sha256() for name in tables_in_order}
        result.summary = summary.done()
        if parquet:
            result.report.pop("parquet", None)
        else:
            result.report["parquet"] = codebook.PYARROW_HINT
        blobs = {"redcap-data-dictionary.csv": codebook.redcap_dictionary(columns).encode("utf-8"),
                 "summary.json": dumps_canonical(result.summary).encode("utf-8")}
        for name, blob in blobs.items():
            hashes[name] = sha256_hex(blob)
        package = codebook.datapackage(columns, dict(hashes), csv_names="safe" if names == "r" else "original",
                                       study_id=key.study_id, csv_na=na)
        blobs["datapackage.json"] = codebook.json_text(package).encode("utf-8")
        hashes["datapackage.json"] = sha256_hex(blobs["datapackage.json"])
        result.report["outputs"] = dict(sorted(hashes.items()))
        result.report["csv_names"] = names
        result.report["csv_na"] = csv_na
        blobs["collect-report.json"] = dumps_canonical(result.report).encode("utf-8")
        for name in SMALL_FILES:
            small[name].write(blobs[name])
    written = [*tables_in_order[:-1], "redcap-data-dictionary.csv", "redcap-import.csv", "summary.json",
               "datapackage.json", "collect-report.json"]
    return [child_path(out_dir, name) for name in written]
