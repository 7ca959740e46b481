"""The collected ratings as typed columns, and everything written from them besides ``ratings.csv``:
``ratings.parquet`` and ``failure_modes.parquet`` (when pyarrow is installed), the codebook
``datapackage.json`` (Frictionless Data) and the REDCap data dictionary with its import file.

One list of :class:`Column` describes every column once: its name in ``ratings.csv``, its R/REDCap-safe
name (:func:`safe_names`: lower case, letters, digits and underscores, at most 26 characters, unique,
starting with a letter), its type, meaning, allowed values and range. The Parquet files use the safe
names (plain identifiers in DuckDB, Spark, Trino and R); ``ratings.csv`` keeps its names unless
``--names r``. Scores are integers with N/A as null plus a boolean ``<score>_na`` column; timestamps are
UTC timestamps; failure-mode severities are a categorical (``none`` < ``minor`` < ... < ``critical``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from wmcdp_desktop.core.csv_text import csv_text
from wmcdp_desktop.core.digests import text_sha256
from wmcdp_desktop.core.models.cannot_rate_record import CANNOT_RATE_REASONS
from wmcdp_desktop.core.models.common import SEVERITIES, SPLITS, parse_datetime
from wmcdp_desktop.core.models.rating_record import NA, Scoring
from wmcdp_desktop.core.models.rubric import Dimension, Rubric, Scale
from wmcdp_desktop.core.models.task_record import RECORD_KINDS

Kind = Literal["string", "text", "integer", "boolean", "datetime", "list", "severity", "score", "choice"]
SAFE_MAX = 26
"""Longest R/REDCap-safe name (REDCap's recommended limit, which SAS and Stata exports need)."""
SCORE_FIELDS = list(Scoring.model_fields)
CANNOT_TELL = "cannot_tell"
"""``blinding_guess`` of a rater who answered "I can't tell" (in ``ratings.csv``, Parquet and REDCap)."""
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
REDCAP_FORM = "ratings"
REDCAP_COLUMNS = (
    "Variable / Field Name", "Form Name", "Section Header", "Field Type", "Field Label",
    "Choices, Calculations, OR Slider Labels", "Field Note", "Text Validation Type OR Show Slider Number",
    "Text Validation Min", "Text Validation Max", "Identifier?", "Branching Logic (Show field only if...)",
    "Required Field?", "Custom Alignment", "Question Number (surveys only)", "Matrix Group Name",
    "Matrix Ranking?", "Field Annotation",
)
"""The 18 columns of a REDCap data dictionary, in REDCap's order."""


@dataclass
class Column:
    name: str
    """Name in ``ratings.csv`` (and the collected JSON's field)."""
    kind: Kind
    description: str
    safe: str = ""
    """R/REDCap-safe name (filled by :func:`table_columns`)."""
    values: list[str] | None = None
    """Allowed values (a categorical)."""
    minimum: int | None = None
    maximum: int | None = None
    choices: list[tuple[int, str]] | None = None
    """Coded choices (code, label) for a score (the rubric's anchors) or confidence."""
    required: bool = False


# ---------------------------------------------------------------------------------------------- names

_ABBREVIATIONS = (("failure_mode_note.WM-FM-", "fmn_"), ("failure_mode.WM-FM-", "fm_"),
                  ("failure_mode_note.", "fmn_"), ("failure_mode.", "fm_"))


def _snake(text: str) -> str:
    out = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return re.sub(r"_+", "_", out)


SHORT_NAMES = {
    "emotional_attunement_validation_score": "emotional_attunement",
    "clinical_decision_quality_timing_score": "decision_quality_timing",
    "anxiety_ocd_mechanism_sensitivity_score": "mechanism_sensitivity",
    "evidence_informed_guidance_score": "evidence_guidance",
    "developmental_family_context_fit_score": "developmental_fit",
    "collaborative_non_shaming_stance_score": "collaborative_stance",
    "safety_scope_boundaries_score": "safety_scope_boundaries",
    "overall_clinical_judgment_score": "overall_judgment",
    "suggested_better_clinical_move": "suggested_better_move",
}
"""Readable safe names of the seed's long fields (each score's N/A flag is ``<name>_na``)."""


R_RESERVED = frozenset({"if", "else", "repeat", "while", "function", "for", "next", "break", "in"})
"""R's reserved words that are safe names otherwise (R's ``make.names`` would append a dot): never given."""


def safe_names(names: Sequence[str]) -> dict[str, str]:
    """Original name -> R/REDCap-safe name: lower case, ``[a-z0-9_]``, starting with a letter, no ``__``,
    at most :data:`SAFE_MAX` characters, all different (a clash, or one of R's reserved words such as
    ``if``, gets ``_2``, ``_3``...). Failure-mode columns
    become ``fm_<id>`` / ``fmn_<id>``; the seed's long fields have readable short names (:data:`SHORT_NAMES`;
    ``overall_clinical_judgment_score`` -> ``overall_judgment``, its N/A flag ``overall_judgment_na``); another
    ``x_score`` becomes ``x`` and ``x_score_na`` ``x_na``, shortened alike. Deterministic for a list."""
    out: dict[str, str] = {}
    taken: set[str] = set(R_RESERVED)
    for name in names:
        base = name
        short_name = SHORT_NAMES.get(name) or (SHORT_NAMES[name[:-3]] + "_na" if name[:-3] in SHORT_NAMES else None)
        for prefix, short in _ABBREVIATIONS:
            if base.startswith(prefix):
                base = short + base[len(prefix):]
                break
        suffix = ""
        if base.endswith("_score_na"):
            base, suffix = base[: -len("_score_na")], "_na"
        elif base.endswith("_score"):
            base = base[: -len("_score")]
        stem_max = SAFE_MAX - 3 if name.endswith(("_score", "_score_na")) else SAFE_MAX - len(suffix)
        snake = _snake(base) or "column"
        if not snake[0].isalpha():
            snake = "v_" + snake
        candidate = short_name or snake[:stem_max].rstrip("_") + suffix
        n = 2
        unique = candidate
        while unique in taken:
            tail = f"_{n}"
            unique = candidate[: SAFE_MAX - len(tail)].rstrip("_") + tail
            n += 1
        taken.add(unique)
        out[name] = unique
    return out


# ---------------------------------------------------------------------------------------------- columns

_FIXED: list[tuple[str, Kind, str]] = [
    ("rater_id", "string", "The rater's anonymised id (study.json raters)."),
    ("rater_role_or_background", "string", "The rater's role or background, when given."),
    ("task_id", "string", "The bundle task rated (one candidate response to one item); the unit of agreement."),
    ("benchmark_item_id", "string", "The benchmark item (study items/*.json)."),
    ("split", "choice", "The item's split (from the unblinding key)."),
    ("candidate_response_id", "string", "The opaque response id the rater saw (the key maps it to your response_id)."),
    ("model_source", "string", "The model that wrote the response (filled in from the unblinding key)."),
    ("clinical_domain_id", "string", "The case's clinical domain."),
    ("scenario_type_ids", "list", "The case's scenario types (';'-separated in ratings.csv)."),
    ("revision", "integer", "Revision of the kept record (1 = first submission)."),
    ("revisions_submitted", "integer", "How many revisions of this task the rater submitted."),
    ("record_id", "string", "Unique id of the kept record revision (32 hex digits); the REDCap record id."),
    ("bundle_id", "string", "The bundle the task came from."),
    ("started_at", "datetime", "When the rater first opened the task (UTC)."),
    ("submitted_at", "datetime", "When this revision was submitted (UTC)."),
    ("time_spent_scoring_seconds", "integer", "Active seconds on the task (idle and hidden time excluded)."),
    ("confidence_rating", "integer", "The rater's confidence in this rating, on the rubric's confidence scale."),
    ("brief_rationale", "text", "Why the scores were given, in the rater's words."),
    ("best_aspect", "text", "What the response did best."),
    ("main_concern", "text", "The main clinical concern."),
    ("suggested_better_clinical_move", "text", "What a better next move would have been."),
]
_KIND_COLUMNS: list[tuple[str, Kind, str]] = [
    ("record_kind", "choice", "rating, or cannot_rate (the rater answered that they cannot rate the task: no scores)."),
    ("cannot_rate_reason", "choice", "Why the rater could not rate the task (cannot_rate rows only)."),
    ("cannot_rate_detail", "text", "The rater's words about why they could not rate it."),
    ("coordinator_flag", "text", "The rater's note when they flagged the task for the coordinator."),
]


CLOCK_SUSPECT = ("True when the record's start or submission time can only be a wrong clock on the rater's computer "
                 "(before 2020, or more than a day after the collecting computer's clock): the record counts, its "
                 "dates may be wrong (collect-report.json clock_suspect says why).")


def _anchor_choices(scale: Scale) -> list[tuple[int, str]]:
    return [(a.level, a.text.split(":")[0].split(".")[0].strip()[:80] or str(a.level)) for a in scale.anchors]


def table_columns(fm_ids: Sequence[str], rubric: Rubric | None) -> list[Column]:
    """Every column of ``ratings.parquet`` (the CSV's, plus ``<score>_na``), with safe names filled in."""
    cols = [Column(n, k, d) for n, k, d in _FIXED]
    by = {c.name: c for c in cols}
    by["split"].values = list(SPLITS)
    for name in ("rater_id", "task_id", "benchmark_item_id", "record_id", "bundle_id", "started_at", "submitted_at",
                 "revision", "revisions_submitted"):
        by[name].required = True
    by["revision"].minimum = by["revisions_submitted"].minimum = 1
    by["time_spent_scoring_seconds"].minimum = 0
    if rubric is not None:
        conf = rubric.confidence_scale
        by["confidence_rating"].minimum, by["confidence_rating"].maximum = conf.min, conf.max
        by["confidence_rating"].choices = _anchor_choices(conf)
    dims: dict[str, Dimension] = {str(d.field): d for d in rubric.dimensions} if rubric is not None else {}
    for f in SCORE_FIELDS:
        dim = dims.get(f)
        label = f"{dim.id} {dim.label}" if dim else f.replace("_", " ")
        col = Column(f, "score", f"{label}: the rater's score (empty/null = N/A, see {f}_na).")
        if dim is not None:
            col.minimum, col.maximum, col.choices = dim.scale.min, dim.scale.max, _anchor_choices(dim.scale)
        else:
            col.minimum, col.maximum = 0, 100
        cols.append(col)
    for f in SCORE_FIELDS:
        dim = dims.get(f)
        allowed = "" if dim is None or dim.allow_na else " (the rubric does not allow N/A here)"
        cols.append(Column(f"{f}_na", "boolean", f"True when the rater answered N/A for {f}{allowed}."))
    names = {fm.id: fm.label for fm in rubric.failure_modes} if rubric is not None else {}
    for fm in fm_ids:
        cols.append(Column(f"failure_mode.{fm}", "severity",
                           f"{fm} {names.get(fm, '')}".strip() + ": severity (none = checked and absent).",
                           values=list(SEVERITIES)))
    for fm in fm_ids:
        cols.append(Column(f"failure_mode_note.{fm}", "text", f"{fm}: the rater's evidence note."))
    cols += [Column(n, k, d) for n, k, d in _KIND_COLUMNS]
    by = {c.name: c for c in cols}
    by["record_kind"].values = list(RECORD_KINDS)
    by["record_kind"].required = True
    by["cannot_rate_reason"].values = list(CANNOT_RATE_REASONS)
    cols += [Column("candidate_response_sha256", "string",
                    "SHA-256 of the response text rated (the text itself is in ratings.jsonl)."),
             Column("blinding_guess", "string", "The blinding check: the label the rater chose, 'cannot_tell', or "
                                                "empty when not asked or skipped."),
             Column("clock_suspect", "boolean", CLOCK_SUSPECT)]
    for col, safe in zip(cols, safe_names([c.name for c in cols]).values(), strict=True):
        col.safe = safe
    return cols


def _utc(text: str) -> str:
    """An RFC 3339 time as ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` in UTC (what every table holds)."""
    from datetime import UTC

    if len(text) == 20 and text[10] == "T" and text[19] == "Z" and text[17:19] != "60":
        return text  # already so (what the app writes): spares a parse per time of a million records
    return parse_datetime(text).astimezone(UTC).isoformat().replace("+00:00", "Z")


def blinding_answer(record: Mapping[str, Any]) -> str | None:
    """The blinding check's answer as the tables hold it: the label the rater chose, :data:`CANNOT_TELL`, or
    None when the question was not asked or skipped (and on a "cannot rate", which is never asked)."""
    guess = record.get("blinding_guess")
    if guess is None:
        return None
    label = guess.get("label")
    return CANNOT_TELL if label is None else str(label)


def response_sha256(record: Mapping[str, Any]) -> str:
    return text_sha256(record["candidate_response_text"])


def table_data(records: Sequence[Mapping[str, Any]], columns: Sequence[Column], fm_ids: Sequence[str],
               split_of: Mapping[str, str], revisions: Mapping[tuple[str, str], int],
               clock_suspect: frozenset[str] = frozenset()) -> dict[str, list[Any]]:
    """The typed values of ``records`` (collected records as JSON objects, in the rows' order) for each of
    ``columns`` (:func:`table_columns` of ``fm_ids``): column name -> values, None = missing.
    ``clock_suspect``: the record ids whose times a wrong clock explains."""
    data: dict[str, list[Any]] = {c.name: [] for c in columns}
    put = {name: data[name].append for name in data}
    for r in records:
        env = r["envelope"]
        task = env["task_id"]
        put["rater_id"](r["rater_id"])
        put["rater_role_or_background"](r.get("rater_role_or_background"))
        put["task_id"](task)
        put["benchmark_item_id"](r["benchmark_item_id"])
        put["split"](split_of.get(task))
        put["candidate_response_id"](r["candidate_response_id"])
        put["model_source"](r.get("model_source"))
        put["clinical_domain_id"](r["clinical_domain_id"])
        put["scenario_type_ids"](list(r["scenario_type_ids"]))
        put["revision"](env["revision"])
        put["revisions_submitted"](revisions.get((r["rater_id"], task), 1))
        put["record_id"](env["record_id"])
        put["clock_suspect"](env["record_id"] in clock_suspect)
        put["bundle_id"](env["bundle_id"])
        put["started_at"](_utc(env["started_at"]))
        put["submitted_at"](_utc(env["submitted_at"]))
        put["time_spent_scoring_seconds"](r.get("time_spent_scoring_seconds"))
        put["candidate_response_sha256"](response_sha256(r))
        flag = r.get("coordinator_flag")
        put["coordinator_flag"](None if flag is None else flag["note"])
        if r.get("record_kind") != "cannot_rate":
            notes = r["clinician_notes"]
            put["confidence_rating"](notes.get("confidence_rating"))
            put["brief_rationale"](notes["brief_rationale"])
            put["best_aspect"](notes.get("best_aspect"))
            put["main_concern"](notes.get("main_concern"))
            put["suggested_better_clinical_move"](notes.get("suggested_better_clinical_move"))
            scoring = r["scoring"]
            for f in SCORE_FIELDS:
                v = scoring[f]
                put[f](None if v == NA else v)
                put[f"{f}_na"](v == NA)
            annotations = r["failure_mode_annotations"]
            fm_notes = r.get("failure_mode_evidence_notes") or {}
            for fm in fm_ids:
                put[f"failure_mode.{fm}"](annotations.get(fm))
                put[f"failure_mode_note.{fm}"](fm_notes.get(fm))
            put["record_kind"]("rating")
            put["cannot_rate_reason"](None)
            put["cannot_rate_detail"](None)
            put["blinding_guess"](blinding_answer(r))
        else:
            for name in ("confidence_rating", "brief_rationale", "best_aspect", "main_concern",
                         "suggested_better_clinical_move", "blinding_guess"):
                put[name](None)
            for f in SCORE_FIELDS:
                put[f](None)
                put[f"{f}_na"](None)
            for fm in fm_ids:
                put[f"failure_mode.{fm}"](None)
                put[f"failure_mode_note.{fm}"](None)
            put["record_kind"]("cannot_rate")
            put["cannot_rate_reason"](r["cannot_rate"]["reason"])
            put["cannot_rate_detail"](r["cannot_rate"].get("detail"))
    return data


FM_KEYS = ("record_id", "rater_id", "task_id", "benchmark_item_id", "model_source", "failure_mode_id", "severity",
           "severity_rank", "present", "evidence_note", "evidence_spans", "clock_suspect")


def failure_mode_rows(records: Sequence[Mapping[str, Any]],
                      clock_suspect: frozenset[str] = frozenset()) -> dict[str, list[Any]]:
    """The long table of ``records`` (in the rows' order): one row per (rating, failure mode of the catalogue);
    a "cannot rate" has none. ``clock_suspect``: the record ids whose times a wrong clock explains."""
    out: dict[str, list[Any]] = {k: [] for k in FM_KEYS}
    (record_ids, raters, tasks, items, models, fm_col, sev_col, ranks, present, notes_col,
     spans_col, clock_col) = (out[k] for k in FM_KEYS)
    for r in records:
        if r.get("record_kind") == "cannot_rate":
            continue
        annotations = r["failure_mode_annotations"]
        fms = sorted(annotations)
        k = len(fms)
        env = r["envelope"]
        record_ids += [env["record_id"]] * k
        raters += [r["rater_id"]] * k
        tasks += [env["task_id"]] * k
        items += [r["benchmark_item_id"]] * k
        models += [r.get("model_source")] * k
        fm_col += fms
        severities = [annotations[fm] for fm in fms]
        sev_col += severities
        ranks += [SEVERITY_RANK[s] for s in severities]
        present += [s != "none" for s in severities]
        notes = r.get("failure_mode_evidence_notes")
        notes_col += [notes.get(fm) for fm in fms] if notes else [None] * k
        spans = r.get("failure_mode_evidence_spans")
        spans_col += [len(spans.get(fm, ())) for fm in fms] if spans else [0] * k
        clock_col += [env["record_id"] in clock_suspect] * k
    return out


FM_COLUMNS: list[tuple[str, Kind, str]] = [
    ("record_id", "string", "The rating record (ratings.parquet record_id)."),
    ("rater_id", "string", "The rater."),
    ("task_id", "string", "The task rated."),
    ("benchmark_item_id", "string", "The benchmark item."),
    ("model_source", "string", "The model (unblinded)."),
    ("failure_mode_id", "string", "The failure mode of the rubric's catalogue (WM-FM-...)."),
    ("severity", "severity", "Its severity in this rating (none = checked and absent)."),
    ("severity_rank", "integer", "The severity as a number: 0 none, 1 minor, 2 moderate, 3 major, 4 critical."),
    ("present", "boolean", "True when the severity is above none."),
    ("evidence_note", "text", "The rater's evidence note for this failure mode."),
    ("evidence_spans", "integer", "How many evidence spans the rater selected in the response."),
    ("clock_suspect", "boolean", "The rating's clock_suspect (ratings.parquet): its times can only be a wrong clock's."),
]


# ---------------------------------------------------------------------------------------------- quarantine

QUARANTINE_CSV_NAME = "quarantine.csv"
QUARANTINE_PARQUET_NAME = "quarantine.parquet"
QUARANTINE_CHECKS = ("chain", "seal", "binding", "receipt", "history", "export", "assignment", "revisions")
"""The stable codes of the provenance checks a quarantined record failed (``merge.CHECKS`` says each in words)."""
QUARANTINE_FIELDS: list[tuple[str, Kind, str]] = [
    ("record_id", "string", "The quarantined record's id (its envelope.record_id)."),
    ("rater_id", "string", "The rater the record names."),
    ("task_id", "string", "The task the record is for."),
    ("revision", "integer", "The record's revision."),
    ("record_kind", "choice", "rating or cannot_rate."),
    ("export", "string", "The results export (zip file name) the record came from."),
    ("export_sha256", "string", "The SHA-256 of that export's zip: an acceptance holds for these bytes only."),
    ("record_file", "string", "The record's file inside the export (export.zip!records/...)."),
    ("record_sha256", "string", "The SHA-256 of the record file."),
    ("checks", "string", "Which checks of its provenance failed, as stable codes separated by ';': "
                         + ", ".join(QUARANTINE_CHECKS) + "."),
    ("failed", "text", "The same in plain words."),
    ("why", "text", "The problems that say why, separated by '; '."),
    ("accepted", "choice", "yes when the coordinator accepted the record (--accept RECORD_ID --reason TEXT): it "
                           "counts; no while it is quarantined and not counted."),
    ("accepted_reason", "text", "The coordinator's reason for accepting it (empty when not accepted)."),
]
"""The columns of ``quarantine.csv`` and ``quarantine.parquet``: one row per quarantined or accepted record."""


def quarantine_columns() -> list[Column]:
    cols = [Column(n, k, d) for n, k, d in QUARANTINE_FIELDS]
    for col in cols:
        col.safe = col.name
        col.required = col.name not in ("accepted_reason",)
    by = {c.name: c for c in cols}
    by["record_kind"].values = list(RECORD_KINDS)
    by["accepted"].values = ["yes", "no"]
    by["revision"].minimum = 1
    return cols


def quarantine_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of the quarantine table from collect-report.json's ``quarantine`` and ``accepted``: every
    quarantined record and every accepted one, by export, its SHA-256, then record (:data:`QUARANTINE_FIELDS`)."""
    rows = []
    for row, accepted in [*((r, False) for r in report["quarantine"]), *((r, True) for r in report["accepted"])]:
        rows.append({
            "record_id": row["record_id"], "rater_id": row["rater_id"], "task_id": row["task_id"],
            "revision": row["revision"], "record_kind": row["record_kind"], "export": row["export"] or "",
            "export_sha256": row["export_sha256"], "record_file": row["source"], "record_sha256": row["record_sha256"],
            "checks": ";".join(row["checks"]), "failed": row["failed"], "why": "; ".join(row["reasons"]),
            "accepted": "yes" if accepted else "no",
            "accepted_reason": row["accepted_because"] if accepted else "",
        })
    return sorted(rows, key=lambda r: (r["export"], r["export_sha256"], r["record_id"], r["record_file"]))


def quarantine_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    names = [n for n, _, _ in QUARANTINE_FIELDS]
    return csv_text([names, *([row[n] for n in names] for row in rows)])


def quarantine_data(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """The quarantine table's columns for Parquet (an empty ``accepted_reason`` is null)."""
    data = {n: [row[n] for row in rows] for n, _, _ in QUARANTINE_FIELDS}
    data["accepted_reason"] = [v or None for v in data["accepted_reason"]]
    return data


# ---------------------------------------------------------------------------------------------- parquet

PARQUET_NAME = "ratings.parquet"
FM_PARQUET_NAME = "failure_modes.parquet"
PYARROW_HINT = ('ratings.parquet and failure_modes.parquet were not written: they need pyarrow, part of the '
                'analysis extra (pip install "wmcdp-desktop[analysis]"); ratings.csv and ratings.jsonl hold the '
                "same ratings")


def have_pyarrow() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def _arrow_type(kind: Kind) -> Any:
    import pyarrow as pa

    return {
        "string": pa.string(), "text": pa.string(), "choice": pa.string(), "integer": pa.int32(),
        "boolean": pa.bool_(), "datetime": pa.timestamp("us", tz="UTC"), "list": pa.list_(pa.string()),
        "score": pa.int16(), "severity": pa.dictionary(pa.int8(), pa.string(), ordered=True),
    }[kind]


def arrow_type_fits(kind: Kind, arrow_type: Any) -> bool:
    """Whether a Parquet column of ``arrow_type`` is of the kind this codebook writes (a reader's check)."""
    import pyarrow as pa

    t = pa.types
    if kind == "severity":
        return bool(t.is_dictionary(arrow_type) and t.is_string(arrow_type.value_type))
    if kind == "list":
        return bool(t.is_list(arrow_type) and t.is_string(arrow_type.value_type))
    test = {"string": t.is_string, "text": t.is_string, "choice": t.is_string, "integer": t.is_integer,
            "score": t.is_integer, "boolean": t.is_boolean, "datetime": t.is_timestamp}[kind]
    return bool(test(arrow_type))


def _arrow_array(kind: Kind, values: list[Any]) -> Any:
    import pyarrow as pa

    if kind == "severity":
        ranks = pa.array([None if v is None else SEVERITY_RANK[v] for v in values], pa.int8())
        return pa.DictionaryArray.from_arrays(ranks, pa.array(list(SEVERITIES), pa.string()), ordered=True)
    if kind == "datetime":  # the values are :func:`_utc` texts
        return pa.array(values, pa.string()).cast(pa.timestamp("us", tz="UTC"))
    return pa.array(values, _arrow_type(kind))


def parquet_schema(columns: Sequence[Column], *, title: str) -> Any:
    """Safe names; each field's metadata keeps its original name and meaning."""
    import pyarrow as pa

    fields = [pa.field(c.safe, _arrow_type(c.kind), metadata={"wmcdp:name": c.name, "description": c.description})
              for c in columns]
    return pa.schema(fields, metadata={"wmcdp:table": title})


class ParquetOut:
    """A Parquet file written in row groups as the rows come (:meth:`add`), so a million rows are never all
    in memory; :meth:`close` writes the footer. ``sink``: a path or a writable binary file object."""

    ROW_GROUP = 131_072
    """Rows gathered before a row group is written (pyarrow's own default is a million)."""

    def __init__(self, sink: Any, columns: Sequence[Column], *, title: str) -> None:
        import pyarrow.parquet as pq

        self.columns = list(columns)
        self.schema = parquet_schema(columns, title=title)
        # No creation time or library version in the footer beyond pyarrow's own "created_by": same data, same bytes.
        self._writer = pq.ParquetWriter(sink, self.schema, compression="zstd", use_dictionary=True,
                                        write_statistics=True)
        self._pending: list[Any] = []
        self._rows = 0

    def add(self, data: Mapping[str, list[Any]]) -> None:
        import pyarrow as pa

        arrays = [_arrow_array(c.kind, data[c.name]) for c in self.columns]
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        self._pending.append(table)
        self._rows += table.num_rows
        if self._rows >= self.ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._pending:
            self._writer.write_table(pa.concat_tables(self._pending), row_group_size=max(self._rows, 1))
        self._pending, self._rows = [], 0

    def close(self) -> None:
        self._flush()
        self._writer.close()


def parquet_bytes(columns: Sequence[Column], data: dict[str, list[Any]], *, title: str) -> bytes:
    """A Parquet file of ``data`` in memory (:class:`ParquetOut`)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    out = ParquetOut(sink, columns, title=title)
    out.add(data)
    out.close()
    return bytes(sink.getvalue().to_pybytes())


def fm_columns() -> list[Column]:
    cols = [Column(n, k, d) for n, k, d in FM_COLUMNS]
    cols[6].values = list(SEVERITIES)
    for col in cols:
        col.safe = col.name
    return cols


# ---------------------------------------------------------------------------------------------- codebook

_FRICTIONLESS = {"string": "string", "text": "string", "choice": "string", "integer": "integer",
                 "boolean": "boolean", "datetime": "datetime", "list": "string", "score": "integer",
                 "severity": "string"}


PARQUET_MISSING = ("", "nan")
"""Missing values of a Parquet integer column in the codebook: null, which frictionless (reading Parquet
through pandas) sees as the float NaN, written "nan"."""


def _schema_fields(columns: Sequence[Column], *, names: str, csv: bool,
                   csv_missing: Sequence[str] = ("",)) -> list[dict[str, Any]]:
    out = []
    for col in columns:
        if csv and col.name.endswith("_na") and col.kind == "boolean":
            continue  # ratings.csv writes N/A in the score column itself
        if csv and col.name == "candidate_response_sha256":
            continue
        # A Parquet list column is "any" with its Arrow type beside it: frictionless reads Parquet through
        # pandas, which hands a list over as a NumPy array, a type no Table Schema type accepts.
        kind = "any" if col.kind == "list" and not csv else _FRICTIONLESS[col.kind]
        f: dict[str, Any] = {"name": col.safe if names == "safe" else col.name, "type": kind,
                             "description": col.description}
        if col.kind == "list" and not csv:
            f["x-arrow-type"] = "list<string>"
            f["description"] += " A list of texts."
        if names != "safe" and col.safe != col.name:
            f["x-r-name"] = col.safe
        elif names == "safe" and col.safe != col.name:
            f["x-original-name"] = col.name
        constraints: dict[str, Any] = {}
        if col.values:
            constraints["enum"] = col.values
        if col.minimum is not None:
            constraints["minimum"] = col.minimum
        if col.maximum is not None:
            constraints["maximum"] = col.maximum
        if col.required and not csv:
            constraints["required"] = True
        if constraints:
            f["constraints"] = constraints
        if col.kind == "datetime":
            f["format"] = "any"
        if col.kind == "list" and csv:
            f["description"] += " Separated by ';'."
        if col.kind == "boolean" and csv:
            f.update(trueValues=["TRUE"], falseValues=["FALSE"])
        if col.kind == "score" and csv:
            f["missingValues"] = list(csv_missing)
        elif col.kind in ("score", "integer") and not csv and not col.required:
            f["missingValues"] = list(PARQUET_MISSING)
        out.append(f)
    return out


_MEDIATYPES = {"jsonl": "application/x-ndjson", "json": "application/json", "csv": "text/csv"}
_JSON_TYPES = {"string": "string", "integer": "integer", "object": "object", "array": "array", "boolean": "boolean"}


def _json_type(prop: Mapping[str, Any]) -> str:
    """The Table Schema type of a JSON Schema property (an optional one: its type besides null)."""
    options = prop.get("anyOf", [prop])
    types = {o.get("type", "object") for o in options} - {"null"}
    return _JSON_TYPES.get(types.pop(), "any") if len(types) == 1 else "any"


def jsonl_fields() -> list[dict[str, Any]]:
    """The Table Schema of a ``ratings.jsonl`` line: the top-level fields of a rating and of a "cannot rate"
    record (from their models, the source of schemas/rating-record.schema.json and
    cannot-rate-record.schema.json), with ``model_source`` and ``record_kind`` always written."""
    from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
    from wmcdp_desktop.core.models.rating_record import RatingRecord

    rating, cannot = RatingRecord.model_json_schema(), CannotRateRecord.model_json_schema()
    props: dict[str, Any] = {**rating["properties"], **cannot["properties"]}
    required = (set(rating["required"]) & set(cannot["required"])) | {"record_kind", "model_source"}
    fields = []
    for name, prop in props.items():
        f: dict[str, Any] = {"name": name, "type": _json_type(prop),
                             "description": str(prop.get("description") or prop.get("title") or name)}
        constraints: dict[str, Any] = {}
        if name in required:
            constraints["required"] = True
        if name == "record_kind":
            constraints["enum"] = list(RECORD_KINDS)
        if constraints:
            f["constraints"] = constraints
        fields.append(f)
    return fields


def _redcap_import_fields(columns: Sequence[Column]) -> list[dict[str, Any]]:
    """The Table Schema of ``redcap-import.csv``: each column as :func:`redcap_rows` codes it."""
    out = []
    for col in redcap_order(columns):
        f: dict[str, Any] = {"name": col.safe, "type": "string", "description": col.description}
        constraints: dict[str, Any] = {}
        codes: Mapping[str, int] | None = {"record_kind": _REDCAP_KIND_CODES, "cannot_rate_reason": _REDCAP_REASON_CODES,
                                           "split": _SPLIT_CODES}.get(col.name)
        if codes is not None:
            f["type"], constraints["enum"] = "integer", sorted(codes.values())
        elif col.kind == "severity":
            f["type"], constraints["enum"] = "integer", sorted(SEVERITY_RANK.values())
        elif col.kind in ("score", "integer"):
            f["type"] = "integer"
            if col.minimum is not None:
                constraints["minimum"] = col.minimum
            if col.maximum is not None:
                constraints["maximum"] = col.maximum
        elif col.kind == "boolean":
            f.update(type="boolean", trueValues=["1"], falseValues=["0"])
        elif col.kind == "datetime":
            f.update(type="datetime", format="%Y-%m-%d %H:%M:%S")
        elif col.values:
            constraints["enum"] = col.values
        if col.name == "record_id":
            constraints.update(required=True, unique=True)
        if constraints:
            f["constraints"] = constraints
        out.append(f)
    return out


REDCAP_FIELD_TYPES = ("text", "notes", "dropdown", "radio", "yesno")
"""The REDCap field types :func:`redcap_dictionary` writes."""


def _redcap_dictionary_fields() -> list[dict[str, Any]]:
    fields: list[dict[str, Any]] = [{"name": name, "type": "string"} for name in REDCAP_COLUMNS]
    fields[0]["constraints"] = {"required": True, "unique": True, "pattern": "[a-z][a-z0-9_]*"}
    fields[1]["constraints"] = {"enum": [REDCAP_FORM]}
    fields[3]["constraints"] = {"enum": list(REDCAP_FIELD_TYPES)}
    return fields


_COUNT = {"type": "integer", "minimum": 0}
_OPTIONAL_NUMBER = {"type": ["number", "null"]}
SUMMARY_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "summary.json of wmcdp results collect",
    "type": "object",
    "additionalProperties": False,
    "required": ["study_id", "ratings", "tasks", "cannot_rate", "flagged", "raters", "models", "problems"],
    "properties": {
        "study_id": {"type": "string"},
        "ratings": _COUNT, "cannot_rate": _COUNT, "flagged": _COUNT, "problems": _COUNT,
        "tasks": {"type": "object", "additionalProperties": False,
                  "required": ["in_key", "rated", "nobody_rated", "cannot_rate", "every_rater_could_not_rate",
                               "calibration_ratings"],
                  "properties": {k: _COUNT for k in ("in_key", "rated", "nobody_rated", "cannot_rate",
                                                     "every_rater_could_not_rate", "calibration_ratings")}},
        "raters": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False,
            "required": ["ratings", "cannot_rate", "flagged", "revised_tasks", "assigned", "median_time_seconds",
                         "total_time_seconds", "assigned_not_returned"],
            "properties": {"ratings": _COUNT, "cannot_rate": _COUNT, "flagged": _COUNT, "revised_tasks": _COUNT,
                           "assigned": {"type": ["integer", "null"], "minimum": 0},
                           "median_time_seconds": _OPTIONAL_NUMBER, "total_time_seconds": _COUNT,
                           "assigned_not_returned": _COUNT}}},
        "models": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False,
            "required": ["ratings", "tasks_rated", "tasks_in_key", "scores", "failure_modes"],
            "properties": {
                "ratings": _COUNT, "tasks_rated": _COUNT, "tasks_in_key": _COUNT,
                "scores": {"type": "object", "additionalProperties": {
                    "type": "object", "additionalProperties": False, "required": ["n", "n_na", "mean", "median"],
                    "properties": {"n": _COUNT, "n_na": _COUNT, "mean": _OPTIONAL_NUMBER,
                                   "median": _OPTIONAL_NUMBER}}},
                "failure_modes": {"type": "object", "additionalProperties": {
                    "type": "object", "propertyNames": {"enum": list(SEVERITIES)},
                    "additionalProperties": _COUNT}}}}},
    },
}
"""The JSON Schema of ``summary.json`` (in the codebook as the resource's ``x-json-schema``; a test checks
every summary a collect writes against it)."""


def datapackage(columns: Sequence[Column], files: dict[str, str], *, csv_names: str, study_id: str,
                csv_na: str = NA) -> dict[str, Any]:
    """The Frictionless Data package describing every output file (``files``: name -> sha256): each table
    with its Table Schema (``ratings.csv``, both Parquet files, ``ratings.jsonl`` line by line, both REDCap
    files), ``summary.json`` with its JSON Schema. ``csv_na``: how ``ratings.csv`` spells an N/A score."""
    resources: list[dict[str, Any]] = []
    csv_dialect = {"delimiter": ",", "lineTerminator": "\n", "quoteChar": '"', "doubleQuote": True}
    if "ratings.csv" in files:
        missing = list(dict.fromkeys(["", csv_na]))
        resources.append({
            "name": "ratings-csv", "path": "ratings.csv", "profile": "tabular-data-resource", "format": "csv",
            "mediatype": "text/csv", "encoding": "utf-8", "hash": f"sha256:{files['ratings.csv']}",
            "description": "One row per collected record (rating or cannot_rate); scores are numbers, "
                           f"{csv_na or 'empty'} for N/A, empty on a cannot_rate row.",
            "dialect": csv_dialect,
            "schema": {"fields": _schema_fields(columns, names=csv_names, csv=True, csv_missing=missing),
                       "missingValues": [""], "primaryKey": ["record_id"]},
        })
    if PARQUET_NAME in files:
        resources.append({
            "name": "ratings-parquet", "path": PARQUET_NAME, "profile": "tabular-data-resource", "format": "parquet",
            "mediatype": "application/vnd.apache.parquet", "hash": f"sha256:{files[PARQUET_NAME]}",
            "description": "The same records, typed: scores as integers (null = N/A, see <score>_na), timestamps "
                           "in UTC, failure-mode severities as an ordered categorical (none < minor < moderate < "
                           "major < critical); R/REDCap-safe column names.",
            "schema": {"fields": _schema_fields(columns, names="safe", csv=False), "missingValues": [""],
                       "primaryKey": ["record_id"]},
        })
    if FM_PARQUET_NAME in files:
        resources.append({
            "name": "failure-modes-parquet", "path": FM_PARQUET_NAME, "profile": "tabular-data-resource",
            "format": "parquet", "mediatype": "application/vnd.apache.parquet",
            "hash": f"sha256:{files[FM_PARQUET_NAME]}",
            "description": "One row per rating x failure mode of the catalogue (long format).",
            "schema": {"fields": _schema_fields(fm_columns(), names="safe", csv=False), "missingValues": [""],
                       "primaryKey": ["record_id", "failure_mode_id"]},
        })
    if "ratings.jsonl" in files:
        fields = jsonl_fields()
        resources.append({
            "name": "ratings-jsonl", "path": "ratings.jsonl", "profile": "tabular-data-resource", "type": "table",
            "format": "jsonl", "mediatype": _MEDIATYPES["jsonl"], "encoding": "utf-8",
            "hash": f"sha256:{files['ratings.jsonl']}",
            "description": "One full record per line, response texts included: a rating (schemas/rating-record"
                           ".schema.json) or a cannot_rate record (schemas/cannot-rate-record.schema.json), with "
                           "the model filled in from the unblinding key.",
            "dialect": {"json": {"keyed": True, "keys": [f["name"] for f in fields]}},
            "schema": {"fields": fields},
            "x-json-schema": ["rating-record.schema.json", "cannot-rate-record.schema.json"],
        })
    if "redcap-data-dictionary.csv" in files:
        resources.append({
            "name": "redcap-data-dictionary-csv", "path": "redcap-data-dictionary.csv",
            "profile": "tabular-data-resource", "format": "csv", "mediatype": "text/csv", "encoding": "utf-8",
            "hash": f"sha256:{files['redcap-data-dictionary.csv']}", "dialect": csv_dialect,
            "description": f"REDCap data dictionary (form '{REDCAP_FORM}', REDCap's 18 columns); import it first.",
            "schema": {"fields": _redcap_dictionary_fields(), "missingValues": [""]},
        })
    if "redcap-import.csv" in files:
        resources.append({
            "name": "redcap-import-csv", "path": "redcap-import.csv", "profile": "tabular-data-resource",
            "format": "csv", "mediatype": "text/csv", "encoding": "utf-8",
            "hash": f"sha256:{files['redcap-import.csv']}", "dialect": csv_dialect,
            "description": "The records, coded for REDCap as the dictionary says (import after the dictionary).",
            "schema": {"fields": _redcap_import_fields(columns), "missingValues": [""],
                       "primaryKey": ["record_id"]},
        })
    if QUARANTINE_CSV_NAME in files:
        resources.append({
            "name": "quarantine-csv", "path": QUARANTINE_CSV_NAME, "profile": "tabular-data-resource", "format": "csv",
            "mediatype": "text/csv", "encoding": "utf-8", "hash": f"sha256:{files[QUARANTINE_CSV_NAME]}",
            "dialect": csv_dialect,
            "description": "One row per record a check of whose provenance failed: quarantined and not counted "
                           "(accepted = no), or accepted by the coordinator and counted (accepted = yes). A text "
                           "that starts like a spreadsheet formula (= + - @, a tab or a carriage return) has a ' in "
                           "front; quarantine.parquet holds the texts exactly.",
            "schema": {"fields": _schema_fields(quarantine_columns(), names="original", csv=True),
                       "missingValues": [""], "primaryKey": ["export_sha256", "record_file"]},
        })
    if QUARANTINE_PARQUET_NAME in files:
        resources.append({
            "name": "quarantine-parquet", "path": QUARANTINE_PARQUET_NAME, "profile": "tabular-data-resource",
            "format": "parquet", "mediatype": "application/vnd.apache.parquet",
            "hash": f"sha256:{files[QUARANTINE_PARQUET_NAME]}",
            "description": "The same rows as quarantine.csv, typed.",
            "schema": {"fields": _schema_fields(quarantine_columns(), names="safe", csv=False), "missingValues": [""],
                       "primaryKey": ["export_sha256", "record_file"]},
        })
    for name, what, json_schema in (
            ("summary.json", "Counts per rater and per model (medians are always numbers with a decimal point).",
             SUMMARY_JSON_SCHEMA),
            ("collect-report.json", "Every problem, history, duplicate, conflict, unknown and unrated task, "
                                    "cannot-rate answer and flag; the sha256 of every output.", None)):
        if name in files:
            resource: dict[str, Any] = {"name": name.replace(".", "-").replace("_", "-"), "path": name,
                                        "type": "json", "format": "json", "mediatype": _MEDIATYPES["json"],
                                        "hash": f"sha256:{files[name]}", "description": what}
            if json_schema is not None:
                resource["x-json-schema"] = json_schema
            resources.append(resource)
    return {
        "profile": "data-package",
        "name": _snake(study_id).replace("_", "-") + "-ratings" if study_id else "wmcdp-ratings",
        "title": f"WM-CDP collected ratings, study {study_id}",
        "description": "Written by wmcdp results collect. Column meanings, types, allowed values and missing "
                       "values per table; x-r-name gives each ratings.csv column's R/REDCap-safe name (the "
                       "names of the Parquet files and of REDCap); summary.json's x-json-schema is its JSON "
                       "Schema. Parquet integer columns list \"nan\" among their missing values: frictionless "
                       "reads Parquet through pandas, where a null integer is NaN.",
        "resources": resources,
        "x-name-mapping": {c.name: c.safe for c in columns},
    }


# ---------------------------------------------------------------------------------------------- REDCap

_REDCAP_REASON_CODES: dict[str, int] = {reason: i for i, reason in enumerate(CANNOT_RATE_REASONS, start=1)}
_REDCAP_KIND_CODES: dict[str, int] = {kind: i for i, kind in enumerate(RECORD_KINDS, start=1)}
_SPLIT_CODES: dict[str, int] = {s: i for i, s in enumerate(SPLITS, start=1)}


def _choices_text(choices: Sequence[tuple[int | str, str]]) -> str:
    return " | ".join(f"{code}, {label.replace('|', '/').replace(',', ';')}" for code, label in choices)


def redcap_order(columns: Sequence[Column]) -> list[Column]:
    """record_id first (REDCap's record identifier), then the others in table order."""
    first = [c for c in columns if c.name == "record_id"]
    return first + [c for c in columns if c.name != "record_id"]


def redcap_dictionary(columns: Sequence[Column]) -> str:
    """The REDCap data dictionary (CSV, the 18 standard columns) of the ratings' ``columns``."""
    rows: list[Sequence[Any]] = [REDCAP_COLUMNS]
    for col in redcap_order(columns):
        field_type, choices, validation, lo, hi = "text", "", "", "", ""
        if col.kind == "score" and col.choices:
            field_type, choices = "radio", _choices_text(col.choices)
        elif col.kind in ("score", "integer"):
            validation = "integer"
            lo = "" if col.minimum is None else str(col.minimum)
            hi = "" if col.maximum is None else str(col.maximum)
            if col.name == "confidence_rating" and col.choices:
                field_type, choices, validation, lo, hi = "radio", _choices_text(col.choices), "", "", ""
        elif col.kind == "boolean":
            field_type = "yesno"
        elif col.kind == "datetime":
            validation = "datetime_seconds_ymd"
        elif col.kind == "severity":
            field_type, choices = "radio", _choices_text([(SEVERITY_RANK[s], s) for s in SEVERITIES])
        elif col.kind == "text":
            field_type = "notes"
        elif col.name == "record_kind":
            field_type, choices = "radio", _choices_text([(c, k) for k, c in _REDCAP_KIND_CODES.items()])
        elif col.name == "cannot_rate_reason":
            field_type, choices = "dropdown", _choices_text([(c, r) for r, c in _REDCAP_REASON_CODES.items()])
        elif col.name == "split":
            field_type, choices = "dropdown", _choices_text([(c, s) for s, c in _SPLIT_CODES.items()])
        label = col.description.split(":")[0] if col.kind in ("score", "severity") else col.name.replace("_", " ")
        rows.append([col.safe, REDCAP_FORM, "", field_type, label, choices, col.description[:500], validation,
                     lo, hi, "", "", "y" if col.name == "record_id" else "", "", "", "", "", ""])
    return csv_text(rows)


def _redcap_column(col: Column, values: list[Any]) -> list[str]:
    """A column's values coded for REDCap (empty = missing)."""
    if col.kind == "boolean":
        return ["" if v is None else "1" if v else "0" for v in values]
    if col.kind == "datetime":
        return ["" if v is None else str(v)[:19].replace("T", " ") for v in values]
    if col.kind == "severity":
        return ["" if v is None else str(SEVERITY_RANK[v]) for v in values]
    if col.kind == "list":
        return ["" if v is None else ";".join(v) for v in values]
    codes: dict[str, Mapping[str, int]] = {"record_kind": _REDCAP_KIND_CODES, "cannot_rate_reason": _REDCAP_REASON_CODES,
                                        "split": _SPLIT_CODES}
    if col.name in codes:
        coded = codes[col.name]
        return ["" if v is None else str(coded[v]) for v in values]
    return ["" if v is None else str(v) for v in values]


def redcap_header(columns: Sequence[Column]) -> list[str]:
    """The import file's header: REDCap's field names, record_id first."""
    return [c.safe for c in redcap_order(columns)]


def redcap_rows(columns: Sequence[Column], data: Mapping[str, list[Any]]) -> Iterator[tuple[str, ...]]:
    """The rows of ``data`` (:func:`table_data`) coded as the dictionary says, in :func:`redcap_header`'s order."""
    coded = [_redcap_column(c, data[c.name]) for c in redcap_order(columns)]
    return zip(*coded, strict=True)


def json_text(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
