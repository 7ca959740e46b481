"""The leak scan: no model identity, in any spelling, reaches a rater (``wmcdp study validate`` and
``wmcdp bundle build``; docs/COORDINATORS.md, "The leak scan").

One implementation serves both commands and the build's last check of the bundles it made:

- :func:`study_texts` lists every text of the study folder that a bundle can carry, with its file and
  JSON path (the builder copies exactly these: scenario and conversation, response, calibration
  feedback, rubric, item, domain and scenario-type ids, study id and title, rater ids and roles);
- :func:`study_terms` lists what must not appear in them (:mod:`leak_terms`);
- :class:`Matcher` finds the terms in the normal form of :mod:`leak_normalise`, and maps each match
  back to the original text;
- :func:`scan` reports each (file, path, term) once, with the text around the first occurrence, and
  sets aside the findings the coordinator accepted in ``study.json`` (``accepted_findings``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from wmcdp_desktop.core.coordinator.leak_normalise import (
    HARD,
    SOFT,
    Normalised,
    is_word_char,
    normal_form,
    skeleton,
)
from wmcdp_desktop.core.coordinator.leak_terms import (
    Term,
    built_in_terms,
    merge,
    natural_spellings,
    searchable,
)
from wmcdp_desktop.core.coordinator.study_loader import CALIBRATION_SPLIT, LoadedStudy
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.study import AcceptedFinding

CONTEXT = 40
"""Characters of text quoted on each side of a finding."""
_END = ""


class SourceText(NamedTuple):
    """One text of the study folder that can reach a bundle."""

    file: str
    """Study-relative file, ``responses/x.jsonl:LINE`` for a response."""
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
        more = f" (and {self.count - 1} more time(s) in this field)" if self.count > 1 else ""
        return Problem(
            self.file,
            self.path,
            f"leak: {self.term.describe()} in {self.context}{more}; remove it, or accept it in study.json "
            "accepted_findings with a reason",
        )

    def as_obj(self) -> dict[str, Any]:
        return {
            "file": self.file, "path": self.path, "term": self.term.display, "kind": self.term.kind,
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


class Matcher:
    """Finds a set of terms in texts (normal form, modes of :mod:`leak_terms`)."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self.terms = merge(list(terms))
        self._trie: dict[str, Any] = {}
        for word in self.terms:
            node = self._trie
            for ch in word:
                node = node.setdefault(ch, {})
            node[_END] = word
        body = _trie_pattern(self._trie, True)
        # Every mode starts at a word start; the lookahead finds overlapping candidates too.
        self._candidates = re.compile(f"(?<![a-z0-9])(?={body})") if body else None

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
    def _fits(term: Term, text: str, start: int, end: int) -> bool:
        after = text[end] if end < len(text) else ""
        if term.mode == "word":
            return not is_word_char(after)
        if term.mode == "family":
            return not ("a" <= after <= "z")
        k = end  # versioned: a digit must follow, across soft separators
        while k < len(text) and text[k] == SOFT:
            k += 1
        return not ("a" <= after <= "z") and k < len(text) and "0" <= text[k] <= "9"

    def find(self, text: str) -> list[Match]:
        """Every term in ``text``: the longest at each place; a match inside a longer one is not repeated."""
        if self._candidates is None or not text:
            return []
        s = normal_form(text)
        raw: list[tuple[int, int, Term]] = []
        for candidate in self._candidates.finditer(s):
            start = candidate.start()
            ends: list[tuple[str, int]] = []
            self._walk(s, self._trie, start, ends, True)
            fitting = [(end, self.terms[word]) for word, end in ends if self._fits(self.terms[word], s, start, end)]
            if fitting:
                end, term = max(fitting, key=lambda pair: pair[0])
                raw.append((start, end, term))
        if not raw:
            return []
        norm = Normalised(text, s)
        matches: list[Match] = []
        covered_to = -1
        for start, end, term in sorted(raw, key=lambda r: (r[0], -r[1])):
            if end <= covered_to:
                continue  # inside a longer match already reported
            covered_to = max(covered_to, end)
            o_start, o_end = norm.span(start, end)
            matches.append(Match(term, o_start, o_end))
        return matches


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
    return wanted in (finding.term.skeleton, skeleton(finding.matched))


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
        first: dict[str, tuple[Match, int]] = {}
        for match in matches:
            seen = first.get(match.term.skeleton)
            first[match.term.skeleton] = (seen[0], seen[1] + 1) if seen else (match, 1)
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
                result.findings.append(finding)
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


# ---------------------------------------------------------------------------------------- the study


