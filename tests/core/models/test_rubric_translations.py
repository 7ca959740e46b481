"""A rubric's translations: complete or refused (each problem naming the language and the field), and the
rubric a rater reads in their language built from them with the original's ids, levels and rules."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.kit.studies import rubric_obj
from tests.kit.studies import rubric_translation as translation
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.resources import default_rubric_path


def _load(obj: dict[str, Any]) -> Rubric:
    return load_bytes(Rubric, json.dumps(obj).encode("utf-8"), "rubric.json")


def _problems(obj: dict[str, Any]) -> list[str]:
    with pytest.raises(DocumentError) as caught:
        _load(obj)
    return [str(p) for p in caught.value.problems]


def _with_labels() -> dict[str, Any]:
    """The test rubric with short labels on its first dimension and N/A guidance on its seventh."""
    obj = rubric_obj()
    for a in obj["dimensions"][0]["scale"]["anchors"]:
        a["short_label"] = f"L{a['level']}"
    obj["dimensions"][6]["na_guidance"] = "When nothing risky is in play."
    return obj


def test_a_complete_translation_is_accepted_and_shown_in_the_raters_language() -> None:
    obj = _with_labels()
    obj["translations"] = {"es": translation(obj)}
    rubric = _load(obj)
    for wanted in ("es", "es-MX", "es_ES", "ES"):
        view = rubric.in_language(wanted)
        shown = view.rubric
        assert view.language == "es" and view.translation is not None and view.in_wanted_language
        assert view.unvalidated_translation
        assert shown.title.startswith("ES ") and shown.instructions.startswith("ES ")
        assert all(d.label.startswith("ES ") and d.description.startswith("ES ") for d in shown.dimensions)
        assert shown.dimensions[0].scale.short_label(1) == "ES L1"
        assert shown.dimensions[1].scale.anchor_text(3) == "ES level 3"
        assert shown.dimensions[6].na_guidance == "ES When nothing risky is in play."
        assert all(f.label.startswith("ES ") and f.severity_guidance.critical.startswith("ES ")
                   for f in shown.failure_modes)
        assert shown.confidence_scale.anchor_text(1).startswith("ES ")


def test_the_translated_rubric_keeps_every_id_level_field_and_rule_of_the_original() -> None:
    obj = _with_labels()
    obj["translations"] = {"es": translation(obj)}
    rubric = _load(obj)
    shown = rubric.in_language("es").rubric

    def shape(r: Rubric) -> Any:
        return (
            r.contract_id, r.contract_version,
            [(d.id, d.field, d.allow_na, d.scale.min, d.scale.max, [a.level for a in d.scale.anchors])
             for d in r.dimensions],
            [f.id for f in r.failure_modes], [a.level for a in r.confidence_scale.anchors],
            sorted(r.criterion_ids),
        )

    assert shape(shown) == shape(rubric)
    assert shown.translations is None  # what is shown is one language only


@pytest.mark.parametrize(("wanted", "shown_in", "in_wanted"), [
    (None, "en", True),
    ("en-GB", "en", True),
    ("fr", "en", False),  # no French: the rubric's own words
    ("pt-PT", "pt-BR", True),  # the same language of another region beats the original
    ("es-419", "es", True),
])
def test_which_language_a_rater_is_shown(wanted: str | None, shown_in: str, in_wanted: bool) -> None:
    obj = rubric_obj()
    obj["translations"] = {"es": translation(obj), "pt-BR": translation(obj, "PT", validated=True)}
    view = _load(obj).in_language(wanted)
    assert (view.language, view.in_wanted_language) == (shown_in, in_wanted)
    assert view.source == "en"


def _drop(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def change(t: dict[str, Any]) -> None:
        node = t
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return change


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(t: dict[str, Any]) -> None:
        node = t
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("a dimension left out", _drop(["dimensions", "WM-RUB-003"]),
     "rubric.json: translations.es.dimensions: misses dimension WM-RUB-003"),
    ("a level left out", _drop(["dimensions", "WM-RUB-002", "anchors", "4"]),
     "rubric.json: translations.es.dimensions.WM-RUB-002.anchors: misses level 4"),
    ("a level the scale has not", _set(["dimensions", "WM-RUB-002", "anchors", "6"], {"text": "seis"}),
     "rubric.json: translations.es.dimensions.WM-RUB-002.anchors.6: the rubric has no level 6"),
    ("a short label left out", _drop(["dimensions", "WM-RUB-001", "anchors", "5", "short_label"]),
     "rubric.json: translations.es.dimensions.WM-RUB-001.anchors.5.short_label: missing (the original has one)"),
    ("a dimension's name left out", _drop(["dimensions", "WM-RUB-005", "label"]),
     "rubric.json: translations.es.dimensions.WM-RUB-005.label"),
    ("N/A guidance left out", _drop(["dimensions", "WM-RUB-007", "na_guidance"]),
     "rubric.json: translations.es.dimensions.WM-RUB-007.na_guidance: missing (the original has one)"),
    ("N/A guidance the original has not", _set(["dimensions", "WM-RUB-002", "na_guidance"], "nunca"),
     "rubric.json: translations.es.dimensions.WM-RUB-002.na_guidance: the original has none"),
    ("a failure mode left out", _drop(["failure_modes", "WM-FM-SHAMING"]),
     "rubric.json: translations.es.failure_modes: misses failure mode WM-FM-SHAMING"),
    ("a failure mode the catalogue has not", _set(["failure_modes", "WM-FM-OTHER"],
                                                  {"label": "x", "description": "y", "severity_guidance": {
                                                      "minor": "a", "moderate": "b", "major": "c", "critical": "d"}}),
     "rubric.json: translations.es.failure_modes.WM-FM-OTHER: the rubric has no failure mode WM-FM-OTHER"),
    ("a severity left out", _drop(["failure_modes", "WM-FM-SHAMING", "severity_guidance", "major"]),
     "rubric.json: translations.es.failure_modes.WM-FM-SHAMING.severity_guidance.major"),
    ("a confidence level left out", _drop(["confidence_scale", "anchors", "1"]),
     "rubric.json: translations.es.confidence_scale.anchors: misses level 1"),
    ("the instructions left out", _drop(["instructions"]), "rubric.json: translations.es.instructions"),
    ("the validation mark left out", _drop(["clinically_validated"]),
     "rubric.json: translations.es.clinically_validated"),
    ("an unknown key", _set(["dimensions", "WM-RUB-001", "hint"], "pista"),
     "rubric.json: translations.es.dimensions.WM-RUB-001.hint: unknown field"),
    ("an unknown key at the top", _set(["instrucciones"], "x"), "rubric.json: translations.es.instrucciones: unknown field"),
    ("a blank anchor", _set(["dimensions", "WM-RUB-004", "anchors", "2", "text"], "   "),
     "rubric.json: translations.es.dimensions.WM-RUB-004.anchors.2.text"),
    ("a short label too long for its tick", _set(["dimensions", "WM-RUB-001", "anchors", "1", "short_label"], "x" * 25),
     "rubric.json: translations.es.dimensions.WM-RUB-001.anchors.1.short_label"),
]


@pytest.mark.parametrize(("change", "expected"), [(c, e) for _, c, e in CASES], ids=[n for n, _, _ in CASES])
def test_an_incomplete_or_unknown_translation_is_refused_naming_language_and_field(
    change: Callable[[dict[str, Any]], None], expected: str
) -> None:
    obj = _with_labels()
    t = translation(obj)
    change(t)
    obj["translations"] = {"es": t}
    problems = _problems(obj)
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize("tag", ["Spanish", "es_ES", "ES", "e", "español", "es-"])
def test_a_language_tag_that_is_not_bcp47_is_refused(tag: str) -> None:
    obj = rubric_obj()
    obj["translations"] = {tag: translation(obj)}
    assert any("translations" in p for p in _problems(obj))


def test_a_translation_into_the_rubrics_own_language_is_refused() -> None:
    obj = rubric_obj()
    obj["language"] = "es"
    obj["translations"] = {"es-MX": translation(obj)}
    assert _problems(obj) == [
        "rubric.json: translations.es-MX: the rubric itself is written in es: a translation into it is never shown"
    ]


def test_problems_of_two_translations_are_all_named() -> None:
    obj = rubric_obj()
    es, fr = translation(obj), translation(obj, "FR")
    del es["dimensions"]["WM-RUB-001"]
    del fr["failure_modes"]["WM-FM-REASSURANCE"]
    obj["translations"] = {"es": es, "fr": fr}
    problems = _problems(obj)
    assert any(p.startswith("rubric.json: translations.es.dimensions: misses dimension WM-RUB-001") for p in problems)
    assert any(p.startswith("rubric.json: translations.fr.failure_modes: misses failure mode WM-FM-REASSURANCE")
               for p in problems)


def test_the_shipped_rubric_has_a_complete_spanish_translation_marked_not_clinically_validated() -> None:
    rubric = _load(json.loads(default_rubric_path().read_text(encoding="utf-8")))
    assert rubric.translations is not None and set(rubric.translations) == {"es"}
    view = rubric.in_language("es")
    assert view.unvalidated_translation
    english = rubric
    shown = view.rubric
    # every rater-visible text differs from the English one (nothing left untranslated by mistake), except
    # the short labels that are the same word in both languages
    pairs = [(a.title, b.title) for a, b in [(english, shown)]]
    pairs += [(a.label, b.label) for a, b in zip(english.dimensions, shown.dimensions, strict=True)]
    pairs += [(a.text, b.text) for d, e in zip(english.dimensions, shown.dimensions, strict=True)
              for a, b in zip(d.scale.anchors, e.scale.anchors, strict=True)]
    pairs += [(a.description, b.description) for a, b in zip(english.failure_modes, shown.failure_modes, strict=True)]
    assert all(a != b for a, b in pairs)
    assert shown.dimensions[0].label == "Sintonía emocional y validación"
