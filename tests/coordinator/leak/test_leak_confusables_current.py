"""The committed look-alike table is what tools/make_confusables.py makes from its documented source (the
confusables.json of confusable-homoglyphs 3.3.1, in the dev extra) with the same Unicode database."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest

from tools import make_confusables
from wmcdp_desktop.coordinator.leak import confusables as leak_confusables


def test_the_committed_table_is_made_again_from_its_source_byte_for_byte() -> None:
    found = make_confusables.package_data()
    if found is None:
        pytest.skip("confusable-homoglyphs is not installed (pip install -e '.[dev]')")
    raw, source = found
    if source != f"{make_confusables.PACKAGE} {make_confusables.PACKAGE_VERSION}":
        pytest.skip(f"{source} installed; the table is made from {make_confusables.PACKAGE_VERSION}")
    if unicodedata.unidata_version != leak_confusables.UNIDATA_VERSION:
        pytest.skip(f"this Python's Unicode database is {unicodedata.unidata_version}, "
                    f"the table's {leak_confusables.UNIDATA_VERSION}")
    assert hashlib.sha256(raw).hexdigest() in leak_confusables.SOURCE
    committed = make_confusables.TARGET.read_text(encoding="utf-8")
    assert committed == make_confusables.generated(raw, source), "run: python -m tools.make_confusables"
