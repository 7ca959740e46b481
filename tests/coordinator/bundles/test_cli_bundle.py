"""``wmcdp bundle build`` / ``verify``: blinding, balance, order, determinism, key, exit codes."""

from __future__ import annotations

import io
import itertools
import json
import os
import stat
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kit.commands import build_json as build
from tests.kit.commands import run
from tests.kit.studies import MODELS, item_obj, write_json, write_study
from wmcdp_desktop.coordinator.bundles.build import SeededRandom, arrange
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.documents import load_file
from wmcdp_desktop.core.models.rubric import Scale
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey
from wmcdp_desktop.core.verdicts import verdict_scores


def mixed_study(root: Path, **kwargs: object) -> Path:
    """A study with items that must be left out."""
    extra = [
        item_obj("ITEM-EXCL", "CASE-001", exclusion="EXCLUSION-REASON-TEXT"),
        item_obj("ITEM-HELD", "CASE-001", held_out=True),
        item_obj("ITEM-HOP", "CASE-001", split="held_out_project"),
        item_obj("ITEM-DEV", "CASE-001", split="development"),
    ]
    return write_study(root, extra_items=extra, **kwargs)  # type: ignore[arg-type]


def all_bytes_of(path: Path) -> list[tuple[str, bytes]]:
    """The raw file (headers, names, compressed data) and every member decompressed, with its name."""
    raw = path.read_bytes()
    out = [(path.name, path.name.encode()), (f"{path.name} (raw)", raw)]
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        for info in zf.infolist():
            out.append((f"{path.name}!{info.filename} (name)", info.filename.encode()))
            out.append((f"{path.name}!{info.filename}", zf.read(info)))
    return out


def test_build_writes_bundles_and_private_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_raters=3, overlap=2)
    result = build(capsys, study, tmp_path / "out")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(["STUDY-T1-R1.wmcdp", "STUDY-T1-R2.wmcdp", "STUDY-T1-R3.wmcdp", "STUDY-T1-unblinding-key.json"])
    key_path = Path(result["key"])
    if os.name == "posix":
        assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    key = load_file(UnblindingKey, key_path)
    assert len(key.entries) == 15 and {b.rater_id for b in key.bundles} == {"R1", "R2", "R3"}
    for b in result["bundles"]:
        with zipfile.ZipFile(b["file"]) as zf:
            members = zf.namelist()
        assert all(m in ("bundle.json", "rubric.json") or m.startswith("tasks/") for m in members)
        bundle = open_bundle(Path(b["file"]))
        assert bundle.verify().problems == []
        assert bundle.manifest.rater_id == b["rater_id"]
        assert bundle.manifest.created_at == "2026-11-01T09:00:00Z"
        assert bundle.manifest.rater_role_or_background == "psychologist"
        kb = next(k for k in key.bundles if k.rater_id == b["rater_id"])
        assert kb.bundle_sha256 == bundle.manifest_sha256 and kb.task_ids == bundle.task_ids


def test_no_model_name_response_id_gold_or_exclusion_anywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = mixed_study(tmp_path / "s", n_raters=3, overlap=2)
    result = build(capsys, study, tmp_path / "out")
    key = load_file(UnblindingKey, Path(result["key"]))
    response_ids = [e.response_id for e in key.entries]
    assert len(response_ids) == 15
    lines = (study / "responses" / "responses.jsonl").read_text().splitlines()
    all_response_ids = [json.loads(line)["response_id"] for line in lines]
    forbidden = [m.encode() for m in MODELS] + [m.upper().encode() for m in MODELS]
    forbidden += [r.encode() for r in all_response_ids]
    forbidden += [b"ADJNOTE", b"EXCLUSION-REASON-TEXT", b"ITEM-EXCL", b"ITEM-HELD", b"ITEM-HOP", b"ITEM-DEV"]
    forbidden += [f"GOLDNOTE-ITEM-00{i}".encode() for i in range(1, 5)]  # test items: no gold
    forbidden += [b"goldStandard", b"adjudication", b"leakageControl", b"model_source", b'"response_id"']
    for bundle in result["bundles"]:
        for where, data in all_bytes_of(Path(bundle["file"])):
            for needle in forbidden:
                assert needle not in data, f"{needle!r} found in {where}"
    left = {i["benchmark_item_id"]: i["reason"] for i in result["left_out"]}
    assert set(left) == {"ITEM-EXCL", "ITEM-HELD", "ITEM-HOP", "ITEM-DEV"}
    assert "exclusionReason" in left["ITEM-EXCL"] and "heldOutProject" in left["ITEM-HELD"]
    assert "held_out_project" in left["ITEM-HOP"] and "rater_splits" in left["ITEM-DEV"]


