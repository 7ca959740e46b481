"""Untrusted text made inert for a terminal or a plain-text file: :func:`inert`.

Text from a rater's export (ids, names, notes, file names inside a zip, problems quoting them) reaches the
coordinator's terminal. A terminal runs escape sequences (``ESC [ 2 J`` clears the screen, ``ESC ] 8`` makes a
link, ``CSI`` is also one C1 character), a carriage return overwrites the line already printed, and bidirectional
controls reorder what is shown so it reads as something else. :func:`inert` writes every such character as a
visible ``\\uXXXX`` escape (valid inside a JSON string too); letters of every script and emoji are kept as
they are.
"""

from __future__ import annotations

import re

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_UNSAFE_NO_BREAKS = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def inert(text: str, *, keep_lines: bool = True) -> str:
    """``text`` with control characters (C0 but tab and line feed, DEL, C1), the Unicode line and paragraph
    separators and bidirectional controls written as ``\\uXXXX``. ``keep_lines=False`` escapes tab and line feed
    as well (one line for sure)."""
    pattern = _UNSAFE if keep_lines else _UNSAFE_NO_BREAKS
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)
