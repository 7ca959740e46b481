"""The shipped demo bundle is exactly what `wmcdp bundle build` makes from the demo study, and blinded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.resources import demo_bundle_path, demo_study_dir

REBUILD = (
    "wmcdp bundle build resources/demo-study --unassigned "
    "--bundle-file resources/demo-bundle.wmcdp --out /tmp/wmcdp-demo-key"
)


def test_demo_bundle_is_up_to_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "demo.wmcdp"
    code = main(
        ["bundle", "build", str(demo_study_dir()), "--unassigned", "--bundle-file", str(target), "--out", str(tmp_path)]
    )
    capsys.readouterr()
    assert code == 0
    shipped = demo_bundle_path()
    assert shipped.exists(), f"resources/demo-bundle.wmcdp is missing; build it with: {REBUILD}"
    if shipped.read_bytes() == target.read_bytes():
        return
    # Another zlib (e.g. zlib-ng) may compress the same files to other bytes; what must match is
    # every member's name, order and content.
    assert members(shipped) == members(target), (
        f"resources/demo-bundle.wmcdp is stale (the demo study changed); rebuild it with: {REBUILD}"
    )


def members(path: Path) -> list[tuple[str, bytes]]:
    import zipfile

    with zipfile.ZipFile(path) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def test_demo_bundle_is_valid_unassigned_and_blinded() -> None:
    bundle = open_bundle(demo_bundle_path())
    assert bundle.verify().problems == []
    assert bundle.manifest.rater_id is None
    raw = demo_bundle_path().read_bytes()
    import io
    import zipfile

    blobs = [raw]
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        blobs += [zf.read(n) for n in zf.namelist()] + [n.encode() for n in zf.namelist()]
    needles: set[str] = set()
    for path in sorted((demo_study_dir() / "responses").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                needles.update([obj["model_source"], obj["response_id"]])
    assert needles
    for needle in needles:
        for blob in blobs:
            assert needle.encode() not in blob, needle
            assert needle.casefold().encode() not in blob.lower(), needle