def test_key_is_never_inside_a_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    result = build(capsys, study, tmp_path / "out")
    key_bytes = Path(result["key"]).read_bytes()
    for bundle in result["bundles"]:
        for _, data in all_bytes_of(Path(bundle["file"])):
            assert b"wmcdp_unblinding_key" not in data
            assert key_bytes not in data


def test_calibration_feedback_only_on_calibration_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", calibration_items=2, n_raters=2, overlap=2)
    result = build(capsys, study, tmp_path / "out")
    key = load_file(UnblindingKey, Path(result["key"]))
    split = {e.task_id: e.split for e in key.entries}
    bundle = open_bundle(Path(result["bundles"][0]["file"]))
    seen_calibration = 0
    for task_id in bundle.task_ids:
        task = bundle.task(task_id)
        if split[task_id] == "calibration":
            seen_calibration += 1
            fb = task.calibration_feedback
            assert fb is not None
            by_id = {c.criterion_id: c for c in fb.criteria}
            assert by_id["WM-RUB-001"].expected_scores == [4, 5]
            assert by_id["WM-FM-REASSURANCE"].expected_scores is None
            assert by_id["WM-RUB-001"].explanation.startswith("GOLDNOTE-")
            raw = json.dumps(task.to_json_obj())
            assert "ADJNOTE" not in raw
        else:
            assert task.calibration_feedback is None
    assert seen_calibration == 6


def test_feedback_only_on_the_gold_response(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_items=2, calibration_items=1, n_raters=2, overlap=2)
    item_path = study / "items" / "ITEM-003.json"
    item = json.loads(item_path.read_text())
    assert item["split"] == "calibration"
    item["metadata"] = {"goldResponseId": "ITEM-003--zeta-llm-large", "note": "METADATA-NEVER-SHIPPED"}
    write_json(item_path, item)
    result = build(capsys, study, tmp_path / "out")
    key = load_file(UnblindingKey, Path(result["key"]))
    response_of = {e.task_id: e.response_id for e in key.entries}
    for b in result["bundles"]:
        bundle = open_bundle(Path(b["file"]))
        for t in bundle.task_ids:
            task = bundle.task(t)
            has_feedback = task.calibration_feedback is not None
            assert has_feedback == (response_of[t] == "ITEM-003--zeta-llm-large"), response_of[t]
        for _, data in all_bytes_of(Path(b["file"])):
            assert b"METADATA-NEVER-SHIPPED" not in data and b"goldResponseId" not in data


