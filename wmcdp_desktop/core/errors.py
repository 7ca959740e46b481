"""The project's error types: every user-facing failure is one of these, in plain words."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


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
