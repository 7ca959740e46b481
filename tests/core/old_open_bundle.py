"""open_bundle as it was before the fast way (commit fb6f623): the oracle of the differential tests of
`tests/core/test_bundle_open_fastpath.py` and `tests/core/test_review_bundle_json_attacks.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wmcdp_desktop.core.bundle_reader import (
    MANIFEST_NAME,
    RUBRIC_NAME,
    SUPPORTED_FORMAT_MAJOR,
    OpenedBundle,
    _open_source,
    sha256_hex,
    task_path,
)
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.zips.reader import DEFAULT_LIMITS


def reference_open_bundle(path: Path) -> OpenedBundle:
    """open_bundle before the fast way (commit fb6f623), verbatim but for the names it imports."""
    source = _open_source(path, DEFAULT_LIMITS)
    names = set(source.names())
    if MANIFEST_NAME not in names:
        hint = ""
        nested = sorted(n for n in names if n.endswith("/" + MANIFEST_NAME))
        if nested:
            hint = f" (found {nested[0]!r}: the bundle folder was zipped with an extra folder level)"
        raise DocumentError.single(source.label, f"is not a WM-CDP bundle: bundle.json is missing{hint}")
    manifest_bytes = source.read(MANIFEST_NAME)
    manifest = load_bytes(BundleManifest, manifest_bytes, source.display(MANIFEST_NAME))
    mdisp = source.display(MANIFEST_NAME)

    problems: list[Problem] = []
    major = manifest.format_version.split(".", 1)[0]
    if major != str(SUPPORTED_FORMAT_MAJOR):
        raise DocumentError.single(
            mdisp,
            f"bundle format {manifest.format_version} is not supported by this version of the app "
            f"(it reads {SUPPORTED_FORMAT_MAJOR}.x); please update the app",
            "format_version",
        )
    listed: dict[str, int] = {}
    for i, entry in enumerate(manifest.files):
        if entry.path in listed:
            problems.append(Problem(mdisp, f"files[{i}].path", f"{entry.path!r} is listed twice"))
            continue
        listed[entry.path] = i
        if entry.path not in names:
            problems.append(Problem(mdisp, f"files[{i}].path", f"{entry.path!r} is listed but not in the bundle"))
        elif source.size(entry.path) != entry.size:
            problems.append(
                Problem(
                    source.display(entry.path),
                    "",
                    f"is {source.size(entry.path)} bytes but bundle.json says {entry.size}: the bundle was changed "
                    "or damaged",
                )
            )
    if RUBRIC_NAME not in listed:
        problems.append(Problem(mdisp, "files", "rubric.json is not listed"))
    seen_tasks: set[str] = set()
    for i, task_id in enumerate(manifest.task_order):
        if task_id in seen_tasks:
            problems.append(Problem(mdisp, f"task_order[{i}]", f"task {task_id!r} appears more than once"))
        seen_tasks.add(task_id)
        if task_path(task_id) not in listed:
            problems.append(Problem(mdisp, f"task_order[{i}]", f"task {task_id!r} has no file in files"))
    for name, i in listed.items():
        if name.startswith("tasks/") and name.removeprefix("tasks/").removesuffix(".json") not in seen_tasks:
            problems.append(Problem(mdisp, f"files[{i}].path", f"{name!r} is not in task_order"))
    for name in sorted(names - set(listed) - {MANIFEST_NAME}):
        problems.append(Problem(source.display(name), "", "is not listed in bundle.json (unexpected file)"))
    rubric: Rubric | None = None
    if RUBRIC_NAME in listed and RUBRIC_NAME in names:
        try:
            data = source.read(RUBRIC_NAME)
            entry = manifest.files[listed[RUBRIC_NAME]]
            if sha256_hex(data) != entry.sha256:
                problems.append(
                    Problem(source.display(RUBRIC_NAME), "", "does not match the SHA-256 in bundle.json: changed or damaged")
                )
            else:
                rubric = load_bytes(Rubric, data, source.display(RUBRIC_NAME))
        except DocumentError as exc:
            problems.extend(exc.problems)
    if problems or rubric is None:
        raise DocumentError(problems or [Problem(source.label, "", "rubric.json cannot be read")])
    return OpenedBundle(path, source, manifest, sha256_hex(manifest_bytes), rubric)


def outcome(opener: Any, path: Path) -> object:
    try:
        b = opener(path)
    except DocumentError as exc:
        return ("rejected", [str(p) for p in exc.problems])
    return ("opened", b.manifest.to_json_obj(), list(b.files.items()), b.task_ids, b.manifest_sha256,
            b.rubric.to_json_obj(), len(b))
