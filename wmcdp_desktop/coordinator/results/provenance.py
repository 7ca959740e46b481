"""Is a results export what the rater's app sealed? The coordinator's side of the tamper-evident results.

An export carries the rater's hash-chained audit log (``audit.jsonl``), ending in the
``export_sealed`` event of that export (:mod:`wmcdp_desktop.core.audit_chain`). :func:`check_export_audit`
checks one export: every link of the chain, the seal against the manifest (bundle id and SHA-256, rater,
study, export id, the digest of the record files), every record file tied into the chain by the event that
wrote it, and no revision the chain knows missing from the export. :func:`replay_problems` compares the
exports of one run (the same export twice; an older export of a rater's bundle beside a newer one; two
histories of one bundle), :func:`ledger_problems` compares them with what an earlier ``collect`` saw, and
:func:`receipt_problems` compares the chain's head with the receipt code the rater sent apart from the file.

What this detects, and what it cannot, is said in docs/RELIABILITY.md ("Tamper-evident results").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from wmcdp_desktop.core import audit_chain
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.ids import id_problem
from wmcdp_desktop.core.models.results_manifest import AUDIT_NAME, ResultsManifest

MAX_RECEIPTS_BYTES = 1 << 20
"""A receipts file is a few bytes per rater; a bigger file is refused unread."""


@dataclass
class ChainSummary:
    """What the cross-export checks need of one export's chain."""

    label: str
    rater_id: str
    bundle_id: str
    head: str
    export_id: str
    line_hashes: list[str] = field(repr=False)
    """SHA-256 of every line of the carried log, in order (the last one is the head)."""
    _receipt: str | None = field(default=None, repr=False)

    @property
    def receipt(self) -> str:
        """The receipt code of this export (computed once; it takes a few tens of milliseconds)."""
        if self._receipt is None:
            self._receipt = audit_chain.receipt_code(self.head)
        return self._receipt


def check_export_audit(
    label: str, manifest: ResultsManifest, audit_data: bytes | None
) -> tuple[list[Problem], ChainSummary | None]:
    """The problems of one export's audit chain, and its summary when the chain holds.

    ``audit_data``: the bytes of ``audit.jsonl`` from the zip, already checked against ``manifest.audit``'s
    SHA-256 and size by the reader (None when the file is missing or did not match: the reader reported it).
    """
    mdisp = f"{label}!manifest.json"
    adisp = f"{label}!{AUDIT_NAME}"
    ref = manifest.audit
    if ref is None:
        return [Problem(mdisp, "audit", "has no audit chain (it was removed): "
                        "a change made after the export cannot be detected")], None
    if audit_data is None:
        return [], None
    check = audit_chain.verify_chain(audit_data)
    problems = [Problem(adisp, "", p) for p in check.problems]
    if check.head is None:
        return problems, None
    if check.head != ref.head:
        problems.append(Problem(mdisp, "audit.head", "is not the SHA-256 of the audit log's last line"))
    seal = check.last_event or {}
    if seal.get("event") != audit_chain.SEAL_EVENT:
        problems.append(Problem(adisp, "", "does not end with the seal of an export (export_sealed)"))
        return problems, None
    expected: list[tuple[str, str, object]] = [
        ("export_id", "export id", ref.export_id),
        ("bundle_id", "bundle", manifest.bundle_id),
        ("bundle_sha256", "bundle SHA-256", manifest.bundle_sha256),
        ("rater_id", "rater", manifest.rater_id),
        ("study_id", "study", manifest.study_id),
    ]
    for key, words, want in expected:
        if seal.get(key) != want:
            problems.append(Problem(
                adisp, f"export_sealed.{key}",
                f"the seal binds this export to {words} {_shown(seal.get(key))}, but manifest.json says {_shown(want)}: "
                "an export bound to another bundle or rater",
            ))
    files = [(f.path, f.sha256) for f in manifest.files]
    if seal.get("records_sha256") != audit_chain.records_digest(files) or seal.get("record_files") != len(files):
        problems.append(Problem(
            adisp, "export_sealed.records_sha256",
            "the record files are not the ones sealed when the rater exported: one was added, removed or replaced",
        ))
    problems += _record_ties(label, manifest, check.events)
    lines = audit_chain.split_lines(audit_data)
    summary = ChainSummary(
        label, manifest.rater_id, manifest.bundle_id, check.head, ref.export_id,
        [audit_chain.line_sha256(line) for line in lines],
    )
    return problems, summary


