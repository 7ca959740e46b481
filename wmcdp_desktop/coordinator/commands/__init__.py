"""The coordinator's ``wmcdp`` command, built on the core (never imports Qt)."""
