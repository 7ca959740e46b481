"""A candidate response line of ``responses/*.jsonl`` (coordinator side only: holds ``model_source``)."""

from __future__ import annotations

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import Identifier, NonBlankStr


class CandidateResponse(Document):
    """One AI response to one benchmark item, with the model that wrote it. Never shipped to raters."""

    response_id: Identifier
    """The coordinator's own id for the response (may name the model; never shipped)."""
    benchmark_item_id: Identifier
    """The item this responds to."""
    model_source: NonBlankStr
    """Which model wrote it (blinded from raters; restored by ``wmcdp results collect``)."""
    text: str
    """The response text exactly as the model gave it."""
