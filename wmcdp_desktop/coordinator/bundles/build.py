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
4. **Assignment.** With ``--one-response-per-item`` no rater gets two responses to the same item (each item's
   slots go to different raters, the least loaded first: :func:`_assign_one_per_item`; it needs
   ``responses per item x overlap`` raters). Otherwise tasks are dealt model by model (models in a seeded order, each model's tasks in their
   own seeded order), ``overlap`` consecutive slots per task, round-robin over the raters (in a seeded
   order): each task goes to ``overlap`` different raters, any two raters' task counts differ by at most
   one, and so do, within one rater, the counts of models answering the same number of items.
5. **Order per rater.** Shuffled with the seed (calibration tasks are mixed in like the others), never
   placing two responses to the same item back to back unless that is unavoidable. Which response of an
   item comes first, second... is drawn per rater and item from its own seeded stream (so one recognised
   response says nothing about the next response to the same item): the first is a model this rater has
   seen first least often so far, the items taken in a seeded order of their own (which model comes first
   stays balanced, with no pattern from one shown item to the next), the rest uniformly random.
6. **Blinding.** A task holds the scenario, the item id, domain and scenario types, the opaque response
   id and the response text; calibration tasks also hold :class:`CalibrationFeedback` (criterion
   verdicts, severities, criterion notes, acceptable decisions; never adjudication notes) - only on
   the response the gold describes when the item names it in ``metadata.goldResponseId`` (item
   ``metadata`` itself is never shipped). Before anything is planned the leak scan
   (:mod:`leak_scan`, the same as ``study validate``'s) searches every study text a bundle can carry;
   after the bundles are made it searches every string and file name of every bundle again. A finding
   the study does not accept stops the build, naming where. The blinding check's labels
   (:data:`LABELS_FIELD`) are the one exception.
7. **Determinism.** Canonical JSON, sorted zip entries with fixed timestamps and permissions,
   ``created_at`` from ``study.json``: the same study and seed give byte-identical bundles and key.

Calibration feedback maps each ``criterionGold`` to a :class:`CriterionFeedback`; for rubric dimensions
``expected_scores`` come from :func:`wmcdp_desktop.core.verdicts.verdict_scores`, the one score-to-verdict
mapping the report's gold agreement uses too (1-5: satisfied -> 4-5, partially satisfied -> 3, not
satisfied -> 1-2; 1-4: 4 | 2-3 | 1; not applicable / cannot determine -> no expected score).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from wmcdp_desktop.coordinator.bundles import encryption
from wmcdp_desktop.coordinator.leak.scan import Match, Matcher, ScanResult, walk_strings
from wmcdp_desktop.coordinator.study.leak_scan import scan_study
from wmcdp_desktop.coordinator.study.loader import CALIBRATION_SPLIT, LoadedStudy, load_study
from wmcdp_desktop.coordinator.study.style_check import StyleCheck, check_style
from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes, atomic_write_text
from wmcdp_desktop.core.digests import sha256_digest, sha256_hex, text_sha256
from wmcdp_desktop.core.encryption.bundle_envelope import KdfParams
from wmcdp_desktop.core.errors import DocumentError, Problem, WmcdpError
from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.bundle_manifest import (
    BUNDLE_FORMAT_VERSION,
    FORMAT_1_1,
    FORMAT_1_3,
    BundleManifest,
)
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.task import CalibrationFeedback, CriterionFeedback, Task
from wmcdp_desktop.core.models.unblinding_key import (
    KEY_FORMAT_VERSION,
    KeyBundle,
    KeyEntry,
    KeyLabel,
    LeftOutItem,
    UnblindingKey,
)
from wmcdp_desktop.core.paths import MAX_NAME_BYTES, check_id, child_path
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.verdicts import verdict_scores
from wmcdp_desktop.core.zips.writer import deterministic_zip

ID_SCHEME = (
    "secret = SHA-256(study.json, rubric.json, responses, seed); candidate_response_id = 'cr-' + "
    "HMAC-SHA256(secret, 'response:' + response_id)[:24]; task_id = 't-' + HMAC-SHA256(secret, 'task:' + "
    "response_id)[:16]"
)
KEY_MODE = OWNER_ONLY


