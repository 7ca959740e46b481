"""The scenario is filled in one edit block (docs/PERFORMANCE.md): every turn still shows, in order, and a
second task replaces the first completely."""

from __future__ import annotations

from typing import Any

from wmcdp_desktop.core.models import Task
from wmcdp_desktop.rater.app.rating.task_view import TaskView


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


def test_task_list_labels_every_task_once_in_order(make_window: Any, tmp_path: Any, sample_docs: Any) -> None:
    from tests.kit.bundles import make_bundle

    bundle = make_bundle(tmp_path / "bundle", sample_docs)
    window = make_window([str(bundle), "--data-dir", str(tmp_path / "data"), "--rater", "R01"])
    tasks = window.page.task_list
    ids = window.session.task_ids
    rows = [tasks.row_text(i) for i in range(tasks.count())]
    assert tasks.count() == len(window.session.task_ids)
    # opened tasks are named by their readable title, the others by their id
    expected = [f"{i}. {tasks.titles.get(tid, tid)}" for i, tid in enumerate(ids, start=1)]
    assert [r.split("\n")[0] for r in rows] == expected
    assert tasks.list.uniformItemSizes()  # rows are alike: Qt sizes one, not thousands (10,000-task bundles)
