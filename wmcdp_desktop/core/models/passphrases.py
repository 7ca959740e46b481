"""``keys/passphrases.json``: the passphrase of every encrypted bundle of a build, for the coordinator only.

Written by ``wmcdp bundle build --encrypt`` (owner-only, 0600, in an owner-only ``keys/`` folder beside
``keys/coordinator.key``), never put inside a bundle; read by ``wmcdp bundle verify --passphrases`` and by
a later build into the same folder (a re-issued bundle keeps its passphrase and salt, so it opens with the
passphrase the rater already has and keeps the rater's data folder key).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.bundle_manifest import EXPORT_PUBLIC_KEY_PATTERN
from wmcdp_desktop.core.models.common import Identifier, NonBlankStr, SemVer

PASSPHRASES_FORMAT_VERSION = "1.0.0"
SALT_PATTERN = r"^[0-9a-f]{32}$"
BUNDLE_FILE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,249}\.wmcdp$"


class PassphraseEntry(Document):
    """One encrypted bundle and what opens it."""

    rater_id: Identifier | None = None
    """The rater the bundle is for; absent for the unassigned bundle."""
    bundle_file: Annotated[str, Field(pattern=BUNDLE_FILE_PATTERN)]
    """The bundle's file name as written (``<rater_id>.wmcdp``, ``unassigned.wmcdp``): it names no study."""
    passphrase: NonBlankStr
    """The passphrase to tell the rater (six words joined with ``-``; case, spaces and ``-`` do not matter)."""
    kdf_salt: Annotated[str, Field(pattern=SALT_PATTERN)]
    """The bundle's scrypt salt in hex (not secret): a re-issued bundle keeps it, so the keys stay the same."""


class PassphrasesFile(Document):
    """Every encrypted bundle of one build with its passphrase, and the build's coordinator public key."""

    document_type: Literal["wmcdp_passphrases"]
    """Always ``wmcdp_passphrases``."""
    format_version: SemVer
    """``1.0.0``."""
    study_id: Identifier
    """The study built."""
    coordinator_public_key: Annotated[str, Field(pattern=EXPORT_PUBLIC_KEY_PATTERN)]
    """The public key of ``keys/coordinator.key`` in base64, as every bundle's ``export_public_key``."""
    bundles: Annotated[list[PassphraseEntry], Field(min_length=1)]
    """One entry per bundle, sorted by file name."""

    def entry_for(self, bundle_file: str) -> PassphraseEntry | None:
        """The entry of the bundle file named ``bundle_file``, if any."""
        return next((e for e in self.bundles if e.bundle_file == bundle_file), None)
