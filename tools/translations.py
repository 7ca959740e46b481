"""Regenerate the app's translation catalogues from its sources: every ``.ts`` (lupdate), then each ``.qm``
(lrelease). Run from the repository: ``python -m tools.translations`` (docs/TRANSLATING.md)."""

from __future__ import annotations

from wmcdp_desktop.rater.app.text.i18n import update_catalogues


def main() -> int:
    for report in update_catalogues():
        print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
