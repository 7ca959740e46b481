"""The package's one way of taking a SHA-256: of bytes (hex or raw), of a text as UTF-8, of a file read in pieces."""

from __future__ import annotations

import hashlib
from pathlib import Path

FILE_CHUNK = 1 << 20
"""Bytes of a file hashed at a time (:func:`file_sha256` never holds the whole file)."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_digest(data: bytes) -> bytes:
    """The 32 raw bytes (as ``bundle.json``'s digests are compared, and as seeds and secrets are made)."""
    return hashlib.sha256(data).digest()


def text_sha256(text: str) -> str:
    """SHA-256 of a text as UTF-8 (lone surrogates kept as they are)."""
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(FILE_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
