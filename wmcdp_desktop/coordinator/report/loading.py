"""Reading the collection and the study folder into one column-oriented :class:`Dataset`.

The report reads one input: the ``ratings.parquet`` ``wmcdp results collect`` wrote, checked against the
SHA-256 collect recorded (:mod:`~wmcdp_desktop.coordinator.report.collected_parquet`). The study folder is
read strictly through :mod:`wmcdp_desktop.core.documents` (no ad hoc JSON). A rating that breaks the rubric
is left out of every figure and listed in the report's notes; a file that cannot be read at all
(``ratings.parquet``, ``study.json``, ``rubric.json``) stops the command with a :class:`DocumentError` naming
the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.report.blinding_style import measure_rated
from wmcdp_desktop.coordinator.report.common import Note, StageProgress
from wmcdp_desktop.coordinator.report.dataset import Dataset, GoldResponses
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.documents import load_file, load_jsonl, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.files import MAX_JSONL_BYTES
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.strict_json import parse_json_bytes


def load_gold_responses(study_dir: Path, items: dict[str, BenchmarkItem], notes: list[Note]) -> GoldResponses:
    """For items naming ``goldResponseId``: that response's model and text, from ``responses/*.jsonl``."""
    wanted = {i: rid for i, item in items.items() if (rid := item.gold_response_id)}
    if not wanted:
        return {}
    found: dict[str, CandidateResponse] = {}
    for path in sorted((study_dir / "responses").glob("*.jsonl")):
        try:
            for resp in load_jsonl(CandidateResponse, read_file_bytes(path, max_bytes=MAX_JSONL_BYTES), str(path)):
                found.setdefault(resp.response_id, resp)
        except DocumentError as exc:
            notes.append(Note("gold", f"{path.name} could not be read ({exc.problems[0]}); items whose gold "
                                      "names a response in it are left out of the gold comparison."))
    out: GoldResponses = {}
    for item_id, rid in wanted.items():
        match = found.get(rid)
        if match is None or match.benchmark_item_id != item_id:
            out[item_id] = None
            notes.append(Note("gold", f"Item {item_id}: its goldResponseId {rid} was not found among its "
                                      "responses; the item is left out of the gold comparison."))
        else:
            out[item_id] = (match.model_source, match.text)
    return out


def load_study_and_rubric(study_dir: Path) -> tuple[Study, Rubric]:
    """study.json and rubric.json (both required: a DocumentError names the file)."""
    if not study_dir.is_dir():
        raise DocumentError.single(str(study_dir), "study folder not found")
    return load_file(Study, study_dir / "study.json"), load_file(Rubric, study_dir / "rubric.json")


def load_items(study_dir: Path) -> tuple[dict[str, BenchmarkItem], list[Note]]:
    """items/*.json by benchmark item id; bad or repeated items are noted and skipped."""
    notes: list[Note] = []
    items: dict[str, BenchmarkItem] = {}
    items_dir = study_dir / "items"
    if not items_dir.is_dir():
        notes.append(Note("gold", f"{items_dir} not found: no gold standard or calibration split is available."))
        return items, notes
    for path in sorted(items_dir.glob("*.json"), key=lambda p: p.name):  # one folder: by name (Path < is slow)
        try:
            item = load_file(BenchmarkItem, path)
        except DocumentError as exc:
            first = exc.problems[0]
            notes.append(Note("gold", f"item file skipped: {first}"
                              + (f" (and {count(len(exc.problems) - 1, 'more problem')})" if len(exc.problems) > 1 else "")))
            continue
        if item.benchmarkItemId in items:
            notes.append(Note("gold", f"{path.name}: benchmark item {item.benchmarkItemId} appears twice; the first file is used."))
            continue
        items[item.benchmarkItemId] = item
    return items, notes


ANALYSIS_INSTALL = 'pip install "wmcdp-desktop[analysis]"'
"""How to install what ``wmcdp results collect`` needs to write ratings.parquet (pyarrow, in the analysis extra)."""


