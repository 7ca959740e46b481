"""The coordinator's public key travels in an encrypted bundle's manifest (export_public_key, base64)."""

from __future__ import annotations

import json

import pytest

from tests.kit.bundles import bundle_files
from tests.kit.encryption import coordinator_keys
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest, encode_public_key


def manifest_with(key: object) -> dict[str, object]:
    obj = json.loads(bundle_files(2)["bundle.json"])
    obj["format_version"] = "1.3.0"
    obj["export_public_key"] = key
    return obj


def test_the_key_reads_back_as_its_raw_bytes() -> None:
    _private, public = coordinator_keys()
    manifest = BundleManifest.model_validate(manifest_with(encode_public_key(public)))
    assert manifest.export_public_key_bytes == public
    plain = BundleManifest.model_validate(json.loads(bundle_files(2)["bundle.json"]))
    assert plain.export_public_key is None and plain.export_public_key_bytes is None


@pytest.mark.parametrize("key", ["", "AAAA", "A" * 44, "A" * 43 + "!", "A" * 42 + "==", 32])
def test_a_key_that_is_not_32_bytes_of_base64_is_refused(key: object) -> None:
    with pytest.raises((DocumentError, ValueError)):
        BundleManifest.model_validate(manifest_with(key))


def test_only_a_32_byte_key_is_encoded() -> None:
    with pytest.raises(ValueError):
        encode_public_key(b"short")
