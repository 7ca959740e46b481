"""Loading a coordinator's study folder and checking every cross-reference (``wmcdp study validate``).

Folder layout (FORMATS.md section 2): ``study.json``, ``rubric.json``, ``items/*.json``,
``cases/*.json``, ``responses/*.jsonl``. :func:`load_study` reads everything, validates each document
against its model and then checks that:

- every item's ``caseRef`` names an existing case with that version (and its file's SHA-256 when given);
- every item's ``contractRef`` names the study's rubric id and version;
- every ``criterionId`` in ``goldStandard.criterionGold`` is a rubric dimension or failure mode;
- every candidate response names an existing item;
- ``metadata.goldResponseId`` (the response an item's gold describes), when given, is a response to
  that item;
- no id is used twice (items, case id+version, response ids, criterion ids within an item);
- ``rater_splits`` does not list ``held_out_project`` (never sent to raters; the leakage rule).

All problems are collected and reported at once, each with file and JSON path. Warnings are things a
coordinator should look at but that do not stop a build (an item that will be sent has no response, a
model name too short to be checked for leaks...).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from wmcdp_desktop.core.coordinator.leak_normalise import skeleton
from wmcdp_desktop.core.documents import load_bytes, load_jsonl, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.case import Case
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study

M = TypeVar("M", bound=BaseModel)

CALIBRATION_SPLIT = "calibration"
"""Items of this split carry calibration feedback (shown to the rater after submitting)."""
NEVER_SENT_SPLIT = "held_out_project"
"""Items in this split are never sent to raters, whatever ``rater_splits`` says (leakage rule)."""
MAX_LABEL = 80
"""Longest blinding-check label (it is a button's text)."""


@dataclass(frozen=True)
class LoadedResponse:
    response: CandidateResponse
    source: str
    """``responses/x.jsonl:LINE``."""


@dataclass
class LoadedStudy:
    """A study folder, read and cross-checked."""

    root: Path
    study: Study
    study_bytes: bytes
    rubric: Rubric
    rubric_bytes: bytes
    items: dict[str, BenchmarkItem]
    """By ``benchmarkItemId``, sorted by id."""
    item_sources: dict[str, str]
    cases: dict[tuple[str, str], Case]
    """By ``(case_id, case_version)``."""
    case_sha256: dict[tuple[str, str], str]
    case_sources: dict[tuple[str, str], str]
    """Study-relative file of each case."""
    responses: list[LoadedResponse]
    """In file and line order."""
    warnings: list[Problem] = field(default_factory=list)

    def item_case(self, item: BenchmarkItem) -> Case:
        return self.cases[(item.caseRef.caseId, item.caseRef.caseVersion)]

    def leave_out_reason(self, item: BenchmarkItem, splits: list[str] | None = None) -> str | None:
        """Why ``item`` is not sent to raters (``None`` = it is sent). The leakage rule lives here."""
        wanted = splits if splits is not None else list(self.study.rater_splits)
        if item.exclusionReason is not None:
            return "excluded (exclusionReason is set)"
        if item.split == NEVER_SENT_SPLIT:
            return "split held_out_project is never sent to raters"
        if item.leakageControl.heldOutProject:
            return "leakageControl.heldOutProject is true"
        if item.split not in wanted:
            return f"split {item.split} is not in the study's rater_splits"
        return None

    def responses_by_item(self) -> dict[str, list[CandidateResponse]]:
        out: dict[str, list[CandidateResponse]] = {}
        for loaded in self.responses:
            out.setdefault(loaded.response.benchmark_item_id, []).append(loaded.response)
        return out

    def counts(self) -> dict[str, int]:
        sent = [i for i in self.items.values() if self.leave_out_reason(i) is None]
        by_item = self.responses_by_item()
        return {
            "raters": len(self.study.raters),
            "items": len(self.items),
            "items_sent": len(sent),
            "cases": len(self.cases),
            "responses": len(self.responses),
            "tasks": sum(len(by_item.get(i.benchmarkItemId, [])) for i in sent),
            "models": len({r.response.model_source for r in self.responses}),
        }


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _files(root: Path, folder: str, pattern: str, problems: list[Problem]) -> list[Path]:
    base = root / folder
    if not base.is_dir():
        problems.append(Problem(f"{folder}/", "", "folder is missing"))
        return []
    found = []
    for path in sorted(base.glob(pattern)):
        if path.is_symlink():
            problems.append(Problem(_rel(root, path), "", "is a symbolic link; put the real file in the study folder"))
        elif path.is_file():
            found.append(path)
    if not found:
        problems.append(Problem(f"{folder}/", "", f"holds no {pattern} files"))
    return found


def _load(
    model: type[M], path: Path, root: Path, problems: list[Problem], unreadable: list[str] | None = None
) -> tuple[M, bytes] | None:
    """The document and its bytes, or None (problems added; the raw text of a file that could be read but
    is not a valid document appended to ``unreadable``)."""
    source = _rel(root, path)
    try:
        data = read_file_bytes(path, source)
    except DocumentError as exc:
        problems.extend(exc.problems)
        return None
    try:
        return load_bytes(model, data, source), data
    except DocumentError as exc:
        problems.extend(exc.problems)
        if unreadable is not None:
            unreadable.append(data.decode("utf-8", errors="replace"))
        return None


def _ids_in(texts: list[str], key: str) -> set[str]:
    """Best-effort ``"key": "value"`` values in the text of files that are not valid documents.

    A broken item file (a typo in one field, a trailing comma, a BOM) usually still names its id: then the
    responses to that item, or the items on that case, are not reported as pointing at nothing - the real
    problem is the file, reported on its own.
    """
    pattern = re.compile(r'"' + re.escape(key) + r'"\s*:\s*"([^"\\]*)"')
    return {m.group(1) for text in texts for m in pattern.finditer(text)}


def load_study(root: Path, progress: Callable[[int, int], None] | None = None) -> LoadedStudy:
    """Read and cross-check a study folder; raise :class:`DocumentError` listing every problem."""
    root = Path(root)
    if not root.is_dir():
        raise DocumentError.single(str(root), "is not a folder (give the study folder)")
    problems: list[Problem] = []
    warnings: list[Problem] = []

    study_pair = _load(Study, root / "study.json", root, problems)
    rubric_pair = _load(Rubric, root / "rubric.json", root, problems)

    item_paths = _files(root, "items", "*.json", problems)
    case_paths = _files(root, "cases", "*.json", problems)
    response_paths = _files(root, "responses", "*.jsonl", problems)
    total = len(item_paths) + len(case_paths) + len(response_paths)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    cases: dict[tuple[str, str], Case] = {}
    case_sha: dict[tuple[str, str], str] = {}
    case_source: dict[tuple[str, str], str] = {}
    broken_cases: list[str] = []
    for path in case_paths:
        case_pair = _load(Case, path, root, problems, broken_cases)
        tick()
        if case_pair is None:
            continue
        case, case_bytes = case_pair
        key = (case.case_id, case.case_version)
        if key in cases:
            problems.append(
                Problem(_rel(root, path), "case_id", f"case {case.case_id} version {case.case_version} is also in {case_source[key]}")
            )
            continue
        cases[key] = case
        case_sha[key] = hashlib.sha256(case_bytes).hexdigest()
        case_source[key] = _rel(root, path)

    items: dict[str, BenchmarkItem] = {}
    item_sources: dict[str, str] = {}
    broken_items: list[str] = []
    for path in item_paths:
        pair = _load(BenchmarkItem, path, root, problems, broken_items)
        tick()
        if pair is None:
            continue
        item = pair[0]
        source = _rel(root, path)
        if item.benchmarkItemId in items:
            problems.append(
                Problem(source, "benchmarkItemId", f"{item.benchmarkItemId} is also used by {item_sources[item.benchmarkItemId]}")
            )
            continue
        items[item.benchmarkItemId] = item
        item_sources[item.benchmarkItemId] = source

    responses: list[LoadedResponse] = []
    broken_responses: list[str] = []
    for path in response_paths:
        source = _rel(root, path)
        try:
            data = read_file_bytes(path, source)
        except DocumentError as exc:
            problems.extend(exc.problems)
            tick()
            continue
        try:
            parsed = load_jsonl(CandidateResponse, data, source)
        except DocumentError as exc:
            problems.extend(exc.problems)
            broken_responses.append(data.decode("utf-8", errors="replace"))
            tick()
            continue
        tick()
        lines = [n for n, line in enumerate(data.decode("utf-8").split("\n"), start=1) if line.strip()]
        for number, response in zip(lines, parsed, strict=True):
            responses.append(LoadedResponse(response, f"{source}:{number}"))

    # Ids named by files that are there but broken: references to them are not reported again.
    broken_case_ids = _ids_in(broken_cases, "case_id")
    broken_item_ids = _ids_in(broken_items, "benchmarkItemId")
    broken_response_ids = _ids_in(broken_responses, "response_id")

    # A broken study.json or rubric.json skips only the checks that need it: every other problem is still
    # reported in the same run.
    study = study_pair[0] if study_pair is not None else None
    rubric = rubric_pair[0] if rubric_pair is not None else None
    if study is not None and NEVER_SENT_SPLIT in study.rater_splits:
        index = list(study.rater_splits).index(NEVER_SENT_SPLIT)
        problems.append(
            Problem("study.json", f"rater_splits[{index}]", "held_out_project items are never sent to raters (leakage rule); remove it")
        )

    criterion_ids = rubric.criterion_ids if rubric is not None else set()
    for item_id, item in items.items():
        source = item_sources[item_id]
        ref = item.caseRef
        key = (ref.caseId, ref.caseVersion)
        if key not in cases and ref.caseId in broken_case_ids:
            pass  # the case file is there but has problems of its own (reported)
        elif key not in cases:
            versions = sorted(v for (cid, v) in cases if cid == ref.caseId)
            if versions:
                message = f"case {ref.caseId} has no version {ref.caseVersion} (found {', '.join(versions)})"
            else:
                message = f"case {ref.caseId} is not in cases/"
            problems.append(Problem(source, "caseRef", message))
        elif ref.sha256 is not None and ref.sha256 != case_sha[key]:
            problems.append(
                Problem(source, "caseRef.sha256", f"does not match the SHA-256 of {case_source[key]} ({case_sha[key]})")
            )
        if rubric is None:
            continue  # contractRef and criterion ids need a readable rubric.json
        contract = item.contractRef
        if (contract.contractId, contract.contractVersion) != (rubric.contract_id, rubric.contract_version):
            problems.append(
                Problem(
                    source,
                    "contractRef",
                    f"{contract.contractId} {contract.contractVersion} is not the study's rubric "
                    f"({rubric.contract_id} {rubric.contract_version})",
                )
            )
        seen: set[str] = set()
        for i, gold in enumerate(item.goldStandard.criterionGold):
            where = f"goldStandard.criterionGold[{i}].criterionId"
            if gold.criterionId not in criterion_ids:
                problems.append(Problem(source, where, f"{gold.criterionId} is not a dimension or failure mode of the rubric"))
            if gold.criterionId in seen:
                problems.append(Problem(source, where, f"{gold.criterionId} appears more than once"))
            seen.add(gold.criterionId)

    response_ids: dict[str, str] = {}
    models: set[str] = set()
    for entry in responses:
        response = entry.response
        if response.response_id in response_ids:
            problems.append(
                Problem(entry.source, "response_id", f"{response.response_id} is also used at {response_ids[response.response_id]}")
            )
        else:
            response_ids[response.response_id] = entry.source
        if item_paths and response.benchmark_item_id not in items and response.benchmark_item_id not in broken_item_ids:
            problems.append(Problem(entry.source, "benchmark_item_id", f"{response.benchmark_item_id} is not an item in items/"))
        models.add(response.model_source)

    responses_of: dict[str, set[str]] = {}
    for entry in responses:
        responses_of.setdefault(entry.response.benchmark_item_id, set()).add(entry.response.response_id)
    for item_id, item in items.items():
        gold_id = (item.metadata or {}).get("goldResponseId")
        if gold_id is None:
            continue
        if not isinstance(gold_id, str):
            problems.append(Problem(item_sources[item_id], "metadata.goldResponseId", "must be a response_id (text)"))
        elif response_paths and gold_id not in responses_of.get(item_id, set()) and gold_id not in broken_response_ids:
            problems.append(
                Problem(item_sources[item_id], "metadata.goldResponseId", f"{gold_id} is not a response to this item")
            )

    if study is not None and response_paths and not broken_responses:
        problems.extend(_blinding_settings_problems(study, models, set(response_ids), root))

    if study_pair is None or rubric_pair is None or problems:
        raise DocumentError(problems)
    study, study_bytes = study_pair
    rubric, rubric_bytes = rubric_pair
    loaded_study = LoadedStudy(
        root=root,
        study=study,
        study_bytes=study_bytes,
        rubric=rubric,
        rubric_bytes=rubric_bytes,
        items=dict(sorted(items.items())),
        item_sources=item_sources,
        cases=cases,
        case_sha256=case_sha,
        case_sources=case_source,
        responses=responses,
        warnings=warnings,
    )
    by_item = loaded_study.responses_by_item()
    for item_id, sent_item in loaded_study.items.items():
        if loaded_study.leave_out_reason(sent_item) is None and not by_item.get(item_id):
            warnings.append(Problem(item_sources[item_id], "", "is sent to raters but has no candidate response"))
    check = study.blinding_check
    if check is not None:
        named = {label.model_source for label in check.labels}
        for model in sorted(models - named):
            warnings.append(Problem(
                "study.json", "blinding_check.labels",
                f"no label stands for model {model!r}: whether raters recognise it cannot be measured",
            ))
    return loaded_study


def _blinding_settings_problems(study: Study, models: set[str], response_ids: set[str], root: Path) -> list[Problem]:
    """``models``, ``accepted_findings`` and ``blinding_check`` of ``study.json`` against the study."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, entry in enumerate(study.models or []):
        if entry.model_source not in models:
            problems.append(Problem("study.json", f"models[{i}].model_source", f"{entry.model_source!r} is not a model_source of responses/"))
        if entry.model_source in seen:
            problems.append(Problem("study.json", f"models[{i}].model_source", f"{entry.model_source!r} is listed twice"))
        seen.add(entry.model_source)
    for i, accepted in enumerate(study.accepted_findings or []):
        if accepted.response_id is not None and accepted.response_id not in response_ids:
            problems.append(Problem("study.json", f"accepted_findings[{i}].response_id", f"{accepted.response_id} is not a response of responses/"))
        if accepted.file is not None:
            place = accepted.file.replace("\\", "/").removeprefix("./")
            target = (root / place).resolve()
            inside = root.resolve() in target.parents
            if not inside or not target.is_file() or place.startswith("responses/"):
                problems.append(Problem(
                    "study.json", f"accepted_findings[{i}].file",
                    f"{accepted.file!r} is not a file of the study folder (for a response, give its response_id)",
                ))
    if study.blinding_check is not None:
        labels: dict[str, int] = {}
        for i, label in enumerate(study.blinding_check.labels):
            where = f"blinding_check.labels[{i}]"
            text = label.label
            if len(text) > MAX_LABEL or any(not ch.isprintable() for ch in text):
                problems.append(Problem("study.json", f"{where}.label", f"must be one line of at most {MAX_LABEL} printable characters"))
            key = skeleton(text)
            if key in labels:
                problems.append(Problem("study.json", f"{where}.label", f"{text!r} reads the same as label {labels[key] + 1}"))
            labels.setdefault(key, i)
            if label.model_source is not None and label.model_source not in models:
                problems.append(Problem("study.json", f"{where}.model_source", f"{label.model_source!r} is not a model_source of responses/"))
    return problems
