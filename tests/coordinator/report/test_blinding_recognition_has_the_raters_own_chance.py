"""The recognition index: a model's label chosen for its own responses against for the others', so a
favourite label is no finding; pooled and per rater; hand-computed figures and a simulation of many studies."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.kit.ratings import Spec, make_ratings, write_collection, write_report_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.report.blinding import bang_index
from wmcdp_desktop.coordinator.report.blinding_chance import (
    POOLED,
    fisher_greater,
    newcombe,
    recognition,
    wilson,
)
from wmcdp_desktop.core.models.rating_record import BlindingGuess

CANNOT_TELL = ""
STANDS_FOR: dict[str, str | None] = {"ChatGPT": "gpt", "Claude": "claude", "Gemini": "gemini", "Llama": None}
LABELS = ["ChatGPT", "Claude", "Gemini", "Llama", CANNOT_TELL]
MODELS = ["gpt", "claude", "gemini"]


def test_the_figures_of_a_small_table_by_hand() -> None:
    # gpt's 4 responses: 3 named ChatGPT, 1 "I can't tell"; claude's 4: 1 named ChatGPT, 3 named Claude.
    models = ["gpt"] * 4 + ["claude"] * 4
    guesses = ["ChatGPT"] * 3 + [CANNOT_TELL] + ["ChatGPT"] + ["Claude"] * 3
    rows = {(r.scope, r.model): r for r in recognition(models, guesses, ["R1"] * 8, STANDS_FOR)}  # type: ignore[arg-type]
    gpt = rows[(POOLED, "gpt")]
    assert (gpt.named_for_model, gpt.answers_for_model, gpt.named_for_others, gpt.answers_for_others) == (3, 4, 1, 4)
    # recognition J = 3/4 - 1/4 = 0.5
    assert gpt.j == pytest.approx(0.5)
    # Fisher, one-sided: 4 "ChatGPT" among 8 answers, 4 drawn for gpt; P(X >= 3) = (C(4,3)C(4,1) + C(4,4)C(4,0)) / C(8,4)
    assert gpt.p_value == pytest.approx((4 * 4 + 1) / 70)
    # Wilson for 3/4: centre (0.75 + z^2/8) / (1 + z^2/4), half z / (1 + z^2/4) * sqrt(0.75 * 0.25 / 4 + z^2 / 64)
    z = 1.959963984540054
    d = 1 + z * z / 4
    lo1, hi1 = (0.75 + z * z / 8) / d - z / d * math.sqrt(0.1875 / 4 + z * z / 64), \
        (0.75 + z * z / 8) / d + z / d * math.sqrt(0.1875 / 4 + z * z / 64)
    assert wilson(3, 4) == pytest.approx((lo1, hi1))
    assert (lo1, hi1) == pytest.approx((0.30064, 0.95441), abs=1e-5)
    # 1/4 is the mirror image: (1 - hi1, 1 - lo1); Newcombe: d -+ sqrt((p1 - l1)^2 + (u2 - p2)^2)
    low = 0.5 - math.sqrt((0.75 - lo1) ** 2 + ((1 - lo1) - 0.25) ** 2)
    high = 0.5 + math.sqrt((hi1 - 0.75) ** 2 + (0.25 - (1 - hi1)) ** 2)
    assert (gpt.ci_low, gpt.ci_high) == pytest.approx((low, high))
    assert (low, high) == pytest.approx((-0.13549, 0.78908), abs=1e-4)
    # claude: named Claude 3 of 4 for its responses, 0 of 4 for gpt's: J = 0.75, P = C(4,3)C(4,0)/C(8,3) = 4/56
    claude = rows[(POOLED, "claude")]
    assert claude.j == pytest.approx(0.75) and claude.p_value == pytest.approx(4 / 56)
    # two tests pooled and two for R1 (the same answers): Holm multiplies the smallest by 4
    assert claude.p_holm == pytest.approx(4 * 4 / 56)


def test_every_answer_i_cant_tell_is_no_information_with_an_honest_interval() -> None:
    rows = recognition(["gpt"] * 30 + ["claude"] * 30, [CANNOT_TELL] * 60, ["R1"] * 60, STANDS_FOR)  # type: ignore[arg-type]
    for r in rows:
        assert r.guesses == 0 and r.j == 0 and not r.flagged
        assert r.ci_low < -0.05 and r.ci_high > 0.05  # about +-0.11 at n = 30, never [0, 0]
    bi = bang_index(0, 0, 30, chance=0.5)
    assert bi is not None and bi.value == 0
    assert bi.ci_high == pytest.approx(1 - 0.025 ** (1 / 30)) and bi.ci_low == pytest.approx(-bi.ci_high)


def answers(rng: np.random.Generator, prefs: np.ndarray, n: int, recognise: str | None = None,
            model: str = "", rate: float = 0.0) -> list[str]:
    """``n`` answers drawn from a rater's label preferences; a rater who recognises ``recognise`` names it
    for that model's responses with probability ``rate`` and otherwise answers as usual."""
    out = [LABELS[i] for i in rng.choice(len(LABELS), size=n, p=prefs)]
    if recognise is not None and model == recognise:
        out = ["ChatGPT" if rng.random() < rate else a for a in out]
    return out


