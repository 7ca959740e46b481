"""Encryption for the suite: a fast scrypt, encrypted bundles and exports sealed to a coordinator key.

:data:`FAST_KDF` (scrypt N = 2^10: about a millisecond) stands for the real parameters wherever a test
does not measure the KDF itself; the format and every check are the same.
"""

from __future__ import annotations

from wmcdp_desktop.core.encryption.bundle_envelope import KdfParams, encrypt_bundle
from wmcdp_desktop.core.encryption.sealed_box import new_key_pair, seal_to

FAST_KDF = KdfParams(n=2**10, r=8, p=1)
"""A cheap scrypt for tests (a new random salt each time, as the default)."""
PASSPHRASE = "acid-acorn-acre-acts-afar-affix"
"""A passphrase of six words of the list."""


def encrypted_bundle(plain_zip: bytes, passphrase: str = PASSPHRASE) -> bytes:
    """``plain_zip`` in an encrypted bundle opened by ``passphrase`` (with :data:`FAST_KDF`)."""
    return encrypt_bundle(plain_zip, passphrase, FAST_KDF)


def coordinator_keys() -> tuple[bytes, bytes]:
    """A new coordinator key pair: (the private key file's bytes, the raw public key)."""
    return new_key_pair()


def sealed_export(plain_export_zip: bytes, public_key: bytes) -> bytes:
    """A plain export zip (e.g. :func:`tests.kit.exports.export_zip`) sealed to ``public_key``, as the app
    seals the export of an encrypted bundle."""
    return seal_to(public_key, plain_export_zip)