# ---------------------------------------------------------------- deterministic randomness


class SeededRandom:
    """A tiny PRNG from SHA-256 counters: the same seed gives the same numbers on every Python version."""

    def __init__(self, seed: int, label: str) -> None:
        self._prefix = f"wmcdp:{seed}:{label}:".encode()
        self._counter = 0

    def below(self, n: int) -> int:
        """A number in ``range(n)``."""
        digest = sha256_digest(self._prefix + str(self._counter).encode())
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

    def side_by_side(self) -> dict[str, tuple[int, int]]:
        """Per rater (``""`` for the unassigned bundle): of how many of the items in their bundle they get two
        or more responses, and how many items their bundle holds (the contrast of length or style within an
        item that ``--one-response-per-item`` removes)."""
        out: dict[str, tuple[int, int]] = {}
        for rater, task_ids in self.assignment.items():
            per_item: dict[str, int] = {}
            for task_id in task_ids:
                item = self.tasks[task_id].item.benchmarkItemId
                per_item[item] = per_item.get(item, 0) + 1
            out[rater] = (sum(1 for n in per_item.values() if n >= 2), len(per_item))
        return out


def _secret(study: LoadedStudy, seed: int) -> bytes:
    parts = [b"wmcdp-blinding-secret-v1\0", sha256_digest(study.study_bytes), sha256_digest(study.rubric_bytes)]
    for loaded in sorted(study.responses, key=lambda r: r.response.response_id):
        r = loaded.response
        for part in (r.response_id, r.benchmark_item_id, r.model_source, r.text):
            data = part.encode("utf-8")
            parts.append(len(data).to_bytes(8, "big") + data)
    parts.append(str(seed).encode())
    return sha256_digest(b"".join(parts))


def _opaque(secret: bytes, purpose: str, response_id: str, length: int) -> str:
    return hmac.new(secret, f"{purpose}:{response_id}".encode(), "sha256").hexdigest()[:length]


def arrange(tasks: list[str], item_of: dict[str, str], rng: SeededRandom) -> list[str]:
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


