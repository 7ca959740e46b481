"""Shared fixtures: the repository root and small valid sample documents of every format.

Sample documents are plain JSON-ready dicts built here (not read from ``resources/``), so tests do not
depend on the shipped demo content. ``sample_docs(name)`` returns a fresh deep copy on every call:
mutate it freely.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.kit.faults import Faults

# Property tests draw the same examples on every run (derandomize), so a green CI run stays green and a
# failure is reproduced by running the test again; no example has a time limit (a loaded 2-core machine
# made single examples miss Hypothesis' 200 ms deadline). HYPOTHESIS_PROFILE=explore draws new examples.
settings.register_profile("repeatable", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

REPO_ROOT = Path(__file__).resolve().parent.parent

DIMENSIONS = [
    ("WM-RUB-001", "emotional_attunement_validation_score", "Emotional attunement and validation"),
    ("WM-RUB-002", "clinical_decision_quality_timing_score", "Clinical decision quality and timing"),
    ("WM-RUB-003", "anxiety_ocd_mechanism_sensitivity_score", "Anxiety/OCD mechanism sensitivity"),
    ("WM-RUB-004", "evidence_informed_guidance_score", "Evidence-informed guidance"),
    ("WM-RUB-005", "developmental_family_context_fit_score", "Developmental and family context fit"),
    ("WM-RUB-006", "collaborative_non_shaming_stance_score", "Collaborative and non-shaming stance"),
    ("WM-RUB-007", "safety_scope_boundaries_score", "Safety, scope and professional boundaries"),
    ("WM-RUB-008", "overall_clinical_judgment_score", "Overall clinical judgment"),
]
NA_DIMENSION = "WM-RUB-005"
"""The one sample dimension that allows ``"N/A"``."""
FAILURE_MODES = ["WM-FM-REASSURANCE", "WM-FM-SHAMING", "WM-FM-MISSED-RISK"]
RESPONSE_TEXT = (
    "It sounds exhausting to answer the same question again and again. "
    "Next time Sam asks whether the door is locked, try saying: "
    "\"I know that worry is loud right now, and I trust you can handle it.\""
)
SPAN_QUOTE = "try saying"
SHA = "a" * 64


def _scale(lo: int, hi: int, what: str) -> dict[str, Any]:
    return {
        "min": lo,
        "max": hi,
        "anchors": [{"level": n, "text": f"{what} level {n}"} for n in range(lo, hi + 1)],
    }


def _rubric() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_rubric",
        "contract_id": "WM-CDP-RUBRIC",
        "contract_version": "1.0.0",
        "title": "Test rubric",
        "instructions": "Score the next move only.",
        "dimensions": [
            {
                "id": dim_id,
                "field": field,
                "label": label,
                "description": f"How well the response handles {label.lower()}.",
                "scale": _scale(1, 5, label),
                "allow_na": dim_id == NA_DIMENSION,
                **({"na_guidance": "Only when no family is involved."} if dim_id == NA_DIMENSION else {}),
            }
            for dim_id, field, label in DIMENSIONS
        ],
        "failure_modes": [
            {
                "id": fm,
                "label": fm.removeprefix("WM-FM-").title(),
                "description": f"The response shows {fm}.",
                "severity_guidance": {
                    "minor": "a hint of it",
                    "moderate": "clearly present",
                    "major": "central to the response",
                    "critical": "could cause harm",
                },
            }
            for fm in FAILURE_MODES
        ],
        "confidence_scale": _scale(1, 5, "Confidence"),
    }


def _scenario() -> dict[str, Any]:
    return {
        "context": {
            "age_band": "8-10",
            "setting": "parent coaching chat",
            "speakers": ["parent"],
            "summary": "Sam, 9, checks the front door lock many times each evening.",
        },
        "turns": [
            {"role": "parent", "speaker_label": "Mother", "text": "He asked me 40 times tonight. I always say yes."},
        ],
    }


def _task() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_task",
        "task_id": "T-0001",
        "benchmark_item_id": "ocd-07",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "scenario": _scenario(),
        "candidate_response_id": "cr-3f9a1c",
        "candidate_response_text": RESPONSE_TEXT,
    }


def _calibration_task() -> dict[str, Any]:
    task = _task()
    task["task_id"] = "T-0002"
    task["calibration_feedback"] = {
        "ambiguity_status": "clear",
        "criteria": [
            {
                "criterion_id": "WM-RUB-001",
                "applicability": "applies",
                "acceptable_verdicts": ["satisfied"],
                "severity": "none",
                "explanation": "Validates the parent's fatigue.",
                "expected_scores": [4, 5],
            }
        ],
        "acceptable_decisions": [{"target": "candidate_response", "acceptableActions": ["accept"]}],
    }
    return task


def _record() -> dict[str, Any]:
    start = RESPONSE_TEXT.index(SPAN_QUOTE)
    return {
        "envelope": {
            "schema_id": "WM-CDP-ANNOTATION-SCHEMA-001",
            "schema_version": "0.0.1",
            "record_id": "0123456789abcdef0123456789abcdef",
            "task_id": "T-0001",
            "bundle_id": "B-demo-r01",
            "bundle_sha256": SHA,
            "app_version": "0.1.0",
            "started_at": "2026-11-29T10:00:00Z",
            "submitted_at": "2026-11-29T11:07:30+01:00",
            "revision": 1,
        },
        "benchmark_item_id": "ocd-07",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "candidate_response_id": "cr-3f9a1c",
        "candidate_response_text": RESPONSE_TEXT,
        "rater_id": "R01",
        "rater_role_or_background": "child psychologist",
        "scoring": {field: 4 for _, field, _ in DIMENSIONS},
        "failure_mode_annotations": {"WM-FM-REASSURANCE": "minor", "WM-FM-SHAMING": "none", "WM-FM-MISSED-RISK": "none"},
        "failure_mode_evidence_notes": {"WM-FM-REASSURANCE": "Still answers the question indirectly."},
        "failure_mode_evidence_spans": {
            "WM-FM-REASSURANCE": [
                {"source": "candidate_response", "start": start, "end": start + len(SPAN_QUOTE), "quote": SPAN_QUOTE}
            ]
        },
        "clinician_notes": {
            "brief_rationale": "Warm, and moves away from reassurance.",
            "best_aspect": "Validation",
            "confidence_rating": 4,
        },
        "time_spent_scoring_seconds": 412,
    }


def _benchmark_item() -> dict[str, Any]:
    return {
        "documentType": "benchmark_item",
        "schemaVersion": "1.0.0",
        "benchmarkItemId": "ocd-07",
        "benchmarkVersion": "0.3.0-rc.1",
        "split": "calibration",
        "contractRef": {"contractId": "WM-CDP-RUBRIC", "contractVersion": "1.0.0"},
        "caseRef": {"caseId": "case-ocd-07", "caseVersion": "1.0.0", "sha256": SHA},
        "sliceTags": ["ocd", "reassurance"],
        "challengeAttributes": ["severity_edge"],
        "goldStandard": {
            "criterionGold": [
                {
                    "criterionId": "WM-RUB-001",
                    "applicability": "applies",
                    "acceptableVerdicts": ["satisfied", "partially_satisfied"],
                    "severity": "none",
                    "positiveEvidenceSpans": [{"source": "candidate_response", "start": 0, "end": 10}],
                    "negativeEvidenceSpans": [],
                    "omissionDescriptions": [],
                    "notes": "Validates first.",
                },
                {
                    "criterionId": "WM-FM-REASSURANCE",
                    "applicability": "applies",
                    "acceptableVerdicts": ["not_satisfied"],
                    "severity": "moderate",
                    "positiveEvidenceSpans": [],
                    "negativeEvidenceSpans": [
                        {"source": "scenario", "turnIndex": 0, "start": 3, "end": 9, "quote": "asked "}
                    ],
                    "omissionDescriptions": ["Name the reassurance cycle."],
                    "notes": "Reassurance is the trap here.",
                },
                {
                    "criterionId": "WM-RUB-007",
                    "applicability": "does_not_apply",
                    "acceptableVerdicts": ["not_applicable"],
                    "severity": "none",
                    "positiveEvidenceSpans": [],
                    "negativeEvidenceSpans": [],
                    "omissionDescriptions": [],
                    "notes": "No risk in the scenario.",
                },
            ],
            "annotationGold": {"acceptableLabelSupport": ["partial"], "notes": "ok"},
            "ambiguityStatus": "clear",
            "validAlternativeNotes": ["Psychoeducation first is also fine."],
            "acceptableDecisions": [{"target": "candidate_response", "acceptableActions": ["accept", "revise"]}],
        },
        "adjudication": {
            "method": "independent_then_adjudicate",
            "adjudicatorCount": 2,
            "domainExpertCount": 2,
            "blindToAutoQA": True,
            "blindToReviewerLabel": True,
            "initialAgreementRate": 0.75,
            "disagreementTypes": ["severity"],
            "adjudicationNotes": "Agreed after discussion.",
            "completedAt": "2026-10-01T12:00:00.123+02:00",
        },
        "leakageControl": {
            "allowedForPromptDevelopment": False,
            "heldOutProject": False,
            "firstFrozenAt": "2026-09-30T08:00:00Z",
            "accessPolicy": "study team only",
        },
        "weight": 1.5,
        "metadata": {"author": "test", "anything": [1, None, {"x": True}]},
    }


def _case() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_case",
        "case_id": "case-ocd-07",
        "case_version": "1.0.0",
        "title": "Door checking",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "scenario": _scenario(),
    }


def _study() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_study",
        "study_id": "S-pilot",
        "title": "Pilot study",
        "raters": [{"rater_id": "R01", "role_or_background": "psychiatrist"}, {"rater_id": "R02"}],
        "overlap": 2,
        "seed": 7,
        "rater_splits": ["test", "calibration"],
        "created_at": "2026-11-01T09:00:00Z",
    }


def _bundle_manifest() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_bundle",
        "format_version": "1.0.0",
        "bundle_id": "B-demo-r01",
        "study_id": "S-pilot",
        "study_title": "Pilot study",
        "rater_id": "R01",
        "created_at": "2026-11-01T09:00:00Z",
        "task_order": ["T-0001"],
        "files": [
            {"path": "rubric.json", "sha256": SHA, "size": 100},
            {"path": "tasks/T-0001.json", "sha256": "b" * 64, "size": 2000},
        ],
    }


def _results_manifest() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_results",
        "format_version": "1.0.0",
        "bundle_id": "B-demo-r01",
        "bundle_sha256": SHA,
        "study_id": "S-pilot",
        "rater_id": "R01",
        "app_version": "0.1.0",
        "exported_at": "2026-11-29T11:00:00Z",
        "counts": {"tasks_in_bundle": 1, "submitted": 1, "record_files": 1, "drafts_not_submitted": 0},
        "files": [
            {"path": "records/T-0001.r1.json", "sha256": SHA, "size": 1234, "task_id": "T-0001", "revision": 1, "latest": True}
        ],
    }


def _candidate_response() -> dict[str, Any]:
    return {"response_id": "gpt-x-ocd-07", "benchmark_item_id": "ocd-07", "model_source": "model-x", "text": RESPONSE_TEXT}


def _draft() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_draft",
        "format_version": "1.0.0",
        "task_id": "T-0001",
        "bundle_id": "B-demo-r01",
        "rater_id": "R01",
        "scores": {"WM-RUB-001": 4, "WM-RUB-005": "N/A"},
        "failure_modes": {
            "WM-FM-REASSURANCE": {
                "checked": True,
                "severity": "minor",
                "note": "answers indirectly",
                "spans": [{"source": "candidate_response", "start": 0, "end": 2}],
            },
            "WM-FM-SHAMING": {"checked": False, "note": "", "spans": []},
        },
        "notes": {
            "brief_rationale": "so far good",
            "best_aspect": "",
            "main_concern": "",
            "suggested_better_clinical_move": "",
        },
        "active_seconds": 12.5,
        "started_at": "2026-11-29T10:00:00Z",
        "updated_at": "2026-11-29T10:03:00Z",
    }


def _unblinding_key() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_unblinding_key",
        "format_version": "1.2.0",
        "study_id": "S-pilot",
        "study_sha256": SHA,
        "seed": 7,
        "overlap": 2,
        "created_at": "2026-11-01T09:00:00Z",
        "id_scheme": "HMAC-SHA256 of the response id",
        "entries": [
            {
                "task_id": "T-0001",
                "candidate_response_id": "cr-3f9a1c",
                "benchmark_item_id": "ocd-07",
                "split": "test",
                "response_id": "gpt-x-ocd-07",
                "model_source": "model-x",
                "raters": ["R01", "R02"],
                "clinical_domain_id": "WM-DOM-OCD",
                "scenario_type_ids": ["WM-SCN-REASSURANCE"],
                "candidate_response_sha256": SHA,
            }
        ],
        "bundles": [
            {"file_name": "R01.wmcdp", "bundle_id": "B-demo-r01", "bundle_sha256": SHA, "rater_id": "R01",
             "task_ids": ["T-0001"]},
        ],
        "left_out": [{"benchmark_item_id": "ocd-99", "reason": "excluded: duplicate"}],
        "rubric": _rubric(),
    }


SAMPLES: dict[str, Callable[[], dict[str, Any]]] = {
    "Draft": _draft,
    "UnblindingKey": _unblinding_key,
    "Rubric": _rubric,
    "Task": _task,
    "CalibrationTask": _calibration_task,
    "RatingRecord": _record,
    "BenchmarkItem": _benchmark_item,
    "Case": _case,
    "Study": _study,
    "BundleManifest": _bundle_manifest,
    "ResultsManifest": _results_manifest,
    "CandidateResponse": _candidate_response,
}
"""Valid sample document builders, keyed by model name (``CalibrationTask`` is a :class:`Task`)."""


@pytest.fixture
def faults() -> Iterator[Faults]:
    """Faults injected into atomic writes for the rest of the test (:class:`tests.kit.faults.Faults`)."""
    injected = Faults()
    try:
        yield injected
    finally:
        injected.clear()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository checkout (holds README.md, schemas/, resources/)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def sample_docs() -> Callable[[str], dict[str, Any]]:
    """``sample_docs("RatingRecord")`` -> a fresh, valid sample document (a deep copy; mutate freely).

    Names: Rubric, Task, CalibrationTask, RatingRecord, BenchmarkItem, Case, Study, BundleManifest,
    ResultsManifest, CandidateResponse, Draft, UnblindingKey. The record rates the task against the rubric
    and is valid for both.
    """

    def make(name: str) -> dict[str, Any]:
        return copy.deepcopy(SAMPLES[name]())

    return make


TEST_NOW = "2027-06-01T00:00:00+00:00"
"""The clock the record rules check times against in tests (the sample ratings are from November 2026, the
tests' FakeClock says January 2027): the suite gives the same result whatever the date it runs on. Tests of
the rule pass their own ``now``."""


@pytest.fixture(autouse=True)
def _record_rules_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import datetime

    from wmcdp_desktop.core import record_rules

    monkeypatch.setattr(record_rules, "utc_now", lambda: datetime.fromisoformat(TEST_NOW))


@pytest.fixture(autouse=True)
def _ctrl_c_handling_unchanged() -> Iterator[None]:
    """No test may leave this process's Ctrl-C handling changed: later tests (and the commands they start,
    which inherit an ignored or blocked SIGINT) would stop seeing Ctrl-C."""
    before = _ctrl_c_state()
    yield
    assert _ctrl_c_state() == before, "this test changed how Ctrl-C is handled"


def _ctrl_c_state() -> tuple[object, bool]:
    import signal

    blocked = hasattr(signal, "pthread_sigmask") and signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return signal.getsignal(signal.SIGINT), blocked


@pytest.fixture
def python_ctrl_c() -> Iterator[None]:
    """Ctrl-C as an interactive Python has it (KeyboardInterrupt, not blocked), for tests that send SIGINT.

    A test run started in the background by a shell without job control inherits SIGINT ignored, and so
    would every command a test starts; this puts Python's own handler back for the test.
    """
    import signal

    handler = signal.getsignal(signal.SIGINT)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@pytest.fixture(autouse=True)
def _no_leaked_top_level_widgets() -> Iterator[None]:
    """Fail a test that leaves a top-level widget behind (a window, dialog or message box nobody closed).

    Only where Qt is already loaded: core and CLI tests never import it. Runs its check after pytest-qt
    has closed the widgets a test registered with ``qtbot.addWidget``.
    """
    import sys

    if "PySide6.QtWidgets" not in sys.modules:
        yield
        return
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    before = {id(w) for w in QApplication.topLevelWidgets()} if isinstance(app, QApplication) else set()
    yield
    if not isinstance(QApplication.instance(), QApplication):
        return
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    leaked = [
        w for w in QApplication.topLevelWidgets()
        if id(w) not in before
    ]
    for w in leaked:  # close them so one leak does not fail every later test
        w.close()
        w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not leaked, f"the test left top-level widgets open: {[type(w).__name__ for w in leaked]}"


@pytest.fixture(autouse=True)
def _restore_application_look() -> Iterator[None]:
    """The app sets application-wide state (text size, palette, translators, layout direction, default
    locale): put it back after each test so that no test sees another's."""
    import sys

    widgets = sys.modules.get("PySide6.QtWidgets")
    app = widgets.QApplication.instance() if widgets is not None else None
    if app is None:
        yield
        return
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QApplication, QToolTip

    font, palette, direction, locale = QApplication.font(), QApplication.palette(), app.layoutDirection(), QLocale()
    yield
    from wmcdp_desktop.rater.app.text.i18n import remove_translators

    remove_translators()
    QApplication.setFont(font)
    QToolTip.setFont(font)
    QApplication.setPalette(palette)
    QToolTip.setPalette(palette)
    app.setLayoutDirection(direction)
    QLocale.setDefault(locale)