def test_gold_response_id_must_be_a_response_of_the_item(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    item = json.loads((study / "items" / "ITEM-001.json").read_text())
    item["metadata"] = {"goldResponseId": "ITEM-002--acme-gpt-9"}
    write_json(study / "items" / "ITEM-001.json", item)
    code, out, _ = run(capsys, "study", "validate", str(study), "--json")
    assert code == 1
    assert [(p["file"], p["path"]) for p in json.loads(out)["problems"]] == [("items/ITEM-001.json", "metadata.goldResponseId")]


def test_file_names_are_portable() -> None:
    from wmcdp_desktop.coordinator.bundles.build import bundle_file_name, key_file_name
    from wmcdp_desktop.core.paths import UnsafeNameError, name_problem

    assert bundle_file_name("S.1", "R-2") == "S.1-R-2.wmcdp"
    assert bundle_file_name("S", None) == "S-unassigned.wmcdp"
    assert key_file_name("S_1") == "S_1-unblinding-key.json"
    assert name_problem(bundle_file_name("S" * 128, "R" * 128)) is None
    # ids that are not portable file names never reach a file name (":" used to become "_")
    for study, rater in (("S:1", "R01"), ("S1", "R:2"), ("S1", "CON"), ("../S", "R01")):
        with pytest.raises(UnsafeNameError):
            bundle_file_name(study, rater)


def test_verdict_score_mapping() -> None:
    five = Scale(min=1, max=5, anchors=[{"level": i, "text": "x"} for i in range(1, 6)])  # type: ignore[misc]
    assert verdict_scores(five, ["satisfied"]) == [4, 5]
    assert verdict_scores(five, ["partially_satisfied"]) == [3]
    assert verdict_scores(five, ["not_satisfied"]) == [1, 2]
    assert verdict_scores(five, ["satisfied", "partially_satisfied"]) == [3, 4, 5]
    assert verdict_scores(five, ["not_applicable", "cannot_determine"]) == []
    four = Scale(min=1, max=4, anchors=[{"level": i, "text": "x"} for i in range(1, 5)])  # type: ignore[misc]
    assert verdict_scores(four, ["partially_satisfied"]) == [2, 3]
    assert verdict_scores(four, ["satisfied"]) == [4]
    assert verdict_scores(four, ["not_satisfied"]) == [1]


def test_same_inputs_and_seed_give_identical_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = mixed_study(tmp_path / "s")
    build(capsys, study, tmp_path / "a")
    build(capsys, study, tmp_path / "b")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    build(capsys, study, tmp_path / "c", "--seed", "8")
    assert (tmp_path / "a" / names[0]).read_bytes() != (tmp_path / "c" / names[0]).read_bytes()


def test_ids_are_opaque_and_shared_across_raters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_raters=3, overlap=3)
    result = build(capsys, study, tmp_path / "out")
    per_rater = []
    for b in result["bundles"]:
        bundle = open_bundle(Path(b["file"]))
        per_rater.append({t: bundle.task(t).candidate_response_id for t in bundle.task_ids})
    assert per_rater[0] == per_rater[1] == per_rater[2]
    for task_id, cr in per_rater[0].items():
        assert task_id.startswith("t-") and cr.startswith("cr-")
        assert len(task_id) == 18 and len(cr) == 27


@pytest.mark.parametrize(("n_items", "n_raters", "overlap"), [(4, 3, 2), (5, 4, 1), (7, 5, 3), (3, 2, 2), (6, 6, 4)])
def test_balanced_assignment(tmp_path: Path, capsys: pytest.CaptureFixture[str], n_items: int, n_raters: int, overlap: int) -> None:
    study = write_study(tmp_path / "s", n_items=n_items, n_raters=n_raters, overlap=overlap)
    result = build(capsys, study, tmp_path / "out")
    key = load_file(UnblindingKey, Path(result["key"]))
    counts = [b["tasks"] for b in result["bundles"]]
    assert max(counts) - min(counts) <= 1
    seen: Counter[str] = Counter()
    for b in result["bundles"]:
        bundle = open_bundle(Path(b["file"]))
        assert len(set(bundle.task_ids)) == len(bundle.task_ids)
        seen.update(bundle.task_ids)
    assert set(seen) == {e.task_id for e in key.entries}
    assert set(seen.values()) == {overlap}
    for e in key.entries:
        assert len(e.raters) == overlap


def test_overlap_option_overrides_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_raters=3, overlap=2)
    result = build(capsys, study, tmp_path / "out", "--overlap", "3")
    assert result["overlap"] == 3 and all(b["tasks"] == 15 for b in result["bundles"])


def test_no_back_to_back_same_item_in_bundles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_items=6, n_raters=3, overlap=3)
    result = build(capsys, study, tmp_path / "out")
    for b in result["bundles"]:
        bundle = open_bundle(Path(b["file"]))
        items = [bundle.task(t).benchmark_item_id for t in bundle.task_ids]
        assert all(a != b2 for a, b2 in itertools.pairwise(items)), items


