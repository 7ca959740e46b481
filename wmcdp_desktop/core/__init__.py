"""The core: data models, strict document reading, bundle I/O, storage and timing logic.

Nothing under ``wmcdp_desktop.core`` may import Qt (tests/test_layers.py enforces this).
"""
