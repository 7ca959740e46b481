"""The leak scan: no model identity, in any spelling, reaches a rater (``wmcdp study validate`` and
``wmcdp bundle build``; docs/COORDINATORS.md, "The leak scan").

One implementation serves both commands and the build's last check of the bundles it made. Which texts
of a study and which names are scanned is the study's part (``coordinator/study/leak_scan.py``); here:

- :class:`Matcher` finds the terms in the normal form of :mod:`leak_normalise` (and in words put back
  together, and in the other readings of :mod:`leak_readings`), and maps each match back to the original
  text;
- :func:`scan` reports each (file, path, term) once, with the text around the first occurrence, and
  sets aside the findings the coordinator accepted in ``study.json`` (``accepted_findings``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, NamedTuple

from wmcdp_desktop.coordinator.leak import transliterations
from wmcdp_desktop.coordinator.leak.normalise import (
    HARD,
    SOFT,
    Normalised,
    confusables,
    fold_char,
    is_word_char,
    normal_form,
    normal_form_and_others,
    skeleton,
)
from wmcdp_desktop.coordinator.leak.readings import readings
from wmcdp_desktop.coordinator.leak.rules import Rules
from wmcdp_desktop.coordinator.leak.terms import (
    ORDINARY_AFTER,
    Term,
    merge,
)
from wmcdp_desktop.core import counts
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.study import AcceptedFinding

CONTEXT = 40
"""Characters of text quoted on each side of a finding."""
_END = ""


class SourceText(NamedTuple):
    """One text of the study folder that can reach a bundle."""

    file: str
    """Study-relative file, ``responses/x.jsonl line N`` for a response."""
    path: str
    """JSON path inside the document."""
    text: str
    response_id: str | None = None
    """Set for a response's text (findings in it are accepted by response id)."""


@dataclass(frozen=True)
class Match:
    term: Term
    start: int
    """Original offsets of the matched text."""
    end: int


@dataclass(frozen=True)
class Finding:
    """A term found in one field of one file (first occurrence quoted, others counted)."""

    file: str
    path: str
    term: Term
    matched: str
    """The original text that matched (as written: odd characters included)."""
    context: str
    """The text around it, odd characters made visible, the match marked with « »."""
    count: int = 1
    response_id: str | None = None

    def problem(self) -> Problem:
        more = f" (and {counts.count(self.count - 1, 'more time')} in this field)" if self.count > 1 else ""
        if self.term.warning:
            return Problem(
                self.file,
                self.path,
                f"possible leak: {self.term.describe()} in {self.context}{more}; check it: correct it if it "
                "names a model, or accept it in study.json accepted_findings with a reason",
            )
        return Problem(
            self.file,
            self.path,
            f"leak: {self.term.describe()} in {self.context}{more}; remove it, or accept it in study.json "
            "accepted_findings with a reason",
        )

    def as_obj(self) -> dict[str, Any]:
        return {
            "file": self.file, "path": self.path, "term": self.term.display, "kind": self.term.kind,
            "class": self.term.leak_class, "severity": "warning" if self.term.warning else "refused",
            **({"stands_for": self.term.stands_for} if self.term.stands_for else {}),
            "matched": visible(self.matched), "context": self.context, "count": self.count,
            **({"response_id": self.response_id} if self.response_id else {}),
        }


@dataclass(frozen=True)
class AcceptedLeak:
    finding: Finding
    acceptance: AcceptedFinding
    text: str
    """The whole text the finding is in."""

    def as_obj(self) -> dict[str, Any]:
        return {**self.finding.as_obj(), "reason": self.acceptance.reason}

    def line(self) -> str:
        where = f"response {self.finding.response_id}" if self.finding.response_id else self.finding.file
        return (f"{where}: {self.finding.path}: {self.finding.term.describe()} in {self.finding.context} - "
                f"accepted: {self.acceptance.reason}")


@dataclass
class ScanResult:
    findings: list[Finding] = field(default_factory=list)
    """Not accepted: each one stops ``study validate`` and ``bundle build``."""
    warned: list[Finding] = field(default_factory=list)
    """Not accepted warnings (a likely misspelling, a spelling that is also an ordinary word): listed, and
    they pass."""
    accepted: list[AcceptedLeak] = field(default_factory=list)
    unused: list[AcceptedFinding] = field(default_factory=list)
    """Acceptances that match no finding (stale: the text changed)."""
    warnings: list[Problem] = field(default_factory=list)
    matcher: Matcher | None = None
    """What was searched for (the build searches its bundles with the same)."""
    scanned: dict[str, list[Match]] = field(default_factory=dict, repr=False)
    """Every text scanned and what was found in it (the build's check of its bundles, with the same
    matcher, finds the same in the same text: it does not search these again)."""

    def problems(self) -> list[Problem]:
        return [f.problem() for f in self.findings]

    def warning_problems(self) -> list[Problem]:
        return [f.problem() for f in self.warned]

    def accepted_texts(self) -> set[tuple[str, str]]:
        """(term skeleton, exact text) of every accepted finding: the build's check of its bundles finds
        the same texts again and must accept them too."""
        return {(a.finding.term.skeleton, a.text) for a in self.accepted}


