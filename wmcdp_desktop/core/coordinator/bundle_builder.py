"""Building blinded rater bundles from a study folder (``wmcdp bundle build``).

The rules, in the order they are applied (docs/COORDINATORS.md explains them for coordinators):

1. **Which items are sent.** An item is sent when its split is in ``study.rater_splits``, it has no
   ``exclusionReason``, its split is not ``held_out_project`` and ``leakageControl.heldOutProject`` is
   false (the leakage rule: held-out items never leave the coordinator). ``allowedForPromptDevelopment``
   concerns prompt development, not raters, and does not change anything here. Every left-out item is
   listed with its reason in the unblinding key.
2. **Tasks.** One task per (sent item, candidate response).
3. **Opaque ids.** A secret is derived from the study's content and the seed: SHA-256 over
   ``study.json``, ``rubric.json``, every response (id, item, model, text) and the seed. Then
   ``candidate_response_id = "cr-" + HMAC-SHA256(secret, "response:" + response_id)[:24 hex]`` and
   ``task_id = "t-" + HMAC-SHA256(secret, "task:" + response_id)[:16 hex]``. Raters do not have the
   study content, so they cannot recompute or reverse an id; the same build gives every rater the same
   ids. The secret is not stored anywhere (the key maps ids directly).
4. **Assignment.** Tasks are shuffled with the seed (item order shuffled, the responses of each item kept
   together and rotated from item to item), raters are shuffled with the seed, then slot ``s`` of ``tasks x overlap`` goes to rater
   ``s mod raters``: each task goes to ``overlap`` different raters and any two raters' task counts differ
   by at most one.
5. **Order per rater.** Shuffled with the seed (calibration tasks are mixed in like the others), never
   placing two responses to the same item back to back unless that is unavoidable. Which model's response comes first for an item rotates with the
   rater's position and the item, so no model is systematically seen first.
6. **Blinding.** A task holds the scenario, the item id, domain and scenario types, the opaque response
   id and the response text; calibration tasks also hold :class:`CalibrationFeedback` (criterion
   verdicts, severities, criterion notes, acceptable decisions; never adjudication notes) - only on
   the response the gold describes when the item names it in ``metadata.goldResponseId`` (item
   ``metadata`` itself is never shipped). Before anything
   is written, every file and file name of every bundle is searched for every model name (ignoring case)
   and every response id; a hit stops the build with a message saying where.
7. **Determinism.** Canonical JSON, sorted zip entries with fixed timestamps and permissions,
   ``created_at`` from ``study.json``: the same study and seed give byte-identical bundles and key.

Calibration feedback maps each ``criterionGold`` to a :class:`CriterionFeedback`; for rubric dimensions
``expected_scores`` come from :func:`verdict_scores` (on a 1-5 scale: satisfied -> 4-5, partially
satisfied -> 3, not satisfied -> 1-2; not applicable / cannot determine -> no expected score).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes, atomic_write_text
from wmcdp_desktop.core.coordinator.study_loader import MIN_CHECKABLE_NAME, LoadedStudy
from wmcdp_desktop.core.errors import DocumentError, Problem, WmcdpError
from wmcdp_desktop.core.models._base import Document
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.bundle_manifest import BUNDLE_FORMAT_VERSION
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.rubric import Scale
from wmcdp_desktop.core.models.task import CalibrationFeedback, CriterionFeedback, Task
from wmcdp_desktop.core.models.unblinding_key import (
    KEY_FORMAT_VERSION,
    KeyBundle,
    KeyEntry,
    LeftOutItem,
    UnblindingKey,
)
from wmcdp_desktop.core.paths import MAX_NAME_BYTES, check_id, child_path
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.reader import deterministic_zip

ID_SCHEME = (
    "secret = SHA-256(study.json, rubric.json, responses, seed); candidate_response_id = 'cr-' + "
    "HMAC-SHA256(secret, 'response:' + response_id)[:24]; task_id = 't-' + HMAC-SHA256(secret, 'task:' + "
    "response_id)[:16]"
)
KEY_MODE = OWNER_ONLY
CALIBRATION_SPLIT = "calibration"
"""Items of this split carry :class:`CalibrationFeedback` (shown to the rater after submitting)."""
GOLD_RESPONSE_KEY = "goldResponseId"
"""``metadata.goldResponseId`` of an item: the ``response_id`` its gold standard describes."""


# ---------------------------------------------------------------- deterministic randomness


class SeededRandom:
    """A tiny PRNG from SHA-256 counters: the same seed gives the same numbers on every Python version."""

    def __init__(self, seed: int, label: str) -> None:
        self._prefix = f"wmcdp:{seed}:{label}:".encode()
        self._counter = 0

    def below(self, n: int) -> int:
        """A number in ``range(n)``."""
        digest = hashlib.sha256(self._prefix + str(self._counter).encode()).digest()
        self._counter += 1
        return int.from_bytes(digest, "big") % n

    def shuffled(self, values: list[str]) -> list[str]:
        """A Fisher-Yates shuffle of a copy of ``values``."""
        out = list(values)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


# ---------------------------------------------------------------- plan


@dataclass(frozen=True)
class PlannedTask:
    task_id: str
    candidate_response_id: str
    item: BenchmarkItem
    response: CandidateResponse


@dataclass
class BuildPlan:
    """What a build will write, before anything is written."""

    study: LoadedStudy
    seed: int
    overlap: int
    tasks: dict[str, PlannedTask]
    """By task id."""
    assignment: dict[str, list[str]]
    """Rater id -> task ids in presentation order."""
    left_out: list[LeftOutItem]
    raters_of: dict[str, list[str]] = field(default_factory=dict)


def _secret(study: LoadedStudy, seed: int) -> bytes:
    h = hashlib.sha256(b"wmcdp-blinding-secret-v1\0")
    h.update(hashlib.sha256(study.study_bytes).digest())
    h.update(hashlib.sha256(study.rubric_bytes).digest())
    for loaded in sorted(study.responses, key=lambda r: r.response.response_id):
        r = loaded.response
        for part in (r.response_id, r.benchmark_item_id, r.model_source, r.text):
            data = part.encode("utf-8")
            h.update(len(data).to_bytes(8, "big") + data)
    h.update(str(seed).encode())
    return h.digest()


def _opaque(secret: bytes, purpose: str, response_id: str, length: int) -> str:
    return hmac.new(secret, f"{purpose}:{response_id}".encode(), hashlib.sha256).hexdigest()[:length]


def _arrange(tasks: list[str], item_of: dict[str, str], rng: SeededRandom) -> list[str]:
    """Shuffle, never putting two tasks of the same item back to back unless unavoidable."""
    remaining = rng.shuffled(sorted(tasks))
    counts: dict[str, int] = {}
    for t in remaining:
        counts[item_of[t]] = counts.get(item_of[t], 0) + 1
    # how many items have each count, and the largest count: O(1) upkeep per step
    with_count: dict[int, int] = {}
    for c in counts.values():
        with_count[c] = with_count.get(c, 0) + 1
    top = max(counts.values(), default=0)
    out: list[str] = []
    last: str | None = None
    while remaining:
        rem = len(remaining)
        # An item holding more than half of what is left must be placed now, or it will have to
        # repeat later; otherwise take the next shuffled task whose item differs from the last one.
        forced = None
        if 2 * top >= rem + 1:
            forced = next((g for g, c in sorted(counts.items()) if g != last and 2 * c >= rem + 1), None)
        pick_index = 0  # fallback: only tasks of the last item remain (unavoidable)
        for i, t in enumerate(remaining):
            g = item_of[t]
            if (forced is not None and g == forced) or (forced is None and g != last):
                pick_index = i
                break
        task = remaining.pop(pick_index)
        g = item_of[task]
        c = counts[g]
        counts[g] = c - 1
        with_count[c] -= 1
        with_count[c - 1] = with_count.get(c - 1, 0) + 1
        while top > 0 and with_count.get(top, 0) == 0:
            top -= 1
        last = g
        out.append(task)
    return out


def plan_build(
    study: LoadedStudy,
    *,
    seed: int | None = None,
    overlap: int | None = None,
    unassigned: bool = False,
) -> BuildPlan:
    """Decide tasks, ids, assignment and order (no writing). Raises :class:`WmcdpError` on bad options."""
    seed = study.study.seed if seed is None else seed
    if seed < 0:
        raise WmcdpError("--seed must be 0 or more")
    raters = [r.rater_id for r in study.study.raters]
    overlap = study.study.overlap if overlap is None else overlap
    if not unassigned and not 1 <= overlap <= len(raters):
        raise WmcdpError(f"--overlap must be between 1 and the number of raters ({len(raters)}), not {overlap}")

    secret = _secret(study, seed)
    by_item = study.responses_by_item()
    tasks: dict[str, PlannedTask] = {}
    left_out: list[LeftOutItem] = []
    for item_id, item in study.items.items():
        reason = study.leave_out_reason(item)
        if reason is None and not by_item.get(item_id):
            reason = "no candidate response"
        if reason is not None:
            left_out.append(LeftOutItem(benchmark_item_id=item_id, reason=reason))
            continue
        for response in by_item[item_id]:
            task = PlannedTask(
                task_id="t-" + _opaque(secret, "task", response.response_id, 16),
                candidate_response_id="cr-" + _opaque(secret, "response", response.response_id, 24),
                item=item,
                response=response,
            )
            if task.task_id in tasks:  # 64-bit collision: practically impossible, but never silent
                raise WmcdpError("two tasks got the same id; build again with another --seed")
            tasks[task.task_id] = task
    if not tasks:
        raise WmcdpError("no task to send: no item of the study's rater_splits has a candidate response")

    item_of = {t.task_id: t.item.benchmarkItemId for t in tasks.values()}
    # Which model comes first: within an item, responses are ordered by a seeded shuffle of the
    # model names, then rotated per rater position and item.
    model_order = SeededRandom(seed, "models").shuffled(sorted({t.response.model_source for t in tasks.values()}))
    model_rank = {m: i for i, m in enumerate(model_order)}
    item_rank = {g: i for i, g in enumerate(sorted(set(item_of.values())))}

    def within_item_key(task_id: str) -> tuple[int, str]:
        t = tasks[task_id]
        return (model_rank[t.response.model_source], t.response.response_id)

    # Assignment: items in seeded order, each item's tasks together, then round-robin slots.
    item_sequence = SeededRandom(seed, "items").shuffled(sorted(item_rank))
    tasks_of_item: dict[str, list[str]] = {}
    for t in sorted(tasks):
        tasks_of_item.setdefault(item_of[t], []).append(t)
    task_sequence: list[str] = []
    for g in item_sequence:
        # rotate per item, so which responses of an item end up with the same rater varies
        mine = sorted(tasks_of_item[g], key=within_item_key)
        shift = item_rank[g] % len(mine)
        task_sequence.extend(mine[shift:] + mine[:shift])

    assignment: dict[str, list[str]] = {}
    raters_of: dict[str, list[str]] = {t: [] for t in tasks}
    if unassigned:
        positions = {"": 0}
        assigned: dict[str, list[str]] = {"": list(task_sequence)}
    else:
        rater_order = SeededRandom(seed, "raters").shuffled(raters)
        positions = {r: i for i, r in enumerate(rater_order)}
        assigned = {r: [] for r in rater_order}
        slot = 0
        for task_id in task_sequence:
            for _ in range(overlap):
                rater = rater_order[slot % len(rater_order)]
                assigned[rater].append(task_id)
                raters_of[task_id].append(rater)
                slot += 1

    for rater, task_ids in assigned.items():
        rng = SeededRandom(seed, f"order:{rater}")
        sequence = _arrange(task_ids, item_of, rng)
        # Fill each item's positions with its responses rotated by rater position and item.
        slots: dict[str, list[int]] = {}
        for pos, t in enumerate(sequence):
            slots.setdefault(item_of[t], []).append(pos)
        ordered = list(sequence)
        mine_of: dict[str, list[str]] = {}
        for t in task_ids:
            mine_of.setdefault(item_of[t], []).append(t)
        for g, pos_list in slots.items():
            mine = sorted(mine_of[g], key=within_item_key)
            shift = (positions[rater] + item_rank[g]) % len(mine)
            rotated = mine[shift:] + mine[:shift]
            for pos, t in zip(pos_list, rotated, strict=True):
                ordered[pos] = t
        assignment[rater] = ordered
    return BuildPlan(
        study=study,
        seed=seed,
        overlap=overlap,
        tasks=tasks,
        assignment=assignment,
        left_out=left_out,
        raters_of={t: sorted(r) for t, r in raters_of.items()},
    )


# ---------------------------------------------------------------- task documents

D = TypeVar("D", bound=Document)


def _doc(model: type[D], **fields: Any) -> D:
    """Build a document, leaving out unset (``None``) optional fields (the models refuse null)."""
    return model(**{k: v for k, v in fields.items() if v is not None})


def _levels(scale: Scale) -> tuple[list[int], list[int], list[int]]:
    """Low / middle / high levels of a scale (fractions < 0.4, 0.4-0.6, > 0.6 of the range)."""
    span = scale.max - scale.min
    levels = list(range(scale.min, scale.max + 1))
    low = [v for v in levels if (v - scale.min) / span < 0.4]
    high = [v for v in levels if (v - scale.min) / span > 0.6]
    mid = [v for v in levels if v not in low and v not in high]
    if not mid:  # even scales such as 1-4: "partially" is the two levels around the middle
        mid = [low[-1], high[0]]
    return low, mid, high


def verdict_scores(scale: Scale, verdicts: list[str]) -> list[int]:
    """Scores consistent with the acceptable verdicts on a dimension's scale (empty = none)."""
    low, mid, high = _levels(scale)
    table = {"satisfied": high, "partially_satisfied": mid, "not_satisfied": low}
    out: set[int] = set()
    for verdict in verdicts:
        out.update(table.get(verdict, []))
    return sorted(out)


