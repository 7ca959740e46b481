"""Coverage check of the report's 95% intervals: do they contain the true value 95% of the time?

Simulates many small crossed studies (3 models, every rater scores every model's response to every item,
some ratings missing and some N/A), writes each rating as the JSON line ``wmcdp results collect`` writes
(a ``RatingRecord`` with ``model_source``), reads the lines back through the record model into the report's
``Dataset`` (``analysis.loading.build_dataset``), runs the report's own analysis functions
(``agreement.analyse_agreement``, ``per_model.analyse_models``) and counts how often each interval contains
the true value. Coverage is printed per estimand and design with a Wilson 95% interval (widened for the
correlation of the events of one study, Kish's design effect).

    python -m benchmarks.coverage                      # the designs of docs/ANALYSIS.md (minutes)
    python -m benchmarks.coverage --studies 40 --designs 10x3,30x5
    python -m benchmarks.coverage --fixed-raters       # the intervals for these particular raters

Score of rater r on model m's response to item i, dimension d (each dimension has its own parameters,
so one study checks eight settings)::

    y = clip(round(mu[d, m] + item[i] + item_model[i, m] + rater[r] + rater_model[r, m] + noise), 1, 5)

with every effect normal, mean 0, its own SD (``SETTINGS``). True values:

- model mean: the population mean of y over items, raters and noise, E[y] = sum_k k P(y = k) with
  mu + effects ~ N(mu, total variance) (exact);
- paired difference: the difference of two model means (exact);
- alpha (ordinal, interval): the population alpha of the generating model, 1 - D_o / D_e, where D_o is the
  expected distance between two different raters' scores of one task and D_e between two scores drawn
  independently from all scores (the population marginal; the ordinal distance uses its mid-ranks). Two
  raters' scores of one task are independent given the task's shared part s = mu + item + item_model, so
  both are sums over k, l of P(k | s) P(l | s), integrated over s by Gauss-Hermite quadrature (exact to
  1e-10);
- with ``--fixed-raters`` the targets are the same quantities for *these* raters: the mean over items of
  their own average score, and alpha over infinitely many items rated by them (pairs of distinct raters
  among them, equally weighted, as they are in expectation with ratings missing at random).

Missing ratings and N/A are missing completely at random, so they do not change the true values.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SCALE = np.arange(1.0, 6.0)
MODELS = ("model-a", "model-b", "model-c")


@dataclass(frozen=True)
class Setting:
    """Parameters of one rubric dimension: model means and the SDs of the effects."""

    mu: tuple[float, float, float]
    item: float
    rater: float
    noise: float
    item_model: float = 0.0
    rater_model: float = 0.0


SETTINGS = (
    Setting((3.0, 3.4, 2.7), item=0.6, rater=0.4, noise=0.7),                  # the model
    Setting((3.2, 3.5, 3.0), item=0.8, rater=0.3, noise=0.5),
    Setting((2.8, 3.3, 3.0), item=0.5, rater=0.5, noise=0.8),                  # N/A allowed
    Setting((3.0, 3.6, 2.6), item=0.7, rater=0.2, noise=0.6),                  # N/A allowed
    Setting((3.0, 3.4, 2.7), item=0.6, rater=0.4, noise=0.7, item_model=0.3, rater_model=0.2),
    Setting((3.3, 3.1, 2.9), item=0.4, rater=0.6, noise=0.6),
    Setting((3.0, 3.5, 3.2), item=1.0, rater=0.3, noise=0.6),
    Setting((3.4, 3.0, 2.8), item=0.6, rater=0.0, noise=0.8),
)
MISSING = 0.10
"""Share of (item, model, rater) ratings never given."""
NA_RATE = 0.10
"""Share of N/A answers on the dimensions that allow N/A."""
DESIGNS = ((6, 3), (10, 3), (10, 4), (10, 5), (30, 3), (30, 4), (30, 5))
ESTIMANDS = ("model mean", "paired difference", "alpha ordinal", "alpha interval")


# ------------------------------------------------------------------------------------------ true values

def _category_probs(mean: Any, sd: float) -> np.ndarray:
    """P(clip(round(N(mean, sd^2)), 1, 5) = k) for k = 1..5, along a new last axis."""
    from scipy.stats import norm

    edges = np.array([-np.inf, 1.5, 2.5, 3.5, 4.5, np.inf])
    return np.diff(norm.cdf((edges - np.asarray(mean, dtype=float)[..., None]) / sd), axis=-1)


def _alpha_from(joint: np.ndarray, marginal: np.ndarray, level: str) -> float:
    if level == "interval":
        dist = (SCALE[:, None] - SCALE[None, :]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(marginal)])
        i = np.arange(SCALE.size)
        lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
        dist = (cum[hi + 1] - cum[lo] - (marginal[:, None] + marginal[None, :]) / 2) ** 2
    return float(1 - (joint * dist).sum() / (np.outer(marginal, marginal) * dist).sum())


def true_values(s: Setting, rater_shift: np.ndarray | None = None) -> dict[str, Any]:
    """Model means and alphas of a setting; ``rater_shift`` (raters, models) = these raters' own effects
    (rater + rater_model) for the targets of --fixed-raters, None for the population targets."""
    from numpy.polynomial.hermite_e import hermegauss

    nodes, weights = hermegauss(96)
    weights = weights / weights.sum()
    shared_sd = math.hypot(s.item, s.item_model)
    if rater_shift is None:
        own_sd = math.sqrt(s.rater**2 + s.rater_model**2 + s.noise**2)
        shifts = np.zeros((1, len(s.mu)))
    else:
        own_sd = s.noise
        shifts = rater_shift
    means = []
    joint = np.zeros((5, 5))
    marginal = np.zeros(5)
    for m, mu in enumerate(s.mu):
        # probs[r, node, k]: rater r's score distribution given the task's shared part
        probs = _category_probs(mu + shifts[:, m][:, None] + shared_sd * nodes[None, :], own_sd)
        means.append(float((np.einsum("n,rnk->rk", weights, probs) @ SCALE).mean()))
        marginal += np.einsum("n,rnk->k", weights, probs) / (len(shifts) * len(s.mu))
        if rater_shift is None:
            joint += np.einsum("n,nk,nl->kl", weights, probs[0], probs[0]) / len(s.mu)
        else:
            pairs = [(a, b) for a in range(len(shifts)) for b in range(len(shifts)) if a != b]
            for a, b in pairs:
                joint += np.einsum("n,nk,nl->kl", weights, probs[a], probs[b]) / (len(pairs) * len(s.mu))
    return {"means": means, "ordinal": _alpha_from(joint, marginal, "ordinal"),
            "interval": _alpha_from(joint, marginal, "interval")}


# ------------------------------------------------------------------------------------------ one study

def _record(item: int, model: int, rater: int, scores: list[Any], fields: list[str],
            fm_ids: list[str]) -> dict[str, Any]:
    """A rating as ``wmcdp results collect`` writes it (unblinded: model_source filled in)."""
    task = f"T-{item:03d}-{model}"
    return {
        "envelope": {
            "schema_id": "WM-CDP-ANNOTATION-SCHEMA-001", "schema_version": "0.0.1",
            "record_id": f"{item:04d}{model:02d}{rater:02d}".ljust(32, "0"), "task_id": task,
            "bundle_id": f"bundle-R{rater:02d}", "bundle_sha256": "0" * 64, "app_version": "0.1.0",
            "started_at": "2026-11-20T10:00:00Z", "submitted_at": "2026-11-20T10:05:00Z", "revision": 1,
        },
        "benchmark_item_id": f"ITEM-{item:03d}", "clinical_domain_id": "WM-DOM-GAD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"], "candidate_response_id": f"CR-{task}",
        "candidate_response_text": f"Response of model {model} to item {item}.",
        "rater_id": f"R{rater:02d}",
        "scoring": dict(zip(fields, scores, strict=True)),
        "failure_mode_annotations": {f: "none" for f in fm_ids},
        "clinician_notes": {"brief_rationale": "Simulated rating.", "confidence_rating": 3},
        "time_spent_scoring_seconds": 120,
        "model_source": MODELS[model],
    }


@dataclass
class Study:
    lines: list[str]
    """The collected ratings, one JSON line each."""
    rater_shift: np.ndarray
    """(dimensions, raters, models): each rater's own effect, for the --fixed-raters targets."""