def study(rng: np.random.Generator, unblinded: int, per_model: int = 15, raters: int = 6,
          rate: float = 0.5) -> tuple[list[str | None], list[str | None], list[str]]:
    models: list[str | None] = []
    guesses: list[str | None] = []
    who: list[str] = []
    for r in range(raters):
        prefs = rng.dirichlet([0.6] * len(LABELS))  # each rater their own, often strong, favourites
        for model in MODELS:
            got = answers(rng, prefs, per_model, "gpt" if r < unblinded else None, model, rate)
            models += [model] * per_model
            guesses += got
            who += [f"R{r + 1}"] * per_model
    return models, guesses, who


def test_a_favourite_label_is_no_finding() -> None:
    # the case: raters who guess without looking and say "ChatGPT" 60% of the time
    rng = np.random.default_rng(3)
    prefs = np.array([0.6, 0.1, 0.1, 0.1, 0.1])
    models: list[str | None] = []
    guesses: list[str | None] = []
    for model in MODELS:
        models += [model] * 81
        guesses += answers(rng, prefs, 81)
    rows = recognition(models, guesses, ["R1"] * len(models), STANDS_FOR)
    assert not any(r.flagged for r in rows)
    gpt = next(r for r in rows if r.scope == POOLED and r.model == "gpt")
    # the chance of a guess among four equally likely labels calls the same answers a recognition of gpt
    right = gpt.named_for_model
    guessed = sum(1 for m, g in zip(models, guesses, strict=True) if m == "gpt" and g != CANNOT_TELL)
    p_even = sum(math.comb(guessed, k) * 0.25**k * 0.75 ** (guessed - k) for k in range(right, guessed + 1))
    assert p_even < 1e-6
    assert gpt.p_value > 0.05


def test_simulation_blind_raters_with_skewed_preferences_rarely_warn() -> None:
    rng = np.random.default_rng(2026)
    studies = 200
    warned = sum(any(r.flagged for r in recognition(*study(rng, unblinded=0), STANDS_FOR)) for _ in range(studies))
    assert warned <= 0.05 * studies, f"{warned} of {studies} studies of blind raters warned"


def test_simulation_raters_who_recognise_one_model_warn_in_most_studies() -> None:
    rng = np.random.default_rng(2027)
    studies = 100
    warned = 0
    for _ in range(studies):
        rows = recognition(*study(rng, unblinded=6, rate=0.5), STANDS_FOR)
        warned += any(r.flagged and r.model == "gpt" for r in rows)
    assert warned >= 0.8 * studies, f"only {warned} of {studies} studies warned"


def test_three_unblinded_raters_among_six_are_visible_in_their_own_rows() -> None:
    rng = np.random.default_rng(11)
    models, guesses, who = study(rng, unblinded=3, per_model=30, rate=0.9)
    rows = recognition(models, guesses, who, STANDS_FOR)
    flagged_raters = {r.scope for r in rows if r.flagged and r.model == "gpt" and r.scope != POOLED}
    assert flagged_raters == {"R1", "R2", "R3"}
    assert not any(r.flagged for r in rows if r.model != "gpt")


def test_fisher_and_newcombe_at_the_edges() -> None:
    assert fisher_greater(0, 10, 0, 10) == 1.0
    assert fisher_greater(10, 10, 0, 10) == pytest.approx(1 / math.comb(20, 10))
    d, lo, hi = newcombe(0, 10, 0, 10)
    assert d == 0 and lo < 0 < hi
    d, lo, hi = newcombe(10, 10, 0, 10)
    assert d == 1 and hi == pytest.approx(1.0) and 0.5 < lo < 1


