"""Counts in English messages, in the form that agrees with the number: "1 problem", "2 problems", "1 record
was", "3 records were" (never "problem(s)"). The rater app's own words go through Qt's translation with its
plural forms (``rater/app/text/i18n.py``); these are the messages of the core, the command line and the report, which are
English."""

from __future__ import annotations


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` (with thousands separators) and ``singular``, or ``plural`` (default: ``singular`` + "s") when
    ``n`` is not 1: ``count(3, "problem")`` -> "3 problems"."""
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"


def agree(n: int, singular: str, plural: str) -> str:
    """The word that agrees with ``n``: ``agree(n, "was", "were")``."""
    return singular if n == 1 else plural
