"""Opening a rater bundle (``.wmcdp`` zip or a plain folder) safely and lazily.

Layout (FORMATS.md section 4): ``bundle.json`` (:class:`BundleManifest`), ``rubric.json`` and
``tasks/<task_id>.json``; ``bundle.json`` lists every other file with its size and SHA-256.

:func:`open_bundle` checks the container (zip safety, or no symlinks / nothing outside a folder), reads
and validates ``bundle.json`` and ``rubric.json`` and cross-checks the manifest against the files present,
but does not read any task: :meth:`OpenedBundle.task` reads, hash-checks and validates one task on first
access (then keeps the last :data:`TASK_CACHE_SIZE` tasks used), so a 10,000-task bundle opens as fast as
a 10-task one and memory does not grow with the tasks read.
:meth:`OpenedBundle.verify` checks everything.

bundle.json of a 10,000-task bundle holds 10,000 ``files`` entries. When every entry is plainly valid
(an object of exactly ``path``, ``sha256``, ``size`` of the right types and forms, checked with a few
regular expressions over all of them at once) the model validates the rest of the manifest only, and the
cross-checks against the files present are set comparisons; anything else takes the full validation and
the entry-by-entry checks, which word every problem (same messages, same order).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from wmcdp_desktop.core import strict_json
from wmcdp_desktop.core.documents import load_bytes, validate_obj
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.gc_pause import gc_paused
from wmcdp_desktop.core.models.bundle_manifest import BUNDLE_PATH_PATTERN, BundleManifest
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.core.zips.reader import (
    DEFAULT_LIMITS,
    Limits,
    SafeZip,
    fold_name,
    name_problem,
    open_zip_file,
)

MANIFEST_NAME = "bundle.json"
RUBRIC_NAME = "rubric.json"
SUPPORTED_FORMAT_MAJOR = 1
IGNORED_FOLDER_FILES = {"Thumbs.db", "desktop.ini"}
"""Files an OS drops into folders; ignored in folder bundles (as are names starting with a dot)."""
TASK_CACHE_SIZE = 64
"""Tasks :meth:`OpenedBundle.task` keeps after reading them (the most recently used): going back and forth
or naming the visible rows of the task list reads each task once; a 100 KB task is about 0.5 MB in memory.
(The rating session holds its open task itself.)"""


def task_path(task_id: str) -> str:
    """Path of a task's file inside a bundle."""
    return f"tasks/{task_id}.json"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Source(Protocol):
    label: str

    def names(self) -> list[str]: ...
    def sizes(self) -> dict[str, int]: ...
    def size(self, name: str) -> int: ...
    def read(self, name: str) -> bytes: ...
    def display(self, name: str) -> str: ...


class _ZipSource:
    def __init__(self, path: Path, limits: Limits) -> None:
        self.label = path.name
        self._zip: SafeZip = open_zip_file(path, self.label, limits)
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        return self._zip.names()

    def sizes(self) -> dict[str, int]:
        return self._zip.sizes()

    def size(self, name: str) -> int:
        return self._zip.size(name)

    def read(self, name: str) -> bytes:
        with self._lock:
            return self._zip.read(name)

    def display(self, name: str) -> str:
        return f"{self.label}!{name}"