def _assign(
    tasks: dict[str, PlannedTask], model_of: dict[str, str], raters: list[str], overlap: int, seed: int,
    unassigned: bool,
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Which raters get which tasks: each task ``overlap`` different raters, task counts per rater and, per
    rater, counts per model differing by at most one where the design allows.

    The tasks are dealt model by model (models in a seeded order, each model's tasks in its own seeded
    order), ``overlap`` consecutive slots per task, round-robin over the raters (in a seeded order).
    """
    raters_of: dict[str, list[str]] = {t: [] for t in tasks}
    by_model: dict[str, list[str]] = {}
    for task_id in sorted(tasks):
        by_model.setdefault(model_of[task_id], []).append(task_id)
    sequence: list[str] = []
    for model in SeededRandom(seed, "models").shuffled(sorted(by_model)):
        sequence.extend(SeededRandom(seed, f"tasks:{model}").shuffled(by_model[model]))
    if unassigned:
        return {"": sequence}, raters_of
    rater_order = SeededRandom(seed, "raters").shuffled(raters)
    assigned: dict[str, list[str]] = {r: [] for r in rater_order}
    slot = 0
    for task_id in sequence:
        for _ in range(overlap):
            rater = rater_order[slot % len(rater_order)]
            assigned[rater].append(task_id)
            raters_of[task_id].append(rater)
            slot += 1
    return assigned, raters_of


def _assign_one_per_item(
    tasks: dict[str, PlannedTask], item_of: dict[str, str], model_of: dict[str, str], raters: list[str], overlap: int,
    seed: int,
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Which raters get which tasks when no rater may see two responses to the same item
    (``--one-response-per-item``): each task ``overlap`` different raters, and the raters of one item's tasks all
    different. Items are taken in a seeded order, each item's tasks in their own; each slot goes to the rater
    with the fewest tasks so far who has none of this item, among those the one who has seen this model least,
    then in a seeded order: task counts differ by at most one (each item takes its slots from the least loaded
    raters), model counts per rater are kept close."""
    by_item: dict[str, list[str]] = {}
    for task_id in sorted(tasks):
        by_item.setdefault(item_of[task_id], []).append(task_id)
    widest = max(len(ts) for ts in by_item.values())
    if widest * overlap > len(raters):
        item = min(i for i, ts in by_item.items() if len(ts) == widest)
        raise BuildOptionError(
            "one-response-per-item",
            f"no rater may see two responses to the same item, but item {item} has {widest} responses, each for "
            f"{overlap} raters: that needs {widest * overlap} raters and the study has {len(raters)}; lower the "
            "overlap (--overlap) or add raters",
        )
    rank = {r: k for k, r in enumerate(SeededRandom(seed, "one-per-item:raters").shuffled(raters))}
    load = dict.fromkeys(raters, 0)
    seen_model: dict[tuple[str, str], int] = {}
    assigned: dict[str, list[str]] = {r: [] for r in raters}
    raters_of: dict[str, list[str]] = {t: [] for t in tasks}
    for item in SeededRandom(seed, "one-per-item:items").shuffled(sorted(by_item)):
        used: set[str] = set()
        for task_id in SeededRandom(seed, f"one-per-item:{item}").shuffled(by_item[item]):
            model = model_of[task_id]
            for _ in range(overlap):
                rater = min((r for r in raters if r not in used),
                            key=lambda r: (load[r], seen_model.get((r, model), 0), rank[r]))
                used.add(rater)
                load[rater] += 1
                seen_model[(rater, model)] = seen_model.get((rater, model), 0) + 1
                assigned[rater].append(task_id)
                raters_of[task_id].append(rater)
    return assigned, raters_of


def _order(rater: str, task_ids: list[str], item_of: dict[str, str], model_of: dict[str, str], seed: int) -> list[str]:
    """One rater's presentation order.

    Positions: a seeded shuffle that never puts two responses to the same item back to back where
    avoidable (:func:`arrange`). Which response of an item takes which of the item's positions is drawn
    for this rater and item from its own seeded stream: the first is a model seen first least often in this
    rater's items so far, the items taken in a seeded order independent of the presentation order (so which
    model comes first stays balanced without following a pattern from one shown item to the next), the
    others follow in a uniformly random order. Seeing one response of an item therefore says nothing about
    the next one, in this item or the next item shown (balancing every later position too would make the
    orders of different items repeat one cycle: with three models, the only orders that balance every
    position are the three rotations of one).
    """
    sequence = arrange(task_ids, item_of, SeededRandom(seed, f"order:{rater}"))
    slots: dict[str, list[int]] = {}
    for pos, task_id in enumerate(sequence):
        slots.setdefault(item_of[task_id], []).append(pos)
    mine_of: dict[str, list[str]] = {}
    for task_id in sorted(task_ids):
        mine_of.setdefault(item_of[task_id], []).append(task_id)
    # How often each model has come first, minus how often a uniformly random order would have put it first.
    deficit: dict[str, Fraction] = {}
    ordered = list(sequence)
    # Which model comes first is balanced over the items in an order of their own, drawn independently of the
    # presentation order: balancing in presentation order would show each model first once per block of
    # consecutive items, so a rater who recognised the first response of one item would know the next item's
    # first response is probably of another model. The target is what a uniformly random order gives on
    # average (each model of an item first with chance 1 / its responses): an equal count when every item
    # has every model; when some have only some, a model that answers fewer items is not put first more
    # often (that would tell a rater who recognised the first response something about the next).
    for item in SeededRandom(seed, f"firsts:{rater}").shuffled(sorted(slots)):
        rng = SeededRandom(seed, f"within:{rater}:{item}")
        mine = mine_of[item]
        for t in mine:
            deficit[model_of[t]] = deficit.get(model_of[t], Fraction(0)) + Fraction(1, len(mine))
        most = max(deficit[model_of[t]] for t in mine)
        choices = [t for t in mine if deficit[model_of[t]] == most]
        first = choices[rng.below(len(choices))]
        deficit[model_of[first]] -= 1
        rest = rng.shuffled([t for t in mine if t != first])
        for pos, task_id in zip(slots[item], [first, *rest], strict=True):
            ordered[pos] = task_id
    return ordered


class BuildOptionError(WmcdpError):
    """A build option that does not fit the study. ``option`` names it (``seed``, ``overlap``, ``raters``),
    so that a caller can word it in its own terms (the command line names its own flag)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def plan_build(
    study: LoadedStudy,
    *,
    seed: int | None = None,
    overlap: int | None = None,
    unassigned: bool = False,
    one_response_per_item: bool = False,
) -> BuildPlan:
    """Decide tasks, ids, assignment and order (no writing). Raises :class:`BuildOptionError` on an option
    that does not fit the study, :class:`WmcdpError` when there is nothing to send. ``one_response_per_item``:
    no rater gets two responses to the same item (:func:`_assign_one_per_item`)."""
    if one_response_per_item and unassigned:
        raise BuildOptionError("one-response-per-item", "cannot be used with --unassigned: the one bundle holds "
                                                        "every response of every item")
    seed = study.study.seed if seed is None else seed
    if seed < 0:
        raise BuildOptionError("seed", f"the seed must be 0 or more, not {seed}")
    raters = [r.rater_id for r in study.study.raters]
    overlap = study.study.overlap if overlap is None else overlap
    if not unassigned and not 1 <= overlap <= len(raters):
        raise BuildOptionError(
            "overlap", f"the overlap must be between 1 and the number of raters ({len(raters)}), not {overlap}"
        )

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
                raise WmcdpError("two tasks got the same id; build again with another seed")
            tasks[task.task_id] = task
    if not tasks:
        raise WmcdpError("no task to send: no item of the study's rater_splits has a candidate response")

    item_of = {t.task_id: t.item.benchmarkItemId for t in tasks.values()}
    model_of = {t.task_id: t.response.model_source for t in tasks.values()}
    if one_response_per_item:
        assigned, raters_of = _assign_one_per_item(tasks, item_of, model_of, raters, overlap, seed)
    else:
        assigned, raters_of = _assign(tasks, model_of, raters, overlap, seed, unassigned)
    assignment = {rater: _order(rater, task_ids, item_of, model_of, seed) for rater, task_ids in assigned.items()}
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
StageProgress = Callable[[str, int, int], None]
"""``progress(stage, done, total)`` (the command line draws it)."""
PROGRESS_EVERY = 200
"""Task documents made between two calls of the progress callback."""


def _doc(model: type[D], **fields: Any) -> D:
    """Build a document, leaving out unset (``None``) optional fields (the models refuse null)."""
    return model(**{k: v for k, v in fields.items() if v is not None})


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


def gets_feedback(item: BenchmarkItem, response: CandidateResponse) -> bool:
    """Calibration feedback goes on calibration items only, and only on the response the gold describes
    (``metadata.goldResponseId``; without it the gold applies to every response of the item)."""
    if item.split != CALIBRATION_SPLIT:
        return False
    gold_id = item.gold_response_id
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


def build_bundles(plan: BuildPlan, progress: Callable[[int, int], None] | None = None, *,
                  export_public_key: str | None = None) -> list[BuiltBundle]:
    """Make the bytes of every bundle of the plan (one per rater, or the unassigned one).
    ``progress(done, total)`` counts task documents, then bundles. ``export_public_key`` (base64): the bundles
    are to be encrypted; each manifest carries the key (format 1.3.0) and each file is named
    ``<rater_id>.wmcdp`` (the plain zip is made here, encrypted when written)."""
    study = plan.study
    rubric_bytes = dumps_canonical(study.rubric.to_json_obj()).encode("utf-8")
    total = len(plan.tasks) + len(plan.assignment)
    task_bytes: dict[str, bytes] = {}
    for done, (t, p) in enumerate(plan.tasks.items(), start=1):
        task_bytes[t] = dumps_canonical(task_document(p, study).to_json_obj()).encode("utf-8")
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(plan.tasks)):
            progress(done, total)
    role = {r.rater_id: r.role_or_background for r in study.study.raters}
    labels = blinding_labels(study)
    out: list[BuiltBundle] = []
    for k, (rater, order) in enumerate(sorted(plan.assignment.items()), start=1):
        if progress is not None:
            progress(len(plan.tasks) + k, total)
        rater_id = rater or None
        files: dict[str, bytes] = {"rubric.json": rubric_bytes}
        for t in order:
            files[f"tasks/{t}.json"] = task_bytes[t]
        listing = [
            {"path": name, "sha256": sha256_hex(data), "size": len(data)}
            for name, data in sorted(files.items())
        ]
        digest = sha256_hex(dumps_canonical([rater, order, listing]).encode())
        plain = study.study.render_markdown is False
        manifest = _doc(
            BundleManifest,
            document_type="wmcdp_bundle",
            # the oldest format that has every field written (1.2.0 only for render_markdown)
            format_version=FORMAT_1_3 if export_public_key else BUNDLE_FORMAT_VERSION if plain else FORMAT_1_1,
            bundle_id=_bundle_id(study.study.study_id, rater_id, digest),
            study_id=study.study.study_id,
            study_title=study.study.title,
            created_at=study.study.created_at,
            task_order=order,
            files=listing,
            blinding_check_labels=labels,
            render_markdown=False if plain else None,
            rater_id=rater_id,
            rater_role_or_background=(role.get(rater_id) or None) if rater_id else None,
            export_public_key=export_public_key,
        )
        manifest_bytes = dumps_canonical(manifest.to_json_obj()).encode("utf-8")
        files["bundle.json"] = manifest_bytes
        out.append(
            BuiltBundle(
                file_name=(encryption.encrypted_file_name(rater_id) if export_public_key
                           else bundle_file_name(study.study.study_id, rater_id)),
                rater_id=rater_id,
                bundle_id=manifest.bundle_id,
                manifest_sha256=sha256_hex(manifest_bytes),
                data=deterministic_zip(files),
                files=files,
                task_ids=list(order),
            )
        )
    return out


LABELS_FIELD = "blinding_check_labels"
"""The one field of a bundle that may hold vendor and model names: the blinding check's labels (the same
study-wide, sorted list in every bundle of a build, decoys included; it says nothing about which response
is which). The leak checks skip exactly this field of ``bundle.json`` (and ``export_public_key``, random bytes in
base64 that a short model name could match by chance)."""
UNSCANNED_FIELDS = (LABELS_FIELD, "export_public_key")


def blinding_labels(study: LoadedStudy) -> list[str] | None:
    """The labels of the blinding check as every bundle carries them (sorted: the coordinator's order, e.g.
    real systems first and decoys last, must not show), or None when the study has no check."""
    check = study.study.blinding_check
    if check is None:
        return None
    return sorted((label.label for label in check.labels), key=lambda text: (text.casefold(), text))


def bundle_leak_problems(
    bundles: list[BuiltBundle], matcher: Matcher, accepted: set[tuple[str, str]],
    known: dict[str, list[Match]] | None = None, progress: Callable[[int, int], None] | None = None,
) -> list[Problem]:
    """The leak scan run again on what the build made: every file name and every string (keys included)
    of every file of every bundle, except :data:`LABELS_FIELD`; warnings pass here as in the study's scan. A
    finding the coordinator accepted in the
    study's text is accepted here too (``accepted``: term and exact text). The source scan has already
    passed, so a finding here means the builder itself wrote something it should not have. ``known``:
    texts the source scan searched with the same matcher, and what it found (not searched again)."""
    seen: dict[str, list[Match]] = dict(known or {})
    problems: set[Problem] = set()

    def leaks(text: str) -> list[Match]:
        matches = seen.get(text)
        if matches is None:
            matches = seen[text] = matcher.find(text)
        return [m for m in matches if not m.term.warning and (m.term.skeleton, text) not in accepted] if matches else []

    def report(where: str, path: str, text: str) -> None:
        for match in leaks(text):
            problems.add(Problem(where, path, f"contains {match.term.describe()}: blinding would be broken"))

    done: set[bytes] = set()
    for k, bundle in enumerate(bundles, start=1):
        if progress is not None:
            progress(k, len(bundles))
        report(bundle.file_name, "", bundle.file_name)
        for name, data in bundle.files.items():
            where = f"{bundle.file_name}!{name}"
            report(where, "(file name)", name)
            if data in done and name != "bundle.json":
                continue  # the same task file in another rater's bundle
            done.add(data)
            obj = json.loads(data)
            if name == "bundle.json":
                obj = {k: v for k, v in obj.items() if k not in UNSCANNED_FIELDS}
            strings: list[str] = []
            _strings_of(obj, strings)
            if any(leaks(text) for text in strings):  # rare: only then find where
                for path, text in walk_strings(obj):
                    report(where, path, text)
    return sorted(problems)


def _strings_of(obj: Any, out: list[str]) -> None:
    """Every string of a JSON value, keys included (no paths: fast)."""
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        out.extend(obj)
        for value in obj.values():
            _strings_of(value, out)
    elif isinstance(obj, list):
        for value in obj:
            _strings_of(value, out)


def unblinding_key(plan: BuildPlan, bundles: list[BuiltBundle]) -> UnblindingKey:
    study = plan.study
    entries = []
    for t in sorted(plan.tasks.values(), key=lambda p: p.task_id):
        case = study.item_case(t.item)
        entries.append(KeyEntry(
            task_id=t.task_id,
            candidate_response_id=t.candidate_response_id,
            benchmark_item_id=t.item.benchmarkItemId,
            split=t.item.split,
            response_id=t.response.response_id,
            model_source=t.response.model_source,
            raters=plan.raters_of.get(t.task_id, []),
            # what collect checks each record against, as results validate --bundle does with the task
            clinical_domain_id=case.clinical_domain_id,
            scenario_type_ids=list(case.scenario_type_ids),
            candidate_response_sha256=text_sha256(t.response.text),
        ))
    return _doc(
        UnblindingKey,
        document_type="wmcdp_unblinding_key",
        format_version=KEY_FORMAT_VERSION,
        study_id=study.study.study_id,
        study_sha256=sha256_hex(study.study_bytes),
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
        blinding_labels=(
            [_doc(KeyLabel, label=x.label, model_source=x.model_source) for x in study.study.blinding_check.labels]
            if study.study.blinding_check is not None else None
        ),
        rubric=study.rubric,
    )


def key_file_name(study_id: str) -> str:
    return f"{check_id(study_id, 'study id')}-unblinding-key.json"


@dataclass
class BuildResult:
    plan: BuildPlan
    bundles: list[BuiltBundle]
    bundle_paths: list[Path]
    """Where each of :attr:`bundles` was written."""
    key_path: Path
    scan: ScanResult = field(default_factory=ScanResult)
    """The leak scan: its accepted findings and warnings are listed in the build's output."""
    style: StyleCheck | None = None
    """Style separability of the responses sent (a warning, never a refusal)."""
    keys: encryption.BuildKeys | None = None
    """The build's key pair and passphrases when the bundles are encrypted (written in ``keys/``)."""
    encryption_reasons: list[str] = field(default_factory=list)
    """Why the default rule encrypts (items held out or whose access policy says so); empty: it does not."""

    @property
    def encrypted(self) -> bool:
        return self.keys is not None

    @property
    def study_id(self) -> str:
        return self.plan.study.study.study_id

    @property
    def warnings(self) -> list[Problem]:
        """The study's warnings, the leak scan's, then the style check's."""
        return self.plan.study.warnings + self.scan.warnings + (self.style.warnings if self.style else [])

    @property
    def blinding_labels(self) -> list[str] | None:
        return blinding_labels(self.plan.study)


