"""The checks both encrypted file formats share (the encrypted bundle and the sealed export): a mark, a
fixed header with a version and the length of what follows, then the AEAD ciphertext with its 16-byte tag.
One place says, in the format's own words, that a file is not one, is cut short, is of another version, or
declares a length that is too small, too large or not the file's."""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.files import describe_bytes

TAG_BYTES = 16


@dataclass(frozen=True)
class Frame:
    """One format's header (its first field the mark, its second the version, its last the ciphertext's
    length) and its messages' words: what the file is ("an encrypted bundle"), its short name ("a sealed
    export"), its mark, its content ("encrypted"), who reads one version ("WM-CDP Desktop reads"), the advice on
    another version ("update the app") and on a damaged copy ("ask for it again")."""

    magic: bytes
    header: struct.Struct
    version: int
    kind: str
    one: str
    mark: str
    content: str
    reader: str
    update: str
    again: str

    def fields(self, data: bytes, label: str, max_bytes: int,
               more: Callable[[tuple[Any, ...]], str | None] | None = None) -> tuple[Any, ...]:
        """The header's fields of ``data`` (the whole file), checked; :class:`DocumentError` naming ``label``.
        ``more`` checks the format's own fields (a message, or None) before the length."""

        def refuse(message: str) -> DocumentError:
            return DocumentError.single(label, message)

        if data[: len(self.magic)] != self.magic:
            raise refuse(f"is not {self.kind} (it does not begin with {self.mark})")
        size = self.header.size
        if len(data) < size:
            raise refuse(f"is cut short: it ends inside the {self.one.split(' ', 1)[1]}'s header ({len(data)} of "
                         f"{size} bytes); the file was damaged in copying, {self.again}")
        fields = self.header.unpack_from(data)
        version, body_length = fields[1], fields[-1]
        if version != self.version:
            raise refuse(f"is {self.one} of format version {version}; this version of {self.reader} "
                         f"version {self.version} only ({self.update}, or the file was changed)")
        problem = more(fields) if more is not None else None
        if problem is not None:
            raise refuse(problem)
        if body_length < TAG_BYTES:
            raise refuse(f"declares {body_length} bytes of {self.content} content, fewer than the {TAG_BYTES} of its "
                         "authentication tag: the file was changed")
        if body_length > max_bytes:
            raise refuse(f"declares {body_length:,} bytes of {self.content} content, more than the "
                         f"{describe_bytes(max_bytes)} allowed; it is not opened")
        actual = len(data) - size
        if actual < body_length:
            raise refuse(f"is cut short: its header declares {body_length:,} bytes of {self.content} content but the "
                         f"file holds {actual:,}; the file was damaged in copying, {self.again}")
        if actual > body_length:
            raise refuse(f"has {actual - body_length:,} bytes more than its header declares ({body_length:,} bytes "
                         f"of {self.content} content): the file was changed")
        return fields
