"""The committed look-alike table is what tools/make_confusables.py makes from its documented source (the
confusables.json of confusable-homoglyphs 3.3.1, in the dev extra) with the same Unicode database."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import unicodedata

import pytest

from tools import make_confusables
from wmcdp_desktop.coordinator.leak import confusables as leak_confusables
from wmcdp_desktop.coordinator.leak.confusables import table_path as confusables_path


def test_the_committed_table_is_made_again_from_its_source_byte_for_byte() -> None:
    found = make_confusables.package_data()
    if found is None:
        pytest.skip("confusable-homoglyphs is not installed (pip install -e '.[dev]')")
    raw, source = found
    if source != f"{make_confusables.PACKAGE} {make_confusables.PACKAGE_VERSION}":
        pytest.skip(f"{source} installed; the table is made from {make_confusables.PACKAGE_VERSION}")
    made = leak_confusables.table()
    if unicodedata.unidata_version != made["unidata_version"]:
        pytest.skip(f"this Python's Unicode database is {unicodedata.unidata_version}, "
                    f"the table's {made['unidata_version']}")
    assert hashlib.sha256(raw).hexdigest() in made["source"]
    committed = make_confusables.TARGET.read_text(encoding="utf-8")
    assert committed == make_confusables.generated(raw, source), "run: python -m tools.make_confusables"


def test_the_table_is_a_data_file_read_at_first_use() -> None:
    """Importing the normal form reads nothing; the first letter outside ASCII folded reads the table, once."""
    code = (
        "from wmcdp_desktop.coordinator.leak import confusables, normalise\n"
        "assert confusables.table.cache_info().currsize == 0\n"
        "assert normalise.normal_form('plain ascii') == 'plain\\x01ascii'\n"
        "assert confusables.table.cache_info().currsize == 0\n"
        "assert normalise.normal_form('\\u0421laude') == 'claude'\n"
        "assert confusables.table.cache_info().currsize == 1\n"
        "assert normalise.normal_form('\u0421\u043e\u0440ilot') == 'copilot'\n"
        "assert confusables.table.cache_info().misses == 1\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    assert confusables_path().suffix == ".json" and confusables_path().is_file()
