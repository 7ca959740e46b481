"""One valid document of every model, as bytes (the seeds the JSON fuzzers mutate)."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from pydantic import BaseModel

from tests.kit.bundles import write_bundle
from tests.kit.sessions import RATER, fill, new_session
from wmcdp_desktop.core import models
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey
from wmcdp_desktop.core.zips.reader import open_zip_bytes

from .helpers import REPO

DEMO = REPO / "resources" / "demo-study"


def _first(folder: Path, pattern: str) -> bytes:
    return sorted(folder.glob(pattern))[0].read_bytes()


@functools.cache
def valid_samples() -> dict[str, tuple[type[BaseModel], bytes]]:
    """model name -> (model, bytes of a valid document)."""
    from wmcdp_desktop.rater.export import ExportPlan

    out: dict[str, tuple[type[BaseModel], bytes]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bundle = write_bundle(root / "bundle", 2)
        for name, model in (("bundle.json", models.BundleManifest), ("rubric.json", models.Rubric), ("tasks/t0000.json", models.Task)):
            out[model.__name__] = (model, (bundle / name).read_bytes())
        s = new_session(bundle, root / "data", rater=RATER)
        s.open_task("t0000")
        fill(s, 4)
        assert s.submit().ok
        s.open_task("t0001")
        s.set_score(s.rubric.dimensions[0].id, 2)
        assert s.save_draft()
        out["RatingRecord"] = (models.RatingRecord, (s.store.records_dir / "t0000.r1.json").read_bytes())
        out["Draft"] = (Draft, s.store.draft_path("t0001").read_bytes())
        data, _ = ExportPlan(
            s.store,
            bundle_id=s.manifest.bundle_id,
            bundle_sha256=s.bundle.manifest_sha256,
            study_id=s.manifest.study_id,
            task_ids=s.task_ids,
            drafts_not_submitted=0,
            clock=s.clock,
        ).build()
        out["ResultsManifest"] = (models.ResultsManifest, open_zip_bytes(data, "x.zip").read("manifest.json"))
    if DEMO.is_dir():
        out["Study"] = (models.Study, (DEMO / "study.json").read_bytes())
        out["Case"] = (models.Case, _first(DEMO / "cases", "*.json"))
        out["BenchmarkItem"] = (models.BenchmarkItem, _first(DEMO / "items", "*.json"))
        line = _first(DEMO / "responses", "*.jsonl").split(b"\n", 1)[0]
        out["CandidateResponse"] = (models.CandidateResponse, line)
    return out


def all_models() -> list[type[BaseModel]]:
    """Every document model the project reads."""
    found: list[type[BaseModel]] = [getattr(models, n) for n in models.__all__]
    found.append(Draft)
    found.append(UnblindingKey)
    return found
