"""Readable names for a task's clinical domain and scenario types (task list and task header)."""

from __future__ import annotations

from typing import Any

import pytest

from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.rater.labels import readable_id, scenario_types_text, task_title


@pytest.mark.parametrize(
    ("identifier", "readable"),
    [
        ("WM-DOM-OCD", "OCD"),
        ("WM-DOM-PANIC", "Panic"),
        ("WM-DOM-SEPARATION-ANXIETY", "Separation anxiety"),
        ("WM-SCN-REASSURANCE-SEEKING", "Reassurance seeking"),
        ("WM-SCN-RISK_APPRAISAL", "Risk appraisal"),
        ("WM-DOM-PTSD-AFTER-ACCIDENT", "PTSD after accident"),
        ("XY-SCN-CBT-HOMEWORK", "CBT homework"),
        ("SCN-GAD", "SCN GAD"),  # not a catalogue id: only the dashes go
        ("WM-DOM-Selective-Mutism", "Selective Mutism"),  # mixed case: spelling kept
        ("dom.ocd", "dom.ocd"),
        ("WM-DOM-", "WM DOM"),
    ],
)
def test_readable_id(identifier: str, readable: str) -> None:
    assert readable_id(identifier) == readable


def test_task_title_and_scenario_types_use_only_domain_and_scenario(sample_docs: Any) -> None:
    data = sample_docs("Task")
    data["clinical_domain_id"] = "WM-DOM-OCD"
    data["scenario_type_ids"] = ["WM-SCN-REASSURANCE-SEEKING", "WM-SCN-ACCOMMODATION", "WM-SCN-GAD-OVERLAP"]
    task = Task.model_validate(data)
    assert task_title(task) == "OCD · reassurance seeking"
    assert scenario_types_text(task) == "Reassurance seeking, accommodation, GAD overlap"
    other = Task.model_validate({**data, "candidate_response_id": "cr-other", "candidate_response_text": "x", "task_id": "T-9"})
    assert task_title(other) == task_title(task)  # nothing from the response or its id
