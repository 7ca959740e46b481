"""The coordinator's unblinding key, written by ``wmcdp bundle build`` and read by ``wmcdp results collect``.

It maps every task / opaque ``candidate_response_id`` back to the response and the model that wrote it.
It is written with owner-only permissions (0600) next to the bundles and is never put inside a bundle.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import (
    Count,
    DateTime,
    Identifier,
    NonBlankStr,
    Seed,
    SemVer,
    Sha256,
    Split,
)
from wmcdp_desktop.core.models.rubric import Rubric

KEY_FORMAT_VERSION = "1.2.0"
"""1.1.0 added the optional ``blinding_labels``; 1.2.0 the ``rubric`` and, per task, what a record must
agree with (``clinical_domain_id``, ``scenario_type_ids``, ``candidate_response_sha256``), so that
``results collect`` applies the same record rules as ``results validate --bundle``."""


class KeyEntry(Document):
    """One task: what the rater saw (ids) and what it really is (response, model)."""

    task_id: Identifier
    """Task id used in the bundles and in rating records."""
    candidate_response_id: Identifier
    """Opaque response id shown to raters."""
    benchmark_item_id: Identifier
    """The benchmark item."""
    split: Split
    """The item's split (``calibration`` tasks carry feedback)."""
    response_id: Identifier
    """The coordinator's own response id (from ``responses/*.jsonl``)."""
    model_source: NonBlankStr
    """The model that wrote the response."""
    raters: list[Identifier]
    """Raters the task was assigned to (empty for an unassigned bundle only build)."""
    clinical_domain_id: Identifier
    """The task's clinical domain."""
    scenario_type_ids: list[Identifier]
    """The task's scenario types."""
    candidate_response_sha256: Sha256
    """SHA-256 of the response text (UTF-8) the raters were shown."""


class KeyBundle(Document):
    """One bundle written by the build."""

    file_name: NonBlankStr
    """File name of the bundle as written."""
    bundle_id: Identifier
    """``bundle_id`` of its ``bundle.json``."""
    bundle_sha256: Sha256
    """SHA-256 of its ``bundle.json`` (the ``bundle_sha256`` of every record made from it)."""
    rater_id: Identifier | None = None
    """The rater it is for; absent for an unassigned bundle."""
    task_ids: list[Identifier]
    """Its tasks in presentation order."""


class LeftOutItem(Document):
    """An item of the study that was not sent to raters, and why."""

    benchmark_item_id: Identifier
    """The item."""
    reason: NonBlankStr
    """Why it was left out (exclusion, split, leakage rule, no response)."""


class KeyLabel(Document):
    """One answer of the blinding check and the model it stands for."""

    label: NonBlankStr
    """The label raters saw."""
    model_source: NonBlankStr | None = None
    """The model it stands for; absent for a decoy."""


class UnblindingKey(Document):
    """Everything needed to unblind the ratings of one build. Keep it private."""

    document_type: Literal["wmcdp_unblinding_key"]
    """Always ``wmcdp_unblinding_key``."""
    format_version: SemVer
    """Key format version (``1.1.0``)."""
    study_id: Identifier
    """The study."""
    study_sha256: Sha256
    """SHA-256 of the ``study.json`` the bundles were built from."""
    seed: Seed
    """The seed used for assignment and order."""
    overlap: Annotated[Count, Field(ge=1)]
    """Raters per task used for this build."""
    created_at: DateTime
    """``created_at`` of the study (written into every bundle)."""
    id_scheme: NonBlankStr
    """How the opaque ids were made (for the record; the secret itself is not stored)."""
    entries: list[KeyEntry]
    """One per task, sorted by task id."""
    bundles: list[KeyBundle]
    """Every bundle written by the build."""
    left_out: list[LeftOutItem]
    """Items not sent, with the reason."""
    blinding_labels: list[KeyLabel] | None = None
    """The blinding check's labels (as in ``study.json``) and the model each stands for; absent without a check."""
    rubric: Rubric
    """The rubric every bundle of the build carries: collect checks scores against it."""
