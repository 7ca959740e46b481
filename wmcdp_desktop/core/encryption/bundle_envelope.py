"""The encrypted bundle: a plain bundle zip inside a passphrase-encrypted envelope.

The file is a fixed header of :data:`HEADER_SIZE` bytes, then the AES-256-GCM ciphertext of the whole zip
(its 16-byte tag at the end). The header holds only the mark, the format version, the scrypt parameters
and salt, the nonce and the ciphertext's length; it is the AEAD's associated data, so a changed header
does not open either. Nothing else can be read from the file: no names, no ids, no counts (only its size).

Key schedule: one scrypt of the normalised passphrase (:func:`~.passphrase.normalise_passphrase`) with
the header's parameters gives 32 bytes; HKDF-SHA256 turns them into two keys, ``bundle_key`` (info
``wmcdp bundle v1``: opens this file) and ``data_key`` (info ``wmcdp data folder v1``: the rater's data
folder for this bundle, :mod:`.data_cipher`). Byte layout (big-endian):

====== ====== ===========================================================
offset bytes  field
====== ====== ===========================================================
0      10     mark ``WMCDP-ENC`` and a line feed (:data:`MAGIC`)
10     1      format version, 1
11     4      scrypt N (a power of two)
15     4      scrypt r
19     4      scrypt p
23     16     scrypt salt
39     12     AES-GCM nonce
51     8      ciphertext length L (the zip's length + 16)
59     L      ciphertext, its last 16 bytes the GCM tag
====== ====== ===========================================================

A header is refused, in plain words naming the file and before any key is derived, when it is cut short,
has another mark or version, asks for more than :data:`MAX_KDF_MEMORY_BYTES` of memory or
:data:`MAX_KDF_WORK_BYTES` of work (a hostile file cannot make the app allocate gigabytes or spin for
minutes), declares more than ``max_bytes`` of content, or declares a length the file does not have.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from wmcdp_desktop.core.encryption.frame import TAG_BYTES as TAG_BYTES
from wmcdp_desktop.core.encryption.frame import Frame
from wmcdp_desktop.core.encryption.passphrase import normalise_passphrase
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.files import describe_bytes
from wmcdp_desktop.core.zips.reader import MAX_FILE_SLACK
from wmcdp_desktop.core.zips.rules import MAX_TOTAL_BYTES

MAGIC = b"WMCDP-ENC\n"
"""The first bytes of an encrypted bundle (a plain bundle, a zip, begins with ``PK``)."""
VERSION = 1
_HEADER = struct.Struct(">10sBIII16s12sQ")
HEADER_SIZE = _HEADER.size
"""59 bytes."""
SALT_BYTES = 16
NONCE_BYTES = 12
KEY_BYTES = 32

MAX_KDF_MEMORY_BYTES = 256 * 1024 * 1024
"""The most memory a bundle's scrypt may ask for (128 x N x r bytes): twice the default's 128 MB."""
MAX_KDF_WORK_BYTES = 512 * 1024 * 1024
"""The most work a bundle's scrypt may ask for (128 x N x r x p, the bytes mixed): four times the
default's, about 2 s on the machine the default was measured on."""
MAX_ENCRYPTED_BYTES = MAX_TOTAL_BYTES + MAX_FILE_SLACK
"""The largest ciphertext read by default: the size cap of a plain bundle file (1 GB + 64 MB)."""

FRAME = Frame(MAGIC, _HEADER, VERSION, kind="an encrypted bundle", one="an encrypted bundle",
              mark="the encrypted bundle's mark", content="encrypted", reader="WM-CDP Desktop reads",
              update="update the app", again="ask for it again")

BUNDLE_INFO = b"wmcdp bundle v1"
DATA_FOLDER_INFO = b"wmcdp data folder v1"


