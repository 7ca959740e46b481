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
- held-out items (split ``held_out_project`` or ``leakageControl.heldOutProject``) are sent only by a study
  whose ``rater_splits`` list ``held_out_project`` (the held-out project's own study), and then only in
  encrypted bundles (``bundle build`` refuses ``--no-encrypt``); a warning says so.

All problems are collected and reported at once, each with file and JSON path. Warnings are things a
coordinator should look at but that do not stop a build (an item that will be sent has no response, a
model name too short to be checked for leaks...).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from wmcdp_desktop.coordinator.leak.normalise import skeleton
from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.digests import sha256_hex
from wmcdp_desktop.core.documents import load_bytes, load_jsonl, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.files import MAX_JSONL_BYTES
from wmcdp_desktop.core.models.benchmark_item import (
    KNOWN_SCHEMA_VERSIONS,
    NO_GOLD_STATUS,
    BenchmarkItem,
    has_no_gold_yet,
)
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.case import Case
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.strict_json import jsonl_line

M = TypeVar("M", bound=BaseModel)

DOMAIN_ID = re.compile(r"WM-DOM-[A-Z0-9]+(?:-[A-Z0-9]+)*")
"""The WM-CDP vocabulary of clinical domains (``WM-DOM-OCD``); another spelling is warned."""
SCENARIO_ID = re.compile(r"WM-SCN-[A-Z0-9]+(?:-[A-Z0-9]+)*")
"""The WM-CDP vocabulary of scenario types (``WM-SCN-REASSURANCE``)."""
CALIBRATION_SPLIT = "calibration"
"""Items of this split carry calibration feedback (shown to the rater after submitting)."""
NEVER_SENT_SPLIT = "held_out_project"
"""Items in this split, and items with ``leakageControl.heldOutProject``, are held out: never sent to raters
unless ``rater_splits`` lists this split (the held-out project's own study), and then only encrypted."""


@dataclass(frozen=True)
class LoadedResponse:
    response: CandidateResponse
    source: str
    """``responses/x.jsonl line N`` (:func:`~wmcdp_desktop.core.strict_json.jsonl_line`)."""


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
        held_out_study = NEVER_SENT_SPLIT in wanted  # the held-out project's own study: sent, encrypted
        if item.split == NEVER_SENT_SPLIT and not held_out_study:
            return "split held_out_project is never sent to raters"
        if item.leakageControl.heldOutProject and not held_out_study:
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


@dataclass
class _Reading:
    """One pass over a study folder: where it is, the problems found so far, and progress."""

    root: Path
    problems: list[Problem]
    progress: Callable[[int, int], None] | None
    total: int = 0
    done: int = 0

    def tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


@dataclass
class _Cases:
    by_key: dict[tuple[str, str], Case] = field(default_factory=dict)
    """By ``(case_id, case_version)``."""
    sha256: dict[tuple[str, str], str] = field(default_factory=dict)
    source: dict[tuple[str, str], str] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    """The text of case files that are there but not valid."""


@dataclass
class _Items:
    by_id: dict[str, BenchmarkItem] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)


def _read_cases(paths: list[Path], reading: _Reading) -> _Cases:
    out = _Cases()
    for path in paths:
        pair = _load(Case, path, reading.root, reading.problems, out.broken)
        reading.tick()
        if pair is None:
            continue
        case, case_bytes = pair
        key = (case.case_id, case.case_version)
        source = _rel(reading.root, path)
        if key in out.by_key:
            reading.problems.append(
                Problem(source, "case_id", f"case {case.case_id} version {case.case_version} is also in {out.source[key]}")
            )
            continue
        out.by_key[key] = case
        out.sha256[key] = sha256_hex(case_bytes)
        out.source[key] = source
    return out


def _read_items(paths: list[Path], reading: _Reading) -> _Items:
    out = _Items()
    for path in paths:
        pair = _load(BenchmarkItem, path, reading.root, reading.problems, out.broken)
        reading.tick()
        if pair is None:
            continue
        item = pair[0]
        source = _rel(reading.root, path)
        if item.benchmarkItemId in out.by_id:
            reading.problems.append(
                Problem(source, "benchmarkItemId", f"{item.benchmarkItemId} is also used by {out.source[item.benchmarkItemId]}")
            )
            continue
        out.by_id[item.benchmarkItemId] = item
        out.source[item.benchmarkItemId] = source
    return out


def _read_responses(paths: list[Path], reading: _Reading) -> tuple[list[LoadedResponse], list[str]]:
    """Every response with its ``file:line``, and the text of files that are there but not valid."""
    responses: list[LoadedResponse] = []
    broken: list[str] = []
    for path in paths:
        source = _rel(reading.root, path)
        try:
            data = read_file_bytes(path, source, MAX_JSONL_BYTES)
        except DocumentError as exc:
            reading.problems.extend(exc.problems)
            reading.tick()
            continue
        try:
            parsed = load_jsonl(CandidateResponse, data, source)
        except DocumentError as exc:
            reading.problems.extend(exc.problems)
            broken.append(data.decode("utf-8", errors="replace"))
            reading.tick()
            continue
        reading.tick()
        lines = [n for n, line in enumerate(data.decode("utf-8").split("\n"), start=1) if line.strip()]
        for number, response in zip(lines, parsed, strict=True):
            responses.append(LoadedResponse(response, jsonl_line(source, number)))
    return responses, broken


