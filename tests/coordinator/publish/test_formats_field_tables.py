"""docs/FORMATS.md carries a field table per document, generated from the models and current."""

from __future__ import annotations

from pathlib import Path

from tools import field_tables
from wmcdp_desktop.coordinator.publish.field_tables import field_rows
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem


def test_formats_field_tables_are_current(repo_root: Path) -> None:
    text = (repo_root / "docs" / "FORMATS.md").read_text(encoding="utf-8")
    assert field_tables.render(text) == text, "run: python -m tools.field_tables"


def test_the_required_fields_the_issue_counted_by_hand() -> None:
    rows = field_rows(BenchmarkItem)

    def required(prefix: str) -> int:
        return sum(1 for path, _, req, _ in rows if req and path.startswith(prefix) and "." not in path[len(prefix):]
                   and "[]" not in path[len(prefix):])

    assert required("adjudication.") == 7
    assert required("leakageControl.") == 4
    assert required("goldStandard.criterionGold[].") == 8


def test_every_document_of_the_readme_has_a_table(repo_root: Path) -> None:
    text = (repo_root / "docs" / "FORMATS.md").read_text(encoding="utf-8")
    for title in ("Study", "Benchmark item", "Case (scenario)", "Candidate response", "Rubric", "Bundle manifest",
                  "Blinded task", "Rating record", "Results export manifest", "Draft", "Unblinding key"):
        assert f"\n### {title} (" in text, title
