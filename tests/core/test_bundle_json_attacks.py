"""Hostile bundle.json files against open_bundle (core/bundle_reader.py): the strict JSON reader, the model,
then the entry-by-entry checks against the files present.

Each attack is a bundle.json written the way a careless tool or an attacker would write it, put into an
otherwise valid bundle: it is refused with a message naming the field (words asserted below), or it opens
and gives exactly what the standard library's json module reads from it. A tiny bundle.json with a million
entries is refused before the model validates it, in bounded memory; at most 100 problems are listed.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kit.bundles import ASSIGNED_TO_R1, bundle_files, task_obj
from wmcdp_desktop.core.bundle_reader import MANIFEST_NAME, RUBRIC_NAME, OpenedBundle, open_bundle, task_path
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.writer import deterministic_zip

FILES = bundle_files(4, **ASSIGNED_TO_R1)
BASE = FILES["bundle.json"].decode()
OBJ = json.loads(BASE)
SHA3 = OBJ["files"][3]["sha256"]


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


ATTACKS: dict[str, tuple[str | bytes, str | None]] = {
    # id: (bundle.json, words of the refusal, or None: the bundle opens)
    "control": (BASE, None),
    "control-compact": (json.dumps(OBJ, separators=(",", ":")), None),
    "control-whitespace-around-colons": (BASE.replace('": ', '"\t\r\n :  \n'), None),
    "control-colons-in-values": (top('"rater_role_or_background": "a: b :c::"'), None),
    "colon-in-task-ids": (None, "task_order[0]: 'T1:a' is not a valid id"),  # built below
    # repeated keys, with colons and escapes around them
    "dup-top-same-value": (top('"bundle_id": "B-TEST"'), 'appears more than once in the same object'),
    "dup-top-title-colons-in-first": (top('"study_title": "a:b:c"'), 'appears more than once in the same object'),
    "dup-top-title-escaped-quote-colon": (top('"study_title": "x\\":", "study_title" : "y"'), 'appears more than once in the same object'),
    "dup-top-created-at": (top('"created_at": "2026-11-01T09:00:00Z"'), 'appears more than once in the same object'),
    "dup-top-task-order": (top('"task_order": ["t0000"]'), 'appears more than once in the same object'),
    "dup-top-files-empty": (top('"files": []'), 'appears more than once in the same object'),
    "dup-top-null": (top('"rater_role_or_background": null, "rater_role_or_background": "x"'), 'appears more than once in the same object'),
    "dup-entry-size": (dup_in_entry("size", "1"), 'appears more than once in the same object'),
    "dup-entry-size-last-entry": (dup_in_entry("size", "1", entry=len(OBJ["files"]) - 1), 'appears more than once in the same object'),
    "dup-entry-path-with-colon": (dup_in_entry("path", '"tasks/t:9.json"'), 'appears more than once in the same object'),
    "dup-entry-sha": (dup_in_entry("sha256", f'"{SHA3}"'), 'appears more than once in the same object'),
    "dup-entry-first-entry": (dup_in_entry("path", '"rubric.json"', entry=0), 'appears more than once in the same object'),
    "dup-key-written-with-escape": (top('"bundl\\u0065_id": "X"'), 'appears more than once in the same object'),
    "dup-key-escaped-solidus": (top('"study_title": "a\\/b"'), 'appears more than once in the same object'),
    "key-with-colon-extra": (top('"a:b": "c"'), 'a:b: unknown field'),
    "key-with-escaped-quote": (top('"study_title\\"": "x"'), 'unknown field'),
    "entry-extra-key-with-colon": (dup_in_entry("no:te", "1"), 'files[3].no:te: unknown field'),
    "entry-extra-key": (dup_in_entry("note", '"x"'), 'files[3].note: unknown field'),
    # numbers and constants Python's json module takes and the strict reader refuses
    "size-nan": (last_size(BASE, "NaN"), 'NaN is not allowed'),
    "size-infinity": (last_size(BASE, "Infinity"), 'Infinity is not allowed'),
    "size-minus-infinity": (last_size(BASE, "-Infinity"), '-Infinity is not allowed'),
    "size-1e400": (last_size(BASE, "1e400"), 'number 1e400 is too large'),
    "size-float-integral": (last_size(BASE, "3.0"), 'bundle.json says 3:'),
    "size-exponent": (last_size(BASE, "1E2"), 'bundle.json says 100:'),
    "size-minus-zero": (last_size(BASE, "-0"), 'bundle.json says 0:'),
    "size-negative": (last_size(BASE, "-1"), 'files[4].size: must be at least 0, not -1'),
    "size-2^63": (last_size(BASE, str(2**63)), 'bundle.json says 9223372036854775808:'),
    "size-2^63-1": (last_size(BASE, str(2**63 - 1)), 'bundle.json says 9223372036854775807:'),
    "size-5000-digits": (last_size(BASE, "9" * 5000), 'Exceeds the limit (4300 digits)'),
    "size-true": (last_size(BASE, "true"), 'files[4].size: must be a whole number, not true'),
    "size-null": (last_size(BASE, "null"), 'files[4].size: null is not allowed'),
    "size-string": (last_size(BASE, '"66"'), "files[4].size: must be a whole number, not '66'"),
    "nan-in-extra-key": (top('"x": NaN'), 'NaN is not allowed'),
    # text encodings
    "bom": ("\ufeff" + BASE, 'byte-order mark'),
    "latin-1": (top('"rater_role_or_background": "t\u00e9"').encode("latin-1"), 'is not valid UTF-8'),
    "cesu-surrogate": (top('"rater_role_or_background": "\udcff"').encode("utf-8", "surrogatepass"), 'is not valid UTF-8'),
    "lone-surrogate-escape": (top('"rater_role_or_background": "\\ud800"'), 'lone surrogate escape \\ud800'),
    "escaped-backslash-then-u": (top('"rater_role_or_background": "\\\\u"'), None),
    "control-character-in-string": (top('"rater_role_or_background": "a\x01b"'), 'a line break or tab inside a text value'),
    "nul-after-document": (BASE + "\x00", 'there is more after the end'),
    "second-document": (BASE + "{}", 'there is more after the end'),
    "top-level-array": ("[" + BASE + "]", 'must be an object, not a list'),
    "empty": ("", 'is empty'),
    "deep-nesting-in-extra-key": (top('"x": ' + "[" * 50_000 + "]" * 50_000), 'expands more than 100 times'),
    # 50,000 values in a bundle of 6 files: measured before parsing (issue 13 item 1), never parsed
    "deep-nesting-unclosed": (top('"x": ' + "[" * 50_000), 'is far larger than a bundle of 6 files needs (not read)'),
    "deep-nesting-65": (top('"x": ' + "[" * 65 + "]" * 65), 'is nested more than 64 levels deep'),
    # file entries with unusual paths, digests and shapes
    "path-traversal": (BASE.replace("tasks/t0002.json", "tasks/../t0002.json"), 'files[3].path:'),
    "path-absolute": (BASE.replace("tasks/t0002.json", "/tasks/t0002.json"), 'files[3].path:'),
    "path-backslash": (BASE.replace("tasks/t0002.json", "tasks\\\\t0002.json"), 'files[3].path:'),
    "path-newline-escape": (BASE.replace("tasks/t0002.json", "tasks/t0002.json\\ntasks/t0001.json"), 'files[3].path:'),
    "path-trailing-newline": (BASE.replace("tasks/t0002.json", "tasks/t0002.json\\n"), 'files[3].path:'),
    "path-carriage-return": (BASE.replace("tasks/t0002.json", "tasks/t0002.json\\r"), 'files[3].path:'),
    "path-tab": (BASE.replace("tasks/t0002.json", "tasks/t0002\\t.json"), 'files[3].path:'),
    "path-unicode": (BASE.replace("tasks/t0002.json", "tasks/t0002\u00e9.json"), 'files[3].path:'),
    "path-fullwidth-digit": (BASE.replace("tasks/t0002.json", "tasks/t\uff10002.json"), 'files[3].path:'),
    "path-arabic-digit": (BASE.replace("tasks/t0002.json", "tasks/t\u0660002.json"), 'files[3].path:'),
    "path-kelvin": (BASE.replace("tasks/t0002.json", "tasks/\u212a0002.json"), 'files[3].path:'),
    "path-bundle-json": (BASE.replace("tasks/t0002.json", "bundle.json"), 'files[3].path:'),
    "path-trailing-dot": (BASE.replace("tasks/t0002.json", "tasks/t0002.json."), 'files[3].path:'),
    "path-trailing-space": (BASE.replace("tasks/t0002.json", "tasks/t0002.json "), 'files[3].path:'),
    "path-dot-id": (BASE.replace("tasks/t0002.json", "tasks/..json"), 'files[3].path:'),
    "path-128-char-id": (BASE.replace("tasks/t0002.json", "tasks/" + "a" * 128 + ".json"), 'is listed but not in the bundle'),
    "path-129-char-id": (BASE.replace("tasks/t0002.json", "tasks/" + "a" * 129 + ".json"), 'files[3].path:'),
    "path-rubric-uppercase": (BASE.replace('"rubric.json"', '"RUBRIC.json"', 1), "files[0].path: 'RUBRIC.json' is not a path rubric.json or tasks/<task id>.json"),
    "path-empty": (BASE.replace("tasks/t0002.json", ""), 'files[3].path:'),
    "sha-uppercase": (BASE.replace(SHA3, SHA3.upper()), 'files[3].sha256:'),
    "sha-short": (BASE.replace(SHA3, SHA3[:-1]), 'files[3].sha256:'),
    "sha-long": (BASE.replace(SHA3, SHA3 + "0"), 'files[3].sha256:'),
    "sha-arabic-digit": (BASE.replace(SHA3, SHA3[:-1] + "\u0661"), 'files[3].sha256:'),
    "sha-fullwidth": (BASE.replace(SHA3, SHA3[:-1] + "\uff41"), 'files[3].sha256:'),
    "sha-with-newline": (BASE.replace(SHA3, SHA3[:-1] + "\\n"), 'files[3].sha256:'),
    "entry-as-list": (None, 'files[3]: must be an object, not a list'),
    "entry-as-3-char-string": (None, "files[3]: must be an object, not 'abc'"),
    "entry-null": (None, 'files[3]: must be an object, not null'),
    "files-as-object": (None, 'files: must be a list, not an object'),
    "files-one-entry": (None, 'files: must have at least 2 items, has 1'),
    "entry-missing-key": (None, 'files[3].sha256: required field is missing'),
    "task-order-empty": (None, 'task_order: must have at least 1 item, has 0'),
    "task-order-dup": (None, "task_order[4]: task 't0000' appears more than once"),  # the cross-checks report it
    "extra-top-level-key": (top('"files2": []'), 'files2: unknown field'),
    "explicit-null-rater": (top('"rater_role_or_background": null'), 'rater_role_or_background: null is not allowed'),
}


def _mutated(change: Any) -> str:
    obj = json.loads(BASE)
    change(obj)
    return json.dumps(obj, indent=2)


def _colon_ids(o: dict[str, Any]) -> None:
    o["task_order"] = ["T1:a", "T2::b", *o["task_order"][2:]]
    o["files"][1]["path"], o["files"][2]["path"] = "tasks/T1:a.json", "tasks/T2::b.json"


# ':' is not allowed in an id (a drive or an NTFS stream on Windows)
ATTACKS["colon-in-task-ids"] = (_mutated(_colon_ids), "task_order[0]: 'T1:a' is not a valid id")
ATTACKS["entry-as-list"] = (_mutated(lambda o: o["files"].__setitem__(3, [1, 2, 3])), 'files[3]: must be an object, not a list')
ATTACKS["entry-as-3-char-string"] = (_mutated(lambda o: o["files"].__setitem__(3, "abc")), "files[3]: must be an object, not 'abc'")
ATTACKS["entry-null"] = (_mutated(lambda o: o["files"].__setitem__(3, None)), 'files[3]: must be an object, not null')
ATTACKS["files-as-object"] = (_mutated(lambda o: o.__setitem__("files", {"a": o["files"][0]})), 'files: must be a list, not an object')
ATTACKS["files-one-entry"] = (_mutated(lambda o: o.__setitem__("files", o["files"][:1])), 'files: must have at least 2 items, has 1')
ATTACKS["entry-missing-key"] = (_mutated(lambda o: o["files"][3].pop("sha256")), 'files[3].sha256: required field is missing')
ATTACKS["task-order-empty"] = (_mutated(lambda o: o.__setitem__("task_order", [])), 'task_order: must have at least 1 item, has 0')
ATTACKS["task-order-dup"] = (_mutated(lambda o: o["task_order"].append("t0000")), "task_order[4]: task 't0000' appears more than once")


def open_or_refuse(files: dict[str, bytes], path: Path) -> OpenedBundle | DocumentError:
    if path.suffix == ".wmcdp":
        path.write_bytes(deterministic_zip(files))
    else:
        for name, data in files.items():
            if not name.endswith("/"):
                (path / name).parent.mkdir(parents=True, exist_ok=True)
                (path / name).write_bytes(data)
    try:
        return open_bundle(path)
    except DocumentError as exc:
        return exc


def assert_opens_as_json_reads_it(opened: OpenedBundle | DocumentError, manifest_bytes: bytes) -> None:
    assert isinstance(opened, OpenedBundle), str(opened)
    expected = json.loads(manifest_bytes)  # the standard library's reading of the same bytes
    assert opened.digests == {f["path"]: bytes.fromhex(f["sha256"]) for f in expected.pop("files")}
    assert opened.manifest.to_json_obj() == {**expected, "files": []}
    assert opened.task_ids == expected["task_order"]
    assert opened.manifest_sha256 == hashlib.sha256(manifest_bytes).hexdigest()


@pytest.mark.parametrize(("text", "words"), [pytest.param(t, w, id=k) for k, (t, w) in ATTACKS.items()])
def test_bundle_json_attack_is_refused_naming_the_field_or_opens(text: str | bytes, words: str | None,
                                                                 tmp_path: Path) -> None:
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    opened = open_or_refuse({**FILES, MANIFEST_NAME: data}, tmp_path / "b.wmcdp")
    if words is None:
        assert_opens_as_json_reads_it(opened, data)
        return
    assert isinstance(opened, DocumentError), "hostile bundle.json accepted"
    assert any(words in f"{p.path}: {p.message}" or words in p.message for p in opened.problems), str(opened)
    assert all(p.file.startswith("b.wmcdp") for p in opened.problems)


# ----- a repeated key anywhere, with any value, is refused ---------------------------------------------------
KEYS = ["document_type", "format_version", "bundle_id", "study_id", "study_title", "rater_id",
        "rater_role_or_background", "created_at", "task_order", "files", "path", "sha256", "size"]
VALUES = ['"a:b"', '":"', '""', "1", "null", "[]", '["a:b"]', '{"k:": ":"}', '"\\":\\""', "true",
          '"2026-11-01T09:00:00Z"', '"tasks/t:1.json"']


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.integers(0, 10_000), key=st.sampled_from(KEYS), value=st.sampled_from(VALUES),
       first=st.booleans(), space=st.sampled_from(["", " ", "\n\t "]))
def test_a_repeated_key_is_always_refused(where: int, key: str, value: str, first: bool, space: str,
                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    # A key put into an object of bundle.json (the top level or a files entry) that already has it, before or
    # after the key's first appearance, with colons and spaces around it.
    obj = json.loads(BASE)
    i = where % (len(obj["files"]) + 1)
    target = obj if i == 0 else obj["files"][i - 1]
    if key not in target:
        key = next(iter(target))
    marker = "__REPEATED__"
    placed = {marker: 0, **target} if first else {**target, marker: 0}
    if i == 0:
        obj = placed
    else:
        obj["files"][i - 1] = placed
    text = json.dumps(obj, indent=2).replace(f'"{marker}": 0', f'"{key}"{space}:{space}{value}', 1)
    opened = open_or_refuse({**FILES, MANIFEST_NAME: text.encode()}, tmp_path_factory.mktemp("b") / "b.wmcdp")
    assert isinstance(opened, DocumentError)
    assert f"key {key!r} appears more than once in the same object" in str(opened)


# ----- the cross-checks of bundle.json against the files present --------------------------------------------
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
CROSS["listed-one-missing-beside-an-unlisted"] = bundle(
    ["a", "b"], listed=[RUBRIC_NAME, "tasks/a.json", "tasks/b.json", "tasks/c.json"], order=["a", "b", "c"],
    extra_files={"notes.txt": b"hi"})

CROSS_REFUSED = {
    "ids-with-colons": "task_order[0]: 'T1:a' is not a valid id",
    "order-names-a.json-file-is-a": "task_order[0]: task 'a.json' has no file in files",
    "order-names-a-file-is-a.json": "task_order[0]: task 'a' has no file in files",
    "order-duplicate": "task_order[2]: task 'a' appears more than once",
    "order-missing-one": "files[2].path: 'tasks/b.json' is not in task_order",
    "order-extra-one": "task_order[2]: task 'c' has no file in files",
    "order-extra-swapped-for-missing": "task_order[1]: task 'c' has no file in files",
    "listed-twice": "files[2].path: 'tasks/a.json' is listed twice",
    "rubric-listed-twice": "files[2].path: 'rubric.json' is listed twice",
    "rubric-not-listed": "files: rubric.json is not listed",
    "listed-but-missing": "files[3].path: 'tasks/c.json' is listed but not in the bundle",
    "listed-one-missing-beside-an-unlisted": "files[3].path: 'tasks/c.json' is listed but not in the bundle",
    "unlisted-task-file": ": is not listed in bundle.json (unexpected file)",
    "unlisted-other-file": ": is not listed in bundle.json (unexpected file)",
    "unlisted-nested-bundle-json": ": is not listed in bundle.json (unexpected file)",
    "unlisted-rubric-case-variant": "clashes with 'tasks/A.json'",
    "size-differs": ": is 653 bytes but bundle.json says 654: the bundle was changed or damaged",
    "rubric-hash-differs": ": does not match the SHA-256 in bundle.json",
    "task-order-as-string": "task_order: must be a list, not 'a'",
}


@pytest.mark.parametrize("kind", ["b.wmcdp", "folder"])
@pytest.mark.parametrize("key", list(CROSS))
def test_bundle_json_against_the_files_present(key: str, kind: str, tmp_path: Path) -> None:
    files = CROSS[key]
    opened = open_or_refuse(files, tmp_path / kind)
    words = CROSS_REFUSED.get(key)
    if words is None:
        assert_opens_as_json_reads_it(opened, files[MANIFEST_NAME])
        return
    assert isinstance(opened, DocumentError), "a bundle that disagrees with its bundle.json opened"
    assert any(words in f"{p.path}: {p.message}" for p in opened.problems), str(opened)


# ----- a tiny hostile bundle.json with a million entries (issue 13, item 1) ---------------------------------
_MEASURE = textwrap.dedent("""
    import json, re, sys, time
    from pathlib import Path
    from wmcdp_desktop.core.bundle_reader import open_bundle
    from wmcdp_desktop.core.errors import DocumentError, Problem
    def peak_kb():  # the process's own peak (ru_maxrss would start from the parent's after fork + exec)
        with open("/proc/self/status") as fh:
            return int(re.search(r"VmHWM:\\s+(\\d+)", fh.read()).group(1))
    before = peak_kb()
    start = time.perf_counter()
    try:
        open_bundle(Path(sys.argv[1]))
        problems = []
    except DocumentError as exc:
        problems = [str(p) for p in exc.problems]
    seconds = time.perf_counter() - start
    grown_kb = peak_kb() - before
    print(json.dumps({"problems": problems, "seconds": seconds, "grown_mb": grown_kb / 1024}))
