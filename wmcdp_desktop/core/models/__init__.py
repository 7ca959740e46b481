"""Every document of WM-CDP as a pydantic v2 model, one module per document.

The names below are imported on first use (PEP 562 ``__getattr__``): building a pydantic model costs
time at import, and the rater app uses only a few of them (cold start, docs/PERFORMANCE.md).
``from wmcdp_desktop.core.models import Task`` works as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
    from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
    from wmcdp_desktop.core.models.candidate_response import CandidateResponse
    from wmcdp_desktop.core.models.case import Case
    from wmcdp_desktop.core.models.rating_record import RatingRecord
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest
    from wmcdp_desktop.core.models.rubric import Rubric
    from wmcdp_desktop.core.models.study import Study
    from wmcdp_desktop.core.models.task import Task

_MODULES = {
    "BenchmarkItem": "benchmark_item",
    "BundleManifest": "bundle_manifest",
    "CandidateResponse": "candidate_response",
    "Case": "case",
    "RatingRecord": "rating_record",
    "ResultsManifest": "results_manifest",
    "Rubric": "rubric",
    "Study": "study",
    "Task": "task",
}

__all__ = [
    "BenchmarkItem",
    "BundleManifest",
    "CandidateResponse",
    "Case",
    "RatingRecord",
    "ResultsManifest",
    "Rubric",
    "Study",
    "Task",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
