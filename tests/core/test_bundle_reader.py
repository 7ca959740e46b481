"""open_bundle: zip and folder bundles, manifest cross-checks, lazy hash-checked tasks, verify."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.kit.bundles import ASSIGNED_TO_R1, bundle_files, rehash, task_obj, write_files, write_zip
from wmcdp_desktop.core import bundle_reader
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.core.strict_json import dumps_canonical


def error_text(path: Path) -> str:
    with pytest.raises(DocumentError) as info:
        open_bundle(path)
    return str(info.value)


@pytest.mark.parametrize("kind", ["zip", "folder"])
def test_open_valid_bundle(tmp_path: Path, kind: str) -> None:
    files = bundle_files(3, **ASSIGNED_TO_R1)
    path = write_zip(tmp_path / "b.wmcdp", files) if kind == "zip" else write_files(tmp_path / "b", files)
    bundle = open_bundle(path)
    assert bundle.path == path
    assert bundle.manifest.bundle_id == "B-TEST"
    assert bundle.manifest_sha256 == hashlib.sha256(files["bundle.json"]).hexdigest()
    assert bundle.task_ids == ["t0000", "t0001", "t0002"]
    assert bundle.rubric.contract_id == "WM-CDP-RUBRIC"
    task = bundle.task("t0001")
    assert isinstance(task, Task) and task.task_id == "t0001"
    assert bundle.task("t0001") is task  # cached
    assert bundle.verify().problems == []
    assert bundle.is_folder == (kind == "folder")
    with pytest.raises(KeyError):
        bundle.task("nope")


def test_opening_does_not_read_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = bundle_files(200, **ASSIGNED_TO_R1)
    path = write_zip(tmp_path / "b.wmcdp", files)
    loaded: list[str] = []
    real = bundle_reader.load_bytes
    real_obj = bundle_reader.validate_obj  # bundle.json with plainly valid file entries: parsed, then validated

    def spy(model, data, source):  # type: ignore[no-untyped-def]
        loaded.append(model.__name__)
        return real(model, data, source)

    def spy_obj(model, obj, source):  # type: ignore[no-untyped-def]
        loaded.append(model.__name__)
        return real_obj(model, obj, source)

    monkeypatch.setattr(bundle_reader, "load_bytes", spy)
    monkeypatch.setattr(bundle_reader, "validate_obj", spy_obj)
    bundle = open_bundle(path)
    assert loaded == ["BundleManifest", "Rubric"]
    bundle.task("t0005")
    assert loaded == ["BundleManifest", "Rubric", "Task"]


def test_tampered_task_is_caught_lazily_and_by_verify(tmp_path: Path) -> None:
    files = bundle_files(3, **ASSIGNED_TO_R1)
    original = files["tasks/t0001.json"]
    tampered = original.replace(b"calm", b"CALM")
    assert len(tampered) == len(original)
    files["tasks/t0001.json"] = tampered
    bundle = open_bundle(write_zip(tmp_path / "b.wmcdp", files))  # opening does not hash tasks
    assert bundle.task("t0000").task_id == "t0000"
    with pytest.raises(DocumentError, match="SHA-256"):
        bundle.task("t0001")
    problems = bundle.verify().problems
    assert len(problems) == 1 and "tasks/t0001.json" in problems[0].file


def test_invalid_task_json_is_reported_with_path(tmp_path: Path) -> None:
    files = bundle_files(2, **ASSIGNED_TO_R1)
    bad = task_obj("t0001")
    bad["model_source"] = "x"
    files["tasks/t0001.json"] = dumps_canonical(bad).encode()
    files = rehash(files)
    bundle = open_bundle(write_zip(tmp_path / "b.wmcdp", files))
    problems = bundle.verify().problems
    assert [p.path for p in problems] == ["model_source"]
    with pytest.raises(DocumentError):
        bundle.task("t0001")


def test_task_id_must_match_file_name(tmp_path: Path) -> None:
    files = bundle_files(2, **ASSIGNED_TO_R1)
    files["tasks/t0001.json"] = dumps_canonical(task_obj("t0000")).encode()
    bundle = open_bundle(write_zip(tmp_path / "b.wmcdp", rehash(files)))
    with pytest.raises(DocumentError, match="does not match the file name"):
        bundle.task("t0001")
    assert any(p.path == "task_id" for p in bundle.verify().problems)


def test_missing_manifest(tmp_path: Path) -> None:
    files = bundle_files(1, **ASSIGNED_TO_R1)
    del files["bundle.json"]
    assert "bundle.json is missing" in error_text(write_zip(tmp_path / "b.wmcdp", files))


def test_zipped_with_extra_folder_level_gives_a_hint(tmp_path: Path) -> None:
    files = {f"mybundle/{k}": v for k, v in bundle_files(1, **ASSIGNED_TO_R1).items()}
    assert "extra folder level" in error_text(write_zip(tmp_path / "b.wmcdp", files))


def test_manifest_cross_checks(tmp_path: Path) -> None:
    files = bundle_files(3, **ASSIGNED_TO_R1)
    manifest = json.loads(files["bundle.json"])
    manifest["task_order"] = ["t0000", "t0000", "t0009"]  # dup, unknown; t0001/t0002 not in order
    manifest["files"].append(dict(manifest["files"][0]))  # listed twice
    files["bundle.json"] = dumps_canonical(manifest).encode()
    files["extra.txt"] = b"surprise"
    text = error_text(write_zip(tmp_path / "b.wmcdp", files))
    for words in ["appears more than once", "t0009", "not in task_order", "listed twice", "extra.txt"]:
        assert words in text, words


def test_listed_file_missing_and_size_mismatch(tmp_path: Path) -> None:
    files = bundle_files(2, **ASSIGNED_TO_R1)
    del files["tasks/t0000.json"]
    files["tasks/t0001.json"] += b" "
    text = error_text(write_zip(tmp_path / "b.wmcdp", files))
    assert "listed but not in the bundle" in text
    assert "bundle.json says" in text


def test_rubric_hash_mismatch(tmp_path: Path) -> None:
    files = bundle_files(1, **ASSIGNED_TO_R1)
    files["rubric.json"] = files["rubric.json"].replace(b"Test rubric", b"Test Rubric")
    assert "rubric.json" in error_text(write_zip(tmp_path / "b.wmcdp", files))


def test_newer_format_version_is_refused(tmp_path: Path) -> None:
    files = bundle_files(1, **ASSIGNED_TO_R1)
    manifest = json.loads(files["bundle.json"])
    manifest["format_version"] = "2.0.0"
    files["bundle.json"] = dumps_canonical(manifest).encode()
    assert "please update the app" in error_text(write_zip(tmp_path / "b.wmcdp", files))


def test_invalid_manifest_names_field(tmp_path: Path) -> None:
    files = bundle_files(1, **ASSIGNED_TO_R1)
    manifest = json.loads(files["bundle.json"])
    manifest["task_order"] = []
    files["bundle.json"] = dumps_canonical(manifest).encode()
    text = error_text(write_zip(tmp_path / "b.wmcdp", files))
    assert "b.wmcdp!bundle.json: task_order" in text


def test_not_found_and_not_a_zip(tmp_path: Path) -> None:
    assert "file not found" in error_text(tmp_path / "missing.wmcdp")
    (tmp_path / "junk.wmcdp").write_bytes(b"not a zip at all")
    assert "not a zip" in error_text(tmp_path / "junk.wmcdp")


def test_zip_safety_applies_to_bundles(tmp_path: Path) -> None:
    files = bundle_files(1, **ASSIGNED_TO_R1)
    files["../evil.json"] = b"{}"
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    (tmp_path / "b.wmcdp").write_bytes(buf.getvalue())
    assert "'../evil.json'" in error_text(tmp_path / "b.wmcdp")


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_folder_bundle_symlinks_are_rejected(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_bytes(b"{}")
    root = write_files(tmp_path / "b", bundle_files(1, **ASSIGNED_TO_R1))
    (root / "tasks" / "link.json").symlink_to(outside)
    assert "symbolic link" in error_text(root)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_folder_bundle_symlinked_task_file_is_rejected(tmp_path: Path) -> None:
    files = bundle_files(1, **ASSIGNED_TO_R1)
    root = write_files(tmp_path / "b", files)
    real = tmp_path / "real.json"
    real.write_bytes(files["tasks/t0000.json"])
    (root / "tasks" / "t0000.json").unlink()
    (root / "tasks" / "t0000.json").symlink_to(real)
    assert "tasks/t0000.json" in error_text(root)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_folder_bundle_symlinked_folder_is_rejected(tmp_path: Path) -> None:
    elsewhere = write_files(tmp_path / "elsewhere", {"t.json": b"{}"})
    root = write_files(tmp_path / "b", bundle_files(1, **ASSIGNED_TO_R1))
    (root / "more").symlink_to(elsewhere, target_is_directory=True)
    assert "symbolic link" in error_text(root)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_folder_bundle_that_is_a_symlink_is_rejected(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", bundle_files(1, **ASSIGNED_TO_R1))
    (tmp_path / "link").symlink_to(root, target_is_directory=True)
    assert "symbolic link" in error_text(tmp_path / "link")


def test_folder_bundle_ignores_os_litter(tmp_path: Path) -> None:
    root = write_files(tmp_path / "b", bundle_files(1, **ASSIGNED_TO_R1))
    (root / ".DS_Store").write_bytes(b"x")
    (root / "Thumbs.db").write_bytes(b"x")
    assert open_bundle(root).verify().problems == []


def test_verify_progress(tmp_path: Path) -> None:
    bundle = open_bundle(write_zip(tmp_path / "b.wmcdp", bundle_files(4, **ASSIGNED_TO_R1)))
    seen: list[tuple[int, int]] = []
    assert bundle.verify(lambda done, total: seen.append((done, total))).problems == []
    assert seen[-1] == (5, 5)
