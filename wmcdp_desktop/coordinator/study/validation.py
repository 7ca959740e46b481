"""``wmcdp study validate`` as one call: :func:`validate_study` reads the study folder (every document valid,
every cross-reference resolved), scans the texts that reach a bundle for a model's identity and measures
how well the responses' style tells the models apart; the command only prints the :class:`StudyValidation`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from wmcdp_desktop.coordinator.leak.scan import ScanResult
from wmcdp_desktop.coordinator.study.leak_scan import scan_study
from wmcdp_desktop.coordinator.study.loader import LoadedStudy, load_study
from wmcdp_desktop.coordinator.study.style_check import StyleCheck, check_style
from wmcdp_desktop.core.errors import Problem

Stages = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: the stages are "Reading study", "Leak scan" and "Style separability"."""


@dataclass(frozen=True)
class StudyValidation:
    study: LoadedStudy
    scanned: ScanResult
    style: StyleCheck

    @property
    def ok(self) -> bool:
        """No leak of a model's identity (the documents themselves are valid, or this would not exist)."""
        return not self.scanned.findings

    @property
    def warnings(self) -> list[Problem]:
        return self.study.warnings + self.scanned.warnings + self.style.warnings


def _quiet(stage: str, done: int, total: int) -> None:
    return None


def validate_study(study_dir: Path, progress: Stages | None = None) -> StudyValidation:
    """Raises :class:`~wmcdp_desktop.core.errors.DocumentError` listing every problem when a document is not
    valid or a reference does not resolve."""
    stage = progress or _quiet
    study = load_study(study_dir, progress=partial(stage, "Reading study"))
    scanned = scan_study(study, partial(stage, "Leak scan"))
    style = check_style(study, progress=partial(stage, "Style separability"))
    return StudyValidation(study, scanned, style)
