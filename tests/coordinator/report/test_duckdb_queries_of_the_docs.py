"""The queries docs/ANALYSIS.md gives for working beyond one machine (docs/queries/*.sql) run on DuckDB
over a real collection and give the report's figures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.main import main

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


@pytest.fixture
def collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    built = build_study(tmp_path, n_items=6, n_raters=3, overlap=3)
    study = built.folder
    rng = np.random.default_rng(11)
    exports = []
    for rater in ("R1", "R2", "R3"):
        b = built.bundles[rater]
        recs = []
        for t in b.task_ids:
            rec = record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256)
            rec["scoring"]["overall_clinical_judgment_score"] = int(rng.integers(1, 6))
            recs.append(rec)
        path = built.export(rater, recs, f"e-{rater}.zip")
        exports.append(str(path))
    out = tmp_path / "results"
    assert main(["results", "collect", *exports, "--key", str(built.key),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    return out, study


def _run(folder: Path, query: str, repo_root: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{folder}'")
    con.execute((repo_root / "docs" / "queries" / "views_duckdb.sql").read_text(encoding="utf-8"))
    return list(con.execute((repo_root / "docs" / "queries" / query).read_text(encoding="utf-8")).fetchall())


def test_alpha_in_sql_equals_the_reports(collection: tuple[Path, Path], tmp_path: Path, repo_root: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = collection
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r"), "--bootstrap", "0",
                 "--no-charts"]) == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    want = next(r for r in summary["tables"]["agreement_alpha"] if r["dimension"] == "WM-RUB-008")
    ((alpha, values),) = _run(collected, "alpha_interval.sql", repo_root)
    assert alpha == pytest.approx(want["alpha_interval"], abs=1e-12)
    assert values == want["pairable_values"]


def test_per_model_and_failure_mode_queries(collection: tuple[Path, Path], repo_root: Path) -> None:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    collected, _ = collection
    ratings = pq.read_table(collected / "ratings.parquet")
    rows = _run(collected, "per_model.sql", repo_root)
    assert [r[0] for r in rows] == sorted(set(ratings.column("model_source").to_pylist()))
    for model, n, raters, tasks, mean, na_rate in rows:
        mine = ratings.filter(pc.equal(ratings.column("model_source"), model))
        assert n == mine.num_rows and raters == 3 and tasks == len(set(mine.column("task_id").to_pylist()))
        assert mean == pytest.approx(pc.mean(mine.column("overall_judgment")).as_py())
        assert na_rate == 0
    prevalence = _run(collected, "failure_mode_prevalence.sql", repo_root)
    long = pq.read_table(collected / "failure_modes.parquet")
    assert sum(r[2] for r in prevalence) == long.num_rows
    assert all(0 <= r[3] <= 1 and 0 <= r[4] <= r[3] for r in prevalence)


def test_queries_read_only_the_two_parquet_files(collection: tuple[Path, Path], tmp_path: Path,
                                                 repo_root: Path) -> None:
    collected, _ = collection
    only = tmp_path / "only-parquet"
    only.mkdir()
    for name in ("ratings.parquet", "failure_modes.parquet"):
        shutil.copy(collected / name, only / name)
    assert _run(only, "alpha_interval.sql", repo_root)[0][0] is not None
