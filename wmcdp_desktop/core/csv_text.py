"""CSV text as RFC 4180 has it, the one way every table is written (``ratings.csv``, the Excel copy, the REDCap
files, the report's ``tables/*.csv``).

A field holding a comma, a double quote, a carriage return or a line feed is quoted, with its quotes doubled;
every other field is written as it is. Rows end with ``\\n``. Python's ``csv.writer(lineterminator="\\n")``
left a field holding a bare carriage return unquoted (it quotes only the characters of its line terminator),
and every reader that takes a CR as a line end (Python's ``csv``, pandas, DuckDB, R, spreadsheets) split the
row there: a rationale ``"\\r=1+1"`` became a new row starting with a formula. Values are written as the
``csv`` module writes them: ``None`` as an empty field, anything else by ``str``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

DELIMITER = ","
QUOTE = '"'
LINE_END = "\n"
_NEEDS_QUOTES = frozenset((DELIMITER, QUOTE, "\r", "\n"))


def csv_field(value: Any) -> str:
    """``value`` as one CSV field: quoted (quotes doubled) when it holds a delimiter, a quote, a CR or an LF."""
    text = "" if value is None else value if isinstance(value, str) else str(value)
    if _NEEDS_QUOTES.isdisjoint(text):
        return text
    return QUOTE + text.replace(QUOTE, QUOTE + QUOTE) + QUOTE


def csv_line(row: Sequence[Any]) -> str:
    """One CSV row with its line end. A row of one empty field is ``""`` (an empty line would be no row)."""
    if len(row) == 1 and csv_field(row[0]) == "":
        return QUOTE + QUOTE + LINE_END
    return DELIMITER.join(csv_field(v) for v in row) + LINE_END


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """Every row of ``rows`` as CSV text."""
    return "".join(csv_line(row) for row in rows)
