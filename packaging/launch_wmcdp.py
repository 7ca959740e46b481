"""Entry script of the standalone coordinator command (``wmcdp``): the freezer starts here."""

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()  # no command starts worker processes today; one added later runs its task
    from wmcdp_desktop.coordinator.commands.main import main

    raise SystemExit(main())
