"""``python -m wmcdp_desktop [BUNDLE]`` starts the rater app, like ``wmcdp-desktop``."""

from wmcdp_desktop.rater.app.main import main

if __name__ == "__main__":
    raise SystemExit(main())
