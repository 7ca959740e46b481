"""A bundle prepared for one rater is refused to any other, in plain words; a bundle for no one in
particular, and a bundle for this rater, are accepted (the check the window runs once, on opening)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.rater.session import RaterIdentity, WrongRaterError, check_assignment


def test_a_bundle_for_another_rater_is_refused_in_plain_words(tmp_path: Path, sample_docs: Any) -> None:
    manifest = open_bundle(make_bundle(tmp_path / "b", sample_docs, rater_id="R02")).manifest
    with pytest.raises(WrongRaterError) as refused:
        check_assignment(manifest, RaterIdentity("R01", "child psychologist"))
    assert isinstance(refused.value, WmcdpError)  # the window shows it as it shows any refusal
    message = str(refused.value)
    assert message.startswith("This bundle was prepared for rater 'R02', but this app is set up for rater 'R01'.\n")
    assert "so the bundle was not opened" in message and "Settings > Rater id…" in message
    check_assignment(manifest, RaterIdentity("R02"))  # its own rater: accepted


@pytest.mark.parametrize("rater_id", ["R02 ", "r02", "R02\u200b", "R0２"])
def test_an_id_that_only_looks_the_same_is_another_rater(tmp_path: Path, sample_docs: Any, rater_id: str) -> None:
    manifest = open_bundle(make_bundle(tmp_path / "b", sample_docs, rater_id="R02")).manifest
    with pytest.raises(WrongRaterError, match="prepared for rater 'R02'"):
        check_assignment(manifest, RaterIdentity(rater_id))


def test_a_bundle_for_no_one_in_particular_opens_for_anyone(tmp_path: Path, sample_docs: Any) -> None:
    manifest = open_bundle(make_bundle(tmp_path / "b", sample_docs)).manifest
    assert manifest.rater_id is None
    for rater in ("R01", "demo", "someone else"):
        check_assignment(manifest, RaterIdentity(rater))
