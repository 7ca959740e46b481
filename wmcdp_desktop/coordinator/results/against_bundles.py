"""Checking rating records against the bundles they were made from (`wmcdp results validate` given bundles).

Each record must name its bundle (id and ``bundle.json`` SHA-256), the rater the bundle was made for and
a task in it, and pass the rubric's and the task's rules (:mod:`wmcdp_desktop.core.record_rules`).
"""

from __future__ import annotations

from pathlib import Path

from wmcdp_desktop.coordinator.bundles import encryption
from wmcdp_desktop.coordinator.results.reader import ReadRecord
from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.record_rules import record_problems


def _open_one(path: Path) -> OpenedBundle:
    """A plain bundle as it is; an encrypted one decrypted in memory with the passphrase its build wrote in
    ``keys/passphrases.json`` beside it."""
    if not encryption.file_is_encrypted(path):
        return open_bundle(path)
    listed = path.parent / encryption.KEYS_FOLDER / encryption.PASSPHRASES_FILE
    if not listed.is_file():
        raise DocumentError.single(str(path), f"is an encrypted bundle, and {listed} (the build's passphrases, which "
                                              "open it) is not there: give the folder bundle build wrote")
    passphrase = encryption.passphrase_from(encryption.read_passphrases(listed), path, str(listed))
    return encryption.open_encrypted_bundle(path, passphrase).bundle


def open_bundles(paths: list[Path]) -> list[OpenedBundle]:
    """Each path a bundle file or folder, or a folder of ``*.wmcdp`` bundles (what ``bundle build`` wrote); an
    encrypted bundle is opened with the passphrase in ``keys/passphrases.json`` beside it."""
    bundles: list[OpenedBundle] = []
    for path in paths:
        if path.is_dir() and not (path / "bundle.json").exists():
            found = sorted(path.glob("*.wmcdp"))
            if not found:
                raise DocumentError.single(str(path), "holds no bundle (*.wmcdp) and is not a bundle folder")
            bundles.extend(_open_one(p) for p in found)
        else:
            bundles.append(_open_one(path))
    return bundles


def bundle_problems(records: list[ReadRecord], bundles: list[OpenedBundle]) -> list[Problem]:
    """Check each record against the bundle it was made from (by bundle id).

    One bundle given: every record is checked against it (the caller asked for exactly that), except
    that an export made from another bundle is one problem, not the same few for each of its records.
    Several: a record goes to the bundle with its id; records of an unknown bundle are one problem per
    export (or per loose record file).
    """
    by_id = {b.manifest.bundle_id: b for b in bundles}
    given = ", ".join(sorted(by_id))
    problems: list[Problem] = []
    checked: dict[str, list[ReadRecord]] = {}
    stray: dict[tuple[str, str], int] = {}
    for rr in records:
        bundle_id = rr.record.envelope.bundle_id
        if bundle_id in by_id:
            checked.setdefault(bundle_id, []).append(rr)
        elif rr.export is not None:
            stray[(rr.export, bundle_id)] = stray.get((rr.export, bundle_id), 0) + 1
        elif len(bundles) == 1:
            checked.setdefault(bundles[0].manifest.bundle_id, []).append(rr)
        else:
            problems.append(Problem(rr.source, "envelope.bundle_id", f"{bundle_id} is none of the bundles given ({given})"))
    for (export, bundle_id), n in stray.items():
        problems.append(
            Problem(
                f"{export}!manifest.json",
                "bundle_id",
                f"its {count(n, 'record')} {agree(n, 'was', 'were')} made from bundle {bundle_id}, which is not "
                + (f"the bundle given ({given})" if len(bundles) == 1 else f"among the bundles given ({given})")
                + "; check each export against its rater's bundle, or give the folder of all bundles",
            )
        )
    for bundle_id, group in checked.items():
        problems += _problems_against(group, by_id[bundle_id])
    return problems


def _problems_against(records: list[ReadRecord], bundle: OpenedBundle) -> list[Problem]:
    problems: list[Problem] = []
    manifest = bundle.manifest
    for rr in records:
        rec = rr.record
        env = rec.envelope
        if env.bundle_id != manifest.bundle_id:
            problems.append(Problem(rr.source, "envelope.bundle_id", f"{env.bundle_id!r} is not this bundle ({manifest.bundle_id!r})"))
        if env.bundle_sha256 != bundle.manifest_sha256:
            problems.append(Problem(rr.source, "envelope.bundle_sha256", "does not match this bundle's bundle.json"))
        if manifest.rater_id is not None and rec.rater_id != manifest.rater_id:
            problems.append(Problem(rr.source, "rater_id", f"{rec.rater_id!r} but the bundle is for {manifest.rater_id!r}"))
        task = None
        if not bundle.has_task(env.task_id):
            problems.append(Problem(rr.source, "envelope.task_id", f"task {env.task_id} is not in the bundle"))
        else:
            try:
                task = bundle.task(env.task_id)
            except DocumentError as exc:
                problems.extend(exc.problems)
                continue
        problems.extend(record_problems(
            rec, bundle.rubric, task, rr.source, check_times=False,
            blinding_labels=manifest.blinding_check_labels, check_blinding=True,
        ))
    return problems