# ---------------------------------------------------------------------------------------- matching


def visible(text: str) -> str:
    """``text`` safe to print: line breaks, tabs, controls, format and other invisible characters shown
    as ``\\n`` or ``<U+200B>`` (a hidden character inside a name is part of the finding)."""
    out = []
    for ch in text:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Mn", "Me") or (
            ch.isspace() and ch != " "
        ):
            out.append(f"<U+{ord(ch):04X}>")
        else:
            out.append(ch)
    return "".join(out)


CANDIDATE_DEPTH = 8
"""How many characters of each term the candidate regex holds (the rest is checked in Python): a small
regex compiles fast even for tens of thousands of response ids."""


def _trie_pattern(node: dict[str, Any], first: bool, depth: int = CANDIDATE_DEPTH) -> str:
    """``first``: no separator may come before the next character (the start, or right after a run of
    separators, which must not be split between two repeats: that would backtrack quadratically)."""
    if depth == 0:
        return ""
    alternatives = []
    for ch, child in sorted(node.items()):
        if ch == _END:
            continue
        if ch == HARD:
            alternatives.append(f"[{HARD}{SOFT}]+" + _trie_pattern(child, True, depth - 1))
        else:
            edge = ("" if first else f"{SOFT}*") + re.escape(ch)
            alternatives.append(edge + _trie_pattern(child, False, depth - 1))
    if not alternatives:
        return ""
    ends_here = _END in node
    if len(alternatives) == 1 and not ends_here:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")" + ("?" if ends_here else "")


_CLASSES = bytes(
    ord("a") if 97 <= i <= 122 else ord("A") if 65 <= i <= 90 else ord("0") if 48 <= i <= 57
    else ord(HARD) if i == ord(HARD) else ord("@") if chr(i) in "@$|!" else ord(".") for i in range(256)
)
"""Byte classes for fast searches: lower-case letter, capital, digit, the hard separator, a symbol written
for a letter, anything else."""


def _classes(text: str) -> bytes:
    """``text`` as one class byte per character (:data:`_CLASSES`; characters outside Latin-1 are "?")."""
    return text.encode("latin-1", "replace").translate(_CLASSES)


_CAMEL = re.compile(rb"(?<=[a0])A|(?<=A)A(?=a)")
"""Where a word starts inside a run of letters (in :func:`_classes`): ``Claude|AI``, ``Ask|Claude``,
``GPT|Model``, ``4|Claude``."""
_BROKEN = re.compile(rb"w +w")
"""A word broken by punctuation (``Cl*aude``), in the classes of the normal form with letters and digits as
``w`` (a search that starts at the rare separator is several times faster than one at every letter)."""
_MIXED = re.compile(rb"a0|0a")
"""Letters and digits in one word (``Cl4ude``), in the classes of the normal form."""
_WORD_CHARS = bytes.maketrans(b"a0", b"ww")
_LEET_INSIDE = re.compile(rb"(?<=[aA0])@+(?=[aA0])")
_NOT_SOFT = re.compile(f"[^{SOFT}]+")
_LEET_SYMBOLS = str.maketrans({"@": "a", "$": "s", "|": "l", "!": "i"})
"""Symbols written for letters (``Cl@ude``), read as those letters when a word is put back together."""
_JOIN_KEYS = str.maketrans("0123456789l", "oizeasgtbgi")
"""Digits written for letters (``Cl4ude``, ``G3m1n1``), and ``l`` and ``i`` taken as one letter (``I``, ``l``
and ``1`` look alike in many fonts and scripts), when a word is put back together."""
@cache
def _ambiguous_il() -> frozenset[str]:
    """Letters of other scripts that read as ``I`` or ``l``: with one of them, every word is put back together."""
    return frozenset(ch for ch, to in confusables().items() if to in "il" and not ch.isascii())