class _FolderSource:
    """A bundle folder: no symlinks anywhere, nothing resolving outside it."""

    def __init__(self, root: Path, limits: Limits) -> None:
        self.label = root.name or str(root)
        self._limits = limits
        try:
            self._root = root.resolve(strict=True)
        except OSError as exc:
            raise DocumentError.single(str(root), f"cannot be opened ({exc.strerror or exc})") from None
        if root.is_symlink():
            raise DocumentError.single(str(root), "is a symbolic link; open the real folder instead")
        self._sizes: dict[str, int] = {}
        problems: list[Problem] = []
        folded: dict[str, str] = {}
        stack = [""]
        while stack:
            rel_dir = stack.pop()
            try:
                entries = sorted(os.scandir(self._root / rel_dir), key=lambda e: e.name)
            except OSError as exc:
                problems.append(Problem(self.display(rel_dir or "."), "", f"cannot be read ({exc.strerror or exc})"))
                continue
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                if entry.name.startswith(".") or entry.name in IGNORED_FOLDER_FILES:
                    if entry.is_symlink():
                        problems.append(Problem(self.display(rel), "", "is a symbolic link (not allowed in a bundle)"))
                    continue
                if entry.is_symlink():
                    problems.append(Problem(self.display(rel), "", "is a symbolic link (not allowed in a bundle)"))
                    continue
                reason = name_problem(rel)
                if reason:
                    problems.append(Problem(self.label, "", f"file {rel!r} {reason}"))
                    continue
                key = fold_name(rel)
                if key in folded:
                    problems.append(
                        Problem(self.display(rel), "", f"clashes with {folded[key]!r} (same name ignoring case)")
                    )
                    continue
                folded[key] = rel
                if entry.is_dir(follow_symlinks=False):
                    stack.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    if not self._inside(self._root / rel):
                        problems.append(Problem(self.display(rel), "", "resolves outside the bundle folder"))
                        continue
                    self._sizes[rel] = entry.stat(follow_symlinks=False).st_size
                    if len(self._sizes) > limits.max_entries:
                        raise DocumentError.single(
                            self.label, f"has more than {limits.max_entries} files; not a bundle folder"
                        )
                else:
                    problems.append(Problem(self.display(rel), "", "is not a regular file"))
        if problems:
            raise DocumentError(problems)

    def _inside(self, path: Path) -> bool:
        try:
            path.resolve(strict=True).relative_to(self._root)
        except (OSError, ValueError):
            return False
        return True

    def names(self) -> list[str]:
        return sorted(self._sizes)

    def sizes(self) -> dict[str, int]:
        return dict(self._sizes)

    def size(self, name: str) -> int:
        return self._sizes[name]

    def display(self, name: str) -> str:
        return f"{self.label}/{name}"

    def read(self, name: str) -> bytes:
        if name not in self._sizes:
            raise DocumentError.single(self.display(name), "file not found")
        path = self._root / name
        if path.is_symlink() or not self._inside(path):
            raise DocumentError.single(self.display(name), "is a symbolic link or resolves outside the bundle folder")
        try:
            with path.open("rb") as fh:
                data = fh.read(self._limits.max_member_bytes + 1)
        except OSError as exc:
            raise DocumentError.single(self.display(name), f"cannot be read ({exc.strerror or exc})") from None
        if len(data) > self._limits.max_member_bytes:
            raise DocumentError.single(self.display(name), "is too large for a bundle file")
        return data


class Verification(NamedTuple):
    """What :meth:`OpenedBundle.verify` found."""

    problems: list[Problem]
    calibration_tasks: int
    """Tasks that give calibration feedback (counted over the tasks that could be read)."""


