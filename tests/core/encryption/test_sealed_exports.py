"""Exports sealed to the coordinator's public key: only the build's private key opens them, and a changed,
cut or lengthened file, or a key file that is not one, is refused in plain words."""

from __future__ import annotations

import re

import pytest

from tests.kit.encryption import coordinator_keys, sealed_export
from wmcdp_desktop.core.encryption.sealed_box import (
    SEALED_HEADER_SIZE,
    SEALED_MAGIC,
    is_sealed,
    new_key_pair,
    open_sealed,
    public_key_of,
    seal_to,
)
from wmcdp_desktop.core.errors import DocumentError

LABEL = "results-R07.zip"
EXPORT = b"PK\x03\x04 an export holding the rationale HELDOUT-0042" + bytes(200)


@pytest.fixture(scope="module")
def keys() -> tuple[bytes, bytes]:
    return coordinator_keys()


def refused(private: bytes, data: bytes) -> str:
    with pytest.raises(DocumentError) as caught:
        open_sealed(private, data, LABEL)
    assert LABEL in str(caught.value)
    return str(caught.value)


def test_the_private_key_opens_what_was_sealed_to_its_public_key(keys: tuple[bytes, bytes]) -> None:
    private, public = keys
    assert private.startswith(b"-----BEGIN PRIVATE KEY-----") and len(public) == 32
    assert public_key_of(private) == public
    data = sealed_export(EXPORT, public)
    assert is_sealed(data[:64]) and not is_sealed(EXPORT[:64])
    assert b"HELDOUT" not in data and len(data) == SEALED_HEADER_SIZE + len(EXPORT) + 16
    assert open_sealed(private, data, LABEL) == EXPORT
    assert seal_to(public, EXPORT) != data  # a new ephemeral key each time


def test_another_builds_key_does_not_open_it(keys: tuple[bytes, bytes]) -> None:
    other, _ = new_key_pair()
    message = refused(other, seal_to(keys[1], EXPORT))
    assert "does not open with this coordinator key" in message and "changed" in message


@pytest.mark.parametrize("at", [0, 12, 13, 14, 30, 45, 46, 57, 58, 65, SEALED_HEADER_SIZE, SEALED_HEADER_SIZE + 9, -1])
def test_every_changed_byte_is_refused(keys: tuple[bytes, bytes], at: int) -> None:
    data = seal_to(keys[1], EXPORT)
    at %= len(data)
    refused(keys[0], data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:])


@pytest.mark.parametrize("keep", [0, 5, SEALED_HEADER_SIZE - 1, SEALED_HEADER_SIZE, -1])
def test_a_cut_file_is_refused(keys: tuple[bytes, bytes], keep: int) -> None:
    message = refused(keys[0], seal_to(keys[1], EXPORT)[:keep])
    assert "cut short" in message or "is not an export sealed" in message


def test_appended_bytes_a_huge_declared_size_and_another_version_are_refused(keys: tuple[bytes, bytes]) -> None:
    data = seal_to(keys[1], EXPORT)
    assert "more than its header declares" in refused(keys[0], data + b"x")
    huge = data[:58] + (2**62).to_bytes(8, "big") + data[66:]
    assert "more than the" in refused(keys[0], huge)
    assert "format version 2" in refused(keys[0], SEALED_MAGIC + b"\x02" + data[14:])
    assert "is not an export sealed" in refused(keys[0], EXPORT)


@pytest.mark.parametrize("key_file", [b"", b"not a key", b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                                      bytes(100_000)])
def test_a_key_file_that_is_not_one_is_refused_naming_it(keys: tuple[bytes, bytes], key_file: bytes) -> None:
    with pytest.raises(DocumentError, match=re.escape("keys/coordinator.key: is not a WM-CDP coordinator key")):
        open_sealed(key_file, seal_to(keys[1], EXPORT), LABEL, key_label="keys/coordinator.key")


def test_a_public_key_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError):
        seal_to(b"short", EXPORT)
