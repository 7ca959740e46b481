"""Entry script of the standalone rater app (``wmcdp-desktop``): the freezer starts here.

The rater app starts no worker processes, so it neither imports ``multiprocessing`` nor needs
``freeze_support()`` (importing it cost the frozen app's start-up about 40 ms; ``launch_wmcdp.py`` has it).
"""

if __name__ == "__main__":
    from wmcdp_desktop.rater.app.main import main

    raise SystemExit(main())
