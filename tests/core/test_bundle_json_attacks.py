"""Security review of open_bundle's fast way through bundle.json (core/bundle_reader.py).

bundle.json without ``\\u`` escapes is parsed without the strict parser's duplicate-key hook (repeated keys
found by counting colons), its ``files`` entries are checked by regular expressions over the joined paths
and by ``str.translate``, and the cross-checks are string and set operations. Each attack here is a
bundle.json written the way an attacker would write it; the fast way must give exactly what the strict
way gives (``load_bytes``: strict JSON with its hooks, then the whole model): the same manifest and entries,
or the same messages. End to end, open_bundle must give what open_bundle before the fast way gave.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.studyfix import bundle_files, task_obj
from tests.core.old_open_bundle import outcome, reference_open_bundle
from wmcdp_desktop.core import bundle_reader
from wmcdp_desktop.core.bundle_reader import (
    _PATH_LINES,
    MANIFEST_NAME,
    RUBRIC_NAME,
    _load_manifest,
    open_bundle,
    task_path,
)
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.reader import deterministic_zip

MDISP = "b.wmcdp!bundle.json"
FILES = bundle_files(4)
BASE = FILES["bundle.json"].decode()
OBJ = json.loads(BASE)
SHA3 = OBJ["files"][3]["sha256"]


def _as_outcome(manifest: BundleManifest, paths: list[str], shas: list[str], sizes: list[int]) -> object:
    return ("ok", manifest.model_copy(update={"files": []}).to_json_obj(), paths, shas, sizes)


def fast_way(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[object, bool]:
    """What _load_manifest gives, and whether it got there without the strict way (load_bytes)."""
    calls: list[int] = []
    real = bundle_reader.load_bytes

    def counting(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    with monkeypatch.context() as m:
        m.setattr(bundle_reader, "load_bytes", counting)
        try:
            manifest, entries = _load_manifest(data, MDISP)
        except DocumentError as exc:
            return ("rejected", [str(p) for p in exc.problems]), not calls
    return _as_outcome(manifest, list(entries.paths), list(entries.sha256s), list(entries.sizes)), not calls


def strict_way(data: bytes) -> object:
    try:
        manifest = load_bytes(BundleManifest, data, MDISP)
    except DocumentError as exc:
        return ("rejected", [str(p) for p in exc.problems])
    files = manifest.files
    return _as_outcome(manifest, [f.path for f in files], [f.sha256 for f in files], [f.size for f in files])


def last_size(text: str, value: str) -> str:
    """``text`` with the value of its last ``"size"`` replaced by ``value``."""
    i = text.rindex('"size": ') + len('"size": ')
    j = i
    while text[j].isdigit():
        j += 1
    return text[:i] + value + text[j:]


def dup_in_entry(key: str, value: str, entry: int = 3) -> str:
    """BASE with ``"key": value,`` put first into the ``entry``-th files entry (a repeated key)."""
    pos = -1
    for _ in range(entry + 1):
        pos = BASE.index('{\n      "path"', pos + 1)
    return BASE[: pos + 1] + f'"{key}": {value}, ' + BASE[pos + 1 :]


def top(pair: str) -> str:
    """BASE with ``pair,`` put first into the top-level object."""
    return "{" + pair + "," + BASE[1:]


ATTACKS: dict[str, tuple[str | bytes, bool]] = {
    # id: (bundle.json, the fast way takes it)
    "control": (BASE, True),
    "control-compact": (json.dumps(OBJ, separators=(",", ":")), True),
    "control-whitespace-around-colons": (BASE.replace('": ', '"\t\r\n :  \n'), True),
    "control-colons-in-values": (top('"rater_role_or_background": "a: b :c::"'), True),
    "colon-in-task-ids": (None, False),  # built below
    # repeated keys, hidden every way colon counting could miss
    "dup-top-same-value": (top('"bundle_id": "B-TEST"'), False),
    "dup-top-title-colons-in-first": (top('"study_title": "a:b:c"'), False),
    "dup-top-title-escaped-quote-colon": (top('"study_title": "x\\":", "study_title" : "y"'), False),
    "dup-top-created-at": (top('"created_at": "2026-11-01T09:00:00Z"'), False),
    "dup-top-task-order": (top('"task_order": ["t0000"]'), False),
    "dup-top-files-empty": (top('"files": []'), False),
    "dup-top-null": (top('"rater_role_or_background": null, "rater_role_or_background": "x"'), False),
    "dup-entry-size": (dup_in_entry("size", "1"), False),
    "dup-entry-size-last-entry": (dup_in_entry("size", "1", entry=len(OBJ["files"]) - 1), False),
    "dup-entry-path-with-colon": (dup_in_entry("path", '"tasks/t:9.json"'), False),
    "dup-entry-sha": (dup_in_entry("sha256", f'"{SHA3}"'), False),
    "dup-entry-first-entry": (dup_in_entry("path", '"rubric.json"', entry=0), False),
    "dup-key-written-with-escape": (top('"bundl\\u0065_id": "X"'), False),
    "dup-key-escaped-solidus": (top('"study_title": "a\\/b"'), False),
    "key-with-colon-extra": (top('"a:b": "c"'), False),
    "key-with-escaped-quote": (top('"study_title\\"": "x"'), False),
    "entry-extra-key-with-colon": (dup_in_entry("no:te", "1"), False),
    "entry-extra-key": (dup_in_entry("note", '"x"'), False),
    # numbers and constants the plain parser takes and the strict one refuses
    "size-nan": (last_size(BASE, "NaN"), False),
    "size-infinity": (last_size(BASE, "Infinity"), False),
    "size-minus-infinity": (last_size(BASE, "-Infinity"), False),
    "size-1e400": (last_size(BASE, "1e400"), False),
    "size-float-integral": (last_size(BASE, "3.0"), False),
    "size-exponent": (last_size(BASE, "1E2"), False),
    "size-minus-zero": (last_size(BASE, "-0"), True),
    "size-negative": (last_size(BASE, "-1"), False),
    "size-2^63": (last_size(BASE, str(2**63)), False),
    "size-2^63-1": (last_size(BASE, str(2**63 - 1)), True),
    "size-5000-digits": (last_size(BASE, "9" * 5000), False),
    "size-true": (last_size(BASE, "true"), False),
    "size-null": (last_size(BASE, "null"), False),
    "size-string": (last_size(BASE, '"66"'), False),
    "nan-in-extra-key": (top('"x": NaN'), False),
    # text encodings
    "bom": ("\ufeff" + BASE, False),
    "latin-1": (top('"rater_role_or_background": "t\u00e9"').encode("latin-1"), False),
    "cesu-surrogate": (top('"rater_role_or_background": "\udcff"').encode("utf-8", "surrogatepass"), False),
    "lone-surrogate-escape": (top('"rater_role_or_background": "\\ud800"'), False),
    "escaped-backslash-then-u": (top('"rater_role_or_background": "\\\\u"'), False),
    "control-character-in-string": (top('"rater_role_or_background": "a\x01b"'), False),
    "nul-after-document": (BASE + "\x00", False),
    "second-document": (BASE + "{}", False),
    "top-level-array": ("[" + BASE + "]", False),
    "empty": ("", False),
    "deep-nesting-in-extra-key": (top('"x": ' + "[" * 50_000 + "]" * 50_000), False),
    "deep-nesting-unclosed": (top('"x": ' + "[" * 50_000), False),
    "deep-nesting-65": (top('"x": ' + "[" * 65 + "]" * 65), False),
    # file entries with unusual paths, digests and shapes
    "path-traversal": (BASE.replace("tasks/t0002.json", "tasks/../t0002.json"), False),
    "path-absolute": (BASE.replace("tasks/t0002.json", "/tasks/t0002.json"), False),
    "path-backslash": (BASE.replace("tasks/t0002.json", "tasks\\\\t0002.json"), False),
    "path-newline-escape": (BASE.replace("tasks/t0002.json", "tasks/t0002.json\\ntasks/t0001.json"), False),
    "path-trailing-newline": (BASE.replace("tasks/t0002.json", "tasks/t0002.json\\n"), False),
    "path-carriage-return": (BASE.replace("tasks/t0002.json", "tasks/t0002.json\\r"), False),
    "path-tab": (BASE.replace("tasks/t0002.json", "tasks/t0002\\t.json"), False),
    "path-unicode": (BASE.replace("tasks/t0002.json", "tasks/t0002\u00e9.json"), False),
    "path-fullwidth-digit": (BASE.replace("tasks/t0002.json", "tasks/t\uff10002.json"), False),
    "path-arabic-digit": (BASE.replace("tasks/t0002.json", "tasks/t\u0660002.json"), False),
    "path-kelvin": (BASE.replace("tasks/t0002.json", "tasks/\u212a0002.json"), False),
    "path-bundle-json": (BASE.replace("tasks/t0002.json", "bundle.json"), False),
    "path-trailing-dot": (BASE.replace("tasks/t0002.json", "tasks/t0002.json."), False),
    "path-trailing-space": (BASE.replace("tasks/t0002.json", "tasks/t0002.json "), False),
    "path-dot-id": (BASE.replace("tasks/t0002.json", "tasks/..json"), False),
    "path-128-char-id": (BASE.replace("tasks/t0002.json", "tasks/" + "a" * 128 + ".json"), True),
    "path-129-char-id": (BASE.replace("tasks/t0002.json", "tasks/" + "a" * 129 + ".json"), False),
    "path-rubric-uppercase": (BASE.replace('"rubric.json"', '"RUBRIC.json"', 1), False),
    "path-empty": (BASE.replace("tasks/t0002.json", ""), False),
    "sha-uppercase": (BASE.replace(SHA3, SHA3.upper()), False),
    "sha-short": (BASE.replace(SHA3, SHA3[:-1]), False),
    "sha-long": (BASE.replace(SHA3, SHA3 + "0"), False),
    "sha-arabic-digit": (BASE.replace(SHA3, SHA3[:-1] + "\u0661"), False),
    "sha-fullwidth": (BASE.replace(SHA3, SHA3[:-1] + "\uff41"), False),
    "sha-with-newline": (BASE.replace(SHA3, SHA3[:-1] + "\\n"), False),
    "entry-as-list": (None, False),
    "entry-as-3-char-string": (None, False),
    "entry-null": (None, False),
    "files-as-object": (None, False),
    "files-one-entry": (None, False),
    "entry-missing-key": (None, False),
    "task-order-empty": (None, False),
    "task-order-dup": (None, True),  # valid for the model; the cross-checks report it (end to end below)
    "extra-top-level-key": (top('"files2": []'), False),
    "explicit-null-rater": (top('"rater_role_or_background": null'), False),
}


def _mutated(change: Any) -> str:
    obj = json.loads(BASE)
    change(obj)
    return json.dumps(obj, indent=2)


def _colon_ids(o: dict[str, Any]) -> None:
    o["task_order"] = ["T1:a", "T2::b", *o["task_order"][2:]]
    o["files"][1]["path"], o["files"][2]["path"] = "tasks/T1:a.json", "tasks/T2::b.json"


# ':' is no longer allowed in an id (a drive or an NTFS stream on Windows): the strict way refuses these ids
# and the fast way leaves them to it.
ATTACKS["colon-in-task-ids"] = (_mutated(_colon_ids), False)
ATTACKS["entry-as-list"] = (_mutated(lambda o: o["files"].__setitem__(3, [1, 2, 3])), False)
ATTACKS["entry-as-3-char-string"] = (_mutated(lambda o: o["files"].__setitem__(3, "abc")), False)
ATTACKS["entry-null"] = (_mutated(lambda o: o["files"].__setitem__(3, None)), False)
ATTACKS["files-as-object"] = (_mutated(lambda o: o.__setitem__("files", {"a": o["files"][0]})), False)
ATTACKS["files-one-entry"] = (_mutated(lambda o: o.__setitem__("files", o["files"][:1])), False)
ATTACKS["entry-missing-key"] = (_mutated(lambda o: o["files"][3].pop("sha256")), False)
ATTACKS["task-order-empty"] = (_mutated(lambda o: o.__setitem__("task_order", [])), False)
ATTACKS["task-order-dup"] = (_mutated(lambda o: o["task_order"].append("t0000")), True)


@pytest.mark.parametrize(("text", "fast"), [pytest.param(t, f, id=k) for k, (t, f) in ATTACKS.items()])
def test_bundle_json_attack_same_as_the_strict_way(text: str | bytes, fast: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    new, took_fast = fast_way(data, monkeypatch)
    assert new == strict_way(data)
    assert took_fast is fast


# ----- repeated keys anywhere, with any values: colon counting must never lose one ------------------------
KEYS = ["document_type", "format_version", "bundle_id", "study_id", "study_title", "rater_id",
        "rater_role_or_background", "created_at", "task_order", "files", "path", "sha256", "size", "x:y", "a\\\":"]
VALUES = ['"a:b"', '":"', '"::::"', '""', "1", "null", "[]", '["a:b"]', '{"k:": ":"}', '"\\":\\""', "true",
          '"2026-11-01T09:00:00Z"', '"tasks/t:1.json"', '{"a": 1, "a": 2}']


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.integers(0, 10_000), key=st.sampled_from(KEYS), value=st.sampled_from(VALUES),
       second=st.sampled_from(["first", "last"]), space=st.sampled_from(["", " ", "\n\t "]))
def test_a_repeated_key_is_never_lost(where: int, key: str, value: str, second: str, space: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Put a pair into one object of bundle.json (the top level or a files entry), first or last; if the key
    # is already there, it is repeated.
    openings = [m.end() for m in re.finditer(r"\{", BASE)]
    closings = [m.start() for m in re.finditer(r"\}", BASE)]
    if second == "first":
        at = openings[where % len(openings)]
        text = BASE[:at] + f'"{key}"{space}:{space}{value},' + BASE[at:]
    else:
        at = closings[where % len(closings)]
        text = BASE[:at] + f',"{key}"{space}:{space}{value}' + BASE[at:]
    data = text.encode()
    new, _ = fast_way(data, monkeypatch)
    assert new == strict_way(data)


# ----- cross-checks end to end, against open_bundle before the fast way ---------------------------------------
def bundle(task_ids: list[str], *, order: list[str] | None = None, extra_files: dict[str, bytes] | None = None,
           listed: list[str] | None = None, edit: Any = None) -> dict[str, bytes]:
    """A bundle with these task files; ``order`` (default: the ids) as task_order, ``listed`` (default:
    every file) in files, ``edit(manifest)`` applied last."""
    files: dict[str, bytes] = {RUBRIC_NAME: FILES[RUBRIC_NAME]}
    for task_id in task_ids:
        files[task_path(task_id)] = dumps_canonical(task_obj(task_id)).encode()
    manifest: dict[str, Any] = {**OBJ, "task_order": order if order is not None else task_ids}
    names = listed if listed is not None else sorted(files)
    manifest["files"] = [{"path": n, "sha256": hashlib.sha256(files.get(n, b"")).hexdigest(),
                          "size": len(files.get(n, b""))} for n in names]
    if edit is not None:
        edit(manifest)
    files.update(extra_files or {})
    files[MANIFEST_NAME] = dumps_canonical(manifest).encode()
    return files


def _size_plus_one(m: dict[str, Any]) -> None:
    m["files"][-1]["size"] += 1


CROSS = {
    "control": bundle(["a", "b", "c"]),
    "id-ending-in-.json": bundle(["a.json", "b"]),
    "ids-a-and-a.json": bundle(["a", "a.json", "a.json.json"]),
    "id-rubric": bundle(["rubric", "b"]),
    "id-tasks": bundle(["tasks", "b"]),
    "ids-with-colons": bundle(["T1:a", "T1::a", "x:tasks"]),
    "id-json": bundle(["json", ".json"[1:] + "x"]),
    "order-names-a.json-file-is-a": bundle(["a", "b"], order=["a.json", "b"]),
    "order-names-a-file-is-a.json": bundle(["a.json", "b"], order=["a", "b"]),
    "order-duplicate": bundle(["a", "b"], order=["a", "b", "a"]),
    "order-missing-one": bundle(["a", "b"], order=["a"]),
    "order-extra-one": bundle(["a", "b"], order=["a", "b", "c"]),
    "order-extra-swapped-for-missing": bundle(["a", "b"], order=["a", "c"]),
    "listed-twice": bundle(["a", "b"], listed=[RUBRIC_NAME, "tasks/a.json", "tasks/a.json", "tasks/b.json"]),
    "rubric-listed-twice": bundle(["a", "b"], listed=[RUBRIC_NAME, "tasks/a.json", RUBRIC_NAME, "tasks/b.json"]),
    "rubric-not-listed": bundle(["a", "b"], listed=["tasks/a.json", "tasks/b.json"]),
    "listed-but-missing": bundle(["a", "b"], listed=[RUBRIC_NAME, "tasks/a.json", "tasks/b.json", "tasks/c.json"],
                                 order=["a", "b", "c"]),
    "unlisted-task-file": bundle(["a", "b"], extra_files={"tasks/c.json": b"{}"}),
    "unlisted-other-file": bundle(["a", "b"], extra_files={"notes.txt": b"hi"}),
    "unlisted-nested-bundle-json": bundle(["a", "b"], extra_files={"x/bundle.json": b"{}"}),
    "unlisted-rubric-case-variant": bundle(["a", "b"], extra_files={"tasks/A.json": b"{}"}),
    "folder-entry-in-zip": bundle(["a", "b"], extra_files={"tasks/": b""}),
    "size-differs": bundle(["a", "b"], edit=_size_plus_one),
    "rubric-hash-differs": bundle(["a", "b"], edit=lambda m: m["files"][0].__setitem__("sha256", "0" * 64)),
    "task-order-as-string": bundle(["a", "b"], edit=lambda m: m.__setitem__("task_order", "a")),
}


@pytest.mark.parametrize("files", [pytest.param(f, id=k) for k, f in CROSS.items()])
def test_cross_check_attack_same_as_before(files: dict[str, bytes], tmp_path: Path) -> None:
    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(files))
    new, old = outcome(open_bundle, path), outcome(reference_open_bundle, path)
    assert new == old
    folder = tmp_path / "folder"
    for name, data in files.items():
        if not name.endswith("/"):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
    assert outcome(open_bundle, folder) == outcome(reference_open_bundle, folder)


def test_ids_with_colons_are_refused_by_the_model() -> None:
    # ':' names a drive or an NTFS stream on Windows: no id may hold one (issue 13, item 3).
    files = CROSS["ids-with-colons"]
    with pytest.raises(DocumentError, match=r"task_order\[0\]: 'T1:a' is not a valid id: .*it has ':'"):
        _load_manifest(files[MANIFEST_NAME], MDISP)


def test_cross_check_control_opens() -> None:
    # The attacks above are near misses of bundles that open (so they reach the fast cross-checks).
    for key in ("control", "id-ending-in-.json", "ids-a-and-a.json", "id-rubric"):
        files = CROSS[key]
        manifest, entries = _load_manifest(files[MANIFEST_NAME], MDISP)
        sizes = {n: len(d) for n, d in files.items()}
        assert bundle_reader._cross_checks_pass(sizes, entries, manifest.task_order), key


# ----- no hang ---------------------------------------------------------------------------------------------
def test_path_regex_has_no_catastrophic_backtracking() -> None:
    # 10,000 paths that almost match: each ".json" inside an id is a place the id could end.
    near = "tasks/" + "a.json" * 20 + "a.jso"
    joined = "\n".join(["tasks/" + "a.json" * 20 + "a.json"] * 10_000 + [near])
    start = time.perf_counter()
    assert _PATH_LINES.fullmatch(joined) is None
    assert time.perf_counter() - start < 2.0


def test_a_large_bundle_json_full_of_colons_is_handled_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    obj = json.loads(BASE)
    obj["rater_role_or_background"] = ":" * 2_000_000
    data = json.dumps(obj).encode()
    start = time.perf_counter()
    new, took_fast = fast_way(data, monkeypatch)
    assert took_fast and new == strict_way(data)
    dup = data.replace(b'"bundle_id"', b'"bundle_id": "x", "bundle_id"', 1)
    assert fast_way(dup, monkeypatch)[0] == strict_way(dup)
    assert time.perf_counter() - start < 5.0
