"""The encrypted bundle: it opens with its passphrase only, shows nothing but its header, and every changed,
cut or hostile byte is refused in plain words naming the file, before any costly key derivation."""

from __future__ import annotations

import struct
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kit.bundles import bundle_zip
from tests.kit.encryption import FAST_KDF, PASSPHRASE, encrypted_bundle
from wmcdp_desktop.core.encryption import bundle_envelope
from wmcdp_desktop.core.encryption.bundle_envelope import (
    DEFAULT_KDF,
    HEADER_SIZE,
    MAGIC,
    MAX_KDF_MEMORY_BYTES,
    KdfParams,
    WrongPassphraseError,
    decrypt_bundle,
    derive_keys,
    encrypt_bundle,
    is_encrypted,
    open_bundle,
    read_header,
)
from wmcdp_desktop.core.errors import DocumentError

LABEL = "R07.wmcdp"
PLAIN = bundle_zip(3, {"t0000": "Secret scenario reply about HELDOUT-ITEM-0042."})


@pytest.fixture(scope="module")
def sealed() -> bytes:
    return encrypted_bundle(PLAIN)


def refusal(data: bytes, passphrase: str = PASSPHRASE) -> DocumentError:
    with pytest.raises(DocumentError) as caught:
        open_bundle(data, passphrase, LABEL)
    assert LABEL in str(caught.value)
    assert "Traceback" not in str(caught.value)
    return caught.value


