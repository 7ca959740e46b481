"""False positives of the leak scan, measured (docs/COORDINATORS.md, "The leak scan"): ordinary clinical
text in fifteen languages and the demo study are never refused; what they raise is the documented
warnings, each an ordinary word the coordinator checks (AI: on an echo report, "se llama", クラウド)."""

from __future__ import annotations

from collections import Counter

from tests.coordinator.leak.clinical_corpus import counts, demo_study_texts, texts


def test_ordinary_clinical_text_in_many_languages_is_never_refused() -> None:
    assert counts(texts()) == Counter({
        ("name", "warning"): 3,  # se llama, clase magistral, cours magistral
        ("serving artefact", "warning"): 2,  # "AI: mild" on an echo report, "System:" in a review of systems
        ("transliteration", "warning"): 5,  # ламу (the animal), 百度 (to search), 豆包 (a bun), クラウド, 双子座
    })


def test_the_demo_study_raises_one_warning_and_no_refusal() -> None:
    # the demo's injection-test response starts a line with "SYSTEM:" (a weak role marker alone)
    assert counts(demo_study_texts()) == Counter({("serving artefact", "warning"): 1})