_SPELLED = re.compile(f"(?<![a-z0-9])(?:[a-z0-9]{SOFT}+){{3,}}[a-z0-9](?![a-z0-9])")
"""Single letters and digits each on their own (``C-L-4-U-D-E``, ``G 3 M 1 N 1``), in the normal form."""
_ONE_CHAR = re.compile("[a-z0-9]")
_DIGIT = re.compile("[0-9]")
_LAST_WORD = re.compile(f"([a-z]+){SOFT}+$")
"""The word right before a position (searched in ``s[:start]``)."""
JOINED_MIN = 4
"""Names shorter than this are not looked for in words put back together (``GPT`` would match ``6pt``)."""


class Matcher:
    """Finds a set of terms in texts (normal form, modes of :mod:`leak_terms`, other readings of
    :mod:`leak_readings`)."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self.terms = merge(list(terms))
        self._trie = _trie({word for word, term in self.terms.items() if term.mode != "native"})
        body = _trie_pattern(self._trie, True)
        # Every mode starts at a word start; the lookahead finds overlapping candidates too.
        self._candidates = re.compile(f"(?<![a-z0-9])(?={body})") if body else None
        # names in other scripts: where a word starts depends on the script (transliterations.fits); only
        # searched in texts whose normal form has a character of one of them
        native = [word for word, term in self.terms.items() if term.mode == "native"]
        self._native_trie = _trie(set(native))
        native_body = _trie_pattern(self._native_trie, True)
        self._native = re.compile(f"(?={native_body})") if native_body else None
        self._native_triggers = transliterations.trigger_characters(native)
        self.rules = Rules(self.terms)
        """The classes found by rules: misspellings, serving artefacts, self-descriptions, 4o, emoji."""
        # One-word names (of letters only, not the ordinary words matched only with a version), as they
        # read when a word broken by punctuation or written with digits is put back together.
        self._joined: dict[str, Term] = {}
        for word, term in self.terms.items():
            single = SOFT not in normal_form(term.display) and HARD not in normal_form(term.display)
            if term.mode != "versioned" and single and len(word) >= JOINED_MIN and word.isalpha() and word.isascii():
                self._joined.setdefault(word.translate(_JOIN_KEYS), term)
        # each name as a whole run of pieces of one word (pieces: what hard separators leave, in the
        # normal form read with _JOIN_KEYS), the longest first
        alternatives = "|".join(" *".join(re.escape(ch) for ch in key)
                                for key in sorted(self._joined, key=lambda k: (-len(k), k)))
        self._joined_lengths = sorted({len(key) for key in self._joined})
        self._joined_re = re.compile(f"(?<![^ {SOFT}])(?:{alternatives})(?![^ {SOFT}])") if self._joined else None

    def _walk(self, text: str, node: dict[str, Any], at: int, out: list[tuple[str, int]], root: bool) -> None:
        if _END in node:
            out.append((node[_END], at))
        n = len(text)
        if HARD in node:
            k = at
            while k < n and text[k] in (HARD, SOFT):
                k += 1
            if k > at:
                self._walk(text, node[HARD], k, out, False)
        k = at
        if not root:
            while k < n and text[k] == SOFT:
                k += 1
        if k < n and text[k] in node and text[k] not in (HARD, _END):
            self._walk(text, node[text[k]], k + 1, out, False)

    @staticmethod
    def _fits(term: Term, text: str, start: int, end: int, word_starts: set[int]) -> bool:
        after = text[end] if end < len(text) else ""
        if end in word_starts:  # ClaudeAI: a word starts right after the name
            after = ""
        if term.mode == "native":
            return transliterations.fits(text, start, end)
        if term.mode == "word":
            return not is_word_char(after)
        if term.mode == "family":
            if after == "s" and (end + 1 == len(text) or not ("a" <= text[end + 1] <= "z")):
                return True  # a plural: GPTs, Claudes (Claudette is not Claude)
            return not ("a" <= after <= "z")
        k = end  # versioned: a digit must follow, across soft separators
        while k < len(text) and text[k] == SOFT:
            k += 1
        return not ("a" <= after <= "z") and k < len(text) and "0" <= text[k] <= "9"

    def find(self, text: str) -> list[Match]:
        """Every term in ``text`` and in its other readings (:mod:`leak_readings`): the longest at each
        place; a match inside a longer one is not repeated."""
        if not text:
            return []
        s, others = normal_form_and_others(text)
        raw = self._find_in(text, s, others)
        for reading in readings(text, others):
            found = self._find_in(reading.text, *normal_form_and_others(reading.text))
            raw += [(*reading.span(start, end), term) for start, end, term in found]
        # a parameter count or suffix on a name already refused is that name's finding (Vicuna-13B)
        named = [(start, end) for start, end, term in raw if not term.warning and term.leak_class == "name"]
        if named:
            raw = [r for r in raw if r[2].kind != "model size or tuning suffix"
                   or not any(start < r[1] and r[0] < end for start, end in named)]
        matches: list[Match] = []
        refused_to = warned_to = -1
        for start, end, term in sorted(raw, key=lambda r: (r[0], -r[1], r[2].warning)):
            # inside a longer match already reported (a refusal is never hidden inside a warning)
            if end <= refused_to or (term.warning and end <= warned_to):
                continue
            if term.warning:
                warned_to = max(warned_to, end)
            else:
                refused_to = max(refused_to, end)
            matches.append(Match(term, start, end))
        return matches

    def _find_in(self, text: str, s: str, others: set[str]) -> list[tuple[int, int, Term]]:
        """The terms of ``text`` (normal form ``s``, characters outside ASCII ``others``) as written, each
        with its original offsets."""
        norm: Normalised | None = None
        word_starts: set[int] = set()
        starts = [candidate.start() for candidate in self._candidates.finditer(s)] if self._candidates else []
        classes = _classes(text)
        if b"aA" in classes or b"0A" in classes or b"AAa" in classes:
            norm = Normalised(text, s)
            word_starts = {norm.position(m.start()) for m in _CAMEL.finditer(classes)}
            starts = sorted(set(starts) | {q for q in word_starts if q < len(s) and s[q] in self._trie})
        raw: list[tuple[int, int, Term]] = []
        self._longest(s, self._trie, starts, word_starts, raw)
        if self._native is not None and not s.isascii() and not self._native_triggers.isdisjoint(
                {c for ch in others for c in fold_char(ch)}):
            self._longest(s, self._native_trie, [m.start() for m in self._native.finditer(s)], set(), raw)
        if self._candidates is not None:
            raw += self._joined_words(text, s, others, classes)
        raw += self.rules.in_normal_form(text, s, others)
        found = self.rules.in_original(text, others) if others else []
        if not raw:
            return found
        norm = norm or Normalised(text, s)
        return [(*norm.span(start, end), term) for start, end, term in raw] + found

    def _longest(self, s: str, trie: dict[str, Any], starts: list[int], word_starts: set[int],
                 raw: list[tuple[int, int, Term]]) -> None:
        """The longest term of ``trie`` that fits at each of ``starts`` (normal-form offsets), into ``raw``."""
        for start in starts:
            ends: list[tuple[str, int]] = []
            self._walk(s, trie, start, ends, True)
            fitting = [(end, self.terms[word]) for word, end in ends
                       if self._fits(self.terms[word], s, start, end, word_starts)]
            if fitting:
                end, term = max(fitting, key=lambda pair: pair[0])
                raw.append((start, end, self._in_context(s, start, end, term)))

    def _in_context(self, s: str, start: int, end: int, term: Term) -> Term:
        """``term``, or its warning where the word before makes it an ordinary word (:data:`ORDINARY_AFTER`)."""
        context = ORDINARY_AFTER.get(term.skeleton)
        if context is None or end - start != len(term.skeleton):
            return term
        before = _LAST_WORD.search(s, 0, start)
        if before is None or before.group(1) not in context[0]:
            return term
        return replace(term, warning=True, note=context[1])

    def _joined_words(self, text: str, s: str, others: set[str], classes_of_text: bytes) -> list[tuple[int, int, Term]]:
        """One-word names in words broken by punctuation or written with digits or symbols for letters
        (``**Cl**aude``, ``Cl'aude``, ``Cl4ude``, ``G3m1n1``, ``Cl@ude``), in normal-form offsets."""
        if not self._joined:
            return []
        # symbols written for letters, inside a word: read them as letters (each symbol is one letter, so
        # the normal form keeps its length)
        inside = _LEET_INSIDE.search(classes_of_text) if any(symbol in text for symbol in "@$|!") else None
        s2 = normal_form(text.translate(_LEET_SYMBOLS)) if inside else s
        if not _ambiguous_il().isdisjoint(others):
            tokens = [(m.start(), m.end()) for m in _NOT_SOFT.finditer(s)]
        else:
            classes = _classes(s)
            seeds = [m.start() for m in _BROKEN.finditer(classes.translate(_WORD_CHARS))]
            if b"a0" in classes or b"0a" in classes:
                seeds = sorted(seeds + [m.start() for m in _MIXED.finditer(classes)])
            tokens = []
            done = 0
            for seed in seeds:
                if seed < done:
                    continue
                start = s.rfind(SOFT, 0, seed) + 1
                end = s.find(SOFT, seed)
                done = len(s) if end < 0 else end
                tokens.append((start, done))
        assert self._joined_re is not None
        read = s2.translate(_JOIN_KEYS)
        out: list[tuple[int, int, Term]] = []
        for start, end in tokens:
            for match in self._joined_re.finditer(read, start, end):
                out.append((match.start(), match.end(), self._joined[match.group().replace(HARD, "")]))
        out += self._spelled_out(s2, read)
        return out

    def _spelled_out(self, s: str, read: str) -> list[tuple[int, int, Term]]:
        """One-word names spelled out one character at a time with digits for letters (``C-L-4-U-D-E``,
        ``G 3 M 1 N 1``) in the normal form ``s`` (``read``: the same read with ``_JOIN_KEYS``). Spelled out
        with letters only (``C l a u d e``), the main search already finds them."""
        out: list[tuple[int, int, Term]] = []
        for run in _SPELLED.finditer(s) if SOFT in s else ():
            if _DIGIT.search(s, run.start(), run.end()) is None:
                continue
            chars = [(m.start(), m.group()) for m in _ONE_CHAR.finditer(read, run.start(), run.end())]
            letters = "".join(ch for _, ch in chars)
            for i in range(len(letters)):
                for k in self._joined_lengths:
                    term = self._joined.get(letters[i:i + k]) if i + k <= len(letters) else None
                    if term is not None:
                        out.append((chars[i][0], chars[i + k - 1][0] + 1, term))
        return out


def _trie(words: set[str]) -> dict[str, Any]:
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[_END] = word
    return trie


def _context(text: str, start: int, end: int) -> str:
    lo = max(0, start - CONTEXT)
    hi = min(len(text), end + CONTEXT)
    return (
        ("…" if lo > 0 else "") + visible(text[lo:start]) + "«" + visible(text[start:end]) + "»"
        + visible(text[end:hi]) + ("…" if hi < len(text) else "")
    )


# ---------------------------------------------------------------------------------------- scanning


def _term_fits(acceptance: AcceptedFinding, finding: Finding) -> bool:
    wanted = skeleton(acceptance.term)
    if wanted:
        return wanted in (finding.term.skeleton, skeleton(finding.matched))
    # a term that is all symbols (an emoji): as written
    return acceptance.term.strip() in (finding.term.display, finding.matched.strip())


def _place(file: str) -> str:
    return file.replace("\\", "/").removeprefix("./")


PROGRESS_EVERY = 500
"""Texts scanned between two calls of the progress callback."""


def scan(texts: Iterable[SourceText], matcher: Matcher, accepted: list[AcceptedFinding] | None = None,
         progress: Callable[[int, int], None] | None = None) -> ScanResult:
    """Scan ``texts``: one finding per (file, path, term), accepted ones set aside. ``progress(done, total)``
    counts texts scanned."""
    accepted = list(accepted or [])
    used = [False] * len(accepted)
    result = ScanResult()
    cache = result.scanned
    texts = list(texts)
    for done, source in enumerate(texts, start=1):
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(texts)):
            progress(done, len(texts))
        matches = cache.get(source.text)
        if matches is None:
            matches = cache[source.text] = matcher.find(source.text)
        first: dict[tuple[str, str], tuple[Match, int]] = {}
        for match in matches:
            key = (match.term.kind, match.term.skeleton)
            seen = first.get(key)
            first[key] = (seen[0], seen[1] + 1) if seen else (match, 1)
        for match, count in first.values():
            finding = Finding(
                source.file, source.path, match.term, source.text[match.start:match.end],
                _context(source.text, match.start, match.end), count, source.response_id,
            )
            for i, acceptance in enumerate(accepted):
                if not _term_fits(acceptance, finding):
                    continue
                if (acceptance.response_id is not None and acceptance.response_id == source.response_id) or (
                    acceptance.file is not None and source.response_id is None
                    and _place(acceptance.file) == source.file
                ):
                    used[i] = True
                    result.accepted.append(AcceptedLeak(finding, acceptance, source.text))
                    break
            else:
                (result.warned if finding.term.warning else result.findings).append(finding)
    result.unused = [a for a, u in zip(accepted, used, strict=True) if not u]
    return result


def walk_strings(obj: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string of a JSON value with its JSON path (object keys too, at the object's path)."""
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield path, str(key)
            yield from walk_strings(value, f"{path}.{key}" if path else str(key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from walk_strings(value, f"{path}[{i}]")
