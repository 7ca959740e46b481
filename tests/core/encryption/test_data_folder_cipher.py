"""The data folder cipher: a file opens under its own name with its own bundle's key only, and names
reveal nothing."""

from __future__ import annotations

import re

import pytest

from wmcdp_desktop.core.encryption.data_cipher import OVERHEAD, DataCipher
from wmcdp_desktop.core.errors import DocumentError

KEY = bytes(range(32))
DRAFT = b'{"taskId": "T-0001", "rationale": "Keeps reassuring the parent."}'


def test_a_sealed_file_opens_under_its_name() -> None:
    cipher = DataCipher(KEY)
    blob = cipher.seal("drafts/T-0001.json", DRAFT)
    assert len(blob) == len(DRAFT) + OVERHEAD
    assert b"T-0001" not in blob and b"reassuring" not in blob
    assert cipher.open("drafts/T-0001.json", blob) == DRAFT
    assert cipher.seal("drafts/T-0001.json", DRAFT) != blob  # a fresh nonce each time


def test_a_file_moved_under_another_name_does_not_open() -> None:
    cipher = DataCipher(KEY)
    blob = cipher.seal("drafts/T-0001.json", DRAFT)
    with pytest.raises(DocumentError, match=re.escape("drafts/T-0002.json: does not open with this bundle's passphrase")):
        cipher.open("drafts/T-0002.json", blob)


def test_another_bundles_key_a_changed_byte_or_a_cut_file_do_not_open() -> None:
    cipher = DataCipher(KEY)
    blob = cipher.seal("records/T-0001.json", DRAFT)
    with pytest.raises(DocumentError, match="does not open"):
        DataCipher(bytes(32)).open("records/T-0001.json", blob)
    for at in (0, 11, 12, len(blob) // 2, len(blob) - 1):
        changed = blob[:at] + bytes([blob[at] ^ 0x80]) + blob[at + 1:]
        with pytest.raises(DocumentError, match=re.escape("records/T-0001.json: does not open")):
            cipher.open("records/T-0001.json", changed)
    for keep in (0, 5, OVERHEAD - 1):
        with pytest.raises(DocumentError, match="is cut short"):
            cipher.open("records/T-0001.json", blob[:keep])
    with pytest.raises(DocumentError, match="does not open"):
        cipher.open("records/T-0001.json", blob[:OVERHEAD])


def test_opaque_names_are_stable_per_key_and_reveal_nothing() -> None:
    cipher = DataCipher(KEY)
    name = cipher.opaque_name("bundle B-HELD-01 rater R07")
    assert re.fullmatch(r"[0-9a-f]{32}", name)
    assert name == DataCipher(KEY).opaque_name("bundle B-HELD-01 rater R07")
    assert name != cipher.opaque_name("bundle B-HELD-01 rater R08")
    assert name != DataCipher(bytes(32)).opaque_name("bundle B-HELD-01 rater R07")
    assert KEY.hex() not in repr(cipher)


def test_a_key_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError):
        DataCipher(b"short")
