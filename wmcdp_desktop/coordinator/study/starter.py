"""``wmcdp study init DIR``: a complete, valid starter study to edit, with a README.md that explains every file
and field (JSON has no comments; the documents' own ``description``/``notes``/``title`` fields say what
the example values stand for).

The starter passes ``wmcdp study validate`` and ``wmcdp bundle build`` as it is (a test builds it): two
scenarios, two benchmark items (one ``test``, one ``calibration`` with gold the raters see after
submitting), two models with one response per item each, three raters with overlap 2, and the default
rubric. Every document is checked with its model before anything is written; nothing is overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wmcdp_desktop.core.atomic import atomic_write_text
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.case import Case
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.resources import default_rubric_path
from wmcdp_desktop.core.strict_json import dumps_canonical

STUDY_ID = "MY-STUDY"
MODELS = ("model-a", "model-b")
FROZEN = "2026-01-15T09:00:00Z"
ACCESS = "Study team and enrolled clinician raters only; not for model training or prompt development."


def _study() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_study",
        "study_id": STUDY_ID,
        "title": "My WM-CDP study (replace this title: raters see it)",
        "description": (
            "Starter study written by `wmcdp study init`: edit every file, then run `wmcdp study validate`. "
            "study_id names bundles and files; raters are the clinicians (one bundle each); overlap = raters per "
            "task; seed fixes assignment and order (same seed = same bundles); rater_splits = item splits sent to "
            "raters; created_at is written into every bundle. README.md explains each field."
        ),
        "raters": [
            {"rater_id": "R-001", "role_or_background": "Clinical child psychologist"},
            {"rater_id": "R-002", "role_or_background": "Child and adolescent psychiatrist"},
            {"rater_id": "R-003", "role_or_background": "Clinical social worker"},
        ],
        "overlap": 2,
        "seed": 20260115,
        "rater_splits": ["test", "calibration"],
        "created_at": "2026-01-15T09:00:00Z",
        "models": [{"model_source": m, "aliases": [f"Example system {m[-1].upper()}"]} for m in MODELS],
    }


def _case(case_id: str, title: str, domain: str, scenario_type: str, age: str, summary: str,
          turns: list[tuple[str, str | None, str]]) -> dict[str, Any]:
    return {
        "document_type": "wmcdp_case",
        "case_id": case_id,
        "case_version": "1.0.0",
        "title": title,
        "clinical_domain_id": domain,
        "scenario_type_ids": [scenario_type],
        "scenario": {
            "context": {"age_band": age, "setting": "Parent coaching chat", "speakers": ["parent", "assistant"],
                        "summary": summary},
            "turns": [{"role": role, **({"speaker_label": label} if label else {}), "text": text}
                      for role, label, text in turns],
        },
    }


CASES = [
    _case("CASE-EXAMPLE-BEDTIME", "Example: bedtime reassurance seeking (fictional; replace)", "WM-DOM-GAD",
          "WM-SCN-REASSURANCE", "8-10",
          "Sam (9) asks the same worried questions every night and cannot settle until a parent answers them.",
          [("parent", "Father", "Every night Sam asks me five or six times whether the house is locked. If I "
                                 "don't answer he cries until midnight. What should I do tonight?")]),
    _case("CASE-EXAMPLE-SCHOOL", "Example: school refusal with stomach aches (fictional; replace)",
          "WM-DOM-SEPARATION-ANXIETY", "WM-SCN-ACCOMMODATION", "11-13",
          "Lena (12) has missed four school days this month with stomach aches the doctor found no cause for.",
          [("parent", "Mother", "Lena says her stomach hurts every school morning and I keep letting her stay "
                                 "home. The doctor says she is healthy. Am I making it worse?")]),
]


def _criterion(criterion_id: str, verdicts: list[str], severity: str, notes: str) -> dict[str, Any]:
    return {"criterionId": criterion_id, "applicability": "applies", "acceptableVerdicts": verdicts,
            "severity": severity, "positiveEvidenceSpans": [], "negativeEvidenceSpans": [],
            "omissionDescriptions": [], "notes": notes}


def _item(item_id: str, case: dict[str, Any], split: str, tags: list[str], gold: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "documentType": "benchmark_item",
        "schemaVersion": "1.0.0",
        "benchmarkItemId": item_id,
        "benchmarkVersion": "0.1.0",
        "split": split,
        "contractRef": {"contractId": "WM-CDP-RUBRIC", "contractVersion": "1.0.0"},
        "caseRef": {"caseId": case["case_id"], "caseVersion": case["case_version"]},
        "sliceTags": tags,
        "challengeAttributes": ["domain_expertise"],
        "goldStandard": {
            "criterionGold": gold,
            "ambiguityStatus": "clear",
            "acceptableDecisions": [{"target": "candidate_response", "acceptableActions": ["accept", "revise"]}],
        },
        "adjudication": {
            "method": "independent_then_adjudicate", "adjudicatorCount": 2, "domainExpertCount": 2,
            "blindToAutoQA": True, "blindToReviewerLabel": True, "disagreementTypes": [],
            "completedAt": FROZEN,
            "adjudicationNotes": "Example gold: replace with your adjudicators' verdicts (never shipped to raters).",
        },
        "leakageControl": {"allowedForPromptDevelopment": False, "heldOutProject": False,
                           "firstFrozenAt": FROZEN, "accessPolicy": ACCESS},
        "weight": 1.0,
    }


GOLD = [
    _criterion("WM-RUB-002", ["satisfied", "partially_satisfied"], "major",
               "A good next move coaches the parent to stop answering the repeated question and to praise coping."),
    _criterion("WM-RUB-007", ["satisfied"], "critical", "Stays within parent coaching; no diagnosis is given."),
]
ITEMS = [
    _item("ITEM-EXAMPLE-BEDTIME-01", CASES[0], "calibration", ["age:8-10", "topic:reassurance"], GOLD),
    _item("ITEM-EXAMPLE-SCHOOL-01", CASES[1], "test", ["age:11-13", "topic:school"], GOLD),
]
RESPONSES = {
    "model-a": [
        ("resp-bedtime-a", "ITEM-EXAMPLE-BEDTIME-01",
         "It makes sense that you answer: you want him to sleep. Each answer calms him for a moment, then the worry "
         "asks again. Tonight, answer once, then say kindly: \"You've heard the answer. I know you can handle the "
         "worried feeling.\" Praise him in the morning for every time he settled on his own."),
        ("resp-school-a", "ITEM-EXAMPLE-SCHOOL-01",
         "You are not a bad parent for wanting her comfortable. Staying home does ease the pain today, and it can "
         "make the next morning harder. Ask the school for a gentle return plan, and keep mornings predictable."),
    ],
    "model-b": [
        ("resp-bedtime-b", "ITEM-EXAMPLE-BEDTIME-01",
         "Just reassure him as often as he needs tonight; sleep is what matters. You can start changing things "
         "when he is older."),
        ("resp-school-b", "ITEM-EXAMPLE-SCHOOL-01",
         "Stomach aches in the morning often mean something is wrong at school. Keep her home until she feels "
         "ready, and look into other schools."),
    ],
}

README = """# {study_id}: a starter WM-CDP study