def test_first_model_rotates_across_raters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # overlap == raters == models: every rater sees every response of every item.
    study = write_study(tmp_path / "s", n_items=6, n_raters=3, overlap=3, calibration_items=0)
    result = build(capsys, study, tmp_path / "out")
    key = load_file(UnblindingKey, Path(result["key"]))
    model = {e.task_id: e.model_source for e in key.entries}
    item = {e.task_id: e.benchmark_item_id for e in key.entries}
    first_counts: Counter[str] = Counter()
    for b in result["bundles"]:
        bundle = open_bundle(Path(b["file"]))
        firsts: dict[str, str] = {}
        for t in bundle.task_ids:
            firsts.setdefault(item[t], model[t])
        first_counts.update(firsts.values())
        per_item = Counter(firsts.values())
        assert max(per_item.values()) - min(per_item[m] for m in MODELS) <= 1  # balanced within a rater
    # 3 raters x 6 items = 18 "firsts": each model first exactly 6 times
    assert first_counts == Counter({m: 6 for m in MODELS})


@pytest.mark.parametrize(("n_items", "n_raters", "overlap"), [(40, 4, 2), (30, 5, 3), (25, 7, 4)])
def test_first_model_balanced_when_raters_see_some_responses(
    tmp_path: Path, n_items: int, n_raters: int, overlap: int
) -> None:
    # Among the responses to one item that a rater sees, each is first equally often on average:
    # a model's "first" count is close to its fair share sum(1 / group size) over its groups.
    from wmcdp_desktop.coordinator.bundles.build import plan_build
    from wmcdp_desktop.coordinator.study.loader import load_study

    study = write_study(tmp_path / "s", n_items=n_items, n_raters=n_raters, overlap=overlap, calibration_items=0)
    plan = plan_build(load_study(study))
    first: Counter[str] = Counter()
    fair: Counter[str] = Counter()
    for order in plan.assignment.values():
        groups: dict[str, list[str]] = {}
        for t in order:
            groups.setdefault(plan.tasks[t].item.benchmarkItemId, []).append(plan.tasks[t].response.model_source)
        for models in groups.values():
            if len(models) >= 2:
                first[models[0]] += 1
                for m in models:
                    fair[m] += 1 / len(models)
    assert all(fair[m] > 0 for m in MODELS)  # every model is seen beside another response of its item
    for m in MODELS:
        assert abs(first[m] - fair[m]) <= max(3, 0.2 * fair[m]), (m, first[m], fair[m])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=5), min_size=0, max_size=30), st.integers(0, 1000))
def test_arrange_avoids_back_to_back_when_possible(groups: list[int], seed: int) -> None:
    tasks = [f"t{i}" for i in range(len(groups))]
    item_of = {t: f"g{g}" for t, g in zip(tasks, groups, strict=True)}
    order = arrange(tasks, item_of, SeededRandom(seed, "x"))
    assert sorted(order) == sorted(tasks)
    adjacent = sum(1 for a, b in itertools.pairwise(order) if item_of[a] == item_of[b])
    biggest = max(Counter(groups).values(), default=0)
    assert adjacent == max(0, 2 * biggest - len(tasks) - 1)


def test_raters_option_writes_identical_subset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", n_raters=3)
    build(capsys, study, tmp_path / "all")
    result = build(capsys, study, tmp_path / "some", "--raters", "R2")
    assert [b["rater_id"] for b in result["bundles"]] == ["R2"]
    assert (tmp_path / "all" / "STUDY-T1-R2.wmcdp").read_bytes() == (tmp_path / "some" / "STUDY-T1-R2.wmcdp").read_bytes()
    assert not (tmp_path / "some" / "STUDY-T1-R1.wmcdp").exists()
    # The key still lists every rater's bundle: re-issuing into the original folder (which overwrites
    # the key) must not stop the other raters' exports from being collected.
    key = "STUDY-T1-unblinding-key.json"
    assert (tmp_path / "all" / key).read_bytes() == (tmp_path / "some" / key).read_bytes()
    assert [b.rater_id for b in load_file(UnblindingKey, tmp_path / "some" / key).bundles] == ["R1", "R2", "R3"]


def test_unassigned_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    target = tmp_path / "demo.wmcdp"
    result = build(capsys, study, tmp_path / "out", "--unassigned", "--bundle-file", str(target), "--key", str(tmp_path / "k.json"))
    assert result["bundles"][0]["file"] == str(target)
    bundle = open_bundle(target)
    assert bundle.manifest.rater_id is None and len(bundle.task_ids) == 15
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    key = load_file(UnblindingKey, tmp_path / "k.json")
    assert key.bundles[0].rater_id is None