def flipped(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


def test_it_opens_with_its_passphrase_as_typed_back(sealed: bytes) -> None:
    plain, keys = open_bundle(sealed, "  Acid Acorn acre-ACTS afar  affix ", LABEL)
    assert plain == PLAIN
    assert len(keys.bundle_key) == len(keys.data_key) == 32
    assert keys.bundle_key != keys.data_key
    assert keys.export_public_key is None
    assert decrypt_bundle(sealed, keys, LABEL) == PLAIN


def test_the_same_passphrase_gives_the_same_keys_for_the_same_file(sealed: bytes) -> None:
    header = read_header(sealed, LABEL)
    assert derive_keys(PASSPHRASE, header) == derive_keys(PASSPHRASE.upper(), header)
    assert derive_keys(PASSPHRASE, header) != derive_keys(PASSPHRASE, read_header(encrypted_bundle(PLAIN), LABEL))


def test_the_keys_are_not_shown_in_a_repr(sealed: bytes) -> None:
    keys = derive_keys(PASSPHRASE, read_header(sealed, LABEL))
    assert keys.bundle_key.hex() not in repr(keys) and str(keys.bundle_key) not in repr(keys)


def test_only_the_header_is_readable(sealed: bytes) -> None:
    assert is_encrypted(sealed[:64]) and not is_encrypted(PLAIN[:64])
    assert len(sealed) == HEADER_SIZE + len(PLAIN) + 16
    for visible in (b"HELDOUT", b"t0000", b"manifest", b"bundle.json", b"PK\x03\x04", b"tasks/"):
        assert visible not in sealed
    header = read_header(sealed, LABEL)
    assert (header.version, header.kdf.n, header.kdf.r, header.kdf.p) == (1, FAST_KDF.n, FAST_KDF.r, FAST_KDF.p)
    assert header.body_length == len(PLAIN) + 16
    assert header.encoded == sealed[:HEADER_SIZE]


def test_two_encryptions_of_one_bundle_share_no_salt_nonce_or_ciphertext() -> None:
    one, two = encrypted_bundle(PLAIN), encrypted_bundle(PLAIN)
    assert one[23:39] != two[23:39] and one[39:51] != two[39:51] and one[HEADER_SIZE:] != two[HEADER_SIZE:]


def test_a_wrong_passphrase_is_refused_in_plain_words(sealed: bytes) -> None:
    error = refusal(sealed, "acid-acorn-acre-acts-afar-aging")
    assert isinstance(error, WrongPassphraseError)
    assert str(error).startswith(f"the passphrase does not open {LABEL}: ")
    assert "the file was changed" in str(error)
    assert error.problems[0].file == LABEL


# Each class of byte position of the file, and what a changed byte there is refused as.
POSITIONS = {
    "mark": (range(0, 10), "is not an encrypted bundle"),
    "version": (range(10, 11), "format version 0"),
    "scrypt N": (range(11, 15), "damaged key-derivation settings"),
    "scrypt r": (range(15, 19), None),
    "scrypt p": (range(19, 23), None),
    "salt": (range(23, 39), "the passphrase does not open"),
    "nonce": (range(39, 51), "the passphrase does not open"),
    "length": (range(51, 59), None),
    "body": (range(HEADER_SIZE, HEADER_SIZE + 40), "the passphrase does not open"),
    "tag": (range(-16, 0), "the passphrase does not open"),
}


@pytest.mark.parametrize("where", list(POSITIONS))
def test_every_changed_byte_is_refused_in_plain_words(sealed: bytes, where: str) -> None:
    positions, expected = POSITIONS[where]
    for at in positions:
        error = refusal(flipped(sealed, at % len(sealed)))
        if expected:
            assert expected in str(error), (where, at, str(error))


def test_a_changed_cost_parameter_is_refused_as_damaged_too_costly_or_not_opening(sealed: bytes) -> None:
    messages = {str(refusal(flipped(sealed, at))) for at in range(15, 23)}
    assert any("the passphrase does not open" in m for m in messages)  # r = 9: a valid KDF, another key
    assert any("of memory" in m for m in messages)  # r = 2^24 + 8
    assert any("damaged key-derivation settings" in m for m in messages)  # p = 0
    assert any("would take too long" in m for m in messages)  # p = 2^24 + 1


def test_a_changed_length_says_cut_short_or_longer_than_declared(sealed: bytes) -> None:
    messages = [str(refusal(flipped(sealed, at))) for at in range(51, 59)]
    assert "is cut short" in messages[-1]  # length + 1
    assert "more than the" in messages[0]  # 2^56 bytes declared: above the size cap


@pytest.mark.parametrize("keep", [0, 3, 10, 11, 30, HEADER_SIZE - 1, HEADER_SIZE, HEADER_SIZE + 1, -16, -1])
def test_a_truncated_file_is_refused_in_plain_words(sealed: bytes, keep: int) -> None:
    error = refusal(sealed[:keep])
    assert "cut short" in str(error) or "is not an encrypted bundle" in str(error)


@pytest.mark.parametrize("extra", [b"\x00", b"PK\x05\x06" + bytes(18), bytes(4096)])
def test_bytes_appended_are_refused(sealed: bytes, extra: bytes) -> None:
    assert "more than its header declares" in str(refusal(sealed + extra))


def header_with(n: int, r: int, p: int, length: int = 16) -> bytes:
    return struct.pack(">10sBIII16s12sQ", MAGIC, 1, n, r, p, bytes(16), bytes(12), length)


@pytest.mark.parametrize(("n", "r", "p", "message"), [
    (2**31, 8, 1, "of memory"),
    (2**20, 8, 1, "of memory"),  # 1 GB
    (2**22, 1, 1, "of memory"),
    (2**17, 2**32 - 1, 1, "of memory"),
    (2**17, 8, 2**32 - 1, "would take too long"),
    (2**17, 8, 5, "would take too long"),
    (2**17 + 1, 8, 1, "damaged"),
    (0, 8, 1, "damaged"),
    (2**17, 0, 1, "damaged"),
])
def test_a_hostile_kdf_is_refused_fast_without_deriving(monkeypatch: pytest.MonkeyPatch,
                                                        n: int, r: int, p: int, message: str) -> None:
    def no_scrypt(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a key was derived for a hostile header")

    monkeypatch.setattr(bundle_envelope, "Scrypt", no_scrypt)
    started = time.perf_counter()
    error = refusal(header_with(n, r, p) + bytes(16))
    assert time.perf_counter() - started < 1.0
    assert message in str(error)
    assert "not opened" in str(error) or "damaged" in str(error)


def test_a_huge_declared_size_is_refused_before_anything_else_is_read() -> None:
    error = refusal(header_with(FAST_KDF.n, 8, 1, length=2**63) + bytes(100))
    assert "more than the" in str(error)
    with pytest.raises(DocumentError, match="more than the 1 KB allowed"):
        read_header(encrypted_bundle(bytes(2048)), LABEL, max_bytes=1024)


def test_another_version_and_a_plain_zip_are_refused() -> None:
    assert "format version 2" in str(refusal(MAGIC + b"\x02" + bytes(100)))
    assert "is not an encrypted bundle" in str(refusal(PLAIN))


def test_the_default_kdf_is_within_its_own_caps_and_opens() -> None:
    assert DEFAULT_KDF.memory_bytes == 128 * 1024 * 1024 <= MAX_KDF_MEMORY_BYTES
    started = time.perf_counter()
    data = encrypt_bundle(b"PK small", "one-two")
    assert open_bundle(data, "One Two", LABEL)[0] == b"PK small"
    assert time.perf_counter() - started < 20  # two derivations: about 1 s on a 2-core machine


def test_encrypting_needs_a_passphrase_and_a_sound_kdf() -> None:
    with pytest.raises(ValueError):
        encrypt_bundle(PLAIN, "  - ")
    with pytest.raises(ValueError):
        encrypt_bundle(PLAIN, PASSPHRASE, KdfParams(n=2**24, r=8, p=1))
    with pytest.raises(ValueError):
        encrypt_bundle(PLAIN, PASSPHRASE, KdfParams(n=2**10, r=8, p=1, salt=b"short"))


@settings(max_examples=60, deadline=None)
@given(plain=st.binary(max_size=300), at=st.integers(min_value=0), bit=st.integers(min_value=0, max_value=7),
       cut=st.integers(min_value=0, max_value=400))
def test_any_changed_bit_or_cut_is_refused_and_the_untouched_file_opens(plain: bytes, at: int, bit: int, cut: int) -> None:
    data = encrypted_bundle(plain)
    assert open_bundle(data, PASSPHRASE, LABEL)[0] == plain
    at %= len(data)
    for changed in (data[:at] + bytes([data[at] ^ (1 << bit)]) + data[at + 1:], data[: min(cut, len(data) - 1)]):
        with pytest.raises(DocumentError) as caught:
            open_bundle(changed, PASSPHRASE, LABEL)
        assert LABEL in str(caught.value)
