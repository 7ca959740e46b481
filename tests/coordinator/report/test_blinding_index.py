"""Bang's blinding index per model, adapted to a guess among labels, against hand-computed examples; and the
report's blinding section (warning when a model is recognised more often than chance)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.kit.ratings import Spec, make_ratings, write_collection, write_report_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.report.blinding import bang_index
from wmcdp_desktop.core.models.rating_record import BlindingGuess, RatingRecord


def test_two_labels_is_bangs_original_index() -> None:
    # Bang et al. 2004, one arm, two possible guesses: BI = (correct - wrong) / n, don't-know included.
    # 30 correct, 10 wrong, 10 don't know: BI = 20 / 50 = 0.4
    # var = (0.6 * 0.4 + 0.2 * 0.8 + 2 * 0.6 * 0.2) / 50 = 0.64 / 50 = 0.0128; se = 0.1131371
    # 95%: 0.4 +- 1.959964 * 0.1131371 = 0.4 +- 0.2217446
    bi = bang_index(30, 10, 10, chance=0.5)
    assert bi is not None
    assert bi.value == pytest.approx(0.4)
    assert (bi.ci_low, bi.ci_high) == pytest.approx((0.1782554, 0.6217446), abs=1e-6)


def test_four_labels_weigh_wrong_guesses_by_the_chance_of_a_right_one() -> None:
    # 4 labels, one for the model: chance c = 1/4, w = c / (1 - c) = 1/3.
    # 5 correct, 2 wrong, 3 can't tell (n = 10): BI = 0.5 - 0.2 / 3 = 0.4333333
    # var = (0.5 * 0.5 + (1/9) * 0.2 * 0.8 + 2 * (1/3) * 0.5 * 0.2) / 10
    #     = (0.25 + 0.0177778 + 0.0666667) / 10 = 0.0334444; se = 0.1828782
    # 95%: 0.4333333 +- 0.3584348
    bi = bang_index(5, 2, 3, chance=0.25)
    assert bi is not None
    assert bi.value == pytest.approx(0.4333333, abs=1e-6)
    assert (bi.ci_low, bi.ci_high) == pytest.approx((0.0748986, 0.7917681), abs=1e-6)


def test_blind_guessing_gives_zero_and_the_range_is_clipped() -> None:
    # 12 guesses at chance 1/4 (3 right, 9 wrong) and 12 "can't tell": BI = 3/24 - (1/3)(9/24) = 0
    bi = bang_index(3, 9, 12, chance=0.25)
    assert bi is not None and bi.value == pytest.approx(0.0, abs=1e-12)
    assert bi.ci_high == pytest.approx(1.959964 / 12, abs=1e-6)  # var = (1/6) / 24 = 1/144
    top = bang_index(10, 0, 0, 0.25)
    bottom = bang_index(0, 10, 0, 0.25)
    assert top is not None and (top.value, top.ci_low, top.ci_high) == (1.0, 1.0, 1.0)
    assert bottom is not None and bottom.value == pytest.approx(-1 / 3) and bottom.ci_low == pytest.approx(-1 / 3)
    assert bang_index(0, 0, 0, 0.25) is None
    assert bang_index(3, 1, 0, 0.0) is None and bang_index(3, 1, 0, 1.0) is None


LABELS = [
    {"label": "Alpha", "model_source": "model-a"},
    {"label": "Beta", "model_source": "model-b"},
    {"label": "Gamma"},
    {"label": "Delta"},
]


def _guess(answer: str | None) -> BlindingGuess | None:
    if answer is None:
        return None
    if answer == "?":
        return BlindingGuess(answer="cannot_tell")
    return BlindingGuess(answer="label", label=answer)


def _with_guesses(records: list[RatingRecord]) -> list[RatingRecord]:
    # model-a (30 ratings): 20 Alpha (right), 4 Beta + 2 Gamma (wrong), 4 can't tell
    # model-b (30 ratings): 3 Beta (right), 5 Alpha + 4 Delta (wrong), 12 can't tell, 6 not answered
    plan = {
        "model-a": ["Alpha"] * 20 + ["Beta"] * 4 + ["Gamma"] * 2 + ["?"] * 4,
        "model-b": ["Beta"] * 3 + ["Alpha"] * 5 + ["Delta"] * 4 + ["?"] * 12 + [None] * 6,
    }
    seen = {m: 0 for m in plan}
    out = []
    for rec in records:
        assert rec.model_source is not None
        answer = plan[rec.model_source][seen[rec.model_source]]
        seen[rec.model_source] += 1
        out.append(rec.model_copy(update={"blinding_guess": _guess(answer)}))
    return out


def test_report_blinding_section_matches_the_hand_computation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = Spec(n_items=10, models=("model-a", "model-b"), raters=3)
    study = write_report_study(tmp_path / "study", spec)
    obj = json.loads((study / "study.json").read_text())
    obj["blinding_check"] = {"labels": LABELS}
    obj["accepted_findings"] = [{"file": "cases/c.json", "term": "Claude", "reason": "the father's name"}]
    (study / "study.json").write_text(json.dumps(obj))
    collected = write_collection(tmp_path / "collected", _with_guesses(make_ratings(spec)))
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"),
                 "--bootstrap", "0", "--no-charts"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    rows = {r["model"]: r for r in summary["tables"]["blinding_index"]}
    a, b = rows["model-a"], rows["model-b"]
    # model-a: n = 30, p_c = 2/3, p_w = 1/5, w = 1/3: BI = 2/3 - 1/15 = 0.6
    # var = (2/9 + (1/9)(4/25) + (2/3)(2/15)) / 30 = 0.3288889 / 30; se = 0.1047043; 95% +- 0.2052164
    assert (a["answers"], a["correct"], a["wrong"], a["cannot_tell"], a["chance"]) == (30, 20, 6, 4, 0.25)
    assert a["bang_bi"] == pytest.approx(0.6)
    assert (a["bang_bi_ci_low"], a["bang_bi_ci_high"]) == pytest.approx((0.3947836, 0.8052164), abs=1e-6)
    assert a["correct_share"] == pytest.approx(20 / 26)
    # P(X >= 20), X ~ Binomial(26, 1/4)
    p = sum(math.comb(26, k) * 0.25**k * 0.75 ** (26 - k) for k in range(20, 27))
    assert a["p_value"] == pytest.approx(p) and a["recognised_above_chance"] is True
    # model-b: blind guessing: BI = 3/24 - (1/3)(9/24) = 0, se = 1/12
    assert (b["answers"], b["correct"], b["wrong"], b["cannot_tell"]) == (24, 3, 9, 12)
    assert b["bang_bi"] == pytest.approx(0.0, abs=1e-12)
    assert b["bang_bi_ci_high"] == pytest.approx(1.959964 / 12, abs=1e-6)
    assert b["recognised_above_chance"] is False
    notes = [n["text"] for n in summary["notes"] if n["section"] == "blinding"]
    # the warning comes from the recognition test: Alpha for 20 of model-a's 30 answers, 5 of model-b's 24
    assert any(n.startswith("Warning: raters recognised model-a: they named it for 20 of 30 answers to its "
                            "responses (67%) and at most for 5 of 24 answers to another model's") for n in notes)
    assert not any("model-b more often" in n for n in notes)
    assert any("Blinding: raters recognised model-a" in f for f in summary["findings"])
    guesses = {(r["model"], r["label"]): r for r in summary["tables"]["blinding_guesses"]}
    assert guesses[("model-b", "Delta")]["stands_for"] == "decoy" and guesses[("model-b", "Delta")]["answers"] == 4
    assert summary["tables"]["blinding_accepted_findings"] == [
        {"where": "cases/c.json", "term": "Claude", "reason": "the father's name"}]
    html = (tmp_path / "out" / "report.html").read_text()
    assert "5. Blinding" in html and "Warning: raters recognised model-a" in html


def test_report_without_a_check_has_no_blinding_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = Spec(n_items=4, models=("model-a", "model-b"), raters=2)
    study = write_report_study(tmp_path / "study", spec)
    collected = write_collection(tmp_path / "collected", make_ratings(spec))
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"),
                 "--bootstrap", "0", "--no-charts"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "blinding_index" not in summary["tables"]
    assert "5. Blinding" not in (tmp_path / "out" / "report.html").read_text()


def test_accepted_findings_are_in_the_report_without_a_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = Spec(n_items=4, models=("model-a", "model-b"), raters=2)
    study = write_report_study(tmp_path / "study", spec)
    obj = json.loads((study / "study.json").read_text())
    obj["accepted_findings"] = [{"response_id": "resp-x", "term": "Gemini", "reason": "the child's star sign"}]
    (study / "study.json").write_text(json.dumps(obj))
    collected = write_collection(tmp_path / "collected", make_ratings(spec))
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"),
                 "--bootstrap", "0", "--no-charts"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "blinding_index" not in summary["tables"]
    assert summary["tables"]["blinding_accepted_findings"] == [
        {"where": "response resp-x", "term": "Gemini", "reason": "the child's star sign"}]
    html = (tmp_path / "out" / "report.html").read_text()
    assert "5. Blinding" in html and ("the child&#x27;s star sign" in html or "the child's star sign" in html)