@dataclass(frozen=True)
class KdfParams:
    """scrypt's cost parameters and salt. An empty salt (as in :data:`DEFAULT_KDF`) means "a new random
    salt each time a bundle is encrypted"."""

    n: int
    r: int
    p: int
    salt: bytes = field(default=b"", repr=False)

    @property
    def memory_bytes(self) -> int:
        """The memory one derivation takes (scrypt's V array: 128 x N x r bytes)."""
        return 128 * self.n * self.r

    @property
    def work_bytes(self) -> int:
        """The bytes one derivation mixes (128 x N x r x p), which its time follows."""
        return self.memory_bytes * self.p


DEFAULT_KDF = KdfParams(n=2**17, r=8, p=1)
"""scrypt N = 2^17, r = 8, p = 1: 128 MB of memory; one derivation took 0.31-0.54 s on the 2-core machine it was
measured on (cryptography 50 / OpenSSL; N = 2^16 took 0.27 s), 1.1 s with both cores busy. Each bundle gets its
own random salt."""


@dataclass(frozen=True)
class Header:
    """The readable part of an encrypted bundle."""

    version: int
    kdf: KdfParams
    nonce: bytes = field(repr=False)
    body_length: int
    """The ciphertext's length in bytes, the tag included."""
    encoded: bytes = field(repr=False)
    """The header's bytes as in the file (the AEAD's associated data)."""


@dataclass(frozen=True)
class SessionKeys:
    """The keys one passphrase gives for one bundle: the bundle's own and the rater's data folder's.
    ``export_public_key`` is the coordinator's X25519 public key from the bundle's manifest, once known."""

    bundle_key: bytes = field(repr=False)
    data_key: bytes = field(repr=False)
    export_public_key: bytes | None = None


class WrongPassphraseError(DocumentError):
    """The passphrase does not open the file. AES-GCM cannot tell a wrong passphrase from a changed file."""

    def __init__(self, label: str) -> None:
        self.label = label
        super().__init__([Problem(label, "", "the passphrase does not open this file: either the passphrase is "
                                             "wrong, or the file was changed after it was made (the two look "
                                             "the same); check the passphrase and type it again")])

    def __str__(self) -> str:
        return (f"the passphrase does not open {self.label}: either the passphrase is wrong, or the file was "
                "changed after it was made (the two look the same); check the passphrase and type it again")


def is_encrypted(head: bytes) -> bool:
    """Whether a file whose first bytes are ``head`` (the first 64 are enough) is an encrypted bundle."""
    return head[: len(MAGIC)] == MAGIC


def kdf_problem(kdf: KdfParams) -> str | None:
    """What is wrong with these scrypt parameters, in words, or ``None`` when they are within the caps."""
    if kdf.n < 2 or kdf.n & (kdf.n - 1) or kdf.r < 1 or kdf.p < 1:
        return (f"has damaged key-derivation settings (scrypt N={kdf.n}, r={kdf.r}, p={kdf.p}: N must be a "
                "power of two from 2, r and p at least 1)")
    if kdf.memory_bytes > MAX_KDF_MEMORY_BYTES:
        return (f"asks for a key derivation needing {describe_bytes(kdf.memory_bytes)} of memory (scrypt N={kdf.n}, "
                f"r={kdf.r}), more than the {describe_bytes(MAX_KDF_MEMORY_BYTES)} allowed; it is not opened")
    if kdf.work_bytes > MAX_KDF_WORK_BYTES:
        return (f"asks for a key derivation that would take too long (scrypt N={kdf.n}, r={kdf.r}, p={kdf.p}: "
                f"{describe_bytes(kdf.work_bytes)} of work, more than the {describe_bytes(MAX_KDF_WORK_BYTES)} "
                "allowed); it is not opened")
    return None