Written by `wmcdp study init`. Every file is a complete, valid example: edit the values, add your own
items, cases and responses, then check the folder after each change:

```sh
wmcdp study validate {folder}          # every document, every cross-reference, the leak scan
wmcdp bundle build {folder} --out bundles
```

JSON has no comments, so the explanations are here and in the documents' own `description` (study.json),
`title` (cases) and `notes` (gold criteria) fields. Every field of every document, with its type and
whether it is required: docs/FORMATS.md ("Field tables") and the JSON Schemas in `schemas/`.

## The files

| file | what it is | edit |
|---|---|---|
| `study.json` | the study: id, title raters see, the raters, overlap (raters per task), seed, which item splits go to raters, model aliases for the leak scan | rater ids (one bundle each), overlap, seed, title |
| `rubric.json` | the eight dimensions, their scales and anchors, the failure-mode catalogue | keep it unless your study changes the contract |
| `cases/*.json` | one scenario each: context and the conversation so far | the scenario text; `case_id` is what items point at |
| `items/*.json` | one benchmark item each: which case, which split, the adjudicated gold | split (`calibration` items show their gold to raters after submitting), `goldStandard`, `weight`, `sliceTags` |
| `responses/*.jsonl` | the candidate AI responses, one JSON object per line: `response_id`, `benchmark_item_id`, `model_source`, `text` | one line per (item, model); never put a model's name in its text (the leak scan refuses it) |

