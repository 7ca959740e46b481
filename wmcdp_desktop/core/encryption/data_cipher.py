"""The rater's data folder of an encrypted bundle: each file sealed with a key from the bundle's passphrase.

A sealed file is a 12-byte random nonce, then the AES-256-GCM ciphertext of its content with the file's
logical name as associated data: a file copied or moved under another name (another task's draft, an
older record put in place of a newer one under another name) does not open. File and folder names are
:meth:`DataCipher.opaque_name` of their logical names, so the folder shows no task, bundle or rater id.

Both keys are derived from the ``data_key`` of :class:`~.bundle_envelope.SessionKeys` with HKDF-SHA256
(info ``wmcdp data folder seal v1`` and ``wmcdp data folder names v1``), so the one key is never used for
two purposes.
"""

from __future__ import annotations

import hmac
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from wmcdp_desktop.core.errors import DocumentError

NONCE_BYTES = 12
TAG_BYTES = 16
OVERHEAD = NONCE_BYTES + TAG_BYTES
"""How many bytes a sealed file is longer than its content (28)."""
OPAQUE_NAME_CHARS = 32
SEAL_INFO = b"wmcdp data folder seal v1"
NAMES_INFO = b"wmcdp data folder names v1"


def _subkey(key: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(key)


class DataCipher:
    """Seals and opens the files of one encrypted bundle's data folder."""

    def __init__(self, data_key: bytes) -> None:
        if len(data_key) != 32:
            raise ValueError("the data folder's key must be 32 bytes")
        self._aead = AESGCM(_subkey(data_key, SEAL_INFO))
        self._names_key = _subkey(data_key, NAMES_INFO)

    def __repr__(self) -> str:
        return "DataCipher(<key hidden>)"

    def seal(self, name: str, plain: bytes) -> bytes:
        """``plain`` sealed as the file ``name`` (its logical name, e.g. ``drafts/t-0001.json``)."""
        nonce = os.urandom(NONCE_BYTES)
        return nonce + self._aead.encrypt(nonce, plain, name.encode("utf-8"))

    def open(self, name: str, blob: bytes) -> bytes:
        """The content of the sealed file ``name``; :class:`DocumentError` naming it when it is cut short,
        was changed, was sealed under another name or with another passphrase's key."""
        if len(blob) < OVERHEAD:
            raise DocumentError.single(name, f"is cut short ({len(blob)} bytes; an encrypted file has at least "
                                             f"{OVERHEAD}): it was damaged")
        try:
            return self._aead.decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], name.encode("utf-8"))
        except InvalidTag:
            raise DocumentError.single(
                name, "does not open with this bundle's passphrase: it was changed, moved from another name, "
                      "or belongs to another bundle"
            ) from None

    def opaque_name(self, logical: str) -> str:
        """A file or folder name for ``logical`` that reveals nothing: 32 hex digits of HMAC-SHA256."""
        return hmac.new(self._names_key, logical.encode("utf-8"), "sha256").hexdigest()[:OPAQUE_NAME_CHARS]