class OpenedBundle:
    """A bundle whose manifest and rubric are checked; tasks are read on demand."""

    def __init__(
        self,
        path: Path,
        source: _Source,
        manifest: BundleManifest,
        manifest_sha256: str,
        rubric: Rubric,
        files: dict[str, tuple[str, int]] | None = None,
    ) -> None:
        self.path = path
        if files is None:
            files = {f.path: (f.sha256, f.size) for f in manifest.files}
        self.files: dict[str, tuple[str, int]] = files
        """Every file listed in bundle.json: path -> (sha256, size), in bundle.json order."""
        self.manifest = manifest.model_copy(update={"files": []})
        """bundle.json, checked, without its per-file entries: those are :attr:`files` (a 10,000-task bundle
        would otherwise keep 10,000 small models alive: about 4 MB of the app's peak memory)."""
        self.manifest_sha256 = manifest_sha256
        self.rubric = rubric
        self.task_ids: list[str] = list(manifest.task_order)
        self._source = source
        self._order = {task_id: i for i, task_id in enumerate(self.task_ids)}
        self._cache: OrderedDict[str, Task] = OrderedDict()
        """The tasks used last, most recent at the end (at most TASK_CACHE_SIZE)."""
        self._lock = threading.Lock()

    @property
    def is_folder(self) -> bool:
        """True for a plain folder bundle, False for a ``.wmcdp`` zip."""
        return isinstance(self._source, _FolderSource)

    def __len__(self) -> int:
        return len(self.task_ids)

    def has_task(self, task_id: str) -> bool:
        """Whether ``task_id`` is one of the bundle's tasks (a dict lookup; ``task_ids`` is a list)."""
        return task_id in self._order

    def display(self, name: str) -> str:
        """How a file of this bundle is named in messages (``bundle.wmcdp!tasks/x.json``)."""
        return self._source.display(name)

    def _checked_bytes(self, name: str) -> bytes:
        sha256, size = self.files[name]
        data = self._source.read(name)
        if len(data) != size or sha256_hex(data) != sha256:
            raise DocumentError.single(
                self.display(name),
                "does not match the SHA-256 in bundle.json: the bundle was changed or damaged; "
                "ask your coordinator for a fresh copy",
            )
        return data

    def task(self, task_id: str) -> Task:
        """The task, read and checked (hash, schema, id); the last TASK_CACHE_SIZE tasks used are kept."""
        with self._lock:
            cached = self._cache.get(task_id)
            if cached is not None:
                self._cache.move_to_end(task_id)
                return cached
        if task_id not in self._order:
            raise KeyError(task_id)
        name = task_path(task_id)
        data = self._checked_bytes(name)
        task = load_bytes(Task, data, self.display(name))
        if task.task_id != task_id:
            raise DocumentError.single(
                self.display(name), f"{task.task_id!r} does not match the file name ({task_id!r})", "task_id"
            )
        self._keep(task_id, task)
        return task

    def _keep(self, task_id: str, task: Task) -> None:
        with self._lock:
            self._cache[task_id] = task
            self._cache.move_to_end(task_id)
            while len(self._cache) > TASK_CACHE_SIZE:
                self._cache.popitem(last=False)

    def verify(self, progress: Callable[[int, int], None] | None = None) -> Verification:
        """Every file's size and SHA-256, every task valid and named as its file, no candidate response id
        used by two tasks; and how many tasks are calibration tasks. Each file is read once and no task is
        kept (a 10,000-task bundle would otherwise be held in memory whole).

        ``progress(done, total)`` is called after each file when given.
        """
        problems: list[Problem] = []
        responses: dict[str, str] = {}
        calibration = 0
        names = list(self.files)
        total = len(names)
        for done, name in enumerate(names, start=1):
            try:
                data = self._checked_bytes(name)
                if name == RUBRIC_NAME:
                    load_bytes(Rubric, data, self.display(name))
                else:
                    task_id = name.removeprefix("tasks/").removesuffix(".json")
                    task = load_bytes(Task, data, self.display(name))
                    if task.task_id != task_id:
                        problems.append(
                            Problem(self.display(name), "task_id", f"{task.task_id!r} does not match the file name")
                        )
                    responses[task_id] = task.candidate_response_id
                    calibration += task.calibration_feedback is not None
            except DocumentError as exc:
                problems.extend(exc.problems)
            if progress is not None:
                progress(done, total)
        if not problems:
            seen: dict[str, str] = {}
            for task_id in self.task_ids:
                cr = responses[task_id]
                if cr in seen:
                    problems.append(Problem(
                        self.display(task_path(task_id)), "candidate_response_id", f"{cr} is also used by task {seen[cr]}"
                    ))
                seen[cr] = task_id
        return Verification(problems, calibration)


def _open_source(path: Path, limits: Limits) -> _Source:
    if path.is_dir():
        return _FolderSource(path, limits)
    if not path.exists():
        raise DocumentError.single(str(path), "file not found")
    return _ZipSource(path, limits)


def _pattern_lines(pattern: str) -> re.Pattern[str]:
    """Lines joined by ``\\n``, each matching ``pattern`` (a ``^...$`` pattern without newlines)."""
    body = pattern.removeprefix("^").removesuffix("$")
    return re.compile(rf"(?:(?:{body})\n)*(?:{body})")


_PATH_LINES = _pattern_lines(BUNDLE_PATH_PATTERN)
_PATH_OF, _SHA256_OF, _SIZE_OF = itemgetter("path"), itemgetter("sha256"), itemgetter("size")
_NOT_HEX = str.maketrans("", "", "0123456789abcdef")
"""Deletes the characters of a lower-case hex digest (``SHA256_PATTERN``): nothing is left of a valid one."""
_SIZE_LIMIT = 1 << 63


class _Entries(NamedTuple):
    """bundle.json's ``files`` entries as columns, in bundle.json order."""

    paths: list[str]
    sha256s: list[str]
    sizes: list[int]


