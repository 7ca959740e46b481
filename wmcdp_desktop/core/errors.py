"""The project's error types: every user-facing failure is one of these, in plain words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from wmcdp_desktop.core.counts import count


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one document: which file, where inside it (a JSON path), and what is wrong."""

    file: str
    """The document, as the user knows it (a relative path, or a zip member as ``zip!member``)."""
    path: str
    """JSON path inside the document, e.g. ``goldStandard.criterionGold[2].severity``; ``""`` = whole file."""
    message: str
    """Plain-words description of the problem."""

    def __str__(self) -> str:
        if self.path:
            return f"{self.file}: {self.path}: {self.message}"
        return f"{self.file}: {self.message}"


MAX_PROBLEMS_PER_DOCUMENT = 100
"""Problems kept for one document; the rest are counted in one line. A hostile file of a few hundred KB can
hold millions of mistakes (a list of a million empty objects), and every one kept cost memory and output."""


_MORE = re.compile(r"and ([0-9,]+) more problems? in this file, not listed")


def more_problems(file: str, n: int) -> Problem:
    """The line that stands for ``n`` problems of ``file`` not kept."""
    return Problem(file, "", f"and {count(n, 'more problem')} in this file, not listed")


def capped(problems: Iterable[Problem], limit: int = MAX_PROBLEMS_PER_DOCUMENT) -> list[Problem]:
    """At most ``limit`` problems per file (in their order); where a file's first problem not kept was,
    one line says how many more it has (``and 5,999,900 more problems in this file, not listed``). Such
    lines already in ``problems`` are added up, so capping twice gives the same result."""
    out: list[Problem] = []
    kept: dict[str, int] = {}
    more: dict[str, int] = {}
    more_at: dict[str, int] = {}
    for problem in problems:
        counted = _MORE.fullmatch(problem.message) if not problem.path else None
        if counted is None and kept.get(problem.file, 0) < limit:
            kept[problem.file] = kept.get(problem.file, 0) + 1
            out.append(problem)
            continue
        more[problem.file] = more.get(problem.file, 0) + (1 if counted is None else int(counted[1].replace(",", "")))
        if problem.file not in more_at:
            more_at[problem.file] = len(out)
            out.append(problem)  # replaced below, once the count is known
    for file, index in more_at.items():
        out[index] = more_problems(file, more[file])
    return out


class WmcdpError(Exception):
    """Base class of every error the project raises on purpose (shown to users without a traceback)."""


class DocumentError(WmcdpError):
    """One or more documents are invalid. Carries every problem found, not only the first."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid document")

    @classmethod
    def single(cls, file: str, message: str, path: str = "") -> DocumentError:
        return cls([Problem(file, path, message)])


class StorageError(WmcdpError):
    """A file could not be written or read in the data folder (disk full, read-only, locked...)."""


class AlreadyRunningError(WmcdpError):
    """Another instance of the app holds the lock on this data folder."""


def json_path(loc: Iterable[int | str]) -> str:
    """Render a location tuple as a JSON path: ``("a", 2, "b") -> "a[2].b"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
