"""What ``wmcdp report`` computes, before it is written: the header (:class:`ReportMeta`), the notes, and the
sections of tables and charts that ``summary.json``, ``tables/*.csv`` and ``report.html`` are made from."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wmcdp_desktop.coordinator.report.common import Note, Table


@dataclass
class Chart:
    name: str
    caption: str
    png: bytes


@dataclass
class Section:
    key: str
    title: str
    intro: str
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)


@dataclass(frozen=True)
class ReportMeta:
    """The report's header: what was read, how many of each, and how it was computed (``meta`` of
    summary.json and of ``wmcdp report --json``, in this order)."""

    study_id: str | None
    study_title: str | None
    rubric: str
    """The rubric's contract id and version."""
    records_read: int
    records_excluded: int
    """Rows left out because they break the study's rubric."""
    ratings: int
    """Ratings kept: the latest revision of each rater and task that is a valid rating."""
    cannot_rate: int
    flagged: int
    tasks_nobody_could_rate: list[str]
    tasks: int
    raters: int
    items: int
    models: int
    seed: int
    bootstrap: int
    intervals: str
    """``none``, or whom the intervals are for."""
    wmcdp_version: str

    def as_json_obj(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Report:
    meta: ReportMeta
    notes: list[Note]
    sections: list[Section]
    findings: list[str] = field(default_factory=list)
    """Key findings in plain sentences (top of the report)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per phase (not written to summary.json, which must be reproducible)."""

    def tables(self) -> list[Table]:
        return [t for s in self.sections for t in s.tables]
