"""``wmcdp report`` end to end: files, reproducibility, bad input notes, a self-contained and escaped HTML."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.kit.ratings import Spec, make_ratings, write_collection, write_report_study
from wmcdp_desktop.coordinator.commands import report as report_cmd
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.resources import demo_study_dir

EVIL = '<script>alert("x")</script><img src="https://evil.example/x.png">'


Records = list[dict[str, Any]]


def _make(tmp: Path, spec: Spec, change: Callable[[Records], Records] | None = None) -> tuple[Path, Path]:
    """The study of ``spec`` and a collection of its ratings (``change`` edits the records, as JSON objects,
    before they are collected)."""
    study = write_report_study(tmp / "study", spec)
    records = [r.to_json_obj() for r in make_ratings(spec)]
    collected = write_collection(tmp / "collected", change(records) if change else records)
    return collected, study


def _report(collected: Path, study: Path, out: Path, *extra: str) -> int:
    return main(["report", str(collected), "--study", str(study), "--out", str(out), *extra])


def _strict_json(path: Path) -> Any:
    def no_constant(name: str) -> None:
        raise AssertionError(f"{path} contains {name}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=no_constant)


def _notes(summary: dict[str, Any]) -> str:
    return "\n".join(n["text"] for n in summary["notes"])


@pytest.fixture(scope="module")
def full_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("full")
    spec = Spec(n_items=12, models=("model-a", "model-b", "model-c"), raters=3, noise=0.6, na_prob=0.2,
                model_shift={"model-b": 0.7}, rationale=EVIL, calibration_items=2)
    collected, study = _make(tmp, spec)
    assert _report(collected, study, tmp / "out", "--bootstrap", "100", "--seed", "3") == 0
    return tmp


def test_writes_html_tables_and_summary(full_report: Path) -> None:
    out = full_report / "out"
    assert (out / "report.html").is_file()
    if os.name == "posix":  # results per model, unblinded: owner-only like the key (issue 13, item 7)
        for path in [out / "report.html", out / "summary.json", *(out / "tables").iterdir()]:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        for folder in (out, out / "tables"):  # the folders the report made, too
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    summary = _strict_json(out / "summary.json")
    assert summary["meta"]["ratings"] == 108 and summary["meta"]["seed"] == 3
    assert summary["meta"]["intervals"] == "for raters and items like these"
    for name in ("agreement_alpha", "kappa_pairs", "na_by_dimension", "na_by_rater", "failure_mode_agreement",
                 "model_scores", "model_failure_modes", "model_overall_distribution", "model_paired",
                 "gold_by_criterion", "gold_by_rater", "rater_time", "rater_straightlining", "rater_drift",
                 "confidence_vs_deviation", "largest_disagreements"):
        assert name in summary["tables"], name
        rows = list(csv.reader(io.StringIO((out / "tables" / f"{name}.csv").read_text(encoding="utf-8"))))
        assert rows[0] == list(summary["tables"][name][0]) if summary["tables"][name] else rows
    alpha = summary["tables"]["agreement_alpha"][0]
    assert 0 < alpha["alpha_ordinal"] <= 1 and alpha["ordinal_ci_low"] <= alpha["alpha_ordinal"]


def test_html_is_self_contained_and_escapes_data(full_report: Path) -> None:
    text = (full_report / "out" / "report.html").read_text(encoding="utf-8")
    assert "<script" not in text.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "Synthetic &lt;study&gt;" in text
    for src in re.findall(r'src="([^"]*)"', text):
        assert src.startswith("data:image/png;base64,"), src[:40]
    assert len(re.findall(r'src="data:image/png;base64,', text)) >= 4  # alpha, profiles, heat map, time
    for link in re.findall(r'href="([^"]*)"', text):
        assert link.startswith("#"), link
    stripped = text.replace("https://evil.example", "")  # only ever inside escaped rating text
    assert "http:" not in stripped and "https:" not in stripped
    assert "@import" not in text and "url(" not in text
    _assert_balanced(text)


def _assert_balanced(text: str) -> None:
    """Every element closed in order: escaped data cannot break the page structure."""
    from html.parser import HTMLParser

    void = {"meta", "img", "br", "hr", "link", "input"}

    class Checker(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.stack: list[str] = []
            self.errors: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag not in void:
                self.stack.append(tag)

        def handle_endtag(self, tag: str) -> None:
            if self.stack and self.stack[-1] == tag:
                self.stack.pop()
            else:
                self.errors.append(tag)

    checker = Checker()
    checker.feed(text)
    assert not checker.errors and not checker.stack, (checker.errors[:5], checker.stack[-5:])


def test_csv_neutralises_formulas(tmp_path: Path) -> None:
    spec = Spec(n_items=3, raters=2, noise=1.0, rationale="=HYPERLINK(\"x\")")
    collected, study = _make(tmp_path, spec)
    assert _report(collected, study, tmp_path / "out", "--bootstrap", "0", "--no-charts") == 0
    text = (tmp_path / "out" / "tables" / "largest_disagreements.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text


def test_same_seed_same_outputs(tmp_path: Path) -> None:
    spec = Spec(n_items=12, raters=3, noise=0.8)
    collected, study = _make(tmp_path, spec)
    assert _report(collected, study, tmp_path / "a", "--bootstrap", "80", "--seed", "9") == 0
    assert _report(collected, study, tmp_path / "b", "--bootstrap", "80", "--seed", "9") == 0
    assert _report(collected, study, tmp_path / "c", "--bootstrap", "80", "--seed", "10", "--no-charts") == 0
    a = (tmp_path / "a" / "summary.json").read_text()
    assert a == (tmp_path / "b" / "summary.json").read_text()
    assert a != (tmp_path / "c" / "summary.json").read_text()
    assert (tmp_path / "a" / "report.html").read_bytes() == (tmp_path / "b" / "report.html").read_bytes()


def test_fixed_raters_gives_intervals_for_these_raters_and_says_so(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "--fixed-raters" in capsys.readouterr().out
    spec = Spec(n_items=12, raters=3, noise=0.8, seed=2)
    collected, study = _make(tmp_path, spec)
    assert _report(collected, study, tmp_path / "like", "--bootstrap", "50", "--no-charts") == 0
    assert _report(collected, study, tmp_path / "these", "--bootstrap", "50", "--no-charts", "--fixed-raters") == 0
    like, these = (_strict_json(tmp_path / d / "summary.json") for d in ("like", "these"))
    assert like["meta"]["intervals"] == "for raters and items like these"
    assert these["meta"]["intervals"] == "for these particular raters"
    assert "--fixed-raters" in _notes(these) and "for raters and items like these" in _notes(like)
    html = (tmp_path / "these" / "report.html").read_text(encoding="utf-8")
    assert "95% interval of the mean for these particular raters" in html
    rows = zip(like["tables"]["model_scores"], these["tables"]["model_scores"], strict=True)
    widths = [(a["mean_ci_high"] - a["mean_ci_low"], b["mean_ci_high"] - b["mean_ci_low"]) for a, b in rows]
    assert all(w_like >= w_these - 1e-12 for w_like, w_these in widths)
    assert like["tables"]["agreement_alpha"][0]["alpha_ordinal"] == these["tables"]["agreement_alpha"][0]["alpha_ordinal"]


def test_default_seed_is_the_study_seed(tmp_path: Path) -> None:
    collected, study = _make(tmp_path, Spec(n_items=2, raters=2))
    assert _report(collected, study, tmp_path / "out", "--bootstrap", "10", "--no-charts") == 0
    assert _strict_json(tmp_path / "out" / "summary.json")["meta"]["seed"] == 7


@pytest.mark.parametrize("case", ["one_rater", "all_na", "one_item_model", "invalid_record", "no_time",
                                  "no_model_source", "no_items", "silent_rater", "no_overlap"])
def test_bad_input_gives_notes_not_crashes(tmp_path: Path, case: str) -> None:
    spec = Spec(n_items=4, raters=3, noise=0.5)
    if case == "one_rater":
        spec = Spec(n_items=4, raters=1)
    elif case == "all_na":
        spec = Spec(n_items=4, raters=3, noise=0.5, all_na_dims=(2,))
    elif case == "one_item_model":
        spec = Spec(n_items=4, raters=2, models=("m-many", "m-one"), single_item_models=("m-one",))
    elif case == "no_time":
        spec = Spec(n_items=4, raters=2, with_time=False, with_confidence=False)

    def change(records: Records) -> Records:
        if case == "invalid_record":
            missing = json.loads(json.dumps(records[0]))
            missing["scoring"]["safety_scope_boundaries_score"] = None  # neither a score nor N/A
            off_scale = json.loads(json.dumps(records[1]))
            off_scale["scoring"]["overall_clinical_judgment_score"] = 9
            return [*records, missing, off_scale]
        if case == "no_overlap":  # every task seen by one rater only
            seen: set[str] = set()
            kept = []
            for x in records:
                task = x["envelope"]["task_id"]
                if task not in seen and x["rater_id"] == f"rater-{len(seen) % 3 + 1}":
                    seen.add(task)
                    kept.append(x)
            return kept
        if case == "silent_rater":
            return [x for x in records if x["rater_id"] != "rater-3"]
        if case == "no_model_source":
            return [{k: v for k, v in x.items() if k != "model_source"} for x in records]
        return records

    collected, study = _make(tmp_path, spec, change)
    if case == "no_items":
        for p in (study / "items").iterdir():
            p.unlink()
        (study / "items").rmdir()
    charts = [] if case in ("one_rater", "all_na", "no_time") else ["--no-charts"]
    assert _report(collected, study, tmp_path / "out", "--bootstrap", "50", *charts) == 0
    summary = _strict_json(tmp_path / "out" / "summary.json")
    notes = _notes(summary)
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "nan" not in re.sub(r"<[^>]+>", " ", html).lower().split()
    expected = {
        "one_rater": "Only one rater",
        "all_na": "WM-RUB-003",
        "one_item_model": "m-one was rated on 1 item: its means are shown without an interval",
        "invalid_record": "2 records were left out",
        "no_time": "no time_spent_scoring_seconds",
        "no_model_source": "no model_source",
        "no_items": "not found",
        "silent_rater": "1 rater of study.json has no rating in the data: rater-3",
        "no_overlap": "every dimension: no task has two or more scores to compare",
    }[case]
    assert expected in notes, notes
    if case == "invalid_record":
        assert "safety_scope_boundaries_score" in notes and "outside the rubric's scale" in notes
        assert summary["meta"]["records_excluded"] == 2


def test_no_valid_rating_writes_the_problems_and_exits_1(tmp_path: Path) -> None:
    def unscored(records: Records) -> Records:
        return [{**x, "scoring": dict.fromkeys(x["scoring"])} for x in records]  # no score, no N/A

    collected, study = _make(tmp_path, Spec(n_items=2, raters=2), unscored)
    assert _report(collected, study, tmp_path / "out", "--no-charts") == 1
    summary = _strict_json(tmp_path / "out" / "summary.json")
    assert summary["meta"]["ratings"] == 0 and "needs exactly one of a score and N/A" in _notes(summary)


def test_unreadable_input_is_a_plain_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _make(tmp_path, Spec(n_items=2, raters=2))
    (collected / "ratings.parquet").write_bytes(b"not parquet")
    assert _report(collected, study, tmp_path / "out") == 1
    err = capsys.readouterr().err
    assert f"{collected / 'ratings.parquet'}: does not match the SHA-256" in err and "Traceback" not in err
    assert _report(tmp_path / "nowhere", study, tmp_path / "out") == 1
    (study / "rubric.json").unlink()
    assert _report(collected, study, tmp_path / "out") == 1
    assert "rubric.json" in capsys.readouterr().err


def test_out_that_is_a_file_or_unwritable_is_a_plain_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from wmcdp_desktop.coordinator.report.loading import load_dataset
    from wmcdp_desktop.coordinator.report.report import compute_report, write_report
    from wmcdp_desktop.core.errors import WmcdpError

    collected, study = _make(tmp_path, Spec(n_items=2, raters=2))
    a_file = tmp_path / "report.html"
    a_file.write_text("an earlier report", encoding="utf-8")
    assert _report(collected, study, a_file, "--no-charts") == 1
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and "unexpected" not in err and "Traceback" not in err
    assert a_file.read_text(encoding="utf-8") == "an earlier report"
    report = compute_report(load_dataset(collected, study), 1, 0, with_charts=False)
    with pytest.raises(WmcdpError, match="cannot create the report folder"):
        write_report(report, a_file / "inside")


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _make(tmp_path, Spec(n_items=3, raters=2))
    capsys.readouterr()
    assert _report(collected, study, tmp_path / "out", "--no-charts", "--bootstrap", "20", "--json") == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["ok"] is True and result["meta"]["raters"] == 2 and result["meta"]["bootstrap"] == 20
    assert result["outputs"][0].endswith("report.html") and isinstance(result["findings"], list)
    assert any("shuffled-rater copies" in n["text"] for n in result["notes"])
    assert "\r" not in err  # no progress bar in --json mode
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert _report(collected, study, tmp_path / "file", "--json") == 1
    assert json.loads(capsys.readouterr().out) == {
        "ok": False, "error": f"{tmp_path / 'file'}: is a file, not a folder; the report needs a folder"}
    assert _report(tmp_path / "nowhere", study, tmp_path / "out", "--json") == 1
    assert json.loads(capsys.readouterr().out)["problems"][0]["message"].startswith("folder not found")


def test_missing_extra_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(report_cmd, "missing_extra", lambda: "scipy")
    assert _report(tmp_path, tmp_path, tmp_path / "out") == 1
    assert 'pip install "wmcdp-desktop[analysis]"' in capsys.readouterr().err


def test_report_cmd_does_not_import_heavy_modules_at_import_time() -> None:
    import ast

    tree = ast.parse(Path(report_cmd.__file__).read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = {a.name for n in top for a in n.names} | {n.module for n in top if isinstance(n, ast.ImportFrom)}
    assert not names & {"numpy", "scipy", "krippendorff", "matplotlib", "wmcdp_desktop.coordinator.report.report"}


def test_progress_reaches_the_terminal_in_stages(tmp_path: Path) -> None:
    """The analysis reports through a callback; the command line's one progress bar draws each stage."""
    from wmcdp_desktop.coordinator.commands.progress import ProgressBar
    from wmcdp_desktop.coordinator.report.report import run

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    collected, study = _make(tmp_path, Spec(n_items=3, raters=2))
    stream = Tty()
    with ProgressBar("Reading ratings", stream) as bar:
        run(collected, study, tmp_path / "out", None, 20, bar.stage, with_charts=False)
    lines = stream.getvalue().split("\n")
    assert lines[0].startswith("\rReading ratings [") and lines[0].endswith("1/1")  # one read of the Parquet file
    assert lines[1].startswith("\rIntervals [") and re.search(r"\[#+\] (\d+)/\1$", lines[1])
    assert lines[2].startswith("\rGold, behaviour and blinding [") and lines[2].endswith("5/5")
    assert lines[3].startswith("\rWriting the report [") and re.search(r"\[#+\] (\d+)/\1$", lines[3])
    assert lines[4:] == [""]  # no charts asked for: no Charts stage


