"""The regular-expression fast path of zip member name checks gives the same verdict as the full checks
(added with the benchmarks, docs/PERFORMANCE.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.core.zips.reader import name_problem


def _reference(name: str) -> str | None:
    """The checks as written before the fast path."""
    if name == "":
        return "has an empty name"
    for ch in name:
        code = ord(ch)
        if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            what = "a NUL character" if code == 0 else f"a control character (U+{code:04X})"
            return f"has {what} in its name"
    if "\\" in name:
        return "has a backslash in its name (only / separates folders in a zip)"
    if name.startswith("/"):
        return "is an absolute path"
    if len(name) >= 2 and name[1] == ":" and name[0].isascii() and name[0].isalpha():
        return "starts with a drive letter"
    parts = name.rstrip("/").split("/")
    if any(part == ".." for part in parts):
        return "contains '..' (it would point outside the bundle)"
    if any(part in ("", ".") for part in parts):
        return "has an empty or '.' path part"
    return None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ09_-.:/\\ é\x00\x7f")), max_size=12))
def test_same_verdict_as_the_full_checks(name: str) -> None:
    assert name_problem(name) == _reference(name)


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("tasks/T000001-1a2b3c4d.json", True),
        ("rubric.json", True),
        ("tasks/", True),
        ("../bundle.json", False),
        ("tasks/./x.json", False),
        ("tasks//x.json", False),
        ("C:/x.json", False),
        (".hidden", True),
        ("-x/.", False),
    ],
)
def test_examples(name: str, ok: bool) -> None:
    assert (name_problem(name) is None) is ok
