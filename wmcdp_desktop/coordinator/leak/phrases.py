"""Phrase patterns written in plain words, matched in the leak scan's normal form (for
:mod:`self_descriptions` and :mod:`artefacts`).

A pattern is written as text: words, ``(a|b|c)`` for alternatives, ``?`` after a group for an optional
one, a space for one or more separators (spaces, punctuation), ``…`` (written without spaces around it:
``by…developed``) for up to three words of anything between two words, and ``⋯`` for up to twenty
characters of anything (scripts without spaces: ``我是由⋯开发``). Each word is put in the normal form
the text is searched in (case, accents, width, look-alike letters); a hyphen or an apostrophe inside a
word may be there or not (``cut-off`` matches ``cutoff``, ``cut off`` and ``cut-off``; ``i'm`` matches
``im`` and ``I’m``).
"""

from __future__ import annotations

import re

from wmcdp_desktop.coordinator.leak.normalise import HARD, SOFT, normal_form

SEPARATORS = f"[{SOFT}{HARD}]"
_TOKENS = re.compile(r"\(|\)|\||\?|…|⋯| +|[^()|?…⋯ ]+")


def _literal(word: str) -> str:
    """A word of a pattern as the normal form writes it in lower case, capitalised or in capitals (letters
    that look like Latin ones are read as Latin in one case and not another: ``мои``, ``Мои``)."""
    forms = []
    for written in (word, word.capitalize(), word.upper()):
        form = "".join(f"{SEPARATORS}*" if ch in (SOFT, HARD) else re.escape(ch) for ch in normal_form(written))
        if form not in forms:
            forms.append(form)
    return forms[0] if len(forms) == 1 else "(?:" + "|".join(forms) + ")"


def compile_phrase(pattern: str) -> tuple[str, frozenset[str]]:
    """The regular expression (over the normal form) of a phrase pattern (see the module's docstring), and
    its *anchors*: words of which a text must hold at least one for the pattern to match (the longest
    ones the pattern cannot do without; a text with none of them is not searched)."""
    tokens = _TOKENS.findall(pattern)
    pos = 0

    def sequence() -> tuple[str, frozenset[str] | None]:
        """The regex of a sequence, and its best anchors (None when it has none)."""
        nonlocal pos
        out = []
        candidates: list[frozenset[str]] = []
        while pos < len(tokens) and tokens[pos] not in (")", "|"):
            token = tokens[pos]
            pos += 1
            if token == "(":
                alternatives = [sequence()]
                while pos < len(tokens) and tokens[pos] == "|":
                    pos += 1
                    alternatives.append(sequence())
                if pos >= len(tokens) or tokens[pos] != ")":
                    raise ValueError(f"unbalanced parentheses in {pattern!r}")
                pos += 1
                group = "(?:" + "|".join(regex for regex, _ in alternatives) + ")"
                if pos < len(tokens) and tokens[pos] == "?":
                    pos += 1
                    group += "?"  # an optional group takes the separator after it along: "as a (large )?model"
                elif all(anchors for _, anchors in alternatives):
                    candidates.append(frozenset().union(*(anchors for _, anchors in alternatives if anchors)))
                out.append(group)
            elif token == "?":
                raise ValueError(f"'?' after something that is not a group in {pattern!r}")
            elif token == "…":
                out.append(f"(?:{SEPARATORS}+[^{SOFT}{HARD}]+){{0,3}}{SEPARATORS}+")
            elif token == "⋯":
                out.append(".{0,20}?")
            elif token.isspace():
                out.append(f"{SEPARATORS}+")
            else:
                out.append(_literal(token))
                pieces = [re.split(f"[{SOFT}{HARD}]+", normal_form(w)) for w in (token, token.capitalize(), token.upper())]
                candidates += [frozenset(form[k] for form in pieces if len(form) > k and form[k])
                               for k in range(len(pieces[0])) if pieces[0][k]]
        best = max(candidates, key=lambda c: (min(map(len, c)), -len(c)), default=None)
        return "".join(out), best

    body, anchors = sequence()
    if pos != len(tokens):
        raise ValueError(f"unbalanced parentheses in {pattern!r}")
    if not anchors:
        raise ValueError(f"{pattern!r} has no word it cannot do without")
    return body, anchors