def _plain_file_entries(files: Any) -> _Entries | None:
    """bundle.json's ``files`` as columns when every entry is certainly a valid ``BundleFile`` (an object
    with exactly the keys path, sha256 and size, a path of its pattern, 64 lower-case hex digits, an
    integer from 0), else ``None`` (then the model says what is wrong). Checked for all entries at once:
    the paths joined by newlines (which no valid path holds) and matched by one regular expression."""
    if type(files) is not list or len(files) < 2:
        return None
    try:
        if set(map(len, files)) != {3}:
            return None
        # exactly path, sha256 and size (a list or text of three raises TypeError)
        paths, shas, sizes = list(map(_PATH_OF, files)), list(map(_SHA256_OF, files)), list(map(_SIZE_OF, files))
    except (TypeError, KeyError):
        return None
    if set(map(type, paths)) != {str} or set(map(type, shas)) != {str} or set(map(type, sizes)) != {int}:
        return None  # type(...) is int: true and false are not sizes; 3.0 is left to the model
    if min(sizes) < 0 or max(sizes) >= _SIZE_LIMIT:
        return None
    joined = "\n".join(paths)
    if joined.count("\n") != len(paths) - 1 or not _PATH_LINES.fullmatch(joined):
        return None
    if set(map(len, shas)) != {64} or "".join(shas).translate(_NOT_HEX):
        return None
    return _Entries(paths, shas, sizes)


_PLAIN_DECODER = json.JSONDecoder()
"""Python's JSON parser without the strict parser's hooks: objects are built in C (the duplicate-key hook
was a Python call per object: 10,000 for a 10,000-task bundle.json). See :func:`_load_manifest`."""


def _load_manifest(data: bytes, mdisp: str) -> tuple[BundleManifest, _Entries]:
    """bundle.json checked: the manifest and its ``files`` entries (as columns, in order).

    The fast way, taken only when all of this holds, gives what :func:`load_bytes` gives (the model keeps
    two entries; :class:`OpenedBundle` keeps none):

    - no ``\\u`` escape anywhere (so no surrogate escape, and every character of a parsed string is one
      of the text);
    - the text is UTF-8 without BOM and JSON (the same parser as the strict one, without its hooks);
    - every ``files`` entry is plainly valid (:func:`_plain_file_entries`) and the rest valid for the model:
      then the document is at most three levels deep (all the strict nesting check would add), and holds no
      NaN or float (the model takes none: what the strict number hooks refuse);
    - no key appears twice in an object: every colon of the text separates a key from its value or is
      inside a string, so the colons of the text less those of the parsed strings count the keys of the
      text; that count equals the keys of the parsed objects only if no object lost a repeated key.

    Anything else, and every error, goes through :func:`load_bytes` (strict JSON, then the whole model),
    whose messages are the ones shown.
    """
    try:
        if b"\\u" not in data:
            obj = _PLAIN_DECODER.decode(strict_json.decode_text(data, mdisp))
            entries = _plain_file_entries(obj.get("files")) if type(obj) is dict else None
            if entries is not None:
                manifest = validate_obj(BundleManifest, {**obj, "files": obj["files"][:2]}, mdisp)
                # The parsed strings: top-level values, task ids, paths (keys are field names, digests hex).
                string_colons = (
                    sum(value.count(":") for value in obj.values() if type(value) is str)
                    + "".join(manifest.task_order).count(":")
                    + "".join(entries.paths).count(":")
                )
                if data.count(b":") - string_colons == len(obj) + 3 * len(entries.paths):
                    return manifest, entries
    except (DocumentError, ValueError, RecursionError):
        pass
    manifest = load_bytes(BundleManifest, data, mdisp)
    files = manifest.files
    return manifest, _Entries([f.path for f in files], [f.sha256 for f in files], [f.size for f in files])


def _cross_checks_pass(sizes: dict[str, int], entries: _Entries, task_order: list[str]) -> bool:
    """True when the entry-by-entry checks of :func:`_cross_check_problems` would find nothing: set and
    dict comparisons (the paths are valid ``BundleFile`` paths: ``rubric.json`` or ``tasks/<id>.json``)."""
    listed = dict(zip(entries.paths, entries.sizes, strict=True))
    if len(listed) != len(entries.paths) or RUBRIC_NAME not in listed:
        return False  # a path listed twice, or no rubric
    if not listed.items() <= sizes.items():
        return False  # listed but missing, or another size
    # Each path but rubric.json (listed once) is tasks/<id>.json, <id> without "/" or a newline: the ids of
    # the task files are the paths joined by newlines less rubric.json's line, "tasks/" after each newline
    # and ".json" before each.
    lines = ("\n" + "\n".join(entries.paths) + "\n").replace(f"\n{RUBRIC_NAME}\n", "\n", 1)
    file_ids = lines.replace("\ntasks/", "\n").replace(".json\n", "\n")[1:-1].split("\n")
    order = set(task_order)
    if not len(file_ids) == len(order) == len(task_order) or not order.issuperset(file_ids):
        return False  # a task without a file, a task file not in task_order, a task listed twice
    return len(sizes) == len(listed) + 1 and MANIFEST_NAME in sizes  # no unlisted file (listed <= present)