def _record_ties(label: str, manifest: ResultsManifest, events: list[dict[str, Any]]) -> list[Problem]:
    """Every exported record tied into the chain; every revision the chain wrote in the export."""
    tied: dict[str, set[str]] = {}
    written: set[tuple[str, int]] = set()
    for event in events:
        if event.get("event") in audit_chain.RECORD_EVENTS:
            name, sha = event.get("file"), event.get("sha256")
            if isinstance(name, str) and isinstance(sha, str):
                tied.setdefault(name, set()).add(sha)
            task, revision = event.get("task_id"), event.get("revision")
            if isinstance(task, str) and isinstance(revision, int) and not isinstance(revision, bool):
                written.add((task, revision))
    problems = []
    exported: set[tuple[str, int]] = set()
    for entry in manifest.files:
        exported.add((entry.task_id, entry.revision))
        name = entry.path.removeprefix("records/")
        shas = tied.get(name)
        if shas is None:
            problems.append(Problem(f"{label}!{entry.path}", "", "is not in the audit chain: no submit wrote it"))
        elif entry.sha256 not in shas:
            problems.append(Problem(
                f"{label}!{entry.path}", "",
                "is not the record the audit chain says was submitted: it was changed after it was submitted",
            ))
    for task, revision in sorted(written - exported):
        problems.append(Problem(
            f"{label}!{AUDIT_NAME}", "",
            f"revision {revision} of task {task} was submitted (audit chain) but is not in the export: a revision missing",
        ))
    return problems


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ----- across exports -----------------------------------------------------------------------------------
def replay_problems(summaries: Iterable[ChainSummary]) -> list[Problem]:
    """Exports of one rater's bundle compared with each other: the same export twice, an older one beside a
    newer one, or two histories that part (one of them changed, or two data folders)."""
    groups: dict[tuple[str, str], list[ChainSummary]] = {}
    for s in summaries:
        groups.setdefault((s.rater_id, s.bundle_id), []).append(s)
    problems: list[Problem] = []
    for (rater, bundle), group in sorted(groups.items()):
        group.sort(key=lambda s: len(s.line_hashes))
        for i, older in enumerate(group):
            for newer in group[i + 1 :]:
                problems += _compare(older, newer, rater, bundle)
    return problems


def _compare(a: ChainSummary, b: ChainSummary, rater: str, bundle: str) -> list[Problem]:
    where = f"{a.label}!manifest.json"
    if a.head == b.head:
        return [Problem(where, "audit.head", f"is the same export as {b.label} (the same chain head): given twice, or replayed")]
    n = len(a.line_hashes)
    if n <= len(b.line_hashes) and b.line_hashes[n - 1] == a.head:
        return [Problem(
            where, "audit.head",
            f"is an older export of rater {rater}'s bundle {bundle} than {b.label} (its chain ends at line {n} of "
            f"{b.label}'s); use the newest export only",
        )]
    parted = next((k for k, (x, y) in enumerate(zip(a.line_hashes, b.line_hashes, strict=False)) if x != y), n)
    return [Problem(
        where, "audit.head",
        f"and {b.label} hold two different histories of rater {rater}'s bundle {bundle} from line {parted + 1} of "
        "their audit logs: one was changed, or they come from two data folders",
    )]


def ledger_entry(summary: ChainSummary) -> dict[str, Any]:
    """What ``collect-report.json`` keeps of an export's chain, for the next run's :func:`ledger_problems`."""
    return {"head": summary.head, "lines": len(summary.line_hashes), "export_id": summary.export_id}


def ledger_problems(summaries: Iterable[ChainSummary], seen: Mapping[tuple[str, str], Mapping[str, Any]]) -> list[Problem]:
    """Exports compared with the newest chain an earlier run saw of the same rater's bundle (``seen``:
    (rater, bundle) -> :func:`ledger_entry`): an export whose chain does not contain that head is older
    than what was collected before (a replay), or a different history."""
    problems = []
    for s in summaries:
        before = seen.get((s.rater_id, s.bundle_id))
        if not before:
            continue
        head, lines = before.get("head"), before.get("lines")
        if not isinstance(head, str) or not isinstance(lines, int) or lines < 1:
            continue
        if lines <= len(s.line_hashes) and s.line_hashes[lines - 1] == head:
            continue  # the same export again, or a newer one that extends it
        older = len(s.line_hashes) < lines
        problems.append(Problem(
            f"{s.label}!manifest.json", "audit.head",
            (f"is older than the export of rater {s.rater_id}'s bundle {s.bundle_id} collected before "
             f"({len(s.line_hashes)} audit lines, {lines} then): an older export replacing a newer one")
            if older else
            (f"is not a continuation of the export of rater {s.rater_id}'s bundle {s.bundle_id} collected before: "
             "a different history (changed, or from another data folder)"),
        ))
    return problems


