"""The suite's one shared kit: what many tests build, built once.

- :mod:`tests.kit.studies`: study documents (rubric, cases, items, study.json, responses) and study folders,
  a study built into bundles with its unblinding key (:func:`~tests.kit.studies.build_study`).
- :mod:`tests.kit.bundles`: bundle folders and bundle bytes (small valid bundles, the sample-document
  bundle of the rater tests) and a raw zip writer whose headers can say anything (forged zips).
- :mod:`tests.kit.sessions`: rating sessions on a bundle (no Qt), filling and submitting ratings, and what a
  store holds on disk (records, drafts, the audit chain).
- :mod:`tests.kit.exports`: rating records and results exports as the app writes them, and an export as
  editable parts (to tamper with it the way an attacker would).
- :mod:`tests.kit.ratings`: ratings with controllable agreement for the report, the study folder they belong
  to, and the collection (``ratings.parquet`` by collect's own table writer) ``wmcdp report`` reads.
- :mod:`tests.kit.faults`: simulated disk, lock and kill faults through the atomic writer's public
  fault-injection seam.

Nothing here imports Qt; the window's helpers stay in ``tests/rater/app``.
"""
