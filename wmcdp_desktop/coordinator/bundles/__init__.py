"""Blinded, balanced, deterministic bundles and the unblinding key (``wmcdp bundle build``)."""
