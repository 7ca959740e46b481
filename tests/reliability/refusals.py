"""Every case of issue 13 and every tamper case, run as a user runs them: the real command in a fresh
process, its exit status, its wall time and peak memory (``/usr/bin/time``), and the line that says what
is wrong.

    python -m tests.reliability.refusals                 # print the table
    python -m tests.reliability.refusals --write-docs    # also put it into docs/RELIABILITY.md

The cases are built in a temporary folder by :func:`build_cases`; ``tests/reliability/
test_every_refusal_exits_1_with_a_clear_line.py`` runs the same cases in-process and checks each status
and line (never a time: times are measured here, not asserted).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import platform
import random
import shutil
import stat
import string
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.kit.bundles import bundle_files, bundle_zip, task_obj, with_manifest
from tests.kit.exports import Export, export_zip
from tests.kit.studies import build_study as built_study
from tests.kit.studies import rubric_obj
from wmcdp_desktop.core import audit_chain
from wmcdp_desktop.core.files import MAX_LARGE_DOCUMENT_BYTES
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.writer import deterministic_zip

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "RELIABILITY.md"
START = "<!-- refusals:start (written by python -m tests.reliability.refusals --write-docs) -->"
END = "<!-- refusals:end -->"
TIME = "/usr/bin/time"
LIMIT_S, LIMIT_MB = 2.0, 200.0


@dataclass
class Case:
    key: str
    item: str
    """Issue 13's item ("1".."13") or "tamper"."""
    what: str
    program: str
    """``wmcdp`` or ``wmcdp-desktop``."""
    args: list[str]
    code: int
    """The exit status a user must get."""
    expect: str
    """Words of the line that must say what is wrong (or what was done)."""
    size: int
    """The input's size in bytes (the zip, the file, or the sum of the files given)."""
    umask: int | None = None
    after: Callable[[], str | None] | None = None
    """A check after the run: None when it holds, else what is wrong."""
    env: dict[str, str] = field(default_factory=dict)


# ----- building blocks -------------------------------------------------------------------------------------
def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _empty_objects(n: int) -> str:
    """``[{}, {}, ...]`` with random whitespace, so it compresses no better than real text (a member
    compressed over 100 times is refused as a bomb before any JSON is read)."""
    spaces = random.Random(n).choices(["", " ", "\t", "\n", "  ", " \t", "\n\t", "\t\t ", "\n  "], k=n)
    return "[" + ",".join(space + "{}" for space in spaces) + "]"


def _with_array(obj: dict[str, Any], key: str, n: int) -> bytes:
    return json.dumps({**obj, key: "@"}).replace('"@"', _empty_objects(n)).encode()


def _token(n: int) -> str:
    """One unbroken token of n letters that compresses like text."""
    return "".join(random.Random(n).choices(string.ascii_letters, k=n))


def _bundle_with(task_ids: list[str], bundle_id: str = "B-REL", rubric: dict[str, Any] | None = None,
                 text: str | None = None) -> bytes:
    files: dict[str, bytes] = {"rubric.json": dumps_canonical(rubric or rubric_obj()).encode()}
    for tid in task_ids:
        files[f"tasks/{tid}.json"] = dumps_canonical(task_obj(tid, text or "A calm, validating reply.")).encode()
    return deterministic_zip(with_manifest(files, task_ids, bundle_id=bundle_id))


@dataclass
class Built:
    """A built study with one rater's bundle and a valid export of it, for the results cases."""

    root: Path
    key: Path
    bundle: Path
    records: list[dict[str, Any]]
    kw: dict[str, Any]

    def export(self, name: str, records: list[dict[str, Any]] | None = None, **kw: Any) -> Path:
        return _write(self.root / name, export_zip(records if records is not None else self.records, **{**self.kw, **kw}))

    def receipt(self, path: Path) -> str:
        with zipfile.ZipFile(path) as zf:
            head = json.loads(zf.read("manifest.json"))["audit"]["head"]
        return audit_chain.receipt_code(head)