def _check_items(items: _Items, cases: _Cases, rubric: Rubric | None, problems: list[Problem]) -> None:
    """Each item's case reference, contract reference and gold criterion ids."""
    broken_case_ids = _ids_in(cases.broken, "case_id")
    criterion_ids = rubric.criterion_ids if rubric is not None else set()
    for item_id, item in items.by_id.items():
        source = items.source[item_id]
        if item.schemaVersion not in KNOWN_SCHEMA_VERSIONS:
            problems.append(Problem(source, "schemaVersion", f"{item.schemaVersion} is not a benchmark-item schema "
                                    f"version this app knows (it knows {', '.join(KNOWN_SCHEMA_VERSIONS)})"))
        ref = item.caseRef
        key = (ref.caseId, ref.caseVersion)
        if key not in cases.by_key and ref.caseId in broken_case_ids:
            pass  # the case file is there but has problems of its own (reported)
        elif key not in cases.by_key:
            versions = sorted(v for (cid, v) in cases.by_key if cid == ref.caseId)
            if versions:
                message = f"case {ref.caseId} has no version {ref.caseVersion} (found {', '.join(versions)})"
            else:
                message = f"case {ref.caseId} is not in cases/"
            problems.append(Problem(source, "caseRef", message))
        elif ref.sha256 is not None and ref.sha256 != cases.sha256[key]:
            problems.append(
                Problem(source, "caseRef.sha256", f"does not match the SHA-256 of {cases.source[key]} ({cases.sha256[key]})")
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


def _check_responses(responses: list[LoadedResponse], items: _Items, any_item_file: bool, problems: list[Problem]) -> None:
    """Response ids used once; every response names an item."""
    broken_item_ids = _ids_in(items.broken, "benchmarkItemId")
    response_ids: dict[str, str] = {}
    for entry in responses:
        response = entry.response
        if response.response_id in response_ids:
            problems.append(
                Problem(entry.source, "response_id", f"{response.response_id} is also used at {response_ids[response.response_id]}")
            )
        else:
            response_ids[response.response_id] = entry.source
        if any_item_file and response.benchmark_item_id not in items.by_id and response.benchmark_item_id not in broken_item_ids:
            problems.append(Problem(entry.source, "benchmark_item_id", f"{response.benchmark_item_id} is not an item in items/"))


def _check_gold_responses(
    items: _Items, responses: list[LoadedResponse], broken_responses: list[str], any_response_file: bool,
    problems: list[Problem],
) -> None:
    """``metadata.goldResponseId``, when given, is a response to that item."""
    broken_response_ids = _ids_in(broken_responses, "response_id")
    responses_of: dict[str, set[str]] = {}
    for entry in responses:
        responses_of.setdefault(entry.response.benchmark_item_id, set()).add(entry.response.response_id)
    for item_id, item in items.by_id.items():
        gold_id = (item.metadata or {}).get("goldResponseId")
        if gold_id is None:
            continue
        if not isinstance(gold_id, str):
            problems.append(Problem(items.source[item_id], "metadata.goldResponseId", "must be a response_id (text)"))
        elif any_response_file and gold_id not in responses_of.get(item_id, set()) and gold_id not in broken_response_ids:
            problems.append(
                Problem(items.source[item_id], "metadata.goldResponseId", f"{gold_id} is not a response to this item")
            )


def _warnings(loaded: LoadedStudy) -> list[Problem]:
    """What a coordinator should look at but that does not stop a build."""
    warnings: list[Problem] = []
    versions: dict[str, list[str]] = {}
    for item_id, item in loaded.items.items():
        versions.setdefault(item.benchmarkVersion, []).append(item_id)
    if len(versions) > 1:
        listed = "; ".join(f"{v}: {count(len(ids), 'item')} ({', '.join(ids[:3])}{', …' if len(ids) > 3 else ''})"
                           for v, ids in sorted(versions.items()))
        warnings.append(Problem("items/", "benchmarkVersion", f"the study mixes benchmark versions ({listed}): "
                                "results from different versions of an item are not comparable"))
    no_gold = [item_id for item_id, item in loaded.items.items() if has_no_gold_yet(item)]
    if no_gold:
        warnings.append(Problem("items/", "goldStandard", f"no gold yet for {count(len(no_gold), 'item')} "
                                f"({', '.join(no_gold[:5])}{', …' if len(no_gold) > 5 else ''}): the report leaves "
                                "them out of the gold agreement and says so"))
    for item_id, item in loaded.items.items():
        gold = item.goldStandard
        if not gold.criterionGold and gold.ambiguityStatus != NO_GOLD_STATUS:
            warnings.append(Problem(loaded.item_sources[item_id], "goldStandard.criterionGold", (
                f"is empty but ambiguityStatus is {gold.ambiguityStatus!r}: for an item with no gold yet write "
                f"ambiguityStatus {NO_GOLD_STATUS!r} (docs/FORMATS.md, \"No gold yet\"); otherwise add the verdicts")))
    for key, case in sorted(loaded.cases.items()):
        source = loaded.case_sources[key]
        if not DOMAIN_ID.fullmatch(case.clinical_domain_id):
            warnings.append(Problem(source, "clinical_domain_id", f"{case.clinical_domain_id!r} does not follow the "
                                    "WM-CDP vocabulary (WM-DOM-<NAME>, e.g. WM-DOM-OCD): check the spelling; the "
                                    "tables group ratings by it"))
        for k, scenario in enumerate(case.scenario_type_ids):
            if not SCENARIO_ID.fullmatch(scenario):
                warnings.append(Problem(source, f"scenario_type_ids[{k}]", f"{scenario!r} does not follow the WM-CDP "
                                        "vocabulary (WM-SCN-<NAME>, e.g. WM-SCN-REASSURANCE): check the spelling"))
    by_item = loaded.responses_by_item()
    for item_id, item in loaded.items.items():
        if loaded.leave_out_reason(item) is None and not by_item.get(item_id):
            warnings.append(Problem(loaded.item_sources[item_id], "", "is sent to raters but has no candidate response"))
    check = loaded.study.blinding_check
    if check is not None:
        named = {label.model_source for label in check.labels}
        for model in sorted({entry.response.model_source for entry in loaded.responses} - named):
            warnings.append(Problem(
                "study.json", "blinding_check.labels",
                f"no label stands for model {model!r}: whether raters recognise it cannot be measured",
            ))
    if NEVER_SENT_SPLIT in loaded.study.rater_splits:
        index = list(loaded.study.rater_splits).index(NEVER_SENT_SPLIT)
        warnings.append(Problem("study.json", f"rater_splits[{index}]", (
            "lists held_out_project: held-out items are sent to this study's raters, in encrypted bundles only "
            "(bundle build encrypts them and refuses --no-encrypt)")))
    return warnings


def load_study(root: Path, progress: Callable[[int, int], None] | None = None) -> LoadedStudy:
    """Read and cross-check a study folder; raise :class:`DocumentError` listing every problem.

    A broken study.json or rubric.json skips only the checks that need it: every other problem is still
    reported in the same run. References to a file that is there but broken are not reported again.
    """
    root = Path(root)
    if not root.is_dir():
        raise DocumentError.single(str(root), "is not a folder (give the study folder)")
    problems: list[Problem] = []
    study_pair = _load(Study, root / "study.json", root, problems)
    rubric_pair = _load(Rubric, root / "rubric.json", root, problems)
    item_paths = _files(root, "items", "*.json", problems)
    case_paths = _files(root, "cases", "*.json", problems)
    response_paths = _files(root, "responses", "*.jsonl", problems)
    reading = _Reading(root, problems, progress, total=len(item_paths) + len(case_paths) + len(response_paths))
    cases = _read_cases(case_paths, reading)
    items = _read_items(item_paths, reading)
    responses, broken_responses = _read_responses(response_paths, reading)

    study = study_pair[0] if study_pair is not None else None
    _check_items(items, cases, rubric_pair[0] if rubric_pair is not None else None, problems)
    _check_responses(responses, items, bool(item_paths), problems)
    _check_gold_responses(items, responses, broken_responses, bool(response_paths), problems)
    if study is not None and response_paths and not broken_responses:
        models = {entry.response.model_source for entry in responses}
        response_ids = {entry.response.response_id for entry in responses}
        problems.extend(_blinding_settings_problems(study, models, response_ids, root))
    if study_pair is None or rubric_pair is None or problems:
        raise DocumentError(problems)
    loaded = LoadedStudy(
        root=root,
        study=study_pair[0],
        study_bytes=study_pair[1],
        rubric=rubric_pair[0],
        rubric_bytes=rubric_pair[1],
        items=dict(sorted(items.by_id.items())),
        item_sources=items.source,
        cases=cases.by_key,
        case_sources=cases.source,
        responses=responses,
    )
    loaded.warnings = _warnings(loaded)
    return loaded


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
            if any(not ch.isprintable() for ch in text):
                problems.append(Problem("study.json", f"{where}.label", "must be one line of printable characters"))
            key = skeleton(text)
            if key in labels:
                problems.append(Problem("study.json", f"{where}.label", f"{text!r} reads the same as label {labels[key] + 1}"))
            labels.setdefault(key, i)
            if label.model_source is not None and label.model_source not in models:
                problems.append(Problem("study.json", f"{where}.model_source", f"{label.model_source!r} is not a model_source of responses/"))
    return problems