""")


def _measure(path: Path) -> dict[str, Any]:
    """open_bundle in a fresh process: its problems, seconds, and how much its peak memory grew (MB)."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, timeout=120,
                          check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _many(field: str, entry: str, n: int) -> bytes:
    """BASE with ``n`` copies of ``entry`` put first into the array ``field``, separated by varied whitespace
    (so that bundle.json compresses less than 100 times and passes the zip's ratio check)."""
    rng = random.Random(13)
    separators = [",", ", ", ",\n", ",\t", ", \n", ",\n\t"]
    items = "".join(entry + rng.choice(separators) for _ in range(n))
    return json.dumps(json.loads(BASE)).replace(f'"{field}": [', f'"{field}": [' + items, 1).encode()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory read from /proc (Linux)")
@pytest.mark.parametrize("entry", ["{}", "1"])
def test_a_million_empty_entries_in_a_small_bundle_are_refused_in_bounded_memory(entry: str, tmp_path: Path) -> None:
    path = tmp_path / "b.wmcdp"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:  # quicker to write than level 9
        for name, data in {**FILES, MANIFEST_NAME: _many("files", entry, 1_000_000)}.items():
            zf.writestr(name, data)
    assert path.stat().st_size < 1_000_000  # the zip is small; bundle.json inside it 3-5 MB
    result = _measure(path)
    # its JSON values counted against the files present before it is parsed: never a million objects in memory
    assert result["problems"] == ["b.wmcdp!bundle.json: is far larger than a bundle of 6 files needs (not read)"]
    assert result["grown_mb"] < 200, result  # was 3.8 GB and 15-20 s before the length check and the cap


