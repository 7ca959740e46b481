"""The scenario is filled in one edit block (docs/PERFORMANCE.md): every turn still shows, in order, and a
second task replaces the first completely."""

from __future__ import annotations

from typing import Any

from wmcdp_desktop.core.models import Task
from wmcdp_desktop.ui.task_view import TaskView


def _task(task_id: str, turns: int, word: str) -> Task:
    obj: dict[str, Any] = {
        "document_type": "wmcdp_task",
        "task_id": task_id,
        "benchmark_item_id": "ITEM-1",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "scenario": {
            "context": {"age_band": "8-10", "setting": "chat", "speakers": ["parent", "clinician"], "summary": "S."},
            "turns": [
                {"role": "parent" if i % 2 else "clinician", "text": f"{word} turn {i} " + "text " * 300}
                for i in range(turns)
            ],
        },
        "candidate_response_id": "cr-1",
        "candidate_response_text": f"{word} response",
    }
    return Task.model_validate(obj)


def test_every_turn_shows_in_order_and_the_next_task_replaces_it(qtbot: Any) -> None:
    view = TaskView()
    qtbot.addWidget(view)
    view.show_task(_task("t-1", 60, "alpha"), 1, 2)
    text = view.scenario.toPlainText()
    positions = [text.index(f"alpha turn {i} ") for i in range(60)]
    assert positions == sorted(positions)
    assert text.count("Turn ") == 60 and "Conversation so far" in text
    assert view.scenario.textCursor().position() == 0
    view.show_task(_task("t-2", 3, "beta"), 2, 2)
    text = view.scenario.toPlainText()
    assert "alpha" not in text and text.count("beta turn") == 3
    assert view.response.toPlainText() == "beta response"
