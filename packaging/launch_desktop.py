"""Entry script of the standalone rater app (``wmcdp-desktop``): the freezer starts here."""

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a worker process started by the frozen app runs its task, not the app
    from wmcdp_desktop.ui.app import main

    raise SystemExit(main())
