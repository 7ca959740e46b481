"""Short forms the word list of :mod:`terms` cannot hold: ``4o`` (GPT-4o) and emoji that stand for a
model (docs/COORDINATORS.md, "The leak scan").

- ``4o`` on its own ("As 4o, I...", "4o-mini", "(4o)") is GPT-4o; followed by a unit or a time ("4o mg",
  "4o years", a slip for 40) it is not looked at;
- emoji: 🦙 (llama: Meta's Llama, and Ollama's mascot) is refused; 🐋 and 🐳 (DeepSeek's whale), ♊ (the
  sign of Gemini) and 🤗 (Hugging Face's logo) are warnings: they are ordinary emoji too.
"""

from __future__ import annotations

import re

from wmcdp_desktop.coordinator.leak.normalise import HARD, SOFT

UNITS = (
    "mg", "mcg", "ug", "g", "kg", "ml", "l", "dl", "mmol", "mol", "meq", "iu", "u", "units", "mm", "cm", "m", "km",
    "mmhg", "bpm", "min", "mins", "minutes", "h", "hr", "hrs", "hours", "s", "sec", "seconds", "d", "days", "wk",
    "wks", "weeks", "mo", "months", "y", "yr", "yrs", "yo", "years", "year", "lb", "lbs", "oz", "kcal", "cal",
    "percent", "x", "times", "c", "f", "degrees",
)
"""Words after which ``4o`` is a slip for 40 (a dose, an age, a time), not the model."""

FOUR_O = re.compile(
    rf"(?<![a-z0-9])4o(?![a-z0-9])(?!{SOFT}*(?:{'|'.join(UNITS)})(?![a-z0-9]))(?![{SOFT}{HARD}]*[0-9])"
)
"""``4o`` in the normal form, not followed by a unit or a number."""

EMOJI: dict[str, tuple[str, str, bool]] = {
    "\U0001f999": ("Llama", "Meta's Llama and Ollama's mascot", False),
    "\U0001f40b": ("DeepSeek", "DeepSeek's whale; also any whale", True),
    "\U0001f433": ("DeepSeek", "DeepSeek's whale; also any whale", True),
    "\u264a": ("Gemini", "the sign of Gemini; also the star sign", True),
    "\U0001f917": ("Hugging Face", "Hugging Face's logo; also a hug", True),
}
"""Emoji -> (the name it stands for, why, warning)."""
TRIGGERS = frozenset(EMOJI)


def find_four_o(s: str) -> list[tuple[int, int]]:
    """Where ``4o`` stands alone in the normal form ``s``."""
    if "4" not in s:
        return []
    # right after GPT it is part of the name GPT-4o, found as GPT
    return [(m.start(), m.end()) for m in FOUR_O.finditer(s) if not s[:m.start()].rstrip(SOFT).endswith("gpt")]


def find_emoji(text: str, others: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, emoji) of every emoji of :data:`EMOJI` in the original ``text``."""
    out = []
    for emoji in TRIGGERS & others:
        at = text.find(emoji)
        while at >= 0:
            out.append((at, at + len(emoji), emoji))
            at = text.find(emoji, at + 1)
    return out
