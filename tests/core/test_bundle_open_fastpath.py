"""open_bundle's fast way through bundle.json (plain file entries checked all at once, the model run on the
rest, set-based cross-checks) gives what the entry-by-entry way gave: the same bundle, or the same problems
in the same order. The reference below is open_bundle as it was before (docs/PERFORMANCE.md), run on the
same bundles, valid and broken in many ways by Hypothesis.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.studyfix import bundle_files
from tests.core.old_open_bundle import outcome, reference_open_bundle
from wmcdp_desktop.core import bundle_reader
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.reader import deterministic_zip


def same_outcome(files: dict[str, bytes], tmp_path: Path) -> object:
    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(files))
    new, old = outcome(open_bundle, path), outcome(reference_open_bundle, path)
    assert new == old
    return new


# ----- bundle.json broken in the ways a hand edit, a bad tool or an attacker would break it ---------------
ODD_VALUES = [None, True, False, 3.0, -1, 2**64, 1.5, "x", "", [], {}, "A" * 64, "tasks/t0000.json\ntasks/t0001.json",
              "tasks/caf\u00e9.json", "tasks/a:b.json", "rubric.json", "tasks/t0000.json", "bundle.json", "tasks/../x.json", "f" * 64]


@st.composite
def broken_bundles(draw: st.DrawFn) -> dict[str, bytes]:
    files = bundle_files(draw(st.integers(1, 4)), rater_id=draw(st.sampled_from(["R1", None])))
    manifest: dict[str, Any] = json.loads(files["bundle.json"])
    entries: list[Any] = manifest["files"]
    for _ in range(draw(st.integers(0, 3))):
        what = draw(st.sampled_from(["value", "drop_key", "extra_key", "dup", "remove", "swap", "size+1",
                                     "task_dup", "task_drop", "task_add", "task_odd", "files_odd", "top",
                                     "unlisted", "missing_member", "rubric_hash", "sorted"]))
        if not isinstance(entries, list):
            entries = []
        order = manifest["task_order"] if isinstance(manifest["task_order"], list) else []
        i = draw(st.integers(0, len(entries) - 1)) if entries else 0
        if what == "value" and entries and isinstance(entries[i], dict):
            entries[i][draw(st.sampled_from(["path", "sha256", "size"]))] = draw(st.sampled_from(ODD_VALUES))
        elif what == "drop_key" and entries and isinstance(entries[i], dict):
            entries[i].pop(draw(st.sampled_from(["path", "sha256", "size"])), None)
        elif what == "extra_key" and entries and isinstance(entries[i], dict):
            entries[i][draw(st.sampled_from(["note", "mode"]))] = 1
        elif what == "dup" and entries:
            entries.insert(draw(st.integers(0, len(entries))), json.loads(json.dumps(entries[i])))
        elif what == "remove" and entries:
            entries.pop(i)
        elif what == "swap" and len(entries) > 1:
            entries[0], entries[-1] = entries[-1], entries[0]
        elif what == "size+1" and entries and isinstance(entries[i], dict) and type(entries[i].get("size")) is int:
            entries[i]["size"] += 1
        elif what == "task_dup" and order:
            order.append(order[0])
        elif what == "task_drop" and order:
            order.pop()
        elif what == "task_add":
            order.append(draw(st.sampled_from(["t9999", "t0000", "bad id", "x:y", "a:b"])))
        elif what == "task_odd":
            manifest["task_order"] = draw(st.sampled_from([[], "t0000", [None], [1], None]))
        elif what == "files_odd":
            manifest["files"] = entries = draw(st.sampled_from([[], [entries[0] if entries else {}], None, "x",
                                                                [1, 2], [[1, 2, 3], [4, 5, 6]], ["abc", "def"]]))
        elif what == "top":
            key, value = draw(st.sampled_from([("format_version", "2.0.0"), ("format_version", "1.2.0"),
                                               ("study_title", " "), ("rater_id", None), ("extra", 1),
                                               ("document_type", "wmcdp_task"), ("created_at", "2026-02-30T10:00:00Z")]))
            manifest[key] = value
        elif what == "unlisted":
            files[draw(st.sampled_from(["tasks/t7777.json", "notes.txt", "rubric.json.bak"]))] = b"{}"
        elif what == "missing_member" and len(files) > 1:
            files.pop(draw(st.sampled_from(sorted(n for n in files if n != "bundle.json"))))
        elif what == "rubric_hash" and "rubric.json" in files:
            files["rubric.json"] = files["rubric.json"].replace(b'"', b'"', 1) + b" "
        elif what == "sorted" and entries and all(isinstance(e, dict) for e in entries):
            entries.sort(key=lambda e: str(e.get("path")), reverse=True)
    text = json.dumps(manifest, indent=draw(st.sampled_from([None, 2])))
    raw = draw(st.sampled_from(["", "", "", "dup_key", "dup_key_space", "dup_title", "dup_title_colon",
                                "escaped_colon", "surrogate", "nan", "bom", "deep", "big_int", "huge_float"]))
    if raw == "dup_key":
        text = text.replace('"size":', '"size": 1, "size":', 1)
    elif raw == "dup_key_space":  # a repeated key written with a space before its colon
        text = text.replace('"size":', '"size" : 1, "size":', 1)
    elif raw == "dup_title":
        text = text.replace("{", '{"study_title" :"x",', 1)
    elif raw == "dup_title_colon":  # the colons of the repeated pair's values must not hide it
        text = text.replace("{", '{"study_title": "a:b:c", "study_title" :"x\\":",', 1)
    elif raw == "escaped_colon":
        text = text.replace('"study_title": "', '"study_title": "\\u003a', 1)
    elif raw == "surrogate":
        text = text.replace('"study_title": "', '"study_title": "\\ud800', 1)
    elif raw == "nan":
        text = text.replace('"size": ', '"size": NaN, "x": ', 1)
    elif raw == "bom":
        text = "\ufeff" + text
    elif raw == "big_int":
        text = text.replace('"size": ', '"size": 1' + "0" * 30 + ', "x": ', 1)
    elif raw == "huge_float":
        text = text.replace('"size": ', '"size": 1e400, "x": ', 1)
    elif raw == "deep":
        text = text.replace('"task_order": [', '"task_order": ' + "[" * 70 + "]" * 69 + ", [", 1)
    files["bundle.json"] = text.encode("utf-8")
    return files


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=broken_bundles())
def test_same_bundle_or_same_problems_as_before(files: dict[str, bytes], tmp_path: Path) -> None:
    same_outcome(files, tmp_path)


def test_valid_bundles_take_the_fast_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = bundle_files(30)
    calls: list[str] = []
    real_load = bundle_reader.load_bytes
    monkeypatch.setattr(bundle_reader, "load_bytes", lambda m, d, s: (calls.append(m.__name__), real_load(m, d, s))[1])
    result = same_outcome(files, tmp_path)
    assert result[0] == "opened"
    assert calls == ["Rubric"]  # bundle.json was not taken through load_bytes (the full model) by open_bundle


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda m: m["files"][1].update(size=3.0), None),  # JSON Schema's integer 3.0: accepted, by the model
        (lambda m: m["files"][1].update(size=True), "whole number"),
        (lambda m: m["files"][0].update(sha256="A" * 64), "SHA-256"),
        (lambda m: m["files"].append(dict(m["files"][1])), "listed twice"),
        (lambda m: m["task_order"].append("t0000"), "appears more than once"),
    ],
)
def test_examples(edit: Any, words: str | None, tmp_path: Path) -> None:
    files = bundle_files(3)
    manifest = json.loads(files["bundle.json"])
    if words is None:  # keep the size right: only its JSON form changes
        files["bundle.json"] = json.dumps(manifest).replace(f'"size": {manifest["files"][1]["size"]}',
                                                            f'"size": {manifest["files"][1]["size"]}.0', 1).encode()
        assert same_outcome(files, tmp_path)[0] == "opened"
        return
    edit(manifest)
    files["bundle.json"] = json.dumps(manifest).encode()
    result = same_outcome(files, tmp_path)
    assert result[0] == "rejected" and any(words in p for p in result[1])  # type: ignore[index]


def test_folder_bundles_the_same(tmp_path: Path) -> None:
    files = bundle_files(5)
    root = tmp_path / "folder"
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    assert outcome(open_bundle, root) == outcome(reference_open_bundle, root)
    (root / "tasks" / "extra.json").write_bytes(b"{}")
    assert outcome(open_bundle, root) == outcome(reference_open_bundle, root)
    assert outcome(open_bundle, root)[0] == "rejected"


def test_the_fast_checks_follow_the_model_patterns() -> None:
    from wmcdp_desktop.core.models.bundle_manifest import BUNDLE_PATH_PATTERN, BundleFile
    from wmcdp_desktop.core.models.common import SHA256_PATTERN

    assert SHA256_PATTERN == r"^[0-9a-f]{64}$"  # what bundle_reader._NOT_HEX and the length check encode
    assert BundleFile.model_json_schema()["properties"]["path"]["pattern"] == BUNDLE_PATH_PATTERN
    assert bundle_reader._PATH_LINES.fullmatch("rubric.json\ntasks/a.b-c_d.json")
    assert not bundle_reader._PATH_LINES.fullmatch("rubric.json\ntasks/a:b.json")
    assert not bundle_reader._PATH_LINES.fullmatch("rubric.json\ntasks/a..json")
    assert not bundle_reader._PATH_LINES.fullmatch("rubric.json\ntasks/.json")


@pytest.mark.parametrize(
    "head",
    [
        '{"study_title": "x", ',
        '{"study_title" : "x:y", ',
        '{"study_title"\n:\t"x", ',
        '{"study_title": "a\\":b", ',
        '{"zzz": "a", "zzz": "b:c:d", ',
    ],
)
def test_a_repeated_key_is_refused_whatever_the_colons_around_it(head: str, tmp_path: Path) -> None:
    files = bundle_files(2)
    text = files["bundle.json"].decode()
    files["bundle.json"] = (head + text.lstrip()[1:]).encode()
    result = same_outcome(files, tmp_path)
    assert result[0] == "rejected"
    assert any("appears more than once" in p or "unknown field" in p for p in result[1])  # type: ignore[index]


def test_colons_in_values_do_not_send_a_valid_bundle_the_slow_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = bundle_files(3)
    manifest = json.loads(files["bundle.json"])
    manifest["study_title"] = "Study: part 2: 10:30"
    files["bundle.json"] = json.dumps(manifest, indent=1).encode()
    slow: list[str] = []
    real_load = bundle_reader.load_bytes
    monkeypatch.setattr(bundle_reader, "load_bytes", lambda m, d, s: (slow.append(m.__name__), real_load(m, d, s))[1])
    assert same_outcome(files, tmp_path)[0] == "opened"
    assert slow == ["Rubric"]


@pytest.mark.parametrize(
    "ids",
    [["rubric", "t1"], ["a.json", "a.json.json", "b.c"], ["tasks", "x.json"], ["t1"], ["Z", "y9"]],
)
def test_task_ids_that_look_like_paths(ids: list[str], tmp_path: Path) -> None:
    from tests.cli.studyfix import rehash, task_obj
    from wmcdp_desktop.core.strict_json import dumps_canonical

    files = bundle_files(1)
    del files["tasks/t0000.json"]
    for task_id in ids:
        files[f"tasks/{task_id}.json"] = dumps_canonical(task_obj(task_id)).encode()
    manifest = json.loads(files["bundle.json"])
    manifest["task_order"] = ids
    files["bundle.json"] = json.dumps(manifest).encode()
    files = rehash(files)
    result = same_outcome(files, tmp_path)
    assert result[0] == "opened" and result[3] == ids  # type: ignore[index]
    # and one of them missing from task_order, or from the files
    manifest = json.loads(files["bundle.json"])
    manifest["task_order"] = ids[:-1] or ["other"]
    files["bundle.json"] = json.dumps(manifest).encode()
    assert same_outcome(files, tmp_path)[0] == "rejected"


def test_the_garbage_collector_is_left_as_it_was(tmp_path: Path) -> None:
    import gc

    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(bundle_files(2)))
    broken = tmp_path / "broken.wmcdp"
    broken.write_bytes(b"PK not a zip")
    assert gc.isenabled()
    seen: list[bool] = []
    real = bundle_reader._open_source
    try:
        bundle_reader._open_source = lambda *a: (seen.append(gc.isenabled()), real(*a))[1]  # type: ignore[assignment]
        open_bundle(path)
        assert seen == [False] and gc.isenabled()  # held off while opening, then on again
        with pytest.raises(DocumentError):
            open_bundle(broken)
        assert gc.isenabled()
        gc.disable()
        open_bundle(path)
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        bundle_reader._open_source = real  # type: ignore[assignment]
        gc.enable()
