"""Entry script of the standalone rater app (``wmcdp-desktop``): the freezer starts here.

The rater app starts one kind of worker process, the check of a big bundle's files
(wmcdp_desktop/rater/bundle_check.py): the program started again with ``--check-bundle-files`` as its first
argument, handed over here before Qt is imported. It does not use ``multiprocessing``, so it neither imports it
nor needs ``freeze_support()`` (importing it cost the frozen app's start-up about 40 ms; ``launch_wmcdp.py``
has it).
"""

if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--check-bundle-files"]:  # bundle_check.WORKER_FLAG
        from wmcdp_desktop.rater.bundle_check import serve

        raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer))
    from wmcdp_desktop.rater.app.main import main

    raise SystemExit(main())
