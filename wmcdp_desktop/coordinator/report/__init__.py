"""Coordinator analysis: agreement, per-model results, agreement with gold (optional heavy deps)."""
