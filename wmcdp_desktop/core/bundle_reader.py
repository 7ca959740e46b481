"""Opening a rater bundle (``.wmcdp`` zip or a plain folder) safely and lazily.

Layout (FORMATS.md section 4): ``bundle.json`` (:class:`BundleManifest`), ``rubric.json`` and
``tasks/<task_id>.json``; ``bundle.json`` lists every other file with its size and SHA-256.

:func:`open_bundle` checks the container (zip safety, or no symlinks / nothing outside a folder), reads
and validates ``bundle.json`` and ``rubric.json`` and cross-checks the manifest against the files present,
but does not read any task: :meth:`OpenedBundle.task` reads, hash-checks and validates one task on first
access (then keeps the last :data:`TASK_CACHE_SIZE` tasks used), so a 10,000-task bundle opens as fast as
a 10-task one and memory does not grow with the tasks read.
:meth:`OpenedBundle.verify` checks everything.

bundle.json is read by the strict JSON reader; before the model validates it, its ``files`` and
``task_order`` arrays are measured against the files present (a small hostile bundle.json holding a
million empty entries is refused at once); then the model validates it whole and every entry is checked
against the files present, one by one.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from wmcdp_desktop.core.digests import sha256_digest, sha256_hex
from wmcdp_desktop.core.documents import json_values_at_most, load_bytes, validate_obj
from wmcdp_desktop.core.errors import MAX_PROBLEMS_PER_DOCUMENT, DocumentError, Problem, capped
from wmcdp_desktop.core.files import (
    FileTooLargeError,
    NotRegularFileError,
    describe_bytes,
    open_regular,
    read_regular,
)
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.core.strict_json import parse_json_bytes
from wmcdp_desktop.core.zips.reader import MAX_FILE_SLACK, SafeZip, open_zip_bytes, open_zip_file
from wmcdp_desktop.core.zips.rules import DEFAULT_LIMITS, Limits, fold_name, name_problem

if TYPE_CHECKING:
    from wmcdp_desktop.core.encryption.bundle_envelope import SessionKeys

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


class _Source(Protocol):
    label: str

    def names(self) -> list[str]: ...
    def sizes(self) -> dict[str, int]: ...
    def size(self, name: str) -> int: ...
    def read(self, name: str) -> bytes: ...
    def display(self, name: str) -> str: ...


class _ZipSource:
    """A bundle zip: a file read member by member, or (``data``) bytes held in memory (a decrypted bundle,
    which is never written anywhere)."""

    def __init__(self, path: Path, limits: Limits, data: bytes | None = None) -> None:
        self.label = path.name
        self._zip: SafeZip = open_zip_file(path, self.label, limits) if data is None else open_zip_bytes(data, self.label, limits)
        self.in_memory = data is not None
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
            return read_regular(path, self._limits.max_member_bytes)
        except FileTooLargeError:
            raise DocumentError.single(self.display(name), "is too large for a bundle file") from None
        except NotRegularFileError as exc:
            raise DocumentError.single(self.display(name), str(exc.strerror)) from None
        except OSError as exc:
            raise DocumentError.single(self.display(name), f"cannot be read ({exc.strerror or exc})") from None


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
        digests: dict[str, bytes],
    ) -> None:
        self.path = path
        self.digests = digests
        """Every file listed in bundle.json: path -> its SHA-256 (32 bytes), in bundle.json order. (Sizes were
        compared with the files present when the bundle opened; the digest is checked on every read.)"""
        self.manifest = manifest.model_copy(update={"files": []})
        """bundle.json, checked, without its per-file entries: those are :attr:`digests` (a 10,000-task bundle
        would otherwise keep 10,000 small models alive: about 4 MB of the app's peak memory)."""
        self.manifest_sha256 = manifest_sha256
        self.rubric = rubric
        self.task_ids: list[str] = list(manifest.task_order)
        self._source = source
        self._cache: OrderedDict[str, Task] = OrderedDict()
        """The tasks used last, most recent at the end (at most TASK_CACHE_SIZE)."""
        self._lock = threading.Lock()
        self.bundle_key: bytes | None = None
        """The key that decrypted the bundle's file (an encrypted bundle's; :func:`open_encrypted_bundle`), so that
        the app's own check process can decrypt it again in its memory; None for a plain bundle."""

    @property
    def is_folder(self) -> bool:
        """True for a plain folder bundle, False for a ``.wmcdp`` zip."""
        return isinstance(self._source, _FolderSource)

    @property
    def in_memory(self) -> bool:
        """True for a bundle opened from bytes in memory (an encrypted bundle, decrypted): its file on disk is not
        a zip another process could open again as it is."""
        return isinstance(self._source, _ZipSource) and self._source.in_memory

    def __len__(self) -> int:
        return len(self.task_ids)

    @property
    def tasks_in_memory(self) -> tuple[str, ...]:
        """The ids of the tasks kept in memory, the least recently used first (at most TASK_CACHE_SIZE): what
        :meth:`task` gives back without reading the bundle again."""
        with self._lock:
            return tuple(self._cache)

    def has_task(self, task_id: str) -> bool:
        """Whether ``task_id`` is one of the bundle's tasks (a dict lookup; ``task_ids`` is a list)."""
        return task_path(task_id) in self.digests

    def display(self, name: str) -> str:
        """How a file of this bundle is named in messages (``bundle.wmcdp!tasks/x.json``)."""
        return self._source.display(name)

    def _checked_bytes(self, name: str) -> bytes:
        data = self._source.read(name)
        if sha256_digest(data) != self.digests[name]:
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
        if not self.has_task(task_id):
            raise KeyError(task_id)
        name = task_path(task_id)
        data = self._checked_bytes(name)
        task = _load_bounded(Task, data, self.display(name))
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

    def manifest_unchanged(self) -> bool:
        """Whether bundle.json still has the bytes it had when the bundle was opened (a zip that changed at
        all is refused on its next read anyway; a folder's bundle.json is read again and hashed)."""
        try:
            return sha256_hex(self._source.read(MANIFEST_NAME)) == self.manifest_sha256
        except DocumentError:
            return False

    def verify(self, progress: Callable[[int, int], None] | None = None) -> Verification:
        """Every file's size and SHA-256, every task valid and named as its file, no candidate response id
        used by two tasks; and how many tasks are calibration tasks. Each file is read once and no task is
        kept (a 10,000-task bundle would otherwise be held in memory whole).

        ``progress(done, total)`` is called after each file when given.
        """
        problems: list[Problem] = []
        responses: dict[str, str] = {}
        calibration = 0
        names = list(self.digests)
        total = len(names)
        for done, name in enumerate(names, start=1):
            try:
                data = self._checked_bytes(name)
                if name == RUBRIC_NAME:
                    _load_bounded(Rubric, data, self.display(name))
                else:
                    task_id = name.removeprefix("tasks/").removesuffix(".json")
                    task = _load_bounded(Task, data, self.display(name))
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


MANIFEST_VALUES_PER_FILE = 16
"""JSON values (objects, arrays, list items) bundle.json may hold per file of the bundle, counted before it is
parsed: a file's entry in ``files`` takes 4 and a task's place in ``task_order`` 1."""
MANIFEST_VALUES_EXTRA = 2_000
"""And beyond those: the other fields, and the entries of a few files missing (each then named)."""


def _array_length_problems(obj: Any, files_present: int, mdisp: str) -> list[Problem]:
    """bundle.json's ``files`` and ``task_order`` measured before the model reads them. Every file listed and
    every task needs a file of the bundle other than bundle.json; an array longer than that by more than
    the problems listed for one document (a small hostile file can hold a million empty entries) is refused
    at once, in one line. A few files missing are each named by the checks after the model."""
    if not isinstance(obj, dict):
        return []
    most = files_present - 1
    problems = []
    for key, what in (("files", "files"), ("task_order", "tasks")):
        value = obj.get(key)
        if isinstance(value, list) and len(value) > most + MAX_PROBLEMS_PER_DOCUMENT:
            problems.append(Problem(
                mdisp, key, f"lists {len(value)} {what} but the bundle holds only {most} files besides bundle.json"
            ))
    return problems


MAX_DOCUMENT_VALUES = 200_000
"""JSON values (objects, arrays, list items) a task or a rubric may hold, counted before it is parsed (issue 25:
a 50 MB task of tiny objects cost ``bundle verify`` 646 MB). A task at every other limit (2,000 turns, long texts)
holds a few tens of thousands."""
_D = TypeVar("_D", Task, Rubric)


def _load_bounded(model: type[_D], data: bytes, source: str) -> _D:
    """:func:`load_bytes`, after checking that ``data`` holds at most :data:`MAX_DOCUMENT_VALUES` JSON values."""
    if not json_values_at_most(data, MAX_DOCUMENT_VALUES):
        raise DocumentError.single(source, f"holds more than {MAX_DOCUMENT_VALUES:,} JSON values; a task or a rubric has "
                                           "a few thousand (not read)")
    return load_bytes(model, data, source)


def _load_manifest(source: _Source, mdisp: str, files_present: int) -> tuple[BundleManifest, str]:
    """bundle.json read strictly, its arrays measured against the files present, then validated; and its
    SHA-256. Its bytes (1.8 MB for 10,000 tasks) are let go before the model is built."""
    data = source.read(MANIFEST_NAME)
    if not json_values_at_most(data, MANIFEST_VALUES_PER_FILE * files_present + MANIFEST_VALUES_EXTRA):
        # Before parsing: a million empty entries take 3 bytes of JSON each and 64 of memory once parsed.
        raise DocumentError.single(mdisp, f"is far larger than a bundle of {files_present} files needs (not read)")
    sha256 = sha256_hex(data)
    obj = parse_json_bytes(data, mdisp)
    del data
    problems = _array_length_problems(obj, files_present, mdisp)
    if problems:
        raise DocumentError(problems)
    return validate_obj(BundleManifest, obj, mdisp), sha256


def _cross_check_problems(
    source: _Source, mdisp: str, sizes: dict[str, int], manifest: BundleManifest, listed: dict[str, int]
) -> Iterator[Problem]:
    """Every disagreement between bundle.json and the files present, in the order they are reported;
    fills ``listed`` with the index of each listed path's first entry."""
    for i, entry in enumerate(manifest.files):
        path = entry.path
        if path in listed:
            yield Problem(mdisp, f"files[{i}].path", f"{path!r} is listed twice")
            continue
        listed[path] = i
        if path not in sizes:
            yield Problem(mdisp, f"files[{i}].path", f"{path!r} is listed but not in the bundle")
        elif sizes[path] != entry.size:
            yield Problem(
                source.display(path),
                "",
                f"is {sizes[path]} bytes but bundle.json says {entry.size}: the bundle was changed or damaged",
            )
    if RUBRIC_NAME not in listed:
        yield Problem(mdisp, "files", "rubric.json is not listed")
    seen_tasks: set[str] = set()
    for i, task_id in enumerate(manifest.task_order):
        if task_id in seen_tasks:
            yield Problem(mdisp, f"task_order[{i}]", f"task {task_id!r} appears more than once")
        seen_tasks.add(task_id)
        if task_path(task_id) not in listed:
            yield Problem(mdisp, f"task_order[{i}]", f"task {task_id!r} has no file in files")
    for name, i in listed.items():
        if name.startswith("tasks/") and name.removeprefix("tasks/").removesuffix(".json") not in seen_tasks:
            yield Problem(mdisp, f"files[{i}].path", f"{name!r} is not in task_order")
    for name in sorted(sizes.keys() - listed.keys() - {MANIFEST_NAME}):
        yield Problem(source.display(name), "", "is not listed in bundle.json (unexpected file)")


def open_bundle(path: Path, limits: Limits = DEFAULT_LIMITS) -> OpenedBundle:
    """Open a ``.wmcdp``/``.zip`` bundle or a bundle folder. See the module docstring.

    Raises :class:`DocumentError` with every problem found (each naming the file and JSON path; at most
    :data:`~wmcdp_desktop.core.errors.MAX_PROBLEMS_PER_DOCUMENT` of those of bundle.json).
    """
    path = Path(path)
    return _opened(path, _open_source(path, limits))


def open_bundle_bytes(data: bytes, path: Path, limits: Limits = DEFAULT_LIMITS) -> OpenedBundle:
    """Open a bundle zip held in memory (an encrypted bundle once decrypted: its plain bytes are never written to
    disk); ``path`` is the file it came from, which names it in messages. The same checks as :func:`open_bundle`."""
    path = Path(path)
    if len(data) > limits.max_total_bytes + MAX_FILE_SLACK:
        raise DocumentError.single(path.name, f"is larger than {describe_bytes(limits.max_total_bytes)}; not a bundle")
    return _opened(path, _ZipSource(path, limits, data))


def read_encrypted_bundle(path: Path) -> bytes | None:
    """The whole file ``path`` when it is an encrypted bundle (it begins with the envelope's mark), else None (a zip,
    a folder, anything else: :func:`open_bundle` reads and judges those). Only the first bytes are read from a file
    that is not one; an encrypted file larger than any bundle is refused before it is read (DocumentError)."""
    from wmcdp_desktop.core.encryption.bundle_envelope import HEADER_SIZE, MAX_ENCRYPTED_BYTES, is_encrypted

    path = Path(path)
    try:
        fd, st = open_regular(path)
    except (OSError, NotRegularFileError):
        return None  # a folder, a pipe, a missing file: open_bundle says what it is
    try:
        head = os.read(fd, 64)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not is_encrypted(head):
        return None
    if st.st_size > MAX_ENCRYPTED_BYTES + HEADER_SIZE:
        raise DocumentError.single(path.name, f"is larger than {describe_bytes(MAX_ENCRYPTED_BYTES)}; not a bundle")
    try:
        return read_regular(path, MAX_ENCRYPTED_BYTES + HEADER_SIZE)
    except FileTooLargeError:
        raise DocumentError.single(path.name, f"is larger than {describe_bytes(MAX_ENCRYPTED_BYTES)}; not a bundle") from None
    except OSError as exc:
        raise DocumentError.single(path.name, f"cannot be read ({exc.strerror or exc})") from None


def open_encrypted_bundle(data: bytes, keys: SessionKeys, path: Path, limits: Limits = DEFAULT_LIMITS) -> OpenedBundle:
    """The encrypted bundle ``data`` (read from ``path``) decrypted in memory with ``keys`` and opened as
    :func:`open_bundle_bytes` opens a zip; nothing is written anywhere. Raises WrongPassphraseError when the keys do
    not open it (a wrong passphrase, or the file was changed), DocumentError for a damaged header or bundle."""
    from wmcdp_desktop.core.encryption.bundle_envelope import decrypt_bundle

    path = Path(path)
    opened = open_bundle_bytes(decrypt_bundle(data, keys, path.name), path, limits)
    opened.bundle_key = keys.bundle_key
    return opened


def _opened(path: Path, source: _Source) -> OpenedBundle:
    sizes = source.sizes()
    names = sizes.keys()
    if MANIFEST_NAME not in names:
        hint = ""
        nested = sorted(n for n in names if n.endswith("/" + MANIFEST_NAME))
        if nested:
            hint = f" (found {nested[0]!r}: the bundle folder was zipped with an extra folder level)"
        raise DocumentError.single(source.label, f"is not a WM-CDP bundle: bundle.json is missing{hint}")
    mdisp = source.display(MANIFEST_NAME)
    manifest, manifest_sha256 = _load_manifest(source, mdisp, len(sizes))

    major = manifest.format_version.split(".", 1)[0]
    if major != str(SUPPORTED_FORMAT_MAJOR):
        raise DocumentError.single(
            mdisp,
            f"bundle format {manifest.format_version} is not supported by this version of the app "
            f"(it reads {SUPPORTED_FORMAT_MAJOR}.x); please update the app",
            "format_version",
        )
    listed: dict[str, int] = {}
    problems = capped(_cross_check_problems(source, mdisp, sizes, manifest, listed))
    # The first entry of each path; the path strings are the source's own (one string per name in memory).
    names_present = {name: name for name in sizes}
    digests = {names_present.get(path, path): bytes.fromhex(manifest.files[i].sha256) for path, i in listed.items()}
    del names_present
    rubric: Rubric | None = None
    if RUBRIC_NAME in digests and RUBRIC_NAME in sizes:
        try:
            data = source.read(RUBRIC_NAME)
            if sha256_digest(data) != digests[RUBRIC_NAME]:
                problems.append(
                    Problem(source.display(RUBRIC_NAME), "", "does not match the SHA-256 in bundle.json: changed or damaged")
                )
            else:
                rubric = _load_bounded(Rubric, data, source.display(RUBRIC_NAME))
        except DocumentError as exc:
            problems.extend(exc.problems)
    if problems or rubric is None:
        raise DocumentError(problems or [Problem(source.label, "", "rubric.json cannot be read")])
    return OpenedBundle(path, source, manifest, manifest_sha256, rubric, digests)