def simulate(rng: np.random.Generator, n_items: int, n_raters: int, rubric: Any) -> Study:
    dims = rubric.dimensions
    fields = [d.field for d in dims]
    fm_ids = [f.id for f in rubric.failure_modes]
    n_m = len(MODELS)
    y = np.empty((len(dims), n_items, n_m, n_raters))
    shift = np.empty((len(dims), n_raters, n_m))
    for d, s in enumerate(SETTINGS[:len(dims)]):
        item = rng.normal(0, s.item, n_items)[:, None, None]
        item_model = rng.normal(0, s.item_model, (n_items, n_m))[:, :, None]
        rater = rng.normal(0, s.rater, n_raters)
        rater_model = rng.normal(0, s.rater_model, (n_raters, n_m))
        shift[d] = rater[:, None] + rater_model
        latent = np.array(s.mu)[None, :, None] + item + item_model + shift[d].T[None] \
            + rng.normal(0, s.noise, (n_items, n_m, n_raters))
        y[d] = np.clip(np.rint(latent), 1, 5)
    given = rng.random((n_items, n_m, n_raters)) >= MISSING
    na = rng.random((len(dims), n_items, n_m, n_raters)) < NA_RATE
    lines = []
    for i, m, r in zip(*np.nonzero(given), strict=True):
        scores: list[Any] = ["N/A" if dims[d].allow_na and na[d, i, m, r] else int(y[d, i, m, r])
                             for d in range(len(dims))]
        lines.append(json.dumps(_record(int(i), int(m), int(r), scores, fields, fm_ids), separators=(",", ":")))
    return Study(lines, shift)