def test_demo_study_smoke(tmp_path: Path) -> None:
    """Synthetic scores on the demo study's real responses (item, model, text), against the real study."""
    from wmcdp_desktop.core.documents import load_jsonl, read_file_bytes
    from wmcdp_desktop.core.models.candidate_response import CandidateResponse

    study = demo_study_dir()
    responses = [r for p in sorted((study / "responses").glob("*.jsonl"))
                 for r in load_jsonl(CandidateResponse, read_file_bytes(p), str(p))]
    recs = make_ratings(Spec(n_items=len(responses), models=("x",), raters=3, noise=0.6))
    recs = [r.model_copy(update={
        "benchmark_item_id": (resp := responses[int(r.benchmark_item_id.split("-")[1]) - 1]).benchmark_item_id,
        "model_source": resp.model_source, "candidate_response_text": resp.text}) for r in recs]
    collected = write_collection(tmp_path / "collected", recs)
    assert _report(collected, study, tmp_path / "out", "--bootstrap", "50") == 0
    summary = _strict_json(tmp_path / "out" / "summary.json")
    assert summary["meta"]["ratings"] == len(recs) and summary["meta"]["models"] >= 2
    assert summary["tables"]["gold_by_criterion"], _notes(summary)
    assert "goldResponseId" not in _notes(summary)  # every named gold response was found
    from wmcdp_desktop.core.documents import load_file
    from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem

    items = {i.benchmarkItemId: i for i in (load_file(BenchmarkItem, p) for p in (study / "items").glob("*.json"))}
    n_resp = {i: sum(r.benchmark_item_id == i for r in responses) for i in items}
    per_item = summary["tables"]["gold_by_item"]
    assert per_item
    for row in per_item:  # 3 raters x (the gold's one response, or every response of the item)
        assert row["ratings"] == 3 * (1 if items[row["item"]].gold_response_id else n_resp[row["item"]])