# ----- receipts -----------------------------------------------------------------------------------------
def read_receipts(path: Path) -> tuple[dict[str, set[str]], list[Problem]]:
    """A receipts file: one ``<rater_id> <code>`` per line (``#`` starts a comment; blank lines are fine; a
    rater may have several codes, one per export sent). Returns rater id -> codes, and the bad lines."""
    source = str(path)
    data = read_file_bytes(path, source)
    if len(data) > MAX_RECEIPTS_BYTES:
        return {}, [Problem(source, "", f"is larger than {MAX_RECEIPTS_BYTES:,} bytes; a receipts file has a line per rater")]
    try:
        # A receipts file is typed by hand: Windows Notepad's "Unicode" (UTF-16 with its byte-order mark) too.
        text = data.decode("utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return {}, [Problem(source, "", "is not UTF-8 text: save it as UTF-8 (in Notepad: File > Save as, Encoding)")]
    codes: dict[str, set[str]] = {}
    problems = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        rater = parts[0]
        code = audit_chain.normalise_receipt(parts[1]) if len(parts) == 2 else None
        bad_id = id_problem(rater, "rater id")
        if bad_id is not None:
            problems.append(Problem(source, f"line {number}", f"{rater!r}: {bad_id}"))
        elif code is None:
            why = audit_chain.receipt_problem(parts[1]) if len(parts) == 2 else None
            problems.append(Problem(
                source, f"line {number}",
                "should be a rater id and a receipt code of 10 letters and digits, e.g. R01 7K3QD-M2XWA"
                + (f": {why}" if why else ""),
            ))
        else:
            codes.setdefault(rater, set()).add(code)
    return codes, problems


def receipts_to_check(receipt: str | None, receipts_file: Path | None,
                      raters: Iterable[str]) -> tuple[dict[str, set[str]] | None, str, list[Problem]]:
    """The receipt codes a check compares (rater id -> codes; None: no receipt given), where they came from
    (``--receipt`` or the file), and the receipts file's bad lines. ``receipt``: the normalised code of the one
    export given, which may be any of ``raters``' (``--receipt``); else ``receipts_file``'s codes."""
    if receipt is not None:
        return {rater: {receipt} for rater in raters}, "--receipt", []
    if receipts_file is not None:
        codes, bad = read_receipts(receipts_file)
        return codes, str(receipts_file), bad
    return None, "", []


def receipt_problems(
    summaries: Iterable[ChainSummary], receipts: Mapping[str, set[str]], source: str
) -> tuple[list[Problem], set[str]]:
    """Each export's receipt code against the codes its rater sent (``receipts``: rater id -> codes). Returns
    the problems and the labels of the exports whose code does not match, or whose rater sent none (their records
    are not to be used)."""
    problems = []
    refused: set[str] = set()
    for s in summaries:
        codes = receipts.get(s.rater_id)
        where = f"{s.label}!manifest.json"
        if not codes:
            # Receipts were given to be checked: an export none of them can check is not verified, so not counted.
            refused.add(s.label)
            problems.append(Problem(where, "audit.head", f"no receipt code for rater {s.rater_id} in {source}: not "
                                                         "checked, so its records are not counted"))
        elif s.receipt not in codes:
            refused.add(s.label)
            problems.append(Problem(
                where, "audit.head",
                f"its receipt code is {s.receipt}, but rater {s.rater_id} sent {', '.join(sorted(codes))}: the export was "
                "changed after it was made, or it is not the export the rater sent",
            ))
    return problems, refused


class Revision(Protocol):
    """What the revision line check needs of a record (a collected record, or one ``results validate`` read)."""

    @property
    def source(self) -> str: ...
    @property
    def record_id(self) -> str: ...
    @property
    def rater_id(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def revision(self) -> int: ...
    @property
    def supersedes(self) -> str | None: ...


def revision_line_breaks(latest: Revision, by_revision: Mapping[tuple[str, str, int], Revision]) -> list[Problem]:
    """Where a revision's line back to revision 1 breaks (empty when it holds): each revision n > 1 replaces
    revision n - 1 of the same rater and task (the app writes it so), revision 1 replaces nothing. A gap, or a
    revision replacing a record of another task, is not the app's history. ``by_revision``: (rater, task,
    revision) -> the record of that revision."""
    rr: Revision | None = latest
    while rr is not None:
        def broken(why: str, at: Revision) -> list[Problem]:
            return [Problem(at.source, "envelope.supersedes_record_id", why)]

        if rr.revision == 1:
            if rr.supersedes is not None:
                return broken(f"revision 1 says it replaces record {rr.supersedes}; a first submission replaces "
                              "nothing", rr)
            return []
        before = by_revision.get((rr.rater_id, rr.task_id, rr.revision - 1))
        if before is None:
            return broken(f"revision {rr.revision} replaces {rr.supersedes or 'nothing named'}, but revision "
                          f"{rr.revision - 1} of this task is in none of the exports", rr)
        if rr.supersedes != before.record_id:
            return broken(f"revision {rr.revision} says it replaces {rr.supersedes or 'nothing'}, not revision "
                          f"{rr.revision - 1} of this task ({before.record_id})", rr)
        rr = before
    return []


def revision_problems(summaries: Iterable[Revision]) -> list[Problem]:
    """The latest revision of each (rater, task) whose line back to revision 1 breaks (:func:`revision_line_breaks`;
    ``results validate``: not valid; collect quarantines it as ``revisions``)."""
    summaries = list(summaries)
    by_revision = {(s.rater_id, s.task_id, s.revision): s for s in summaries}
    latest: dict[tuple[str, str], Revision] = {}
    for s in summaries:
        seen = latest.get((s.rater_id, s.task_id))
        if seen is None or s.revision >= seen.revision:
            latest[(s.rater_id, s.task_id)] = s
    return [p for s in latest.values() for p in revision_line_breaks(s, by_revision)]
