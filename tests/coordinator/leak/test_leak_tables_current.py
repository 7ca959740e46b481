"""The committed tables of names in other scripts and of real words near the names are what
tools/make_leak_tables.py makes from its documented sources (tools/leak_spellings.py, OpenCC and wordfreq,
in the dev extra)."""

from __future__ import annotations

import json
import unicodedata

import pytest

from tools import make_leak_tables


def test_the_committed_tables_are_made_again_byte_for_byte() -> None:
    pytest.importorskip("opencc", reason="OpenCC is in the dev extra (pip install -e '.[dev]')")
    pytest.importorskip("wordfreq", reason="wordfreq is in the dev extra (pip install -e '.[dev]')")
    tables = make_leak_tables.generated()
    committed = json.loads(make_leak_tables.TRANSLITERATIONS.read_text(encoding="utf-8"))
    if committed["unidata_version"] != unicodedata.unidata_version:
        pytest.skip(f"this Python's Unicode database is {unicodedata.unidata_version}, the table's "
                    f"{committed['unidata_version']}")
    for path, text in tables.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run python -m tools.make_leak_tables"
