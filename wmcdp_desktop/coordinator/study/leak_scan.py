"""Scanning a study for leaks: which of its texts reach a bundle, which names must not appear in them
(``wmcdp study validate`` and ``wmcdp bundle build``; the scan itself is ``coordinator/leak/``).

- :func:`study_texts` lists every text of the study folder that a bundle can carry, with its file and
  JSON path (the builder copies exactly these: scenario and conversation, response, calibration
  feedback, rubric, item, domain and scenario-type ids, study id and title, rater ids and roles);
- :func:`study_terms` lists what must not appear in them (``coordinator/leak/terms.py``);
- :func:`scan_study` runs the scan on them.
"""

from __future__ import annotations

from collections.abc import Callable

from wmcdp_desktop.coordinator.leak.normalise import skeleton
from wmcdp_desktop.coordinator.leak.scan import Matcher, ScanResult, SourceText, scan, walk_strings
from wmcdp_desktop.coordinator.leak.terms import Term, built_in_terms, natural_spellings, searchable
from wmcdp_desktop.coordinator.study.loader import CALIBRATION_SPLIT, LoadedStudy
from wmcdp_desktop.core import counts
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.study import AcceptedFinding


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
    unsearchable_aliases = []
    for model in models:
        if searchable(model):
            terms.append(Term(skeleton(model), model, "model id", "word", model))
        else:
            unsearchable.append(model)
        for spelling in natural_spellings(model):
            if searchable(spelling):
                terms.append(Term(skeleton(spelling), spelling, "natural spelling", "word", model))
        for alias in aliases.get(model, []):
            if searchable(alias):
                terms.append(Term(skeleton(alias), alias, "alias", "word", model))
            else:
                unsearchable_aliases.append(alias)
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
            f"{counts.agree(len(unsearchable), 'model id', 'model ids')} {', '.join(repr(m) for m in unsearchable[:5])} "
            + counts.agree(len(unsearchable), "is a number or a single letter: it cannot be told apart from ordinary "
                           "text and is not searched (it names no model", "are numbers or single letters: they cannot "
                           "be told apart from ordinary text and are not searched (they name no model")
            + "; add aliases for the names that do)",
        ))
    if unsearchable_aliases:
        warnings.append(Problem(
            "study.json", "models",
            f"{counts.agree(len(unsearchable_aliases), 'alias', 'aliases')} "
            f"{', '.join(repr(a) for a in unsearchable_aliases[:5])} "
            + counts.agree(len(unsearchable_aliases), "is a number, a single letter or no letter at all: it cannot be "
                           "told apart from ordinary text (or is nothing once spaces and dashes are ignored) and is "
                           "not searched", "are numbers, single letters or no letters at all: they cannot be told "
                           "apart from ordinary text (or are nothing once spaces and dashes are ignored) and are not "
                           "searched")
            + "; give the names as raters would read them",
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
            f"{counts.count(len(skipped), 'response id')} ({', '.join(repr(r) for r in skipped[:5])}"
            f"{', ...' if len(skipped) > 5 else ''}) "
            + counts.agree(len(skipped), "is a number or a single letter: it cannot be told apart from ordinary text "
                           "and is not searched (such an id names no model)", "are numbers or single letters: they "
                           "cannot be told apart from ordinary text and are not searched (such ids name no model)"),
        ))
    return terms, warnings


def scan_study(study: LoadedStudy, progress: Callable[[int, int], None] | None = None) -> ScanResult:
    """The leak scan of a loaded study (``study validate`` and ``bundle build`` run exactly this);
    ``progress(done, total)`` counts the texts scanned."""
    terms, warnings = study_terms(study)
    matcher = Matcher(terms)
    result = scan(study_texts(study), matcher, list(study.study.accepted_findings or []), progress)
    result.matcher = matcher
    result.warnings = warnings + result.warning_problems() + [
        Problem("study.json", "accepted_findings", f"{_acceptance_text(a)} matches no finding any more; remove it")
        for a in result.unused
    ]
    return result


def _acceptance_text(acceptance: AcceptedFinding) -> str:
    where = f"response {acceptance.response_id}" if acceptance.response_id else f"file {acceptance.file}"
    return f"the accepted finding {acceptance.term!r} in {where}"