def analyse(study: Study, rubric: Any, seed: int, resamples: int, fixed_raters: bool) -> tuple[Any, Any]:
    """The report's own code path on the collected lines: records -> ratings.parquet (collect's own table
    writer) -> Dataset -> agreement, per model."""
    import hashlib
    import tempfile

    from wmcdp_desktop.coordinator.collect import codebook
    from wmcdp_desktop.coordinator.report import agreement, per_model
    from wmcdp_desktop.coordinator.report.collected_parquet import dataset_from_parquet
    from wmcdp_desktop.core.models.rating_record import RatingRecord

    records = [RatingRecord.model_validate_json(line).to_json_obj() for line in study.lines]
    fm_ids = sorted({fm for r in records for fm in r["failure_mode_annotations"]})
    columns = codebook.table_columns(fm_ids, rubric)
    data = codebook.parquet_bytes(columns, codebook.table_data(records, columns, fm_ids, {}, {}), title="ratings")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / codebook.PARQUET_NAME).write_bytes(data)
        (Path(folder) / "collect-report.json").write_text(
            json.dumps({"outputs": {codebook.PARQUET_NAME: hashlib.sha256(data).hexdigest()}}), encoding="utf-8")
        ds = dataset_from_parquet(Path(folder), rubric, None, {}, [])
    extra = {"fixed_raters": True} if fixed_raters else {}
    agr = agreement.analyse_agreement(ds, seed, resamples, **extra)
    mod = per_model.analyse_models(ds, seed, resamples, **extra)
    return agr, mod


def _rows(table: Any) -> list[dict[str, Any]]:
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]


def _judge(lo: Any, hi: Any, truth: float) -> str:
    if lo is None or hi is None:
        return "none"
    return "low" if truth < lo else "high" if truth > hi else "in"