def read_header(data: bytes, label: str, max_bytes: int = MAX_ENCRYPTED_BYTES) -> Header:
    """The header of the encrypted bundle ``data`` (the whole file), checked; :class:`DocumentError` naming
    ``label`` when it is not one, is cut short, of an unknown version, asks for a KDF above the caps,
    declares more than ``max_bytes`` of content or a length the file does not have. Derives no key."""

    def kdf_check(fields: tuple[Any, ...]) -> str | None:
        problem = kdf_problem(KdfParams(n=fields[2], r=fields[3], p=fields[4], salt=fields[5]))
        return None if problem is None else f"{problem}; the file was changed or was not made by WM-CDP"

    _magic, version, n, r, p, salt, nonce, body_length = FRAME.fields(data, label, max_bytes, kdf_check)
    kdf = KdfParams(n=n, r=r, p=p, salt=salt)
    return Header(version=version, kdf=kdf, nonce=nonce, body_length=body_length,
                  encoded=bytes(data[:HEADER_SIZE]))


def _master_key(passphrase: str, kdf: KdfParams) -> bytes:
    problem = kdf_problem(kdf)
    if problem is not None:
        raise ValueError(f"the key-derivation settings {problem}")
    secret = normalise_passphrase(passphrase).encode("utf-8")
    return Scrypt(salt=kdf.salt, length=KEY_BYTES, n=kdf.n, r=kdf.r, p=kdf.p).derive(secret)


def _expand(master: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=info).derive(master)


def keys_for(passphrase: str, kdf: KdfParams) -> SessionKeys:
    """The two keys ``passphrase`` gives with these scrypt parameters and salt (one scrypt, two HKDFs)."""
    master = _master_key(passphrase, kdf)
    return SessionKeys(bundle_key=_expand(master, BUNDLE_INFO), data_key=_expand(master, DATA_FOLDER_INFO))


def derive_keys(passphrase: str, header: Header) -> SessionKeys:
    """The keys ``passphrase`` gives for the bundle whose header is ``header`` (about half a second with
    the default parameters). Says nothing about whether the passphrase is right: :func:`decrypt_bundle`
    does."""
    return keys_for(passphrase, header.kdf)


def encrypt_bundle(plain_zip: bytes, passphrase: str, kdf: KdfParams | None = None) -> bytes:
    """The encrypted bundle holding ``plain_zip``, opened by ``passphrase``. ``kdf`` defaults to
    :data:`DEFAULT_KDF`; without a salt, a new random one is drawn (a fresh nonce always is)."""
    if not normalise_passphrase(passphrase):
        raise ValueError("an encrypted bundle needs a passphrase")
    kdf = kdf or DEFAULT_KDF
    if not kdf.salt:
        kdf = KdfParams(n=kdf.n, r=kdf.r, p=kdf.p, salt=os.urandom(SALT_BYTES))
    if len(kdf.salt) != SALT_BYTES:
        raise ValueError(f"the scrypt salt must be {SALT_BYTES} bytes")
    keys = keys_for(passphrase, kdf)
    nonce = os.urandom(NONCE_BYTES)
    header = _HEADER.pack(MAGIC, VERSION, kdf.n, kdf.r, kdf.p, kdf.salt, nonce, len(plain_zip) + TAG_BYTES)
    return header + AESGCM(keys.bundle_key).encrypt(nonce, plain_zip, header)


def decrypt_bundle(data: bytes, keys: SessionKeys, label: str, max_bytes: int = MAX_ENCRYPTED_BYTES) -> bytes:
    """The plain bundle zip inside the encrypted bundle ``data``, in memory. :class:`DocumentError` for a
    damaged or hostile header (:func:`read_header`), :class:`WrongPassphraseError` when the keys do not
    open it (a wrong passphrase, or any byte of the file changed)."""
    header = read_header(data, label, max_bytes)
    try:
        return AESGCM(keys.bundle_key).decrypt(header.nonce, memoryview(data)[HEADER_SIZE:], header.encoded)
    except InvalidTag:
        raise WrongPassphraseError(label) from None


def open_bundle(data: bytes, passphrase: str, label: str,
                max_bytes: int = MAX_ENCRYPTED_BYTES) -> tuple[bytes, SessionKeys]:
    """:func:`read_header`, :func:`derive_keys` and :func:`decrypt_bundle` in one: the plain zip and the keys."""
    header = read_header(data, label, max_bytes)
    keys = derive_keys(passphrase, header)
    return decrypt_bundle(data, keys, label, max_bytes), keys
