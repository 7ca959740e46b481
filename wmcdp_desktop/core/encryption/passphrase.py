"""Passphrases a person can read over the phone: words from EFF's short word list, joined with ``-``.

Six words of the 1,295 give about 62 bits; with the bundle's scrypt (about half a second a guess) that is
far beyond guessing. What a rater types back is forgiven its case, its spaces and ``-`` against `` ``.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from functools import cache

from wmcdp_desktop.core.resources import resources_dir

WORD_LIST = ("encryption", "eff-short-wordlist-1.txt")
"""The word list, under the resources folder (licence in its first lines and THIRD-PARTY-NOTICES.md)."""
SEPARATOR = "-"
DEFAULT_WORDS = 6
_SPLIT = re.compile(r"[\s\-\u2010-\u2015\u2212_]+")
"""What may stand between two words as typed: spaces of any kind, hyphens and dashes, underscores."""


@cache
def word_list() -> tuple[str, ...]:
    """The words passphrases are made of (lower case ASCII letters, no two alike)."""
    path = resources_dir().joinpath(*WORD_LIST)
    words = tuple(
        line.strip() for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    )
    if len(words) < 1024 or len(set(words)) != len(words) or not all(w.isascii() and w.isalpha() and w.islower()
                                                                     for w in words):
        raise RuntimeError(f"the installation's word list {path} is damaged")
    return words


def new_passphrase(words: int = DEFAULT_WORDS) -> str:
    """A new random passphrase of ``words`` words (``secrets.choice``), lower case, joined with ``-``."""
    if words < 1:
        raise ValueError("a passphrase needs at least one word")
    chosen = word_list()
    return SEPARATOR.join(secrets.choice(chosen) for _ in range(words))


def normalise_passphrase(text: str) -> str:
    """The passphrase as generated, from what a person typed: case, spaces around and between the words,
    and ``-`` against spaces (or a dash, an underscore) do not matter; letters are compared in Unicode
    NFKC, case-folded (a full-width letter typed on some keyboards is the same letter)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return SEPARATOR.join(part for part in _SPLIT.split(folded) if part)
