"""Public-key encryption of the rater's export to the coordinator (X25519, HKDF-SHA256, AES-256-GCM).

``bundle build`` makes one key pair per build: the private key stays with the coordinator (a PEM file,
owner-only), the public key travels inside the encrypted bundle's manifest. The app seals the export to
it, so a rater's laptop never holds what opens another rater's work, nor (once exported) its own.

A sealed file: a fresh ephemeral X25519 key pair is made for each; the AES key is HKDF-SHA256 of the shared
secret (salt: the ephemeral then the recipient public key; info ``wmcdp sealed export v1``); the header is
the associated data. Byte layout (big-endian):

====== ====== ===========================================================
offset bytes  field
====== ====== ===========================================================
0      13     mark ``WMCDP-SEALED`` and a line feed (:data:`SEALED_MAGIC`)
13     1      format version, 1
14     32     the ephemeral X25519 public key
46     12     AES-GCM nonce
58     8      ciphertext length L (the content's length + 16)
66     L      ciphertext, its last 16 bytes the GCM tag
====== ====== ===========================================================
"""

from __future__ import annotations

import os
import struct

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from wmcdp_desktop.core.encryption.bundle_envelope import MAX_ENCRYPTED_BYTES
from wmcdp_desktop.core.encryption.frame import TAG_BYTES, Frame
from wmcdp_desktop.core.errors import DocumentError

SEALED_MAGIC = b"WMCDP-SEALED\n"
"""The first bytes of an export sealed to the coordinator's key (a plain export, a zip, begins with ``PK``)."""
SEALED_VERSION = 1
_HEADER = struct.Struct(">13sB32s12sQ")
SEALED_HEADER_SIZE = _HEADER.size
"""66 bytes."""
PUBLIC_KEY_BYTES = 32
SEALED_INFO = b"wmcdp sealed export v1"
SEALED_FRAME = Frame(SEALED_MAGIC, _HEADER, SEALED_VERSION, kind="an export sealed to the coordinator's key",
                     one="a sealed export", mark="its mark", content="sealed", reader="WM-CDP reads",
                     update="update it", again="ask the rater for it again")
MAX_PRIVATE_KEY_FILE_BYTES = 64 * 1024


def is_sealed(head: bytes) -> bool:
    """Whether a file whose first bytes are ``head`` (the first 64 are enough) is a sealed export."""
    return head[: len(SEALED_MAGIC)] == SEALED_MAGIC


def new_key_pair() -> tuple[bytes, bytes]:
    """A new coordinator key pair: (the private key file's bytes, PEM PKCS#8; the raw 32-byte public key)."""
    private = X25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return pem, private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def load_private_key(private_key_file_bytes: bytes, key_label: str = "the key file") -> X25519PrivateKey:
    """The coordinator's private key from its file's bytes; :class:`DocumentError` naming ``key_label``
    when the file is not one."""
    refused = DocumentError.single(key_label, "is not a WM-CDP coordinator key (the keys/coordinator.key file "
                                              "written by bundle build: an X25519 private key in PEM)")
    if len(private_key_file_bytes) > MAX_PRIVATE_KEY_FILE_BYTES:
        raise refused
    try:
        key = serialization.load_pem_private_key(private_key_file_bytes, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise refused from None
    if not isinstance(key, X25519PrivateKey):
        raise refused
    return key


def public_key_of(private_key_file_bytes: bytes, key_label: str = "the key file") -> bytes:
    """The raw 32-byte public key of a coordinator's private key file."""
    return load_private_key(private_key_file_bytes, key_label).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _aead_key(shared: bytes, ephemeral: bytes, recipient: bytes) -> AESGCM:
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral + recipient,
                       info=SEALED_INFO).derive(shared))


def seal_to(public_key: bytes, plain: bytes) -> bytes:
    """``plain`` sealed to the coordinator's raw X25519 ``public_key``: only its private key opens it."""
    if len(public_key) != PUBLIC_KEY_BYTES:
        raise ValueError(f"a coordinator public key is {PUBLIC_KEY_BYTES} bytes, not {len(public_key)}")
    recipient = X25519PublicKey.from_public_bytes(public_key)
    ephemeral = X25519PrivateKey.generate()
    ephemeral_raw = ephemeral.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    try:
        shared = ephemeral.exchange(recipient)
    except ValueError:
        raise ValueError("the coordinator public key is not usable (a low-order point)") from None
    nonce = os.urandom(12)
    header = _HEADER.pack(SEALED_MAGIC, SEALED_VERSION, ephemeral_raw, nonce, len(plain) + TAG_BYTES)
    return header + _aead_key(shared, ephemeral_raw, public_key).encrypt(nonce, plain, header)


def open_sealed(private_key_file_bytes: bytes, data: bytes, label: str, key_label: str = "the key file",
                max_bytes: int = MAX_ENCRYPTED_BYTES) -> bytes:
    """The content of the sealed export ``data``, in memory; :class:`DocumentError` naming ``label`` (or
    ``key_label`` for a key file that is not one) when it is not a sealed export, is cut short, longer than
    declared, of another version, or does not open with this key (sealed to another key, or changed)."""

    private = load_private_key(private_key_file_bytes, key_label)
    _magic, _version, ephemeral_raw, nonce, _length = SEALED_FRAME.fields(data, label, max_bytes)
    not_opened = DocumentError.single(label, "does not open with this coordinator key: it was sealed to another "
                                             "build's key, or the file was changed after it was made (the two look "
                                             "the same)")
    recipient_raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(ephemeral_raw))
        return _aead_key(shared, ephemeral_raw, recipient_raw).decrypt(
            nonce, memoryview(data)[SEALED_HEADER_SIZE:], data[:SEALED_HEADER_SIZE])
    except (InvalidTag, ValueError):
        raise not_opened from None
