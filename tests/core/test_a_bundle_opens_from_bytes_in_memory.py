"""A bundle zip held in memory (an encrypted bundle once decrypted) opens with the same checks as a file,
and nothing is written anywhere while it is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kit.bundles import bundle_zip
from wmcdp_desktop.core.bundle_reader import open_bundle, open_bundle_bytes
from wmcdp_desktop.core.errors import DocumentError


def test_bytes_open_as_the_same_bundle_as_the_file(tmp_path: Path) -> None:
    data = bundle_zip(3, {"t0001": "Only in memory, the reply."})
    on_disk = tmp_path / "b.wmcdp"
    on_disk.write_bytes(data)
    before = sorted(tmp_path.rglob("*"))
    opened = open_bundle_bytes(data, tmp_path / "named.wmcdp")
    assert opened.task_ids == open_bundle(on_disk).task_ids
    assert opened.task("t0001").candidate_response_text == "Only in memory, the reply."
    assert not opened.is_folder and opened.path == tmp_path / "named.wmcdp"
    assert opened.verify().problems == []
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, not even beside the named file


@pytest.mark.parametrize("cut", [0, 10, -30])
def test_damaged_bytes_are_refused_naming_the_file(tmp_path: Path, cut: int) -> None:
    data = bundle_zip(2)
    damaged = b"" if cut == 0 else data[:cut]
    with pytest.raises(DocumentError) as caught:
        open_bundle_bytes(damaged, tmp_path / "named.wmcdp")
    assert "named.wmcdp" in str(caught.value)



def test_an_encrypted_bundle_is_known_by_its_first_bytes_and_opens_in_memory(tmp_path: Path) -> None:
    from tests.kit.encryption import PASSPHRASE, encrypted_bundle
    from wmcdp_desktop.core.bundle_reader import open_encrypted_bundle, read_encrypted_bundle
    from wmcdp_desktop.core.encryption.bundle_envelope import WrongPassphraseError, derive_keys, read_header

    plain = bundle_zip(2, {"t0001": "Held out, the reply."})
    (tmp_path / "plain.wmcdp").write_bytes(plain)
    (tmp_path / "folder").mkdir()
    assert read_encrypted_bundle(tmp_path / "plain.wmcdp") is None  # a zip: open_bundle's
    assert read_encrypted_bundle(tmp_path / "folder") is None
    assert read_encrypted_bundle(tmp_path / "missing.wmcdp") is None
    sealed = tmp_path / "R1.wmcdp"
    sealed.write_bytes(encrypted_bundle(plain))
    before = sorted(tmp_path.rglob("*"))
    data = read_encrypted_bundle(sealed)
    assert data is not None and data == sealed.read_bytes()
    keys = derive_keys(PASSPHRASE, read_header(data, sealed.name))
    opened = open_encrypted_bundle(data, keys, sealed)
    assert opened.task("t0001").candidate_response_text == "Held out, the reply."
    assert opened.in_memory and opened.bundle_key == keys.bundle_key and opened.verify().problems == []
    with pytest.raises(WrongPassphraseError, match=r"R1\.wmcdp"):
        open_encrypted_bundle(data, derive_keys("acid acorn acre acts afar WRONG", read_header(data, sealed.name)), sealed)
    assert sorted(tmp_path.rglob("*")) == before  # nothing written
