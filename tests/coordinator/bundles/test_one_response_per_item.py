"""``wmcdp bundle build --one-response-per-item``: no rater sees two responses to the same item; the design
must allow it, and the build says plainly when it does not."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.kit.studies import write_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.documents import load_file
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey

MODELS = ["acme-gpt-9", "zeta-llm-large", "orca-chat-2"]


def build(capsys: pytest.CaptureFixture[str], study: Path, out: Path, *extra: str) -> tuple[int, dict[str, object], str]:
    code = main(["bundle", "build", str(study), "--out", str(out), "--json", *extra])
    stdout, err = capsys.readouterr()
    assert "Traceback" not in stdout + err
    return code, json.loads(stdout), err


@pytest.mark.parametrize(("raters", "overlap", "models"), [(6, 2, 3), (7, 2, 3), (4, 1, 3), (5, 2, 2), (9, 3, 3)])
def test_no_rater_sees_two_responses_to_one_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raters: int, overlap: int, models: int
) -> None:
    study = write_study(tmp_path / "s", n_items=10, n_raters=raters, overlap=overlap, models=MODELS[:models])
    code, result, _ = build(capsys, study, tmp_path / "out", "--one-response-per-item")
    assert code == 0, result
    key = load_file(UnblindingKey, Path(str(result["key"])))
    per_rater_item = Counter((r, e.benchmark_item_id) for e in key.entries for r in e.raters)
    assert max(per_rater_item.values()) == 1
    assert all(len(e.raters) == overlap and len(set(e.raters)) == overlap for e in key.entries)
    load = Counter(r for e in key.entries for r in e.raters)
    assert len(load) == raters and max(load.values()) - min(load.values()) <= 1
    # each rater's model counts stay close
    for rater in load:
        seen = Counter(e.model_source for e in key.entries if rater in e.raters)
        assert max(seen.values()) - min(seen.get(m, 0) for m in MODELS[:models]) <= 2


def test_the_same_options_give_the_same_bundles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_items=6, n_raters=6, overlap=2)
    build(capsys, study, tmp_path / "a", "--one-response-per-item")
    build(capsys, study, tmp_path / "b", "--one-response-per-item")
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


def test_a_design_that_cannot_keep_items_apart_is_refused_in_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_study(tmp_path / "s", n_items=4, n_raters=3, overlap=2)
    code = main(["bundle", "build", str(study), "--out", str(tmp_path / "out"), "--one-response-per-item"])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    assert "--one-response-per-item: no rater may see two responses to the same item, but item ITEM-001 has 3 " \
           "responses, each for 2 raters: that needs 6 raters and the study has 3" in err
    assert not (tmp_path / "out").exists()


def test_it_cannot_be_combined_with_unassigned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_items=4, n_raters=6, overlap=2)
    code = main(["bundle", "build", str(study), "--out", str(tmp_path / "out"), "--unassigned",
                 "--one-response-per-item"])
    _, err = capsys.readouterr()
    assert code == 2 and "cannot be used with --unassigned" in err


def test_the_build_says_how_often_a_rater_sees_responses_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_study(tmp_path / "s", n_items=4, n_raters=6, overlap=2)
    code, result, _ = build(capsys, study, tmp_path / "a")
    side = result["side_by_side"]
    assert code == 0 and isinstance(side, dict) and set(side) == {f"R{i}" for i in range(1, 7)}
    assert any(v["items_with_two_or_more_responses"] for v in side.values())
    assert main(["bundle", "build", str(study), "--out", str(tmp_path / "b")]) == 0
    assert "side by side: raters get two or more responses to the same item in R" in capsys.readouterr().out
    code, result, _ = build(capsys, study, tmp_path / "c", "--one-response-per-item")
    assert all(v["items_with_two_or_more_responses"] == 0 for v in result["side_by_side"].values())  # type: ignore[union-attr]
    assert main(["bundle", "build", str(study), "--out", str(tmp_path / "d"), "--one-response-per-item"]) == 0
    assert "side by side" not in capsys.readouterr().out
