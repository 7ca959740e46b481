"""Every document of WM-CDP as a pydantic v2 model, one module per document."""

from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.case import Case
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.models.task import Task

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