def calibration_feedback(item: BenchmarkItem, study: LoadedStudy) -> CalibrationFeedback:
    """What a rater may see after submitting a calibration task: no adjudication notes, no annotation gold."""
    rubric = study.rubric
    dimension_ids = {d.id for d in rubric.dimensions}
    criteria = []
    for gold in item.goldStandard.criterionGold:
        expected: list[int] | None = None
        if gold.criterionId in dimension_ids and gold.applicability != "does_not_apply":
            scores = verdict_scores(rubric.dimension(gold.criterionId).scale, list(gold.acceptableVerdicts))
            expected = scores or None
        criteria.append(
            _doc(
                CriterionFeedback,
                criterion_id=gold.criterionId,
                applicability=gold.applicability,
                acceptable_verdicts=list(gold.acceptableVerdicts),
                severity=gold.severity,
                explanation=gold.notes,
                expected_scores=expected,
            )
        )
    gs = item.goldStandard
    return _doc(
        CalibrationFeedback,
        ambiguity_status=gs.ambiguityStatus,
        criteria=criteria,
        acceptable_decisions=list(gs.acceptableDecisions),
        valid_alternative_notes=list(gs.validAlternativeNotes) if gs.validAlternativeNotes else None,
    )


def gold_response_id(item: BenchmarkItem) -> str | None:
    """``metadata.goldResponseId``: the one response the item's gold standard describes (if named)."""
    value = (item.metadata or {}).get(GOLD_RESPONSE_KEY)
    return value if isinstance(value, str) else None


