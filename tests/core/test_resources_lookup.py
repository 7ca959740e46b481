"""One lookup finds the shipped files in a source checkout, an installed wheel and a standalone build."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wmcdp_desktop.core import resources


def _package_layout(root: Path) -> Path:
    """A package folder laid out as the wheel and the standalone build have it."""
    package = root / "wmcdp_desktop"
    (package / "_resources" / "rubric").mkdir(parents=True)
    (package / "_resources" / "demo-bundle.wmcdp").write_bytes(b"demo")
    (package / "_schemas").mkdir()
    (package / "_legal").mkdir()
    (package / "_legal" / "LICENSE").write_text("Apache License\nVersion 2.0\n", encoding="utf-8")
    (package / "_legal" / "THIRD-PARTY-NOTICES.md").write_text("# Notices\nQt: LGPL-3.0\n", encoding="utf-8")
    return package


def test_checkout_layout_is_found_from_the_source_tree(repo_root: Path) -> None:
    assert resources.resources_dir() == repo_root / "resources"
    assert resources.schemas_dir() == repo_root / "schemas"
    assert resources.license_path() == repo_root / "LICENSE"
    assert resources.notices_path() == repo_root / "THIRD-PARTY-NOTICES.md"
    assert resources.licenses_folder() is None


def test_standalone_build_layout_is_found_under_the_bundled_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    package = _package_layout(tmp_path / "_internal")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "_internal"), raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "wmcdp-desktop"))
    (tmp_path / "licenses").mkdir()
    assert resources.package_dir() == package
    assert resources.demo_bundle_path().read_bytes() == b"demo"
    assert resources.schemas_dir() == package / "_schemas"
    assert resources.licenses_folder() == tmp_path / "licenses"
    text = resources.legal_text()
    assert text.index("Qt: LGPL-3.0") < text.index("Apache License")


def test_a_damaged_standalone_build_points_inside_itself(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Missing data in a standalone build is looked for in the build (where the app says it is missing), never
    in a folder beside it that someone else could fill."""
    (tmp_path / "_internal" / "wmcdp_desktop").mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "_internal"), raising=False)
    path = resources.demo_bundle_path()
    assert path == tmp_path / "_internal" / "wmcdp_desktop" / "_resources" / "demo-bundle.wmcdp"
    assert not path.exists()


def test_the_about_text_of_a_damaged_install_is_a_plain_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "_internal" / "wmcdp_desktop").mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "_internal"), raising=False)
    with pytest.raises(FileNotFoundError):
        resources.legal_text()