def test_arrays_longer_than_the_files_present_by_more_than_100_are_refused_before_validation(tmp_path: Path) -> None:
    files = bundle(["a", "b"], listed=[RUBRIC_NAME, "tasks/a.json", "tasks/b.json"] + [f"tasks/x{i}.json" for i in range(100)])
    opened = open_or_refuse(files, tmp_path / "near.wmcdp")  # 100 too many: each named (then the cap)
    assert isinstance(opened, DocumentError) and "'tasks/x0.json' is listed but not in the bundle" in str(opened)
    files = bundle(["a", "b"], listed=[RUBRIC_NAME, "tasks/a.json", "tasks/b.json"] + [f"tasks/x{i}.json" for i in range(101)])
    opened = open_or_refuse(files, tmp_path / "far.wmcdp")
    assert isinstance(opened, DocumentError)
    assert [p.message for p in opened.problems] == ["lists 104 files but the bundle holds only 3 files besides bundle.json"]


def test_a_long_task_order_is_refused_before_validation(tmp_path: Path) -> None:
    opened = open_or_refuse({**FILES, MANIFEST_NAME: _many("task_order", "1", 1_000)}, tmp_path / "b.wmcdp")
    assert isinstance(opened, DocumentError)
    assert [p.message for p in opened.problems] == ["lists 1004 tasks but the bundle holds only 5 files besides "
                                                    "bundle.json"]


