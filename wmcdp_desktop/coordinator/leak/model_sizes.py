"""A parameter count or a tuning suffix attached to a word: the shape of an open model's name, whatever the
name (``Zephyr-7b``, ``Vicuna-13B``, ``something-8x7B``, ``70B-instruct``, ``mymodel-instruct``;
docs/COORDINATORS.md, "The leak scan").

Found in the scan's normal form with hyphens and underscores kept apart from spaces and dots:

- a **parameter count said as one** (``a 7B model``, ``13 billion parameters``, ``a 70-billion-parameter model``,
  ``7B params``; not "Figure 7B model"), and llama.cpp's **quantisation names** (``Q4_K_M``, ``Q8_0``): refused;
- a **mixture-of-experts size** (``8x7B``, ``8x22b``) anywhere: refused;
- a **size followed by a tuning suffix** (``70B-instruct``, ``7b-chat``, ``9b-it``, ``8B_base``, ``7B-GGUF``):
  refused;
- a **word joined to a size** by a hyphen or underscore (``Zephyr-7b``, ``openchat_3.5-7B``): refused, unless
  the word is one that numbers wards, stages, grades, figures... (:data:`ORDINARY_BEFORE`: ``Ward-7B``,
  ``stage-1b``, ``IL-1b`` with its two letters) or a piece of hexadecimal digits (a UUID's ``c2134f15-500b``);
  a size written right against a word (``CDKN2B``, a gene) is not looked at;
- a **name then a space then a size** (``Alpaca 7B``, ``Zephyr 7b``): refused when the word is a model name
  of the built-in list or one searched in context (:mod:`introductions`; not those that are also ordinary
  words: "solar 1b"); after any other word no finding ("Ward 7B", "the 7B", "phase 1b": a space before a
  size is how wards, stages and figures are numbered; ``vitamin B7`` is not a size at all);
- a **tuning suffix joined to a word** (``mymodel-instruct``, ``foo-sft``, ``bar-dpo``, ``x-GGUF``): refused;
  ``-chat`` only after a word with a digit or a model name (``model2-chat``; ``live-chat`` is no finding).

A size alone ("7B") is no finding: it is a ward, a bus, a stage.
"""

from __future__ import annotations

import re

from wmcdp_desktop.coordinator.leak.normalise import SOFT, normal_form_keeping

KEEP = {"-": "-", "_": "_", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-",
        "\uff0d": "-", "\uff3f": "_"}
"""Hyphens and underscores, kept apart from spaces and dots in the form this module searches."""

ORDINARY_BEFORE = frozenset({
    "ward", "room", "rm", "bed", "bay", "stage", "grade", "phase", "class", "type", "level", "lvl", "step", "fig",
    "figure", "table", "tab", "item", "page", "p", "pp", "form", "year", "yr", "unit", "block", "floor", "flat",
    "apt", "apartment", "suite", "gate", "cell", "bus", "route", "seat", "row", "exhibit", "appendix", "part",
    "chapter", "ch", "vol", "volume", "box", "area", "zone", "wing", "tier", "group", "arm", "cohort", "visit",
    "day", "week", "session", "module", "question", "q", "no", "nr", "number", "num", "version", "ver", "v",
    "section", "sec", "schedule", "line", "lane", "plot", "house", "building", "bldg", "office", "clinic",
    "pod", "pavilion", "corridor", "theatre", "theater", "lab", "study", "trial", "protocol", "visa", "code",
    "icd", "dsm", "criterion", "criteria", "domain", "subscale", "scale", "task", "list", "set", "kit",
    "vitamin", "hepatitis", "hep", "influenza", "flu", "factor", "complex", "segment", "lead", "grid",
    "test", "sample", "specimen", "tube", "slide", "case", "patient", "pt", "subject", "participant", "child",
    "family", "site", "centre", "center", "region", "category", "cat", "size", "mark", "rule", "note",
    "flight", "platform", "track", "exit", "terminal", "hall", "lot", "street", "st", "road", "rd", "avenue",
})
"""Words that number things (wards, stages, figures, flats): a size after one of them is their number."""

NOT_NAMES = frozenset({"self", "pre", "re", "co", "non", "post", "web", "live", "group", "video", "text", "voice"})
"""Words a tuning suffix is joined to in ordinary text (``self-instruct``, ``live-chat``)."""

SIZE = rf"[0-9]+(?:{SOFT}[0-9]+)?b"
"""A parameter count in billions (``7b``, ``1.5b`` in the normal form: ``1\\x015b``)."""
MOE = rf"[0-9]+x[0-9]+(?:{SOFT}[0-9]+)?b"
TUNING = ("instruct", "sft", "dpo", "rlhf", "orpo", "gguf", "gptq", "awq", "exl2")
"""Suffixes that name a tuned or quantised model whatever word they are joined to."""
AFTER_SIZE = (*TUNING, "chat", "it", "base", "hf", "fp16", "bf16", "int4", "int8", "q4", "q5", "q8", "pt")
"""Suffixes after a size."""

_PARAMETERS = re.compile(
    rf"(?<![a-z0-9])(?:(?:{SIZE}|{MOE})|[0-9]+(?:{SOFT}[0-9]+)?[-_{SOFT}]*(?:billion|bn))[-_{SOFT}]+"
    rf"(?:parameters?|params?|llm|(?:language{SOFT}+)?model)(?![a-z0-9])")
