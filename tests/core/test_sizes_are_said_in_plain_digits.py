"""Sizes in messages ("a file of over 50 MB") are said in plain digits and the largest fitting unit: never an
exponent ("6.87195e+10 MB" was printed for a 64 PB size field in a zip)."""

from __future__ import annotations

import re

import pytest

from wmcdp_desktop.core.files import describe_bytes


@pytest.mark.parametrize(("size", "said"), [
    (0, "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"), (1024, "1 KB"), (1536, "1.5 KB"),
    (1024**2, "1 MB"), (50 * 1024**2, "50 MB"), (int(2.5 * 1024**2), "2.5 MB"), (1024**3, "1 GB"),
    (1024**3 + 1, "1,024 MB"), (1024**4 - 1, "1,048,576 MB"), (1024**4, "1 TB"), (2**56, "65,536 TB"),
    (2**64 - 1, "16,777,216 TB"),
])
def test_a_size_in_words(size: int, said: str) -> None:
    assert describe_bytes(size) == said


@pytest.mark.parametrize("size", [7**k for k in range(40)] + [10**k - 1 for k in range(1, 25)])
def test_never_an_exponent(size: int) -> None:
    assert re.fullmatch(r"[0-9][0-9,]*(\.[0-9]+)? (bytes?|KB|MB|GB|TB)", describe_bytes(size)), describe_bytes(size)