def _guess(answer: str | None) -> BlindingGuess | None:
    if answer is None:
        return None
    return BlindingGuess(answer="cannot_tell") if answer == CANNOT_TELL else BlindingGuess(answer="label", label=answer)


def test_the_report_all_i_cant_tell_says_no_information(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = Spec(n_items=10, models=("model-a", "model-b"), raters=3)
    study_dir = write_report_study(tmp_path / "study", spec, blinding_labels={"Alpha": "model-a", "Beta": "model-b"})
    records = [r.model_copy(update={"blinding_guess": _guess(CANNOT_TELL)}) for r in make_ratings(spec)]
    collected = write_collection(tmp_path / "collected", records)
    assert main(["report", str(collected), "--study", str(study_dir), "--out", str(tmp_path / "out"),
                 "--bootstrap", "0", "--no-charts"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    for row in summary["tables"]["blinding_index"]:
        assert row["bang_bi"] == 0 and row["bang_bi_ci_low"] < 0 < row["bang_bi_ci_high"]
    for row in summary["tables"]["blinding_recognition"]:
        assert row["no_information"] and row["recognition_ci_low"] < 0 < row["recognition_ci_high"]
    notes = [n["text"] for n in summary["notes"] if n["section"] == "blinding"]
    assert any(n.startswith("No information: every one of the 60 answers") for n in notes)
    assert any("Blinding: no information" in f for f in summary["findings"])
    assert not any("no model was" in f for f in summary["findings"])


def test_the_report_warns_for_one_rater_who_recognises_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = Spec(n_items=30, models=("model-a", "model-b"), raters=3)
    study_dir = write_report_study(tmp_path / "study", spec,
                            blinding_labels={"Alpha": "model-a", "Beta": "model-b", "Gamma": None})
    records = []
    for k, r in enumerate(make_ratings(spec)):
        # rater-1 names model-a for its responses; everyone else (and rater-1 for model-b) favours Alpha blindly
        knows = r.rater_id == "rater-1" and r.model_source == "model-a"
        answer = "Alpha" if knows else ("Alpha" if k % 5 < 3 else ("Gamma" if k % 5 == 3 else CANNOT_TELL))
        records.append(r.model_copy(update={"blinding_guess": _guess(answer)}))
    collected = write_collection(tmp_path / "collected", records)
    assert main(["report", str(collected), "--study", str(study_dir), "--out", str(tmp_path / "out"),
                 "--bootstrap", "0", "--no-charts"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    flagged = {(r["scope"], r["model"]) for r in summary["tables"]["blinding_recognition"] if r["recognised"]}
    assert ("rater-1", "model-a") in flagged
    assert not any(scope in ("rater-2", "rater-3") for scope, _ in flagged)
    notes = [n["text"] for n in summary["notes"] if n["section"] == "blinding"]
    assert any(n.startswith("Warning: rater rater-1 recognised model-a") for n in notes)


def test_a_rarely_chosen_label_given_to_its_own_model_is_found() -> None:
    # raters favour "ChatGPT" blindly, but name "Gemini" (rarely) almost only for gemini's responses: the even
    # chance of 1/4 hides it (12 of 60 guesses right, 20%), the raters' own chance does not (12 of 60 vs 1 of 60)
    rng = np.random.default_rng(5)
    models: list[str | None] = []
    guesses: list[str | None] = []
    for model in MODELS:
        got = answers(rng, np.array([0.7, 0.15, 0.0, 0.15, 0.0]), 60)
        if model == "gemini":
            got = ["Gemini"] * 12 + got[12:]
        elif model == "gpt":
            got = ["Gemini", *got[1:]]
        models += [model] * 60
        guesses += got
    rows = recognition(models, guesses, ["R1"] * len(models), STANDS_FOR)
    gemini = next(r for r in rows if r.scope == POOLED and r.model == "gemini")
    assert gemini.flagged and gemini.named_for_model == 12 and gemini.named_for_others == 1
    right = 12
    guessed = sum(1 for m, g in zip(models, guesses, strict=True) if m == "gemini" and g != CANNOT_TELL)
    p_even = sum(math.comb(guessed, k) * 0.25**k * 0.75 ** (guessed - k) for k in range(right, guessed + 1))
    assert p_even > 0.5