def study_texts(study: LoadedStudy) -> list[SourceText]:
    """Every text of ``study`` that a bundle can carry, where it is in the study folder.

    Mirrors what :mod:`bundle_builder` copies; the build's check of the bundles themselves (and a test
    comparing every string of built bundles with this list) keeps the two together.
    """
    out: list[SourceText] = []
    s = study.study
    out.append(SourceText("study.json", "study_id", s.study_id))
    out.append(SourceText("study.json", "title", s.title))
    for i, rater in enumerate(s.raters):
        out.append(SourceText("study.json", f"raters[{i}].rater_id", rater.rater_id))
        if rater.role_or_background:
            out.append(SourceText("study.json", f"raters[{i}].role_or_background", rater.role_or_background))
    out.extend(SourceText("rubric.json", p, t) for p, t in walk_strings(study.rubric.to_json_obj()) if p)
    by_item = study.responses_by_item()
    sent = [i for i in study.items.values() if study.leave_out_reason(i) is None and by_item.get(i.benchmarkItemId)]
    cases_done: set[tuple[str, str]] = set()
    for item in sent:
        source = study.item_sources[item.benchmarkItemId]
        out.append(SourceText(source, "benchmarkItemId", item.benchmarkItemId))
        if item.split == CALIBRATION_SPLIT:
            gold = item.goldStandard
            for i, criterion in enumerate(gold.criterionGold):
                out.append(SourceText(source, f"goldStandard.criterionGold[{i}].criterionId", criterion.criterionId))
                out.append(SourceText(source, f"goldStandard.criterionGold[{i}].notes", criterion.notes))
            for i, note in enumerate(gold.validAlternativeNotes or []):
                out.append(SourceText(source, f"goldStandard.validAlternativeNotes[{i}]", note))
        key = (item.caseRef.caseId, item.caseRef.caseVersion)
        if key in cases_done:
            continue
        cases_done.add(key)
        case = study.cases[key]
        case_file = study.case_sources[key]
        out.append(SourceText(case_file, "clinical_domain_id", case.clinical_domain_id))
        for i, type_id in enumerate(case.scenario_type_ids):
            out.append(SourceText(case_file, f"scenario_type_ids[{i}]", type_id))
        out.extend(
            SourceText(case_file, p, t) for p, t in walk_strings(case.scenario.to_json_obj(), "scenario")
        )
    sent_ids = {i.benchmarkItemId for i in sent}
    for loaded in study.responses:
        if loaded.response.benchmark_item_id in sent_ids:
            out.append(SourceText(loaded.source, "text", loaded.response.text, loaded.response.response_id))
    return out


def study_terms(study: LoadedStudy) -> tuple[list[Term], list[Problem]]:
    """What must not reach a rater, and warnings about ids that cannot be searched for."""
    terms = built_in_terms()
    warnings: list[Problem] = []
    models = sorted({r.response.model_source for r in study.responses})
    aliases = {m.model_source: list(m.aliases) for m in study.study.models or []}
    built_in = Matcher(built_in_terms())
    unsearchable = []
    for model in models:
        if searchable(model):
            terms.append(Term(skeleton(model), model, "model id", "word", model))
        else:
            unsearchable.append(model)
        for spelling in natural_spellings(model):
            if searchable(spelling):
                terms.append(Term(skeleton(spelling), spelling, "natural spelling", "word", model))
        for alias in aliases.get(model, []):
            terms.append(Term(skeleton(alias), alias, "alias", "word", model))
        if not aliases.get(model) and not built_in.find(model):
            warnings.append(Problem(
                "study.json", "models",
                f"model {model!r} has no vendor or family name of the built-in list: the scan searches for its "
                "id and natural spellings only; add the names raters might know it by as aliases "
                f'({{"model_source": "{model}", "aliases": [...]}})',
            ))
    if unsearchable:
        warnings.append(Problem(
            "responses/", "model_source",
            f"model id(s) {', '.join(repr(m) for m in unsearchable[:5])} are a number or a single letter: they "
            "cannot be told apart from ordinary text and are not searched (they name no model; add aliases "
            "for the names that do)",
        ))
    skipped = []
    for loaded in study.responses:
        rid = loaded.response.response_id
        if searchable(rid):
            terms.append(Term(skeleton(rid), rid, "response id", "word", rid))
        else:
            skipped.append(rid)
    if skipped:
        warnings.append(Problem(
            "responses/", "response_id",
            f"{len(skipped)} response id(s) ({', '.join(repr(r) for r in skipped[:5])}"
            f"{', ...' if len(skipped) > 5 else ''}) are a number or a single letter: they cannot be told "
            "apart from ordinary text and are not searched (such ids name no model)",
        ))
    return terms, warnings


def scan_study(study: LoadedStudy, progress: Callable[[int, int], None] | None = None) -> ScanResult:
    """The leak scan of a loaded study (``study validate`` and ``bundle build`` run exactly this);
    ``progress(done, total)`` counts the texts scanned."""
    terms, warnings = study_terms(study)
    matcher = Matcher(terms)
    result = scan(study_texts(study), matcher, list(study.study.accepted_findings or []), progress)
    result.matcher = matcher
    result.warnings = warnings + [
        Problem("study.json", "accepted_findings", f"{_acceptance_text(a)} matches no finding any more; remove it")
        for a in result.unused
    ]
    return result


def _acceptance_text(acceptance: AcceptedFinding) -> str:
    where = f"response {acceptance.response_id}" if acceptance.response_id else f"file {acceptance.file}"
    return f"the accepted finding {acceptance.term!r} in {where}"
