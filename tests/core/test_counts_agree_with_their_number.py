"""Counts in messages agree with their number ("1 problem", "2 problems"; issue 16: "plural forms done right",
no "thing(s)"): the helper, and no "word(s)" left in a message of the package (the rater app's own plural
sources, written "%Ln thing(s)" for Qt's plural forms, are the exception: the English catalogue makes them
"1 thing" / "2 things")."""

from __future__ import annotations

import re
import tokenize
from pathlib import Path

import wmcdp_desktop
from wmcdp_desktop.core.counts import agree, count

TEXT = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def test_count_and_agree() -> None:
    assert count(1, "problem") == "1 problem"
    assert count(0, "problem") == "0 problems"
    assert count(12_345, "record") == "12,345 records"
    assert count(2, "older revision or duplicate", "older revisions or duplicates") == "2 older revisions or duplicates"
    assert agree(1, "was", "were") == "was" and agree(3, "was", "were") == "were"


def test_no_word_s_in_any_message() -> None:
    root = Path(wmcdp_desktop.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name in ("i18n.py", "counts.py"):  # they explain the "word(s)" convention
            continue
        with path.open(encoding="utf-8") as f:
            tokens = list(tokenize.generate_tokens(f.readline))
        for token in tokens:  # in the text of strings only (code such as str(s) is no message)
            if token.type not in TEXT or "%n" in token.string or "%Ln" in token.string:
                continue
            text = re.sub(r"\{[^{}]*\}", "", token.string) if token.string.lstrip("rbuRBU").startswith(("f", "F")) else token.string
            if re.search(r"[A-Za-z]\((s|es)\)", text):
                found.append(f"{path.relative_to(root)}:{token.start[0]}: {token.string.strip()[:100]}")
    assert not found, "\n".join(found)