def score_study(study: Study, agr: Any, mod: Any, rubric: Any, fixed_raters: bool,
                population: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Outcome ('in', 'low', 'high', 'none') of every interval of one study, per estimand."""
    out: dict[str, list[str]] = {e: [] for e in ESTIMANDS}
    dim_ids = [d.id for d in rubric.dimensions]
    truths = [true_values(SETTINGS[d], study.rater_shift[d]) for d in range(len(dim_ids))] if fixed_raters \
        else population
    for row in _rows(mod.tables[0]):
        t = truths[dim_ids.index(row["dimension"])]["means"][MODELS.index(row["model"])]
        out["model mean"].append(_judge(row["mean_ci_low"], row["mean_ci_high"], t))
    for row in _rows(mod.tables[3]):
        means = truths[dim_ids.index(row["dimension"])]["means"]
        t = means[MODELS.index(row["model_a"])] - means[MODELS.index(row["model_b"])]
        out["paired difference"].append(_judge(row["diff_ci_low"], row["diff_ci_high"], t))
    for row in _rows(agr.tables[0]):
        t = truths[dim_ids.index(row["dimension"])]
        out["alpha ordinal"].append(_judge(row["ordinal_ci_low"], row["ordinal_ci_high"], t["ordinal"]))
        out["alpha interval"].append(_judge(row["interval_ci_low"], row["interval_ci_high"], t["interval"]))
    return out


# ------------------------------------------------------------------------------------------ summary

def wilson(hits: float, n: float, z: float = 1.959964) -> tuple[float, float]:
    if n <= 0:
        return math.nan, math.nan
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Cell:
    """Coverage of one estimand in one design."""

    design: str
    estimand: str
    n: int
    given: int
    inside: int
    low: int
    high: int
    ci: tuple[float, float]

    @property
    def coverage(self) -> float:
        return self.inside / self.given if self.given else math.nan


def summarise(design: str, outcomes: list[dict[str, list[str]]]) -> list[Cell]:
    cells = []
    for e in ESTIMANDS:
        per_study = [o[e] for o in outcomes]
        given = [[x for x in s if x != "none"] for s in per_study]
        n_given = sum(len(g) for g in given)
        inside = sum(x == "in" for g in given for x in g)
        p = inside / n_given if n_given else math.nan
        # Kish design effect of the clustering by study (the events of one study share raters and items).
        deff = 1.0
        sizes = np.array([len(g) for g in given], float)
        if n_given and 0 < p < 1 and len(given) > 1:
            totals = np.array([sum(x == "in" for x in g) for g in given], float)
            var_between = float(((totals - p * sizes) ** 2).sum() / (len(given) - 1))
            expected = float(sizes.mean()) * p * (1 - p)
            deff = max(1.0, var_between / expected)
        n_eff = n_given / deff
        ci = wilson(p * n_eff, n_eff) if n_given else (math.nan, math.nan)
        cells.append(Cell(design, e, sum(len(s) for s in per_study), n_given, inside,
                          sum(x == "low" for g in given for x in g), sum(x == "high" for g in given for x in g), ci))
    return cells


def table_markdown(cells: list[Cell]) -> str:
    lines = ["| design (items x raters) | estimand | intervals given | coverage | 95% CI of coverage | misses low / high |",
             "|---|---|---|---|---|---|"]
    for c in cells:
        cov = "-" if not c.given else f"{c.coverage:.3f}"
        ci = "-" if not c.given else f"{c.ci[0]:.3f}-{c.ci[1]:.3f}"
        lines.append(f"| {c.design} | {c.estimand} | {c.given}/{c.n} | {cov} | {ci} | {c.low} / {c.high} |")
    return "\n".join(lines)


def run(designs: list[tuple[int, int]], studies: int, seed: int, resamples: int, fixed_raters: bool,
        progress: bool = True) -> list[Cell]:
    from wmcdp_desktop.core.documents import load_file
    from wmcdp_desktop.core.models.rubric import Rubric
    from wmcdp_desktop.core.resources import default_rubric_path

    rubric = load_file(Rubric, default_rubric_path())
    population = [true_values(s) for s in SETTINGS[:len(rubric.dimensions)]]
    cells: list[Cell] = []
    for n_items, n_raters in designs:
        rng = np.random.default_rng([seed, n_items, n_raters])
        outcomes = []
        t0 = time.perf_counter()
        for k in range(studies):
            study = simulate(rng, n_items, n_raters, rubric)
            agr, mod = analyse(study, rubric, seed + k, resamples, fixed_raters)
            outcomes.append(score_study(study, agr, mod, rubric, fixed_raters, population))
            if progress and sys.stderr.isatty():
                print(f"\r{n_items}x{n_raters}: {k + 1}/{studies}", end="", file=sys.stderr, flush=True)
        if progress:
            print(f"\r{n_items} items x {n_raters} raters: {studies} studies in {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
        cells += summarise(f"{n_items} x {n_raters}", outcomes)
    return cells


def _designs(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        items, _, raters = part.strip().partition("x")
        out.append((int(items), int(raters)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.coverage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--designs", type=_designs, default=list(DESIGNS),
                        help="ITEMSxRATERS,... (default 6x3,10x3,10x4,10x5,30x3,30x4,30x5)")
    parser.add_argument("--studies", type=int, default=150, help="simulated studies per design (default 150)")
    parser.add_argument("--seed", type=int, default=20261120)
    parser.add_argument("--bootstrap", type=int, default=200, help="the report's --bootstrap (default 200)")
    parser.add_argument("--fixed-raters", action="store_true", help="check the intervals for these raters")
    parser.add_argument("--json", action="store_true", help="print the cells as JSON instead of a table")
    args = parser.parse_args(argv)
    cells = run(args.designs, args.studies, args.seed, args.bootstrap, args.fixed_raters)
    if args.json:
        print(json.dumps([{**c.__dict__, "coverage": c.coverage} for c in cells], indent=1))
    else:
        print(table_markdown(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
