"""Encryption for the suite: a fast scrypt, encrypted bundles and exports sealed to a coordinator key.

:data:`FAST_KDF` (scrypt N = 2^10: about a millisecond) stands for the real parameters wherever a test
does not measure the KDF itself; the format and every check are the same.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from wmcdp_desktop.core.encryption import bundle_envelope
from wmcdp_desktop.core.encryption.bundle_envelope import KdfParams, encrypt_bundle
from wmcdp_desktop.core.encryption.sealed_box import new_key_pair, seal_to

FAST_KDF = KdfParams(n=2**10, r=8, p=1)
"""A cheap scrypt for tests (a new random salt each time, as the default)."""
PASSPHRASE = "acid-acorn-acre-acts-afar-affix"
"""A passphrase of six words of the list."""


@contextmanager
def fast_kdf() -> Iterator[None]:
    """While inside: every bundle encrypted without explicit parameters (``wmcdp bundle build --encrypt``
    included) uses :data:`FAST_KDF` in place of the real default."""
    with mock.patch.object(bundle_envelope, "DEFAULT_KDF", FAST_KDF):
        yield


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


def encrypted_sample_bundle(path: Path, sample_docs: Any, public_key: bytes, passphrase: str = PASSPHRASE, *,
                            rater_id: str | None = None) -> Path:
    """The rater tests' sample-document bundle (:func:`tests.kit.bundles.bundle_docs`) as an encrypted ``.wmcdp``
    file at ``path``, its manifest carrying ``public_key`` (exports are sealed to it), opened by ``passphrase``."""
    from tests.kit.bundles import bundle_docs, sample_bundle_files
    from wmcdp_desktop.core.zips.writer import deterministic_zip

    rubric, tasks = bundle_docs(sample_docs)
    files = sample_bundle_files(rubric, tasks, rater_id=rater_id,
                                export_public_key=base64.b64encode(public_key).decode("ascii"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encrypted_bundle(deterministic_zip(files), passphrase))
    return path
