"""Reliability and security suite: injected faults and hostile inputs, each counted (docs/RELIABILITY.md)."""
