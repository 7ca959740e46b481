"""Entry script of the standalone coordinator command (``wmcdp``): the freezer starts here."""

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()  # `results validate` and `report` may start worker processes
    from wmcdp_desktop.cli.main import main

    raise SystemExit(main())