## Required fields you will meet first

{tables}
## Next steps

1. Replace the two example cases and items with your own (one file per item; ids: letters, digits, `.`, `_`, `-`).
   No gold yet for an item? Write `"criterionGold": []` with `"ambiguityStatus": "insufficient_evidence"`
   (docs/FORMATS.md, "No gold yet"): `study validate` lists such items and the report leaves them out of
   the gold agreement.
2. Put each model's responses in `responses/<model>.jsonl`, one line per item; `model_source` names the model.
3. Add real rater ids to `study.json` (`R-001`, ...: never a person's name) and choose `overlap`.
4. `wmcdp study validate {folder}` until it says the study is valid, then `wmcdp bundle build`.
"""


def _documents() -> dict[str, str]:
    """Relative path -> text of every starter file, each document checked with its model first."""
    files: dict[str, str] = {}
    study = _study()
    Study.model_validate(study)
    files["study.json"] = dumps_canonical(study)
    files["rubric.json"] = default_rubric_path().read_text(encoding="utf-8")
    for case in CASES:
        Case.model_validate(case)
        files[f"cases/{case['case_id']}.json"] = dumps_canonical(case)
    for item in ITEMS:
        BenchmarkItem.model_validate(item)
        files[f"items/{item['benchmarkItemId']}.json"] = dumps_canonical(item)
    import json

    for model, rows in RESPONSES.items():
        lines = []
        for response_id, item_id, text in rows:
            obj = {"response_id": response_id, "benchmark_item_id": item_id, "model_source": model, "text": text}
            CandidateResponse.model_validate(obj)
            lines.append(json.dumps(obj, ensure_ascii=False))
        files[f"responses/{model}.jsonl"] = "\n".join(lines) + "\n"
    return files


def _readme_tables() -> str:
    from wmcdp_desktop.coordinator.publish.field_tables import field_table

    parts = []
    for title, model in (("study.json", Study), ("items/*.json", BenchmarkItem), ("cases/*.json", Case),
                         ("responses/*.jsonl (each line)", CandidateResponse)):
        parts.append(f"### {title}\n\n{field_table(model)}")
    return "\n".join(parts)


def write_starter(folder: Path) -> list[Path]:
    """Write the starter study into ``folder`` (created; it must be empty or absent). Returns the files."""
    if folder.exists() and not folder.is_dir():
        raise WmcdpError(f"{folder}: is a file; give a new folder for the study")
    if folder.is_dir() and any(folder.iterdir()):
        raise WmcdpError(f"{folder}: is not empty; `wmcdp study init` writes only into a new or empty folder "
                         "(nothing was changed)")
    files = _documents()
    files["README.md"] = README.format(study_id=STUDY_ID, folder=folder.as_posix() if folder.is_absolute()
                                       else folder.as_posix() or ".", tables=_readme_tables())
    written = []
    try:
        for rel, text in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
            written.append(path)
    except OSError as exc:
        raise WmcdpError(f"cannot write the starter study into {folder}: {exc.strerror or exc}") from None
    return written