def build(
    study: LoadedStudy | Path,
    out_dir: Path,
    *,
    seed: int | None = None,
    overlap: int | None = None,
    raters: list[str] | None = None,
    unassigned: bool = False,
    bundle_file: Path | None = None,
    key_path: Path | None = None,
    progress: StageProgress | None = None,
    one_response_per_item: bool = False,
    reading: Callable[[int, int], None] | None = None,
    encrypt: bool | None = None,
    kdf: KdfParams | None = None,
) -> BuildResult:
    """``wmcdp bundle build`` as one call: read the study folder when given one (``reading(done, total)`` hears
    it), plan, build, check blinding, then write bundles and the key (0600). Nothing is written on error.
    ``progress(stage, done, total)`` hears every phase: the leak scan, making the bundles, checking them, writing.
    ``encrypt``: True, False, or None for the default rule (:mod:`encryption`); encrypted bundles use ``kdf``
    (default: :data:`~wmcdp_desktop.core.encryption.bundle_envelope.DEFAULT_KDF`) and the keys in ``keys/``
    beside the unblinding key (written first, owner-only)."""
    if isinstance(study, Path):
        study = load_study(study, progress=reading)

    def stage(name: str) -> Callable[[int, int], None] | None:
        return None if progress is None else (lambda done, total: progress(name, done, total))

    known = [r.rater_id for r in study.study.raters]
    if raters is not None:
        unknown = [r for r in raters if r not in known]
        if unknown:
            raise BuildOptionError("raters", f"{', '.join(unknown)} not in study.json (raters: {', '.join(known)})")
    scanned = scan_study(study, stage("Leak scan"))
    if scanned.findings:
        raise DocumentError(scanned.problems())
    assert scanned.matcher is not None
    plan = plan_build(study, seed=seed, overlap=overlap, unassigned=unassigned,
                      one_response_per_item=one_response_per_item)
    style = check_style(study, plan.seed, stage("Style separability"))
    sent = list({p.item.benchmarkItemId: p.item for p in plan.tasks.values()}.values())
    reasons = encryption.encryption_reasons(sent)
    held = sorted(i.benchmarkItemId for i in sent if encryption.is_held_out(i))
    if encrypt is False and held:
        raise BuildOptionError(
            "no-encrypt",
            f"held-out items are sent only in encrypted bundles, and this build sends {len(held)} "
            f"({', '.join(held[:5])}{' …' if len(held) > 5 else ''}): leave out --no-encrypt, or take "
            "held_out_project out of the study's rater_splits",
        )
    key_target = key_path or child_path(out_dir, key_file_name(study.study.study_id))
    folder = encryption.keys_folder(key_target)
    if encrypt is None and not reasons and encryption.earlier_keys(folder):
        reasons = [f"an earlier build into this folder was encrypted ({folder.name}/ holds its keys)"]
    keys = (encryption.build_keys(folder, study.study.study_id)
            if (encrypt if encrypt is not None else bool(reasons)) else None)
    # Every bundle is made (and checked), even with ``raters``: the key must list all of them, so a key
    # written while re-issuing one rater's bundle is the same file as the full build's and still unblinds
    # every rater's export (it may overwrite the original key in the same folder).
    all_bundles = build_bundles(plan, stage("Making bundles"),
                                export_public_key=keys.public_key_text if keys is not None else None)
    problems = bundle_leak_problems(all_bundles, scanned.matcher, scanned.accepted_texts(), scanned.scanned,
                                    stage("Checking bundles"))
    if problems:
        raise DocumentError(problems)
    key = unblinding_key(plan, all_bundles)
    bundles = all_bundles if unassigned or raters is None else [b for b in all_bundles if b.rater_id in raters]
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WmcdpError(f"cannot create the output folder {out_dir}: {exc.strerror or exc}") from None
    paths = [bundle_file if (unassigned and bundle_file is not None) else child_path(out_dir, bundle.file_name)
             for bundle in bundles]
    entries = ([encryption.passphrase_entry(keys, path.name, bundle.rater_id)
                for bundle, path in zip(bundles, paths, strict=True)] if keys is not None else [])
    if keys is not None:  # what opens the bundles is kept before any bundle is written
        encryption.write_keys(keys, study.study.study_id)
    for i, (bundle, path) in enumerate(zip(bundles, paths, strict=True), start=1):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WmcdpError(f"cannot create the folder {path.parent}: {exc.strerror or exc}") from None
        atomic_write_bytes(path, encryption.encrypt_with(entries[i - 1], bundle.data, kdf) if keys else bundle.data)
        if progress is not None:
            progress("Writing bundles", i, len(bundles))
    atomic_write_text(key_target, dumps_canonical(key.to_json_obj()), mode=KEY_MODE)
    return BuildResult(plan=plan, bundles=bundles, bundle_paths=paths, key_path=key_target, scan=scanned,
                       style=style, keys=keys, encryption_reasons=reasons)
