"""WM-CDP Desktop: offline rating tool for the WholeMind Clinical Decision Benchmark.

Arranged by audience, then by feature (docs/ARCHITECTURE.md): ``core`` (the shared floor, never Qt),
``rater`` (the clinician's side; its window, the only place that imports PySide6, in ``rater/app``) and
``coordinator`` (the ``wmcdp`` command), the two sides never importing each other.
"""

__version__ = "0.1.0"
