"""Study folders for the suite: the documents a coordinator writes, and a study built into bundles.

Independent of ``resources/`` (the demo study is tested separately), so these depend only on the models. The
documents: :func:`rubric_obj` (test rubric, N/A only on WM-RUB-007, 3 failure modes), :func:`case_obj`,
:func:`item_obj`, :func:`study_obj`, :func:`rubric_translation`. :func:`write_study` writes a whole study
folder; :func:`build_study` also runs ``wmcdp bundle build`` on it and opens every rater's bundle
(``encrypt=True``: ``--encrypt``, with :data:`tests.kit.encryption.FAST_KDF`; each bundle decrypted in memory
with the passphrase the build wrote, and exports sealed to the build's coordinator key).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS
from wmcdp_desktop.core.strict_json import dumps_canonical

FAILURE_MODES = ["WM-FM-REASSURANCE", "WM-FM-SHAMING", "WM-FM-MISSED-RISK"]
MODELS = ["acme-gpt-9", "zeta-llm-large", "orca-chat-2"]
CREATED_AT = "2026-11-01T09:00:00Z"


def _scale(lo: int, hi: int) -> dict[str, Any]:
    return {"min": lo, "max": hi, "anchors": [{"level": i, "text": f"level {i}"} for i in range(lo, hi + 1)]}


def rubric_obj() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_rubric",
        "contract_id": "WM-CDP-RUBRIC",
        "contract_version": "1.0.0",
        "title": "Test rubric",
        "instructions": "Rate the response.",
        "dimensions": [
            {
                "id": dim_id,
                "field": field,
                "label": f"Dimension {dim_id}",
                "description": "What it assesses.",
                "scale": _scale(1, 5),
                "allow_na": dim_id == "WM-RUB-007",
            }
            for dim_id, field in DIMENSION_FIELDS.items()
        ],
        "failure_modes": [
            {
                "id": fm,
                "label": fm.lower(),
                "description": "A failure.",
                "severity_guidance": {"minor": "m", "moderate": "mo", "major": "ma", "critical": "c"},
            }
            for fm in FAILURE_MODES
        ],
        "confidence_scale": _scale(1, 5),
    }


def _translated_anchors(scale: dict[str, Any], prefix: str) -> dict[str, Any]:
    out = {}
    for a in scale["anchors"]:
        t = {"text": f"{prefix} {a['text']}"}
        if "short_label" in a:
            t["short_label"] = f"{prefix[:2]} {a['short_label']}"[:24]
        out[str(a["level"])] = t
    return out


def rubric_translation(obj: dict[str, Any], prefix: str = "ES", *, validated: bool = False) -> dict[str, Any]:
    """A complete translation of the rubric ``obj``: every text with ``prefix`` in front."""
    dims = {}
    for d in obj["dimensions"]:
        dims[d["id"]] = {"label": f"{prefix} {d['label']}", "description": f"{prefix} {d['description']}",
                         "anchors": _translated_anchors(d["scale"], prefix)}
        if "na_guidance" in d:
            dims[d["id"]]["na_guidance"] = f"{prefix} {d['na_guidance']}"
    return {
        "clinically_validated": validated,
        "title": f"{prefix} {obj['title']}",
        "instructions": f"{prefix} {obj['instructions']}",
        "dimensions": dims,
        "failure_modes": {
            f["id"]: {"label": f"{prefix} {f['label']}", "description": f"{prefix} {f['description']}",
                      "severity_guidance": {k: f"{prefix} {v}" for k, v in f["severity_guidance"].items()}}
            for f in obj["failure_modes"]
        },
        "confidence_scale": {"anchors": _translated_anchors(obj["confidence_scale"], prefix)},
    }


def case_obj(case_id: str, version: str = "1.0.0") -> dict[str, Any]:
    return {
        "document_type": "wmcdp_case",
        "case_id": case_id,
        "case_version": version,
        "title": f"Case {case_id}",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "scenario": {
            "context": {
                "age_band": "8-10",
                "setting": "parent coaching chat",
                "speakers": ["parent", "assistant"],
                "summary": "A child asks for reassurance many times a day.",
            },
            "turns": [{"role": "parent", "text": f"My child keeps asking if the door is locked ({case_id})."}],
        },
    }


def item_obj(
    item_id: str,
    case_id: str,
    split: str = "test",
    *,
    case_sha: str | None = None,
    held_out: bool = False,
    exclusion: str | None = None,
    criterion_ids: tuple[str, ...] = ("WM-RUB-001", "WM-FM-REASSURANCE"),
    criteria: list[dict[str, Any]] | None = None,
    slice_tags: tuple[str, ...] = ("ocd",),
) -> dict[str, Any]:
    """A benchmark item whose gold accepts ``satisfied`` on each of ``criterion_ids``; or, given ``criteria``,
    one gold entry per ``{"id", "verdicts"[, "applicability", "severity"]}``."""
    criteria = criteria if criteria is not None else [{"id": c, "verdicts": ["satisfied"], "severity": "none"}
                                                      for c in criterion_ids]
    case_ref: dict[str, Any] = {"caseId": case_id, "caseVersion": "1.0.0"}
    if case_sha:
        case_ref["sha256"] = case_sha
    obj: dict[str, Any] = {
        "documentType": "benchmark_item",
        "schemaVersion": "1.0.0",
        "benchmarkItemId": item_id,
        "benchmarkVersion": "1.0.0",
        "split": split,
        "contractRef": {"contractId": "WM-CDP-RUBRIC", "contractVersion": "1.0.0"},
        "caseRef": case_ref,
        "sliceTags": list(slice_tags),
        "challengeAttributes": [],
        "goldStandard": {
            "criterionGold": [
                {
                    "criterionId": c["id"],
                    "applicability": c.get("applicability", "applies"),
                    "acceptableVerdicts": c["verdicts"],
                    "severity": c.get("severity", "moderate"),
                    "positiveEvidenceSpans": [],
                    "negativeEvidenceSpans": [],
                    "omissionDescriptions": [],
                    "notes": f"GOLDNOTE-{item_id}-{c['id']}",
                }
                for c in criteria
            ],
            "ambiguityStatus": "clear",
            "acceptableDecisions": [{"target": "candidate_response", "acceptableActions": ["accept"]}],
        },
        "adjudication": {
            "method": "consensus_panel",
            "adjudicatorCount": 2,
            "domainExpertCount": 2,
            "blindToAutoQA": True,
            "blindToReviewerLabel": True,
            "disagreementTypes": [],
            "adjudicationNotes": f"ADJNOTE-{item_id}",
            "completedAt": "2026-10-01T10:00:00Z",
        },
        "leakageControl": {
            "allowedForPromptDevelopment": False,
            "heldOutProject": held_out,
            "firstFrozenAt": "2026-10-01T10:00:00Z",
            "accessPolicy": "study raters only",
        },
        "weight": 1.0,
    }
    if exclusion:
        obj["exclusionReason"] = exclusion
    return obj


def study_obj(n_raters: int = 3, overlap: int = 2, seed: int = 7, splits: tuple[str, ...] = ("test", "calibration")) -> dict[str, Any]:
    return {
        "document_type": "wmcdp_study",
        "study_id": "STUDY-T1",
        "title": "Test study",
        "raters": [{"rater_id": f"R{i + 1}", "role_or_background": "psychologist"} for i in range(n_raters)],
        "overlap": overlap,
        "seed": seed,
        "rater_splits": list(splits),
        "created_at": CREATED_AT,
    }


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_canonical(obj), encoding="utf-8")


def edit_json(path: Path, change: Callable[[Any], object]) -> None:
    """Load ``path``, let ``change`` edit the object in place, write it back."""
    obj = json.loads(path.read_text(encoding="utf-8"))
    change(obj)
    write_json(path, obj)


def item_model_responses(items: list[str], models: list[str]) -> list[dict[str, Any]]:
    """One response per item and model, ids ``<item>--<model>`` (the default of :func:`write_study`)."""
    return [
        {
            "response_id": f"{item}--{model}",
            "benchmark_item_id": item,
            "model_source": model,
            "text": f"Response to {item}: let's try a small step together.",
        }
        for item in items
        for model in models
    ]


def numbered_responses(items: list[str], models: list[str]) -> list[dict[str, Any]]:
    """Responses ``resp-0001``... (item by item, model by model), ids that say nothing of the model."""
    out = []
    for item in items:
        for model in models:
            out.append({
                "response_id": f"resp-{len(out) + 1:04d}",
                "benchmark_item_id": item,
                "model_source": model,
                "text": f"A calm reply to {item}: let's try one small step together.",
            })
    return out


def write_responses(root: Path, lines: list[dict[str, Any]]) -> None:
    """``responses/responses.jsonl`` holding ``lines``, one JSON object a line."""
    (root / "responses").mkdir(parents=True, exist_ok=True)
    (root / "responses" / "responses.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )


def read_responses(root: Path) -> list[dict[str, Any]]:
    text = (root / "responses" / "responses.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_study(
    root: Path,
    *,
    n_items: int = 4,
    n_raters: int = 3,
    overlap: int = 2,
    models: list[str] | None = None,
    extra_items: list[dict[str, Any]] | None = None,
    calibration_items: int = 1,
    study_extra: dict[str, Any] | None = None,
    item_change: Callable[[dict[str, Any]], object] | None = None,
    responses: Callable[[list[str], list[str]], list[dict[str, Any]]] = item_model_responses,
) -> Path:
    """A valid study: ``n_items`` test items, then ``calibration_items`` calibration ones, then
    ``extra_items``, each answered by every model of ``models``.

    ``study_extra``: keys set on study.json; ``item_change``: edits each generated item in place;
    ``responses``: the responses of (item ids, models)."""
    models = models or MODELS
    study = study_obj(n_raters, overlap)
    study.update(study_extra or {})
    write_json(root / "study.json", study)
    write_json(root / "rubric.json", rubric_obj())
    items: list[dict[str, Any]] = []
    for i in range(n_items + calibration_items):
        case_id = f"CASE-{i + 1:03d}"
        write_json(root / "cases" / f"{case_id}.json", case_obj(case_id))
        split = "calibration" if i >= n_items else "test"
        item = item_obj(f"ITEM-{i + 1:03d}", case_id, split)
        if item_change is not None:
            item_change(item)
        items.append(item)
    for extra in extra_items or []:
        items.append(extra)
    for item in items:
        write_json(root / "items" / f"{item['benchmarkItemId']}.json", item)
        case_id = item["caseRef"]["caseId"]
        if not (root / "cases" / f"{case_id}.json").exists():
            write_json(root / "cases" / f"{case_id}.json", case_obj(case_id))
    write_responses(root, responses([item["benchmarkItemId"] for item in items], models))
    return root


@dataclass
class BuiltStudy:
    """A study folder built by ``wmcdp bundle build``: its bundles opened, one per rater."""

    root: Path
    folder: Path
    """The study folder."""
    out: Path
    """Where the bundles and the unblinding key were written."""
    key: Path
    bundles: dict[str, Any]
    """rater id -> the opened bundle (:class:`wmcdp_desktop.core.bundle_reader.OpenedBundle`)."""
    passphrases: dict[str, str] = field(default_factory=dict)
    """rater id -> the passphrase of their bundle (an encrypted build; empty otherwise)."""
    bundle_files: dict[str, Path] = field(default_factory=dict)
    """rater id -> the bundle file as written."""
    coordinator_key: Path | None = None
    """``keys/coordinator.key`` of an encrypted build."""

    @property
    def encrypted(self) -> bool:
        return self.coordinator_key is not None

    def records(self, rater: str, **kw: Any) -> list[dict[str, Any]]:
        """A valid record (:func:`tests.kit.exports.record_obj`) for every task of ``rater``'s bundle."""
        from tests.kit.exports import record_obj

        b = self.bundles[rater]
        return [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, **kw) for t in b.task_ids]

    def export_options(self, rater: str) -> dict[str, Any]:
        """What :func:`tests.kit.exports.export_zip` needs to know of ``rater``'s bundle."""
        b = self.bundles[rater]
        return {"study_id": b.manifest.study_id, "rater_id": rater, "bundle_id": b.manifest.bundle_id,
                "bundle_sha256": b.manifest_sha256, "tasks_in_bundle": len(b.task_ids)}

    def export(self, rater: str, records: list[dict[str, Any]], name: str | Path, *, sealed: bool | None = None,
               **kw: Any) -> Path:
        """``records`` as ``rater``'s results export, written at ``root/name`` (or at ``name`` if absolute);
        ``sealed`` (default: when the build is encrypted) seals it to the bundle's ``export_public_key``, as the
        app does."""
        from tests.kit.exports import export_zip

        path = self.root / name
        data = export_zip(records, **{**self.export_options(rater), **kw})
        if self.encrypted if sealed is None else sealed:
            from tests.kit.encryption import sealed_export

            public = self.bundles[rater].manifest.export_public_key_bytes
            assert public is not None, "the bundle carries no export_public_key"
            data = sealed_export(data, public)
        path.write_bytes(data)
        return path