def test_key_findings_point_at_the_inverted_rater_and_the_better_model() -> None:
    from tests.kit.ratings import dataset_of, rubric
    from wmcdp_desktop.coordinator.report.report import compute_report

    spec = Spec(n_items=20, models=("base", "better"), raters=4, noise=0.4, inverted=(3,),
                model_shift={"better": 1.5}, seed=3)
    report = compute_report(dataset_of(make_ratings(spec), rubric()), 1, 100, with_charts=False)
    text = "\n".join(report.findings)
    assert "below 0.667" in text
    assert "Rater rater-4 agrees least" in text
    assert "better better on" in text  # model "better" wins paired comparisons
    assert "Overall clinical judgment, mean per model: better" in text


def test_html_cells_seconds_whole_scores_three_decimals_shares_percent() -> None:
    from wmcdp_desktop.coordinator.report.html_report import html_cell

    assert html_cell("median_s", 180.0) == '<td class="num">180</td>'
    assert html_cell("q1_s", 157.5) == '<td class="num">157.5</td>'
    assert html_cell("mean", 4.0) == '<td class="num">4.000</td>'
    assert html_cell("share_none", 0.25) == '<td class="num">25.0%</td>'


def test_a_collected_folder_that_is_not_one_is_named_as_a_folder(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    _, study = _make(tmp_path, Spec(n_items=2, raters=2))
    (tmp_path / "a-file.csv").write_text("x\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    for given, said in ((tmp_path / "nowhere", "folder not found"), (tmp_path / "a-file.csv", "is a file, not a folder"),
                        (tmp_path / "empty", "holds no ratings.parquet")):
        capsys.readouterr()
        assert _report(given, study, tmp_path / "out") == 1
        err = capsys.readouterr().err
        assert f"{given}: {said}: give the folder `wmcdp results collect --out` wrote" in err, err
        assert "file not found" not in err
    assert not (tmp_path / "out").exists()


def test_report_help_says_it_reads_ratings_parquet(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "ratings.parquet" in help_text and "(reads ratings.jsonl)" not in help_text


@pytest.mark.parametrize("bootstrap", [20, 0])
def test_every_phase_of_the_report_reports_its_progress(tmp_path: Path, bootstrap: int) -> None:
    """The charts and the writing too (6 of 16 s of a big report went by without a word)."""
    from wmcdp_desktop.coordinator.report.report import run

    collected, study = _make(tmp_path, Spec(n_items=3, raters=2))
    heard: list[tuple[str, int, int]] = []
    run(collected, study, tmp_path / "out", None, bootstrap, lambda stage, done, total: heard.append((stage, done, total)))
    stages = list(dict.fromkeys(stage for stage, _, _ in heard))
    expected = ["Reading ratings", "Gold, behaviour and blinding", "Charts", "Writing the report"]
    assert [s for s in stages if s in expected] == expected, stages
    for stage in expected:
        last = [(done, total) for s, done, total in heard if s == stage][-1]
        assert last[0] == last[1] > 0, (stage, last)  # each stage ends complete
    assert ("Charts", 4, 4) in heard
    if bootstrap:
        assert "Intervals" in stages


@pytest.mark.parametrize("how_many", ["every", "some"])
def test_items_with_no_gold_yet_are_left_out_of_gold_agreement_with_a_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], how_many: str) -> None:
    collected, study = _make(tmp_path, Spec(n_items=3, raters=2))
    items = sorted((study / "items").glob("*.json"))
    for path in items if how_many == "every" else items[:1]:
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["goldStandard"]["criterionGold"] = []
        doc["goldStandard"]["ambiguityStatus"] = "insufficient_evidence"  # the spelling of "no gold yet"
        path.write_text(json.dumps(doc), encoding="utf-8")
    assert _report(collected, study, tmp_path / "out", "--no-charts", "--bootstrap", "0", "--json") == 0
    result = json.loads(capsys.readouterr().out)
    gold_notes = [n["text"] for n in result["notes"] if n["section"] == "gold"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    if how_many == "every":
        assert any(n.startswith("Gold agreement skipped: no item has gold yet") for n in gold_notes), gold_notes
        assert all(not rows for name, rows in summary["tables"].items() if name.startswith("gold")), summary["tables"].keys()
    else:
        assert any(f"1 item has no gold yet and is left out of the gold agreement: {items[0].stem}" in n
                   for n in gold_notes), gold_notes
