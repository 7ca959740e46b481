"""Fixtures of the rater's side, its window's included: a fake clock and the sample bundle's folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from wmcdp_desktop.rater.timing import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def bundle_dir(tmp_path: Path, sample_docs: Any) -> Path:
    return make_bundle(tmp_path / "bundle", sample_docs)