def gets_feedback(item: BenchmarkItem, response: CandidateResponse) -> bool:
    """Calibration feedback goes on calibration items only, and only on the response the gold describes
    (``metadata.goldResponseId``; without it the gold applies to every response of the item)."""
    if item.split != CALIBRATION_SPLIT:
        return False
    gold_id = gold_response_id(item)
    return gold_id is None or gold_id == response.response_id


def task_document(planned: PlannedTask, study: LoadedStudy) -> Task:
    """The blinded task a rater sees."""
    case = study.item_case(planned.item)
    return _doc(
        Task,
        document_type="wmcdp_task",
        task_id=planned.task_id,
        benchmark_item_id=planned.item.benchmarkItemId,
        clinical_domain_id=case.clinical_domain_id,
        scenario_type_ids=list(case.scenario_type_ids),
        scenario=case.scenario,
        candidate_response_id=planned.candidate_response_id,
        candidate_response_text=planned.response.text,
        calibration_feedback=(
            calibration_feedback(planned.item, study) if gets_feedback(planned.item, planned.response) else None
        ),
    )


# ---------------------------------------------------------------- bundles


@dataclass(frozen=True)
class BuiltBundle:
    file_name: str
    rater_id: str | None
    bundle_id: str
    manifest_sha256: str
    data: bytes
    files: dict[str, bytes]
    task_ids: list[str]


