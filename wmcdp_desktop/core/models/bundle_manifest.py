"""``bundle.json``: the manifest of a rater bundle (FORMATS.md section 4)."""

from __future__ import annotations

import base64
from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import DateTime, Identifier, Int, NonBlankStr, SemVer, Sha256

BUNDLE_FORMAT_VERSION = "1.2.0"
"""1.1.0 added the optional ``blinding_check_labels``, 1.2.0 the optional ``render_markdown``, 1.3.0 the
optional ``export_public_key`` (:data:`FORMAT_1_3`, encrypted bundles only). A bundle is
written with the oldest version that describes it (``coordinator/bundles/build.py``), so that a bundle without
the newer fields still opens in an app that knows only the older format."""
FORMAT_1_1 = "1.1.0"
FORMAT_1_3 = "1.3.0"
"""The format of an encrypted bundle's manifest (it has ``export_public_key``)."""
EXPORT_PUBLIC_KEY_PATTERN = r"^[A-Za-z0-9+/]{43}=$"
"""A 32-byte X25519 public key in standard base64 (44 characters, one ``=``)."""

BUNDLE_PATH_PATTERN = r"^(rubric\.json|tasks/[A-Za-z0-9]([A-Za-z0-9._-]{0,126}[A-Za-z0-9_-])?\.json)$"
"""What a path in ``files`` may be."""
BundlePath = Annotated[str, Field(pattern=BUNDLE_PATH_PATTERN)]


class BundleFile(Document):
    """One file of the bundle with its digest."""

    path: BundlePath
    """Path inside the bundle, ``/``-separated: ``rubric.json`` or ``tasks/<task_id>.json``."""
    sha256: Sha256
    """SHA-256 of the file's bytes."""
    size: Annotated[Int, Field(ge=0)]
    """Size in bytes."""


class BundleManifest(Document):
    """What a bundle holds, for whom, and in which order the tasks are presented."""

    document_type: Literal["wmcdp_bundle"]
    """Always ``wmcdp_bundle``."""
    format_version: SemVer
    """Bundle format version (this app writes ``1.3.0`` when ``export_public_key`` is present, else ``1.2.0``
    when ``render_markdown`` is, else ``1.1.0``; it reads every ``1.x.y``)."""
    bundle_id: Identifier
    """Unique bundle id."""
    study_id: Identifier
    """The study."""
    study_title: NonBlankStr
    """Study title, shown to the rater."""
    rater_id: Identifier | None = None
    """The rater the bundle is for; absent for an open bundle (e.g. the demo)."""
    rater_role_or_background: str | None = None
    """The rater's role/background as the coordinator knows it."""
    created_at: DateTime
    """When the bundle was built."""
    task_order: Annotated[list[Identifier], Field(min_length=1)]
    """Presentation order: task ids, each with a ``tasks/<id>.json`` file."""
    files: Annotated[list[BundleFile], Field(min_length=2)]
    """Every other file of the bundle with its SHA-256."""
    blinding_check_labels: Annotated[
        list[Annotated[NonBlankStr, Field(max_length=80)]], Field(min_length=2, max_length=20)
    ] | None = None
    """When present, the app asks after each submitted rating "Do you think you know which system wrote
    this response?" with "I can't tell" and these labels (the same list in every bundle of the study). The
    only field of a bundle that may name a vendor or model."""
    render_markdown: bool | None = None
    """``false``: responses and scenario turns are shown exactly as written (the study's ``render_markdown``),
    and the rater cannot switch to rendered text; absent: rendered as markdown (format 1.2.0 on)."""
    export_public_key: Annotated[str, Field(pattern=EXPORT_PUBLIC_KEY_PATTERN)] | None = None
    """Encrypted bundles only (format 1.3.0 on): the coordinator's X25519 public key made by this build, in
    base64 (32 bytes). The app seals the export to it (docs/FORMATS.md, sealed export), so only the build's
    private key (``keys/coordinator.key``, kept by the coordinator) opens what the rater sends back."""

    @property
    def export_public_key_bytes(self) -> bytes | None:
        """:attr:`export_public_key` as the raw 32 bytes :func:`~wmcdp_desktop.core.encryption.sealed_box.seal_to`
        takes, or ``None`` for a bundle whose export is not sealed."""
        if self.export_public_key is None:
            return None
        return base64.b64decode(self.export_public_key, validate=True)


def encode_public_key(raw: bytes) -> str:
    """A raw 32-byte public key as :attr:`BundleManifest.export_public_key` holds it (standard base64)."""
    if len(raw) != 32:
        raise ValueError("a coordinator public key is 32 bytes")
    return base64.b64encode(raw).decode("ascii")