def collected_folder_problem(collected_dir: Path) -> None:
    """Refuse, in plain words, a COLLECTED_DIR that is not the folder ``wmcdp results collect`` wrote, or one
    without the ``ratings.parquet`` the report reads (saying how to make it)."""
    what = "the folder `wmcdp results collect --out` wrote"
    if collected_dir.is_file():
        raise DocumentError.single(str(collected_dir), f"is a file, not a folder: give {what}")
    if not collected_dir.is_dir():
        raise DocumentError.single(str(collected_dir), f"folder not found: give {what}")
    if (collected_dir / "ratings.parquet").is_file():
        return
    if (collected_dir / "ratings.jsonl").is_file():
        raise DocumentError.single(
            str(collected_dir), "has no ratings.parquet, the file `wmcdp report` reads (it was collected without "
            f"pyarrow): install the analysis extra ({ANALYSIS_INSTALL}) and run `wmcdp results collect` again "
            f"with the same exports and key and --out {collected_dir}")
    raise DocumentError.single(str(collected_dir), f"holds no ratings.parquet: give {what} (with the analysis "
                               f"extra installed: {ANALYSIS_INSTALL})")


SHOWN_IN_NOTES = 20
"""Quarantined and accepted records named one by one in the report's header (all of them in collect-report.json)."""


def collection_notes(collected_dir: Path) -> list[Note]:
    """What collect left out or kept by the coordinator's decision, for the report's header: the quarantined
    records (a check of their provenance failed: not in this report), those accepted anyway (with the reason
    given), and the records whose times a wrong clock explains (in the report, flagged)."""
    path = collected_dir / "collect-report.json"
    try:
        obj = parse_json_bytes(read_file_bytes(path, str(path)), str(path))
    except DocumentError:
        return []
    if not isinstance(obj, dict):
        return []
    notes: list[Note] = []

    def rows(name: str) -> list[dict[str, Any]]:
        found = obj.get(name)
        return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []

    quarantined, accepted, clock = rows("quarantine"), rows("accepted"), rows("clock_suspect")
    if quarantined:
        named = "; ".join(f"{r.get('record_id')} ({r.get('rater_id')} on {r.get('task_id')}, from {r.get('export')}: "
                          f"{r.get('failed')})" for r in quarantined[:SHOWN_IN_NOTES])
        more = f"; and {len(quarantined) - SHOWN_IN_NOTES:,} more" if len(quarantined) > SHOWN_IN_NOTES else ""
        notes.append(Note("data", f"Quarantined by collect, NOT in this report: {count(len(quarantined), 'record')} "
                                  f"whose provenance failed a check ({named}{more}). collect-report.json says why; "
                                  "`wmcdp results collect ... --accept RECORD_ID --reason TEXT` counts one after all."))
    for r in accepted[:SHOWN_IN_NOTES]:
        notes.append(Note("data", f"Accepted by the coordinator although {r.get('failed')}: record {r.get('record_id')} "
                                  f"({r.get('rater_id')} on {r.get('task_id')}, from {r.get('export')}), because: "
                                  f"{r.get('accepted_because')}"))
    if len(accepted) > SHOWN_IN_NOTES:
        notes.append(Note("data", f"… and {len(accepted) - SHOWN_IN_NOTES:,} more accepted records (collect-report.json)."))
    if clock:
        notes.append(Note("data", f"{count(len(clock), 'record')} in this report {agree(len(clock), 'has', 'have')} "
                                  "times a wrong clock on the rater's computer explains (clock_suspect in "
                                  "collect-report.json); their scores count, their dates may be wrong."))
    return notes


def load_dataset(collected_dir: Path, study_dir: Path, *, progress: StageProgress | None = None) -> Dataset:
    """Read everything ``wmcdp report`` needs: the collection's ``ratings.parquet`` (checked against the SHA-256
    in ``collect-report.json`` before the study's items are read) and the study folder. ``progress`` hears how
    far the reading is (stage ``Reading ratings``)."""
    from wmcdp_desktop.coordinator.report.collected_parquet import dataset_from_parquet, verified_bytes

    collected_folder_problem(collected_dir)
    study, rubric = load_study_and_rubric(study_dir)
    verified_bytes(collected_dir)  # a changed file is refused before the study's items are read
    items, notes = load_items(study_dir)
    notes[:0] = collection_notes(collected_dir)
    gold = load_gold_responses(study_dir, items, notes)
    ds = dataset_from_parquet(collected_dir, rubric, study, items, notes, gold, progress)
    if ds.records_read == 0:
        raise DocumentError.single(str(collected_dir / "ratings.parquet"), "holds no ratings")
    measure_rated(study_dir, ds)
    return ds