def test_model_name_in_text_stops_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    case = json.loads((study / "cases" / "CASE-002.json").read_text())
    case["scenario"]["turns"][0]["text"] = "Earlier I asked Zeta-LLM-Large about this."
    write_json(study / "cases" / "CASE-002.json", case)
    code, _out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 1
    assert "cases/CASE-002.json: scenario.turns[0].text: leak: model id 'zeta-llm-large'" in err
    assert "«Zeta-LLM-Large»" in err
    assert not (tmp_path / "out").exists()


def test_response_id_in_text_stops_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    path = study / "responses" / "responses.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["text"] = "See ITEM-002--orca-chat-2 for details."
    lines[0] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    # one finding: the response id (the model id inside it is not reported again)
    assert code == 1 and "responses/responses.jsonl line 1: text: leak: response id 'ITEM-002--orca-chat-2'" in err
    assert err.count("leak:") == 1
    assert not (tmp_path / "out").exists()


def test_unwritable_out_is_a_plain_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(capsys, "bundle", "build", str(study), "--out", str(blocker / "sub"))
    assert code == 1 and "cannot create" in err


@pytest.mark.parametrize(
    "extra",
    [
        ["--raters", "R9"],
        ["--raters", "R1", "--unassigned"],
        ["--bundle-file", "x.wmcdp"],
        ["--overlap", "7"],
        ["--overlap", "0"],
        ["--seed", "-1"],
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    study = write_study(tmp_path / "s")
    code, _, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"), *extra)
    assert code == 2 and "error:" in err
    assert not (tmp_path / "out").exists()


def test_missing_out_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main(["bundle", "build", str(tmp_path)])
    assert info.value.code == 2


def test_invalid_study_exit_1_no_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    (study / "rubric.json").write_text("[", encoding="utf-8")
    code, _, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 1 and "rubric.json" in err
    code, out, _ = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"), "--json")
    assert code == 1 and json.loads(out)["ok"] is False


def test_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    result = build(capsys, study, tmp_path / "out")
    path = Path(result["bundles"][0]["file"])
    code, out, _ = run(capsys, "bundle", "verify", str(path))
    assert code == 0 and "valid bundle" in out
    code, out, _ = run(capsys, "bundle", "verify", str(path), "--json")
    info = json.loads(out)
    assert code == 0 and info["ok"] and info["tasks"] == result["bundles"][0]["tasks"]
    assert info["calibration_tasks"] >= 1
    # change one byte of a task's text inside the zip (re-zipped so the zip itself is sound)
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    name = next(n for n in files if n.startswith("tasks/"))
    files[name] = files[name].replace(b"small step", b"small stap")
    from wmcdp_desktop.core.zips.writer import deterministic_zip

    bad = tmp_path / "bad.wmcdp"
    bad.write_bytes(deterministic_zip(files))
    code, out, err = run(capsys, "bundle", "verify", str(bad))
    assert code == 1 and name in err and "SHA-256" in err
    code, out, _ = run(capsys, "bundle", "verify", str(bad), "--json")
    assert code == 1 and json.loads(out)["problems"][0]["file"] == f"bad.wmcdp!{name}"


@pytest.mark.parametrize("content", [b"", b"garbage", b"PK\x03\x04truncated"])
def test_verify_rejects_non_zips(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    path = tmp_path / "x.wmcdp"
    path.write_bytes(content)
    code, _, err = run(capsys, "bundle", "verify", str(path))
    assert code == 1 and "zip" in err


def test_verify_folder_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    result = build(capsys, study, tmp_path / "out")
    folder = tmp_path / "folder"
    with zipfile.ZipFile(result["bundles"][0]["file"]) as zf:
        for n in zf.namelist():
            (folder / n).parent.mkdir(parents=True, exist_ok=True)
            (folder / n).write_bytes(zf.read(n))
    assert run(capsys, "bundle", "verify", str(folder))[0] == 0
    if os.name == "posix":
        (folder / "tasks" / "evil.json").symlink_to("/etc/passwd")
        code, _, err = run(capsys, "bundle", "verify", str(folder))
        assert code == 1 and "symbolic link" in err