def test_a_bundle_json_too_large_for_its_files_is_not_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 13 item 1: 100,000 entries (3 bytes of JSON each, 64 of memory once parsed) are counted, not parsed.
    from wmcdp_desktop.core import bundle_reader

    parsed: list[int] = []
    real = bundle_reader.parse_json_bytes
    monkeypatch.setattr(bundle_reader, "parse_json_bytes", lambda data, *a: parsed.append(len(data)) or real(data, *a))
    opened = open_or_refuse({**FILES, MANIFEST_NAME: _many("task_order", "1", 100_000)}, tmp_path / "b.wmcdp")
    assert isinstance(opened, DocumentError)
    assert [p.message for p in opened.problems] == ["is far larger than a bundle of 6 files needs (not read)"]
    assert parsed == []
    opened = open_or_refuse(FILES, tmp_path / "ok.wmcdp")  # a bundle as built is read as before
    assert not isinstance(opened, DocumentError) and len(parsed) == 1


def test_at_most_100_problems_are_listed_then_how_many_more(tmp_path: Path) -> None:
    manifest = json.loads(BASE)
    for i in range(150):
        manifest[f"extra_{i:03d}"] = i  # 150 unknown fields: 150 problems of one document
    opened = open_or_refuse({**FILES, MANIFEST_NAME: json.dumps(manifest).encode()}, tmp_path / "b.wmcdp")
    assert isinstance(opened, DocumentError)
    assert len(opened.problems) == 101
    assert opened.problems[0].path == "extra_000"
    assert opened.problems[-1].message == "and 50 more problems in this file, not listed"
    path = tmp_path / "c.wmcdp"  # 130 members whose names hold a control character: 130 problems of the zip
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in {**FILES, **{f"notes/{i:03d}\x01.txt": b"x" for i in range(130)}}.items():
            zf.writestr(name, data)
    with pytest.raises(DocumentError) as info:
        open_bundle(path)
    assert len(info.value.problems) == 101
    assert info.value.problems[-1] == Problem("c.wmcdp", "", "and 30 more problems in this file, not listed")