"""A parameter count said as one (``7B model``, ``13 billion parameters``, ``a 70-billion-parameter model``)."""
_QUANT = re.compile(r"(?<![a-z0-9])(?:i?q[1-8]_k(?:_[a-z]{1,2})?|q[4-8]_[01]|i?q[1-4]_x{1,2}s)(?![a-z0-9])")
"""llama.cpp's quantisation names (``Q4_K_M``, ``Q8_0``, ``IQ2_XS``): a model served from a GGUF file."""
_MOE = re.compile(rf"(?<![a-z0-9])(?:{MOE})(?![a-z0-9])")
_SIZE_SUFFIX = re.compile(rf"(?<![a-z0-9])(?:{SIZE}|{MOE})[-_](?:{'|'.join(AFTER_SIZE)})(?![a-z0-9])")
_JOINED = re.compile(rf"(?<=[a-z0-9])[-_]({SIZE})(?![a-z0-9])")
"""A size joined by a hyphen or underscore to what comes before (the word is looked for backwards)."""
_BEFORE = re.compile(rf"[a-z0-9][-_{SOFT}a-z0-9]*$")
_PIECE = re.compile(rf"[^-_{SOFT}]+")
LOOK_BACK = 48
_SPACED = re.compile(rf"(?<![a-z0-9])([a-z][a-z0-9]*){SOFT}+({SIZE})(?![a-z0-9])")
_TUNED = re.compile(rf"(?<![a-z0-9])([a-z0-9]+)[-_](?:({'|'.join(TUNING)})|(chat))(?![a-z0-9])")
_LETTER = re.compile("[a-z]")
_HEX = re.compile("[0-9a-f]+")
"""A piece of hexadecimal digits (ids: UUIDs, hashes; no model name is spelled with a-f alone)."""
_DIGITS = re.compile("[0-9]")


_TRIGGER = re.compile(f"[0-9]b|[0-9]{SOFT}*bn|billion|q[1-8]{SOFT}|{'|'.join((*TUNING, 'chat'))}")


def size_form(text: str, s: str, others: set[str]) -> str | None:
    """The normal form with hyphens and underscores kept (same offsets); None when the normal form ``s``
    has no digit followed by ``b`` nor a tuning suffix (most texts)."""
    if _TRIGGER.search(s) is None:
        return None
    return normal_form_keeping(text, others, KEEP)


def find(z: str, names: frozenset[str], ordinary: frozenset[str] = frozenset()
         ) -> list[tuple[int, int, str, bool, bool]]:
    """(start, end, what, warning, needs a capital) in the size form ``z``; ``names``: model names in normal
    form (a size after one of them is refused even after a space; ``-chat`` after one of them is refused);
    ``ordinary``: those that are also ordinary words (after a space, only written with a capital:
    ``Alpaca 7B``, not "solar 1b")."""
    out: list[tuple[int, int, str, bool, bool]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, what: str, warning: bool, capital: bool = False) -> None:
        if any(a <= start and end <= b for a, b in taken):
            return
        taken.append((start, end))
        out.append((start, end, what, warning, capital))

    for m in _QUANT.finditer(z):
        add(m.start(), m.end(), "a quantisation name of llama.cpp", False)
    for m in _PARAMETERS.finditer(z):
        before = _word_before(z, m.start())
        if before is not None and before[1] in ORDINARY_BEFORE and not z[before[0] + len(before[1]):m.start()].strip(SOFT):
            continue  # Figure 7B model
        add(m.start(), m.end(), "a parameter count", False)
    for m in _SIZE_SUFFIX.finditer(z):
        add(m.start(), m.end(), "a parameter count and a tuning suffix", False)
    for m in _MOE.finditer(z):
        add(m.start(), m.end(), "a mixture-of-experts parameter count", False)
    for m in _JOINED.finditer(z):
        named = _word_before(z, m.start())
        if named is None:
            continue
        start, joined = named
        if joined in ORDINARY_BEFORE or (len(joined) <= 2 and not _DIGITS.search(joined) and joined not in names):
            continue
        if _HEX.fullmatch(joined) and joined not in names:
            continue  # a piece of a UUID or a hex id (c2134f15-500b-...), not a name
        add(start, m.end(), "a parameter count joined to a name", False)
    for m in _SPACED.finditer(z):
        if m.group(1) in names or m.group(1) in ordinary:
            add(m.start(), m.end(), "a parameter count after a name", False, m.group(1) not in names)
    for m in _TUNED.finditer(z):
        tuned = m.group(1)
        if tuned in NOT_NAMES or not _LETTER.search(tuned) or (
                m.group(3) and not (_DIGITS.search(tuned) or tuned in names)):
            continue
        add(m.start(), m.end(), "a tuning suffix joined to a name", False)
    return out


def _word_before(z: str, at: int) -> tuple[int, str] | None:
    """The word a size at ``at`` belongs to, and where it starts: the last piece with a letter before it,
    across versions (``openchat_3.5-7b`` -> ``openchat``, ``qwen2.5-72b`` -> ``qwen2``); None without one."""
    lo = max(0, at - LOOK_BACK)
    run = _BEFORE.search(z, lo, at)
    if run is None:
        return None
    word: tuple[int, str] | None = None
    for piece in _PIECE.finditer(z, run.start(), at):
        if not piece.group().isdigit():
            word = (piece.start(), piece.group())
    if word is None or not _LETTER.match(word[1]):
        return None
    return word
