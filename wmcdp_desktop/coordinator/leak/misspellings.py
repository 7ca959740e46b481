"""Names of the built-in list misspelt by one letter: a warning, not a refusal (docs/COORDINATORS.md, "The
leak scan").

A *misspelling* is a word one edit away from a name of five or more letters of the built-in list (``Claude``,
``Gemini``, ``Anthropic``, ``ChatGPT``...; Damerau's edits: one letter inserted, deleted, replaced, or two
neighbouring letters swapped: ``Cluade``, ``Antropic``, ``ChatGTP``, ``Gemeni``), in the scan's normal form
(so ``ＣＬＵＡＤＥ`` and ``Cl\u200buade`` are ``cluade``). A name of two parts (``Chat|GPT``, ``Deep|Seek``,
``Hugging| Face``) is also found written as two words (``Chat GTP``, ``Deep Seak``).

Many such words are ordinary words: ``mitral`` is one edit from ``mistral``, ``clause`` and ``clade`` from
``claude``, ``llamo`` and ``llaga`` from ``llama``, ``jambe`` from ``jamba``. The rule: a word that is a real
word of a language the scan meets is not a misspelling. Those words are a generated table,
``resources/leak/ordinary-words.json`` (``python -m tools.make_leak_tables``: every word one edit from a
name that the ``wordfreq`` word lists of English, Spanish, French, German, Italian, Portuguese and Dutch
know at least as often as :data:`tools.make_leak_tables.MIN_ZIPF`), so the scan needs no word list at
run time. A misspelling is a warning: the coordinator checks it and accepts it in ``accepted_findings``
when it is not the name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache

from wmcdp_desktop.coordinator.leak.normalise import SOFT
from wmcdp_desktop.core.resources import resources_dir

MIN_LETTERS = 5
"""Names shorter than this are not looked for misspelt (one edit from ``Grok`` or ``Qwen`` is everywhere)."""
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
TABLE_NAME = "ordinary-words.json"


def one_edit(word: str) -> Iterator[str]:
    """Every string one Damerau edit away from ``word`` (letters a-z; ``word`` itself not included)."""
    n = len(word)
    for i in range(n + 1):
        for ch in ALPHABET:
            yield word[:i] + ch + word[i:]  # insertion
    for i in range(n):
        yield word[:i] + word[i + 1:]  # deletion
        for ch in ALPHABET:
            if ch != word[i]:
                yield word[:i] + ch + word[i + 1:]  # substitution
        if i + 1 < n and word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2:]  # transposition


def parts(display: str) -> list[str]:
    """The parts of a name as written (``ChatGPT`` -> chat, gpt; ``Hugging Face`` -> hugging, face):
    split at spaces, hyphens and where a capital follows a small letter."""
    return [p.lower() for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", display)]


@cache
def ordinary_words() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """The generated table: name skeleton -> the real words one edit from it, and part of a two-part name
    -> the real words one edit from that part."""
    data = json.loads((resources_dir() / "leak" / TABLE_NAME).read_text(encoding="utf-8"))
    return ({name: frozenset(words) for name, words in data["names"].items()},
            {part: frozenset(words) for part, words in data["parts"].items()})


def two_parts(key: str, display: str) -> tuple[str, str] | None:
    """The two parts of a two-part name whose parts are two letters or more, else None."""
    pieces = parts(display)
    if len(pieces) == 2 and "".join(pieces) == key and min(map(len, pieces)) >= 2:
        return pieces[0], pieces[1]
    return None


_RUN = re.compile("[a-z]+")


class Misspellings:
    """Finds the misspellings of some names in normal-form texts."""

    def __init__(self, names: Iterable[tuple[str, str]], exact: set[str]) -> None:
        """``names``: (skeleton, display) of the names to look for misspelt; ``exact``: every skeleton the
        scan already searches (never a misspelling of another)."""
        ordinary, ordinary_parts = ordinary_words()
        self.variants: dict[str, str] = {}
        """misspelt word -> the name's skeleton"""
        self.pairs: dict[tuple[str, str], str] = {}
        """two words, one of them misspelt -> the name's skeleton (``chat gtp`` -> ``chatgpt``)"""
        for key, display in names:
            if len(key) < MIN_LETTERS or not key.isascii() or not key.isalpha():
                continue
            skip = exact | ordinary.get(key, frozenset()) | {key + "s"}
            for variant in one_edit(key):
                if variant not in skip and len(variant) >= MIN_LETTERS - 1:
                    self.variants.setdefault(variant, key)
            split = two_parts(key, display)
            if split is None:
                continue
            first, second = split
            for variant in one_edit(second):
                if variant and (variant not in ordinary_parts.get(second, frozenset()) or _swapped(variant, second)):
                    self.pairs.setdefault((first, variant), key)
            for variant in one_edit(first):
                if variant and (variant not in ordinary_parts.get(first, frozenset()) or _swapped(variant, first)):
                    self.pairs.setdefault((variant, second), key)
        self.heads = frozenset(first for first, _ in self.pairs)
        alternatives = "|".join(sorted(self.heads, key=lambda h: (-len(h), h)))
        self._pairs = re.compile(f"(?<![a-z])({alternatives}){SOFT}+(?=([a-z]+))") if self.heads else None

    def find(self, s: str, runs: set[str] | None = None) -> list[tuple[int, int, str, str]]:
        """(start, end, misspelt word, name skeleton) of every misspelling in the normal form ``s`` (``runs``:
        its runs of letters a-z, when already known)."""
        runs = set(_RUN.findall(s)) if runs is None else runs
        out: list[tuple[int, int, str, str]] = []
        for word in self.variants.keys() & runs:
            for m in re.finditer(f"(?<![a-z]){word}(?![a-z])", s):
                if _alone(s, m.start(), m.end()):
                    out.append((m.start(), m.end(), word, self.variants[word]))
        if self._pairs is not None and not self.heads.isdisjoint(runs):
            for m in self._pairs.finditer(s):
                name = self.pairs.get((m.group(1), m.group(2)))
                end = m.end() + len(m.group(2))
                if name is not None and _alone(s, m.start(), end):
                    out.append((m.start(), end, m.group(1) + " " + m.group(2), name))
        return out


def _swapped(variant: str, word: str) -> bool:
    """Whether ``variant`` is ``word`` with two neighbouring letters swapped (a slip of the fingers, even when
    it makes a real word: ``Chat GTP``, ``Open IA``)."""
    return len(variant) == len(word) and sorted(variant) == sorted(word) and sum(
        a != b for a, b in zip(variant, word, strict=True)) == 2


def _alone(s: str, start: int, end: int) -> bool:
    """Not inside a longer word of any script."""
    return not (start > 0 and s[start - 1].isalpha()) and not (end < len(s) and s[end].isalpha())


def eligible(key: str, display: str, mode: str) -> bool:
    """Whether a name (skeleton ``key``, written ``display``, matched as ``mode``) is looked for misspelt:
    written as one word of letters (``Claude``, ``ChatGPT``; not ``Google Bard``, ``DALL-E``), five letters
    or more, not an ordinary word searched only with a version."""
    return (mode != "versioned" and len(key) >= MIN_LETTERS and key.isascii() and key.isalpha()
            and display.isalpha())