def build_study(root: Path) -> Built:
    s = built_study(root, n_items=4, n_raters=1, overlap=1)
    return Built(root, s.key, s.out / "STUDY-T1-R1.wmcdp", s.records("R1"), s.export_options("R1"))


def _parts(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    return json.loads(files.pop("manifest.json")), files


def _rehashed(manifest: dict[str, Any], files: dict[str, bytes]) -> bytes:
    """The export rewritten as an attacker would: every SHA-256 and size in the manifest recomputed."""
    export = Export(manifest, files).rehash()
    return _zip({"manifest.json": dumps_canonical(export.manifest).encode(), **export.files})


# ----- the cases -------------------------------------------------------------------------------------------
def build_cases(root: Path, huge: int = 4 * 2**30) -> list[Case]:
    """Every case, built under ``root``. ``huge``: the size of the sparse files (4 GB, as probed; the suite
    gives the least size refused, so no file system has to hold more)."""
    root.mkdir(parents=True, exist_ok=True)
    s = build_study(root / "built")
    good = s.export("good.zip")
    cases: list[Case] = []

    def add(key: str, item: str, what: str, program: str, args: list[Any], code: int, expect: str,
            inputs: list[Path] | None = None, **kw: Any) -> None:
        size = sum(p.stat().st_size for p in inputs or [] if p.is_file() and not p.is_fifo())
        cases.append(Case(key, item, what, program, [str(a) for a in args], code, expect, size, **kw))

    out = root / "out"
    # the floor: the programs starting and doing nothing, measured in the same run
    add("0-wmcdp", "-", "start-up alone (the floor)", "wmcdp", ["--version"], 0, "wmcdp")
    add("0-app", "-", "start-up alone (the floor)", "wmcdp-desktop", ["--version"], 0, "wmcdp-desktop")
    # 1. a tiny file that validation used to blow up
    files = bundle_files(3)
    files["bundle.json"] = _with_array(json.loads(files["bundle.json"]), "files", 1_000_000)
    b1 = _write(root / "million-files.wmcdp", deterministic_zip(files))
    add("1-bundle", "1", "bundle.json lists 1,000,000 empty files", "wmcdp", ["bundle", "verify", b1], 1,
        "bundle.json", [b1])
    add("1-bundle-app", "1", "the same bundle opened by the app (self-test)", "wmcdp-desktop",
        ["--self-test", "--data-dir", root / "app-data-1", b1], 1, "bundle.json", [b1])
    m, f = _parts(good)
    e1 = _write(root / "million-entries.zip", _zip({"manifest.json": _with_array(m, "files", 1_000_000), **f}))
    add("1-export-validate", "1", "an export whose manifest lists 1,000,000 empty objects", "wmcdp",
        ["results", "validate", e1], 1, "manifest.json", [e1])
    add("1-export-collect", "1", "the same export collected", "wmcdp",
        ["results", "collect", e1, "--key", s.key, "--out", out / "1"], 1, "manifest.json", [e1],
        # A collection of nothing is its fixed tables and codebook (datapackage.json describes every file, about
        # 56 KB); a million listed objects would add megabytes, so 256 KB shows nothing grew with them.
        after=lambda: _folder_at_most(out / "1", 256 * 1024))

    # 2, 3. ids that would leave their folder, or mean something else on Windows
    for key, rater, words in (("2-space", "Dr Smith", "it has a space"), ("2-traversal", "../../../../x", "it has '/'"),
                              ("3-drive", "D:evil", "it has ':'"), ("3-device", "CON", "reserved device name")):
        data = root / f"data-{key}"
        add(f"{key}-rater", key[0], f"--rater {rater!r}", "wmcdp-desktop",
            ["--data-dir", data, "--rater", rater, s.bundle], 1, words,
            after=lambda data=data: None if not data.exists() else f"{data} was made")
    for key, bundle_id, task_id, words in (
        ("3-bundle-id", "D:evil", "t0001", "bundle_id"),
        ("3-task-stream", "B-REL", "t1:x", "task_order"),
        ("3-task-device", "B-REL", "NUL", "reserved device name"),
    ):
        path = _write(root / f"{key}.wmcdp", _bundle_with([task_id], bundle_id=bundle_id))
        add(key, "3", f"a bundle with bundle id {bundle_id!r} and task id {task_id!r}", "wmcdp",
            ["bundle", "verify", path], 1, words, [path])
    settings_data = root / "deep" / "a" / "b" / "c" / "data-2-settings"  # any path it made by ../ stays under root
    _write(settings_data / "settings.json", json.dumps({"rater_id": "../../../x", "language": "en"}).encode())
    any_rater = _write(root / "any-rater.wmcdp", bundle_zip(3))
    add("2-settings", "2", "settings.json holding rater id '../../../x' (self-test)", "wmcdp-desktop",
        ["--self-test", "--data-dir", settings_data, any_rater], 0, "self-test: passed", [settings_data / "settings.json"],
        after=lambda: _nothing_outside(settings_data, root))

    # 4. one unbroken 1 MB token: accepted by bundle verify, shown by the app
    token = _write(root / "token.wmcdp", _bundle_with(["t0001"], text=_token(1_000_000)))
    add("4-verify", "4", "a response that is one unbroken 1 MB token", "wmcdp", ["bundle", "verify", token], 0,
        "valid bundle", [token])
    add("4-app", "4", "the same bundle opened, rated and exported by the app (self-test)", "wmcdp-desktop",
        ["--self-test", "--data-dir", root / "app-data-4", token], 0, "self-test: passed", [token])

    # 5. numbers a widget receives
    rubric = rubric_obj()
    lo = 3_000_000_000
    rubric["dimensions"][0]["scale"] = {"min": lo, "max": lo + 4,
                                        "anchors": [{"level": lo + i, "text": f"level {i}"} for i in range(5)]}
    r5 = _write(root / "scale-3e9.wmcdp", _bundle_with(["t0001"], rubric=rubric))
    add("5-bundle", "5", "a rubric scale starting at 3,000,000,000", "wmcdp", ["bundle", "verify", r5], 1,
        "rubric.json", [r5])
    study5 = root / "study-5"
    shutil.copytree(root / "built" / "study", study5)
    (study5 / "rubric.json").write_text(dumps_canonical(rubric), encoding="utf-8")
    add("5-study", "5", "the same rubric in a study", "wmcdp", ["study", "validate", study5], 1, "rubric.json",
        [study5 / "rubric.json"])

    # 6. the record rules in every command
    recs = json.loads(json.dumps(s.records))
    recs[0]["scoring"]["overall_clinical_judgment_score"] = 99
    e6 = s.export("score-99.zip", recs)
    add("6-collect-99", "6", "a score of 99 on a 1-5 scale, collected", "wmcdp",
        ["results", "collect", e6, "--key", s.key, "--out", out / "6"], 1, "overall_clinical_judgment_score", [e6])
    recs = json.loads(json.dumps(s.records))
    recs[0]["scoring"]["overall_clinical_judgment_score"] = 10**308
    e6b = s.export("score-309-digits.zip", recs)
    add("6-validate-309", "6", "a 309-digit score", "wmcdp", ["results", "validate", e6b], 1, "not a 309-digit number", [e6b])
    recs = json.loads(json.dumps(s.records))
    recs[0]["time_spent_scoring_seconds"] = 10**308
    e6c = s.export("seconds-309-digits.zip", recs)
    add("6-collect-seconds", "6", "309 digits of seconds, collected", "wmcdp",
        ["results", "collect", e6c, "--key", s.key, "--out", out / "6c"], 1, "time_spent_scoring_seconds", [e6c])

    # 7. the umask
    data7 = root / "app-data-7"
    add("7-umask", "7", "the app under umask 077 (self-test: drafts, records, export, settings)", "wmcdp-desktop",
        ["--self-test", "--data-dir", data7, any_rater], 0, "self-test: passed", umask=0o077,
        after=lambda: _modes_at_most(data7, 0o700))
    add("7-collect", "7", "collect under umask 022: the unblinded outputs", "wmcdp",
        ["results", "collect", good, "--key", s.key, "--out", out / "7"], 0, "ratings", [good], umask=0o022,
        after=lambda: _modes_at_most(out / "7", 0o700))

    # 11. timestamps
    recs = json.loads(json.dumps(s.records))
    recs[0]["envelope"]["submitted_at"] = "9999-12-31T23:59:59Z"
    e11 = s.export("year-9999.zip", recs)
    # a wrong clock never makes a record invalid (issue 25): said as clock_suspect, exit 0
    add("11-9999", "11", "a record submitted in 9999", "wmcdp", ["results", "validate", e11], 0, "9999-12-31T23:59:59Z is in the future", [e11])
    recs = json.loads(json.dumps(s.records))
    recs[0]["envelope"]["submitted_at"] = "2026-11-29T09:59:00Z"
    e11b = s.export("before-start.zip", recs)
    add("11-order", "11", "submitted_at before started_at", "wmcdp", ["results", "validate", e11b], 1, "started_at", [e11b])

    # 12. exactly the stated limit of entries
    z12 = _write(root / "100000-entries.wmcdp", _entries_zip(100_000))
    add("12-limit", "12", "a zip of exactly 100,000 entries (refused only for lacking bundle.json)", "wmcdp",
        ["bundle", "verify", z12], 1, "bundle.json", [z12])
    z12b = _write(root / "100001-entries.wmcdp", _entries_zip(100_001))
    add("12-over", "12", "a zip of 100,001 entries", "wmcdp", ["bundle", "verify", z12b], 1, "at most 100000", [z12b])

    # 13. FIFOs, devices and files with no end
    if hasattr(os, "mkfifo"):
        fifo = root / "fifo.wmcdp"
        os.mkfifo(fifo)
        add("13-fifo-bundle", "13", "a FIFO given as a bundle", "wmcdp", ["bundle", "verify", fifo], 1, "named pipe")
        records13 = root / "records-13"
        records13.mkdir()
        os.mkfifo(records13 / "T-0001.r1.json")
        add("13-fifo-record", "13", "a FIFO named *.json in a records folder", "wmcdp",
            ["results", "validate", records13], 1, "named pipe")
    sparse = root / "sparse" / "record.json"
    sparse.parent.mkdir()
    with open(sparse, "wb") as fh:
        fh.truncate(huge)
    add("13-sparse-record", "13", f"a {_size(huge)} sparse file named record.json", "wmcdp",
        ["results", "validate", sparse.parent], 1, "larger than", [sparse])
    sparse_key = root / "sparse-key.json"
    key_size = max(huge, MAX_LARGE_DOCUMENT_BYTES + 1)  # a million-rating study's key is a few hundred MB: read up to 1 GiB
    with open(sparse_key, "wb") as fh:
        fh.truncate(key_size)
    add("13-sparse-key", "13", f"a {_size(key_size)} sparse file given as the unblinding key", "wmcdp",
        ["results", "collect", good, "--key", sparse_key, "--out", out / "13"], 1, "larger than", [sparse_key])
    if Path("/dev/zero").exists():
        add("13-dev-zero", "13", "/dev/zero given as a bundle", "wmcdp", ["bundle", "verify", "/dev/zero"], 1,
            "not a regular file")

    # tamper-evident results: each through validate --receipt and collect --receipts
    receipt = s.receipt(good)
    receipts = _write(root / "receipts.txt", f"# codes the raters sent\nR1 {receipt}\n".encode())
    for t in _tampered(s, good, root):
        receipt_args = ["--receipt", receipt] if len(t.exports) == 1 else ["--receipts", t.receipts or receipts]
        add(f"tamper-{t.key}-validate", "tamper", f"{t.what}: results validate {receipt_args[0]}", "wmcdp",
            ["results", "validate", *t.exports, *receipt_args], 1, t.words, t.exports)
        add(f"tamper-{t.key}-collect", "tamper", f"{t.what}: results collect --receipts", "wmcdp",
            ["results", "collect", *t.exports, "--key", s.key, "--out", out / f"t-{t.key}", "--receipts",
             t.receipts or receipts], t.collect_code, t.collect_words or t.words, t.exports)
    # a replay across runs: the newer export collected, then the older one into the same folder
    older, newer, both = _older_and_newer(s, root)
    later = out / "t-later"
    _quiet_main(["results", "collect", newer, "--key", s.key, "--out", later])
    add("tamper-older-later-collect", "tamper", "an older export collected after a newer one (a later run)", "wmcdp",
        ["results", "collect", older, "--key", s.key, "--out", later, "--receipts", both], 1,
        "an older export replacing a newer one", [older])
    add("receipt-typed", "tamper", "the right code typed in lower case with spaces, O for 0", "wmcdp",
        ["results", "validate", good, "--receipt", _clumsy(receipt)], 0, "receipt code matches", [good])
    return cases


def _entries_zip(n: int) -> bytes:
    """A real zip (``zipfile`` writes the ZIP64 end records past 65,535 entries) of n empty members."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for i in range(n):
            zf.writestr(f"e{i:06d}", b"")
    return buf.getvalue()


def _clumsy(code: str) -> str:
    return " ".join(code.replace("-", "").lower()).replace("0", "o").replace("1", "l")


@dataclass
class Tampered:
    key: str
    what: str
    exports: list[Path]
    words: str
    collect_words: str = ""
    collect_code: int = 1
    receipts: Path | None = None


def _tampered(s: Built, good: Path, root: Path) -> list[Tampered]:
    """The tamper cases of issue 13, each as the exports a coordinator is given and the words of its line."""
    out: list[Tampered] = []
    name = sorted(n for n in _parts(good)[1] if n.startswith("records/"))[1]

    m, f = _parts(good)
    rec = json.loads(f[name])
    rec["scoring"]["overall_clinical_judgment_score"] = 1
    f[name] = dumps_canonical(rec).encode()
    out.append(Tampered("edited", "a score edited, the manifest re-hashed", [_write(root / "t-edited.zip", _rehashed(m, f))],
                        "is not the record the audit chain says was submitted"))

    m, f = _parts(good)
    lines = f["audit.jsonl"].split(b"\n")[:-1]
    event = json.loads(lines[1])
    event["at"] = "2026-11-29T10:00:01Z"
    lines[1] = audit_chain.encode_event(event)
    f["audit.jsonl"] = b"".join(line + b"\n" for line in lines)
    out.append(Tampered("chain", "an audit line changed (a broken chain)", [_write(root / "t-chain.zip", _rehashed(m, f))],
                        "the audit chain is broken at line"))

    m, f = _parts(good)
    rec = json.loads(f[name])
    first_id = rec["envelope"]["record_id"]
    rec["envelope"].update(revision=2, record_id="f" * 32, supersedes_record_id=first_id)
    extra = name.replace(".r1.json", ".r2.json")
    f[extra] = dumps_canonical(rec).encode()
    for entry in m["files"]:
        if entry["path"] == name:
            entry["latest"] = False
    m["files"].append({"path": extra, "sha256": "", "size": 0, "task_id": rec["envelope"]["task_id"], "revision": 2,
                       "latest": True})
    m["counts"]["record_files"] += 1
    out.append(Tampered("not-in-chain", "a record not in the chain (a revision added)",
                        [_write(root / "t-not-in-chain.zip", _rehashed(m, f))], "is not in the audit chain"))

    m, f = _parts(good)
    del f[name]
    m["files"] = [e for e in m["files"] if e["path"] != name]
    m["counts"]["record_files"] -= 1
    m["counts"]["submitted"] -= 1
    out.append(Tampered("missing", "a revision missing (a record removed)", [_write(root / "t-missing.zip", _rehashed(m, f))],
                        "a revision missing"))

    for key, field_, value in (("bundle", "bundle_sha256", "e" * 64), ("rater", "rater_id", "R2")):
        m, f = _parts(good)
        m[field_] = value
        out.append(Tampered(f"other-{key}", f"an export bound to another {key}", [_write(root / f"t-{key}.zip", _rehashed(m, f))],
                            "an export bound to another bundle or rater"))

    copy = _write(root / "t-replayed.zip", good.read_bytes())
    out.append(Tampered("replayed", "the same export given twice (another name)", [good, copy], "is the same export as",
                        collect_words="not counted twice", collect_code=0))
    older, newer, both = _older_and_newer(s, root)
    out.append(Tampered("older", "an older export beside a newer one", [older, newer], "is an older export", receipts=both))
    wrong = s.export("t-wrong-receipt.zip", s.records[:3])
    out.append(Tampered("receipt", "a sound export that is not the one the receipt names", [wrong], "but rater R1 sent"))
    return out


def _older_and_newer(s: Built, root: Path) -> tuple[Path, Path, Path]:
    """Two exports of one data folder, as the app makes them: the newer one's audit chain goes on from the older
    one's seal. Returns both and a receipts file holding both codes (the rater sent each)."""
    older = s.export("t-older.zip", s.records[:2])
    m, f = _parts(older)
    lines = f["audit.jsonl"].split(b"\n")[:-1]
    files = {f"records/{r['envelope']['task_id']}.r1.json": dumps_canonical(r).encode() for r in s.records}
    entries: list[dict[str, Any]] = [{"path": p, "sha256": hashlib.sha256(d).hexdigest(), "size": len(d), "task_id": p[8:-8], "revision": 1,
                "latest": True} for p, d in sorted(files.items())]
    events: list[dict[str, Any]] = [
        {"at": "2026-11-30T10:00:00Z", "event": "submitted", "task_id": e["task_id"], "revision": 1,
         "file": e["path"][8:], "sha256": e["sha256"]} for e in entries if e["path"] not in f]
    seal = json.loads(lines[-1])
    export_id = hashlib.md5(b"newer").hexdigest()
    events.append({**{k: seal[k] for k in ("bundle_id", "bundle_sha256", "rater_id", "study_id")},
                   "at": "2026-11-30T12:00:00Z", "event": audit_chain.SEAL_EVENT, "export_id": export_id,
                   "record_files": len(entries), "exported_at": "2026-11-30T12:00:00Z",
                   "records_sha256": audit_chain.records_digest((e["path"], e["sha256"]) for e in entries)})
    for event in events:
        event["prev"] = audit_chain.line_sha256(lines[-1])
        lines.append(audit_chain.encode_event(event))
    log = b"".join(line + b"\n" for line in lines)
    m["files"], m["exported_at"] = entries, "2026-11-30T12:00:00Z"
    m["counts"].update(submitted=len(entries), record_files=len(entries))
    m["audit"] = {"path": "audit.jsonl", "sha256": hashlib.sha256(log).hexdigest(), "size": len(log),
                  "head": audit_chain.line_sha256(lines[-1]), "export_id": export_id}
    newer = _write(root / "t-newer.zip", _zip({"manifest.json": dumps_canonical(m).encode(), **files, "audit.jsonl": log}))
    both = _write(root / "receipts-both.txt", f"R1 {s.receipt(older)}\nR1 {s.receipt(newer)}\n".encode())
    return older, newer, both


def _quiet_main(argv: list[Any]) -> int:
    from wmcdp_desktop.coordinator.commands.main import main

    with open(os.devnull, "w") as quiet:
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = quiet
        try:
            return main([str(a) for a in argv])
        finally:
            sys.stdout, sys.stderr = stdout, stderr


# ----- checks after a run ----------------------------------------------------------------------------------
def _folder_at_most(folder: Path, limit: int) -> str | None:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0
    return None if total <= limit else f"{folder} holds {total} bytes"


def _modes_at_most(folder: Path, allowed: int) -> str | None:
    if os.name != "posix":
        return None
    loose = [p for p in [folder, *folder.rglob("*")] if stat.S_IMODE(p.lstat().st_mode) & ~allowed]
    return None if not loose else f"{len(loose)} {'file' if len(loose) == 1 else 'files'} readable by others, e.g. {loose[0]}"


def _nothing_outside(data: Path, root: Path) -> str | None:
    stray = [p for p in root.rglob("x*") if data not in p.parents]
    return None if not stray else f"written outside the data folder: {stray[0]}"


# ----- running ---------------------------------------------------------------------------------------------
@dataclass
class Run:
    case: Case
    code: int
    seconds: float | None
    cpu: float | None
    """User + system CPU seconds: what the command itself cost (wall time also holds waiting for a processor)."""
    peak_mb: float | None
    line: str
    problem: str | None


def _argv(case: Case) -> list[str]:
    module = "wmcdp_desktop" if case.program == "wmcdp-desktop" else "wmcdp_desktop.coordinator.commands.main"
    return [sys.executable, "-m", module, *case.args]


def run_case(case: Case, timeout: float = 120) -> Run:
    """The case's command in a fresh process, timed by /usr/bin/time (its peak is the command's own: a child
    forked by this grown runner would report the runner's size)."""
    env = dict(os.environ, **case.env)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    with tempfile.TemporaryDirectory() as tmp:
        timing = Path(tmp) / "time"
        argv = _argv(case)
        timed = os.path.exists(TIME)
        if timed:
            argv = [TIME, "-f", "%e %U %S %M", "-o", str(timing), *argv]

        def umask() -> None:
            if case.umask is not None:
                os.umask(case.umask)

        try:
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, errors="replace", timeout=timeout,
                                  preexec_fn=umask if case.umask is not None else None)
            code, text = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired:
            return Run(case, -1, None, None, None, "", f"no answer within {timeout:.0f} s")
        seconds = cpu = peak = None
        if timed and timing.exists():
            fields = timing.read_text().split()[-4:]
            seconds, cpu, peak = float(fields[0]), float(fields[1]) + float(fields[2]), int(fields[3]) / 1024
    lines = [ln.strip() for ln in text.splitlines() if case.expect.lower() in ln.lower()]
    problem = None
    if code != case.code:
        problem = f"exit {code}, expected {case.code}"
    elif not lines:
        problem = f"no line says {case.expect!r}"
    elif "Traceback" in text:
        problem = "a traceback was printed"
    elif case.after is not None:
        problem = case.after()
    return Run(case, code, seconds, cpu, peak, lines[0] if lines else text.strip().splitlines()[-1:][0] if text.strip() else "", problem)