def build_study(root: Path, *, out: str = "out", encrypt: bool = False, **study: Any) -> BuiltStudy:
    """:func:`write_study` in ``root/study`` (options: its own), built into bundles in ``root/<out>``
    through ``wmcdp bundle build`` (quietly); every rater's bundle opened. ``encrypt``: ``--encrypt`` (with
    :data:`tests.kit.encryption.FAST_KDF`), each bundle decrypted in memory with its passphrase."""
    from tests.kit.encryption import fast_kdf
    from wmcdp_desktop.coordinator.commands.main import main
    from wmcdp_desktop.core.bundle_reader import open_bundle, open_bundle_bytes
    from wmcdp_desktop.core.encryption.bundle_envelope import open_bundle as decrypt

    folder = write_study(root / "study", **study)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), fast_kdf():
        code = main(["bundle", "build", str(folder), "--out", str(root / out), *(["--encrypt"] if encrypt else [])])
    assert code == 0, f"bundle build failed ({code})"
    raters = [r["rater_id"] for r in json.loads((folder / "study.json").read_text(encoding="utf-8"))["raters"]]
    key = root / out / "STUDY-T1-unblinding-key.json"
    if not encrypt:
        files = {r: root / out / f"STUDY-T1-{r}.wmcdp" for r in raters}
        return BuiltStudy(root, folder, root / out, key, {r: open_bundle(p) for r, p in files.items()}, bundle_files=files)
    listed = json.loads((root / out / "keys" / "passphrases.json").read_text(encoding="utf-8"))["bundles"]
    passphrases = {e["rater_id"]: e["passphrase"] for e in listed}
    files = {r: root / out / f"{r}.wmcdp" for r in raters}
    bundles = {r: open_bundle_bytes(decrypt(p.read_bytes(), passphrases[r], p.name)[0], p) for r, p in files.items()}
    return BuiltStudy(root, folder, root / out, key, bundles, passphrases=passphrases, bundle_files=files,
                      coordinator_key=root / out / "keys" / "coordinator.key")
