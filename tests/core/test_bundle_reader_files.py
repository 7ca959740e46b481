"""OpenedBundle keeps bundle.json's per-file entries as a plain dict (path -> (sha256, size)), not as models."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.kit.bundles import ASSIGNED_TO_R1, bundle_files
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.writer import deterministic_zip


def test_digests_match_bundle_json_in_order(tmp_path: Path) -> None:
    files = bundle_files(5, **ASSIGNED_TO_R1)
    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(files))
    bundle = open_bundle(path)
    listed = json.loads(files["bundle.json"])["files"]
    assert list(bundle.digests) == [e["path"] for e in listed]
    for name, digest in bundle.digests.items():
        assert digest == hashlib.sha256(files[name]).digest()
    assert bundle.manifest.files == []  # the entries live in bundle.digests only
    assert bundle.manifest.bundle_id == json.loads(files["bundle.json"])["bundle_id"]
    assert bundle.verify().problems == []
    assert [bundle.task(t).task_id for t in bundle.task_ids] == bundle.task_ids


def test_hash_mismatch_still_found_on_read(tmp_path: Path) -> None:
    files = bundle_files(3, **ASSIGNED_TO_R1)
    root = tmp_path / "folder"
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    bundle = open_bundle(root)
    task_id = bundle.task_ids[1]
    target = root / f"tasks/{task_id}.json"
    data = target.read_bytes()
    target.write_bytes(data.replace(b"\"", b"'", 1)[: len(data)])  # same size, other bytes
    with pytest.raises(DocumentError, match="SHA-256"):
        bundle.task(task_id)
    assert any("SHA-256" in p.message for p in bundle.verify().problems)