def _size(n: int) -> str:
    return "-" if n == 0 else f"{n / 1024:,.0f} KB" if n < 2**20 else f"{n / 2**20:,.1f} MB" if n < 2**30 else f"{n / 2**30:,.0f} GB"


def _cell(text: str, width: int = 150) -> str:
    text = text.replace("|", "\\|").replace("`", "'")
    return text if len(text) <= width else text[: width - 1] + "…"


def _shown_args(args: list[str]) -> list[str]:
    """The words of a command worth showing: subcommands and options, not paths or values."""
    shown, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--data-dir", "--key", "--out", "--receipts", "--receipt", "--rater"):
            shown.append(arg)
            skip = True
        elif arg.startswith("--") or (arg.isalpha() and arg.islower()):
            shown.append(arg)
    return shown


def render(runs: list[Run], seconds: float) -> str:
    def over(r: Run, seconds: float | None) -> bool:
        return seconds is not None and r.peak_mb is not None and (seconds > LIMIT_S or r.peak_mb > LIMIT_MB)

    refusals = [r for r in runs if r.case.code == 1 and r.case.size < 2**20]
    slow = [r.case.key for r in refusals if over(r, r.seconds)]
    slow_cpu = [r.case.key for r in refusals if over(r, r.cpu)]
    lines = [
        START,
        "",
        f"Last run: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')} on {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end, "
        f"{seconds:.0f} s for {len(runs)} commands; each in a fresh process, timed by `/usr/bin/time` (wall time, "
        f"CPU time (user + system) and peak resident memory, Python's start-up included: the first two rows are "
        f"that floor). Rows with exit status 0 are handled, not refused: the app's self-test there is a whole "
        f"session (start Qt, open the bundle, rate, submit, export), `collect` writes every output.",
        "",
        f"Refusals of inputs under 1 MB over {LIMIT_S:.0f} s or {LIMIT_MB:.0f} MB: **{len(slow)}** of "
        f"{len(refusals)} by wall time{' (' + ', '.join(slow) + ')' if slow else ''}, **{len(slow_cpu)}** by CPU "
        f"time{' (' + ', '.join(slow_cpu) + ')' if slow_cpu else ''}; cases not as expected: "
        f"**{sum(1 for r in runs if r.problem)}**.",
        "",
        "| item | case | command | input | exit | time | CPU | peak | what the user reads |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        c = r.case
        t = "-" if r.seconds is None else f"{r.seconds:.2f} s"
        cpu = "-" if r.cpu is None else f"{r.cpu:.2f} s"
        mb = "-" if r.peak_mb is None else f"{r.peak_mb:.0f} MB"
        verdict = r.line if r.problem is None else f"**{r.problem}** {r.line}"
        cmd = " ".join([c.program, *_shown_args(c.args)])
        lines.append(f"| {c.item} | {_cell(c.what, 80)} | `{cmd}` | {_size(c.size)} | {r.code} | {t} | {cpu} | {mb} | {_cell(verdict)} |")
    lines += ["", END]
    return "\n".join(lines)


def write_doc(block: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    if START not in text:
        raise SystemExit(f"{DOC} has no {START!r} marker")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + block + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.reliability.refusals", description=__doc__.split("\n\n")[0])
    p.add_argument("--write-docs", action="store_true", help="put the table into docs/RELIABILITY.md")
    p.add_argument("--only", default="", help="comma-separated case keys (prefixes)")
    args = p.parse_args(argv)
    import time

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wmcdp-refusals-") as tmp:
        cases = build_cases(Path(tmp))
        if args.only:
            cases = [c for c in cases if any(c.key.startswith(k) for k in args.only.split(","))]
        runs = []
        for case in cases:
            run = run_case(case)
            runs.append(run)
            t = "-" if run.seconds is None else f"{run.seconds:.2f}s"
            mb = "-" if run.peak_mb is None else f"{run.peak_mb:.0f}MB"
            cpu = "-" if run.cpu is None else f"{run.cpu:.2f}s"
            print(f"{'FAIL' if run.problem else 'ok  '} {case.key:<28} exit {run.code} {t:>7} {cpu:>6} {mb:>6}  {run.problem or run.line[:110]}")
        for done in runs:  # the table names the files as the user gave them, not the scratch folder
            done.line = done.line.replace(f"{tmp}{os.sep}", "")
    block = render(runs, time.monotonic() - started)
    if args.write_docs:
        write_doc(block)
        print(f"wrote {DOC.relative_to(REPO)}")
    return 1 if any(r.problem for r in runs) else 0


if __name__ == "__main__":
    raise SystemExit(main())