def _bundle_id(study_id: str, rater: str | None, digest: str) -> str:
    tail = f".{rater or 'open'}.{digest[:12]}"
    return study_id[: 128 - len(tail)] + tail


def bundle_file_name(study_id: str, rater_id: str | None) -> str:
    """``<study_id>-<rater_id>.wmcdp`` (``<study_id>-unassigned.wmcdp`` without a rater); the ids are checked
    (core/paths.py), and the file is written through ``child_path``."""
    check_id(study_id, "study id")
    if rater_id is not None:
        check_id(rater_id, "rater id")
    tail = f"-{rater_id or 'unassigned'}.wmcdp"
    # Two 128-character ids make a name longer than file systems take (255 bytes): the study id is cut,
    # the rater id (which tells the bundles apart) never is.
    return study_id[: MAX_NAME_BYTES - len(tail)] + tail


def build_bundles(plan: BuildPlan, raters: list[str] | None = None) -> list[BuiltBundle]:
    """Make the bytes of the bundles (for ``raters``, default all; the unassigned one for an unassigned plan)."""
    study = plan.study
    rubric_bytes = dumps_canonical(study.rubric.to_json_obj()).encode("utf-8")
    task_bytes = {
        t: dumps_canonical(task_document(p, study).to_json_obj()).encode("utf-8") for t, p in plan.tasks.items()
    }
    role = {r.rater_id: r.role_or_background for r in study.study.raters}
    out: list[BuiltBundle] = []
    for rater, order in sorted(plan.assignment.items()):
        rater_id = rater or None
        if raters is not None and rater_id not in raters:
            continue
        files: dict[str, bytes] = {"rubric.json": rubric_bytes}
        for t in order:
            files[f"tasks/{t}.json"] = task_bytes[t]
        listing = [
            {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in sorted(files.items())
        ]
        digest = hashlib.sha256(dumps_canonical([rater, order, listing]).encode()).hexdigest()
        manifest: dict[str, object] = {
            "document_type": "wmcdp_bundle",
            "format_version": BUNDLE_FORMAT_VERSION,
            "bundle_id": _bundle_id(study.study.study_id, rater_id, digest),
            "study_id": study.study.study_id,
            "study_title": study.study.title,
            "created_at": study.study.created_at,
            "task_order": order,
            "files": listing,
        }
        if rater_id:
            manifest["rater_id"] = rater_id
            if role.get(rater_id):
                manifest["rater_role_or_background"] = role[rater_id]
        manifest_bytes = dumps_canonical(manifest).encode("utf-8")
        files["bundle.json"] = manifest_bytes
        out.append(
            BuiltBundle(
                file_name=bundle_file_name(study.study.study_id, rater_id),
                rater_id=rater_id,
                bundle_id=str(manifest["bundle_id"]),
                manifest_sha256=hashlib.sha256(manifest_bytes).hexdigest(),
                data=deterministic_zip(files),
                files=files,
                task_ids=list(order),
            )
        )
    return out


def _trie_regex(words: list[str]) -> re.Pattern[str] | None:
    """One regex matching exactly the ``words`` (prefix-shared, so thousands of words scan fast).

    Every string it matches is one of the words: a node's group is optional only where a word ends.
    """
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    if not trie:
        return None

    def build(node: dict[str, Any]) -> str:
        alternatives = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alternatives:
            return ""
        ends_here = "" in node
        if len(alternatives) == 1 and not ends_here:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")" + ("?" if ends_here else "")

    # A lookahead finds a match starting at every position (overlapping ones too).
    return re.compile("(?=(" + build(trie) + "))")


def blinding_problems(plan: BuildPlan, bundles: list[BuiltBundle]) -> list[Problem]:
    """Every place a model name (any case) or response id appears in a bundle's files or file names."""
    models = sorted({r.response.model_source for r in plan.study.responses})
    model_words = {m.casefold(): m for m in models if len(m.strip()) >= MIN_CHECKABLE_NAME}
    response_ids = sorted(r.response.response_id for r in plan.study.responses if len(r.response.response_id) >= MIN_CHECKABLE_NAME)
    model_re = _trie_regex(sorted(model_words))
    response_re = _trie_regex(response_ids)
    cache: dict[bytes, list[str]] = {}

    def hits(data: bytes) -> list[str]:
        if data in cache:
            return cache[data]
        text = data.decode("utf-8")
        found: set[str] = set()
        if model_re is not None:
            for m in model_re.finditer(text.casefold()):
                found.add(f"model name {model_words[m.group(1)]!r}")
        if response_re is not None:
            for m in response_re.finditer(text):
                found.add(f"response id {m.group(1)!r}")
        cache[data] = sorted(found)
        return cache[data]

    problems: list[Problem] = []
    for bundle in bundles:
        blobs = [(bundle.file_name, bundle.file_name.encode())]
        blobs += [(f"{bundle.file_name}!{n}", n.encode()) for n in bundle.files]
        blobs += [(f"{bundle.file_name}!{n}", d) for n, d in bundle.files.items()]
        for where, data in blobs:
            for what in hits(data):
                problems.append(
                    Problem(where, "", f"contains {what}: blinding would be broken; remove it from the study text")
                )
    return sorted(set(problems))


def unblinding_key(plan: BuildPlan, bundles: list[BuiltBundle]) -> UnblindingKey:
    study = plan.study
    entries = [
        KeyEntry(
            task_id=t.task_id,
            candidate_response_id=t.candidate_response_id,
            benchmark_item_id=t.item.benchmarkItemId,
            split=t.item.split,
            response_id=t.response.response_id,
            model_source=t.response.model_source,
            raters=plan.raters_of.get(t.task_id, []),
        )
        for t in sorted(plan.tasks.values(), key=lambda p: p.task_id)
    ]
    return UnblindingKey(
        document_type="wmcdp_unblinding_key",
        format_version=KEY_FORMAT_VERSION,
        study_id=study.study.study_id,
        study_sha256=hashlib.sha256(study.study_bytes).hexdigest(),
        seed=plan.seed,
        overlap=plan.overlap,
        created_at=study.study.created_at,
        id_scheme=ID_SCHEME,
        entries=entries,
        bundles=[
            _doc(
                KeyBundle,
                file_name=b.file_name,
                bundle_id=b.bundle_id,
                bundle_sha256=b.manifest_sha256,
                rater_id=b.rater_id,
                task_ids=b.task_ids,
            )
            for b in bundles
        ],
        left_out=plan.left_out,
    )


def key_file_name(study_id: str) -> str:
    return f"{check_id(study_id, 'study id')}-unblinding-key.json"


@dataclass
class BuildResult:
    plan: BuildPlan
    bundles: list[BuiltBundle]
    bundle_paths: list[Path]
    key_path: Path


def build(
    study: LoadedStudy,
    out_dir: Path,
    *,
    seed: int | None = None,
    overlap: int | None = None,
    raters: list[str] | None = None,
    unassigned: bool = False,
    bundle_file: Path | None = None,
    key_path: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BuildResult:
    """Plan, build, check blinding, then write bundles and the key (0600). Nothing is written on error."""
    known = [r.rater_id for r in study.study.raters]
    if raters is not None:
        unknown = [r for r in raters if r not in known]
        if unknown:
            raise WmcdpError(f"--raters: {', '.join(unknown)} not in study.json (raters: {', '.join(known)})")
    plan = plan_build(study, seed=seed, overlap=overlap, unassigned=unassigned)
    # Every bundle is made (and checked), even with ``raters``: the key must list all of them, so a key
    # written while re-issuing one rater's bundle is the same file as the full build's and still unblinds
    # every rater's export (it may overwrite the original key in the same folder).
    all_bundles = build_bundles(plan, None)
    problems = blinding_problems(plan, all_bundles)
    if problems:
        raise DocumentError(problems)
    key = unblinding_key(plan, all_bundles)
    bundles = all_bundles if unassigned or raters is None else [b for b in all_bundles if b.rater_id in raters]
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WmcdpError(f"cannot create the output folder {out_dir}: {exc.strerror or exc}") from None
    paths: list[Path] = []
    for i, bundle in enumerate(bundles, start=1):
        path = bundle_file if (unassigned and bundle_file is not None) else child_path(out_dir, bundle.file_name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WmcdpError(f"cannot create the folder {path.parent}: {exc.strerror or exc}") from None
        atomic_write_bytes(path, bundle.data)
        paths.append(path)
        if progress is not None:
            progress(i, len(bundles))
    key_target = key_path or child_path(out_dir, key_file_name(study.study.study_id))
    atomic_write_text(key_target, dumps_canonical(key.to_json_obj()), mode=KEY_MODE)
    return BuildResult(plan=plan, bundles=bundles, bundle_paths=paths, key_path=key_target)
