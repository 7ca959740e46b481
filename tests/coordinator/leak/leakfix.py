"""A study answered by real-looking models, and the kinds of leak the scan must catch (issue 14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kit.studies import numbered_responses, write_study
from wmcdp_desktop.coordinator.leak.scan import Matcher
from wmcdp_desktop.coordinator.leak.terms import built_in_terms

MODELS = ["gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022", "meta-llama/Llama-3.1-70B-Instruct", "o1"]
ALIASES = {"o1": ["Strawberry"]}

# Each kind is one sentence naming one term (two for the first two), all different terms.
LEAK_KINDS: dict[str, tuple[str, list[str]]] = {
    "vendor and product": ("As ChatGPT, developed by OpenAI, I would", ["ChatGPT", "OpenAI"]),
    "self-introduction": ("I'm Claude, made by Anthropic.", ["Claude", "Anthropic"]),
    "family": ("As a Llama model, I", ["Llama"]),
    "another product": ("The Gemini answer was longer.", ["Gemini"]),
    "natural spelling": ("Llama 3.1 70B Instruct says", ["Llama-3.1-70B-Instruct"]),
    "id without its date": ("try claude-3-5-sonnet today", ["claude-3-5-sonnet"]),
    "zero-width space inside the id": ("gpt\u200b-4o-2024-08-06", ["gpt-4o-2024-08-06"]),
    "non-breaking hyphens": ("claude\u20113\u20115\u2011sonnet\u201120241022", ["claude-3-5-sonnet-20241022"]),
    "exact id, other case": ("META-LLAMA/LLAMA-3.1-70B-INSTRUCT", ["meta-llama/Llama-3.1-70B-Instruct"]),
    "a response id": ("see resp-0001", ["resp-0001"]),
    "another response id in upper case": ("and RESP-0002 too", ["resp-0002"]),
    "short model id": ("better than o1 here", ["o1"]),
    "alias": ("the Strawberry model", ["Strawberry"]),
    "look-alike letters": ("C\u043epilot", ["Copilot"]),
    "fullwidth": ("\uff2d\uff49\uff53\uff54\uff52\uff41\uff4c", ["Mistral"]),
    "ordinary word with a version": ("Phi-3 would", ["Phi"]),
    "vendor in context": ("trained by Google", ["by Google"]),
    # disguises a reader still reads as the name
    "look-alike letter of another script": ("Gr\u0585k", ["Grok"]),  # Armenian oh
    "letter with a stroke": ("Micr\u00f8soft", ["Microsoft"]),
    "small capitals": ("\u1d05\u1d07\u1d07\u1d18s\u1d07\u1d07\u1d0b", ["DeepSeek"]),
    "ambiguous capital I": ("NV\ua4f2DIA", ["NVIDIA"]),  # Lisu letter I
    "digits for letters": ("Qw3n", ["Qwen"]),
    "punctuation inside the word": ("Mix*tral", ["Mixtral"]),
    "run together": ("NemotronAI", ["Nemotron"]),
    "plural": ("two Jambas", ["Jamba"]),
    "right-to-left override": ("\u202eudiaB\u202c", ["Baidu"]),
    "tag characters": ("".join(chr(0xE0000 + ord(c)) for c in "Tencent"), ["Tencent"]),
    "HTML character reference": ("&#72;unyuan", ["Hunyuan"]),
    "percent-encoding": ("Mini%4Dax", ["MiniMax"]),
    "HTML tags inside the word": ("Ali<b>baba</b>", ["Alibaba"]),
    "tier and version": ("Sonnet 3.5", ["sonnet-3-5"]),
}
LEAK_TEXT = " | ".join(text for text, _ in LEAK_KINDS.values())
LEAK_TERMS = sorted(term for _, terms in LEAK_KINDS.values() for term in terms)


def write_model_study(
    root: Path,
    *,
    n_items: int = 3,
    models: list[str] | None = None,
    study_extra: dict[str, Any] | None = None,
    n_raters: int = 3,
    overlap: int = 2,
) -> Path:
    """A valid study (the last item calibration) answered by ``models``, with :data:`ALIASES`; responses
    ``resp-0001``... (:func:`tests.kit.studies.numbered_responses`)."""
    models = models or MODELS
    aliases = [{"model_source": m, "aliases": a} for m, a in ALIASES.items() if m in models]

    def alternatives(item: dict[str, Any]) -> None:
        item["goldStandard"]["validAlternativeNotes"] = ["Another good move."]

    return write_study(root, n_items=n_items - 1, calibration_items=1, n_raters=n_raters, overlap=overlap, models=models,
                       study_extra={"models": aliases, **(study_extra or {})}, item_change=alternatives,
                       responses=numbered_responses)


# Every free-text field a bundle carries, and how to put text into it.
TEXT_FIELDS: list[tuple[str, str, Any]] = [
    ("study.json", "title", lambda o, t: o.update(title=t)),
    ("study.json", "raters[0].role_or_background", lambda o, t: o["raters"][0].update(role_or_background=t)),
    ("rubric.json", "title", lambda o, t: o.update(title=t)),
    ("rubric.json", "instructions", lambda o, t: o.update(instructions=t)),
    ("rubric.json", "dimensions[0].label", lambda o, t: o["dimensions"][0].update(label=t)),
    ("rubric.json", "dimensions[0].description", lambda o, t: o["dimensions"][0].update(description=t)),
    ("rubric.json", "dimensions[0].scale.anchors[0].text", lambda o, t: o["dimensions"][0]["scale"]["anchors"][0].update(text=t)),
    ("rubric.json", "dimensions[6].na_guidance", lambda o, t: o["dimensions"][6].update(na_guidance=t)),
    ("rubric.json", "failure_modes[0].label", lambda o, t: o["failure_modes"][0].update(label=t)),
    ("rubric.json", "failure_modes[0].description", lambda o, t: o["failure_modes"][0].update(description=t)),
    ("rubric.json", "failure_modes[0].severity_guidance.minor", lambda o, t: o["failure_modes"][0]["severity_guidance"].update(minor=t)),
    ("rubric.json", "confidence_scale.anchors[0].text", lambda o, t: o["confidence_scale"]["anchors"][0].update(text=t)),
    ("cases/CASE-001.json", "scenario.context.age_band", lambda o, t: o["scenario"]["context"].update(age_band=t)),
    ("cases/CASE-001.json", "scenario.context.setting", lambda o, t: o["scenario"]["context"].update(setting=t)),
    ("cases/CASE-001.json", "scenario.context.summary", lambda o, t: o["scenario"]["context"].update(summary=t)),
    ("cases/CASE-001.json", "scenario.turns[0].speaker_label", lambda o, t: o["scenario"]["turns"][0].update(speaker_label=t)),
    ("cases/CASE-001.json", "scenario.turns[0].text", lambda o, t: o["scenario"]["turns"][0].update(text=t)),
    ("items/ITEM-003.json", "goldStandard.criterionGold[0].notes", lambda o, t: o["goldStandard"]["criterionGold"][0].update(notes=t)),
    ("items/ITEM-003.json", "goldStandard.validAlternativeNotes[0]", lambda o, t: o["goldStandard"].update(validAlternativeNotes=[t])),
]


MATCHER = Matcher(built_in_terms())
ZW = "\u200b"


def found(text: str) -> list[tuple[str, str, str]]:
    """(class, what it stands for or names, refused/warning) of every finding in ``text``."""
    return [(m.term.leak_class, m.term.stands_for or m.term.display, "warning" if m.term.warning else "refused")
            for m in MATCHER.find(text)]


def refused(text: str) -> list[tuple[str, str, str]]:
    return [f for f in found(text) if f[2] == "refused"]