def _cross_check_problems(
    source: _Source,
    mdisp: str,
    names: Iterable[str],
    entries: _Entries,
    task_order: list[str],
) -> tuple[list[Problem], dict[str, int]]:
    """Every disagreement between bundle.json and the files present, in the order they are reported;
    and the index of each listed path's first entry."""
    names = set(names)
    problems: list[Problem] = []
    listed: dict[str, int] = {}
    for i, (path, size) in enumerate(zip(entries.paths, entries.sizes, strict=True)):
        if path in listed:
            problems.append(Problem(mdisp, f"files[{i}].path", f"{path!r} is listed twice"))
            continue
        listed[path] = i
        if path not in names:
            problems.append(Problem(mdisp, f"files[{i}].path", f"{path!r} is listed but not in the bundle"))
        elif source.size(path) != size:
            problems.append(
                Problem(
                    source.display(path),
                    "",
                    f"is {source.size(path)} bytes but bundle.json says {size}: the bundle was changed "
                    "or damaged",
                )
            )
    if RUBRIC_NAME not in listed:
        problems.append(Problem(mdisp, "files", "rubric.json is not listed"))
    seen_tasks: set[str] = set()
    for i, task_id in enumerate(task_order):
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
    return problems, listed


def open_bundle(path: Path, limits: Limits = DEFAULT_LIMITS) -> OpenedBundle:
    """Open a ``.wmcdp``/``.zip`` bundle or a bundle folder. See the module docstring.

    Raises :class:`DocumentError` with every problem found (each naming the file and JSON path).
    """
    # Opening 10,000 tasks makes tens of thousands of short-lived tuples, dicts and lists; in the app (some
    # 45,000 tracked objects) the collections they set off took 20-30 ms of about 100 (benchmarks/).
    with gc_paused():
        return _open_bundle(Path(path), limits)


def _open_bundle(path: Path, limits: Limits) -> OpenedBundle:
    source = _open_source(path, limits)
    sizes = source.sizes()
    names = sizes.keys()
    if MANIFEST_NAME not in names:
        hint = ""
        nested = sorted(n for n in names if n.endswith("/" + MANIFEST_NAME))
        if nested:
            hint = f" (found {nested[0]!r}: the bundle folder was zipped with an extra folder level)"
        raise DocumentError.single(source.label, f"is not a WM-CDP bundle: bundle.json is missing{hint}")
    manifest_bytes = source.read(MANIFEST_NAME)
    mdisp = source.display(MANIFEST_NAME)
    manifest, entries = _load_manifest(manifest_bytes, mdisp)
    manifest_sha256 = sha256_hex(manifest_bytes)
    del manifest_bytes  # 1.8 MB for 10,000 tasks: not kept while the rest is checked

    major = manifest.format_version.split(".", 1)[0]
    if major != str(SUPPORTED_FORMAT_MAJOR):
        raise DocumentError.single(
            mdisp,
            f"bundle format {manifest.format_version} is not supported by this version of the app "
            f"(it reads {SUPPORTED_FORMAT_MAJOR}.x); please update the app",
            "format_version",
        )
    if _cross_checks_pass(sizes, entries, manifest.task_order):
        problems: list[Problem] = []
        files = dict(zip(entries.paths, zip(entries.sha256s, entries.sizes, strict=True), strict=True))
    else:
        problems, listed = _cross_check_problems(source, mdisp, names, entries, manifest.task_order)
        files = {path: (entries.sha256s[i], entries.sizes[i]) for path, i in listed.items()}  # first entries
    del entries
    rubric: Rubric | None = None
    if RUBRIC_NAME in files and RUBRIC_NAME in names:
        try:
            data = source.read(RUBRIC_NAME)
            if sha256_hex(data) != files[RUBRIC_NAME][0]:
                problems.append(
                    Problem(source.display(RUBRIC_NAME), "", "does not match the SHA-256 in bundle.json: changed or damaged")
                )
            else:
                rubric = load_bytes(Rubric, data, source.display(RUBRIC_NAME))
        except DocumentError as exc:
            problems.extend(exc.problems)
    if problems or rubric is None:
        raise DocumentError(problems or [Problem(source.label, "", "rubric.json cannot be read")])
    return OpenedBundle(path, source, manifest, manifest_sha256, rubric, files)
