"""A rating session driven by a Hypothesis state machine: edit, autosave, crash, restart, revise, submit,
export, in any order. After every step: the submitted count the window shows (``session.progress()``)
= tasks with valid record files = the export manifest's entries; every record file's hash matches the
audit log; after a crash every draft is restored exactly as last saved; no revision is ever lost.

The machine drives :class:`RatingSession`, the core controller the window is a thin view over (the
window itself is driven by test_ui_hostile.py); a "crash" drops every object without closing anything
and builds a new session from the disk. The same machine runs on an encrypted bundle's data folder
(:class:`EncryptedSessionMachine`: every file sealed, names opaque, exports sealed to the coordinator), where
after every step no task id and no typed text is readable in any name or byte of the folder either.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.kit.bundles import write_bundle
from tests.kit.encryption import coordinator_keys
from tests.kit.sessions import RATER, audit_hash_problems, new_session, valid_drafts, valid_records
from wmcdp_desktop.coordinator.results.provenance import check_export_audit
from wmcdp_desktop.core.encryption.sealed_box import open_sealed
from wmcdp_desktop.core.zips.reader import open_zip_bytes
from wmcdp_desktop.rater.export import ExportPlan
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock

from .helpers import all_orphans
from .tally import TALLY

pytestmark = pytest.mark.reliability

TASKS = ["t0000", "t0001", "t0002"]
_TEMPLATE: list[Path] = []


def _bundle_template() -> Path:
    if not _TEMPLATE:
        _TEMPLATE.append(write_bundle(Path(tempfile.mkdtemp(prefix="wmcdp-rel-bundle-")) / "bundle", 3))
    return _TEMPLATE[0]


def _snapshot(s: RatingSession) -> tuple[dict[str, int | str], str]:
    assert s.current is not None
    return dict(s.current.scores), s.current.notes["brief_rationale"]


class SessionMachine(RuleBasedStateMachine):
    data_key: bytes | None = None
    """The data folder's key (an encrypted bundle's folder), or None: a plain one."""
    coordinator: tuple[bytes, bytes] | None = None
    """The coordinator's key pair the exports are sealed to (an encrypted bundle's), or None."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="wmcdp-rel-state-"))
        self.bundle_path = _bundle_template()
        self.data = self.root / "data"
        self.clock = FakeClock()
        self.session = self._new_session()
        self.revisions: dict[str, int] = {}
        """task -> latest submitted revision (the model)."""
        self.saved: dict[str, tuple[dict[str, int | str], str]] = {}
        """task -> the rating as last saved to its draft."""
        self.exports = 0

    def _new_session(self) -> RatingSession:
        public = None if self.coordinator is None else self.coordinator[1]
        return new_session(self.bundle_path, self.data, self.clock, rater=RATER, data_key=self.data_key,
                           export_public_key=public)

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # ----- rules -----------------------------------------------------------------------------------
    @rule(task=st.sampled_from(TASKS))
    def open_task(self, task: str) -> None:
        before = self.session.current_id
        self.session.open_task(task)  # leaving the open task saves it
        self._note_saved(before)
        s = self.session
        if s.current is not None and task in self.saved:
            assert _snapshot(s) == self.saved[task], "draft not restored as saved"

    @precondition(lambda self: self.session.current is not None)
    @rule(dim=st.integers(0, 7), value=st.one_of(st.integers(1, 5), st.none()), seconds=st.integers(0, 30))
    def edit_score(self, dim: int, value: int | None, seconds: int) -> None:
        self.clock.advance(seconds)
        self.session.user_input()
        self.session.set_score(self.session.rubric.dimensions[dim].id, value)

    @precondition(lambda self: self.session.current is not None)
    @rule(text=st.text(min_size=0, max_size=30))
    def edit_rationale(self, text: str) -> None:
        self.session.set_note("brief_rationale", text)

    @precondition(lambda self: self.session.current is not None)
    @rule()
    def autosave(self) -> None:
        assert self.session.save_draft()
        self._note_saved(self.session.current_id)

    @rule()
    def crash(self) -> None:
        """Kill: nothing is closed or saved; a new session starts from the disk."""
        TALLY.faults_injected["crash inside a stateful session (objects dropped, reopened from disk)"] += 1
        del self.session
        self.session = self._new_session()
        for task, (scores, rationale) in self.saved.items():  # every saved draft is found again
            assert task in self.session.store.draft_task_ids()
            if task in self.revisions:
                expected = "submitted"
            else:  # a draft holding only time (a task looked at) leaves the task "not started"
                expected = "draft" if scores or rationale.strip() else "not_started"
            assert self.session.state(task) == expected
        TALLY.faults_survived["crash inside a stateful session (objects dropped, reopened from disk)"] += 1

    @rule()
    def restart(self) -> None:
        before = self.session.current_id
        assert self.session.close()
        self._note_saved(before, closed=True)
        self.session = self._new_session()

    @precondition(lambda self: self.session.viewing_record is not None)
    @rule()
    def revise(self) -> None:
        self.session.revise()
        self._note_saved(self.session.current_id)

    @precondition(lambda self: self.session.current is not None)
    @rule(score=st.integers(1, 5))
    def complete_and_submit(self, score: int) -> None:
        s = self.session
        task = s.current_id
        assert task is not None
        for dim in s.rubric.dimensions:
            if dim.id not in s.current.scores:  # type: ignore[union-attr]
                s.set_score(dim.id, score)
        if not s.current.notes["brief_rationale"].strip():  # type: ignore[union-attr]
            s.set_note("brief_rationale", "Complete enough.")
        outcome = s.submit()
        assert outcome.ok, outcome.problems
        self.revisions[task] = self.revisions.get(task, 0) + 1
        assert outcome.record is not None and outcome.record.envelope.revision == self.revisions[task]
        self.saved.pop(task, None)

    @rule()
    def export(self) -> None:
        s = self.session
        out = self.root / "out"
        out.mkdir(exist_ok=True)
        dest = out / f"results-{self.exports}.zip"
        self.exports += 1
        manifest = s.export_results(dest)
        data = dest.read_bytes()
        if self.coordinator is not None:  # sealed to the coordinator: their key opens it
            data = open_sealed(self.coordinator[0], data, dest.name)
        safe = open_zip_bytes(data, dest.name)
        assert sorted(safe.names()) == sorted(["manifest.json", "audit.jsonl", *(f.path for f in manifest.files)])
        # the export's audit chain holds and seals exactly these records (coordinator/results/provenance.py)
        problems, chain = check_export_audit(dest.name, manifest, safe.read("audit.jsonl"))
        assert problems == [] and chain is not None
        assert manifest.counts.submitted == len(self.revisions)

    def _note_saved(self, task: str | None, closed: bool = False) -> None:
        """After a save of ``task`` (explicit, or by leaving/closing it): the disk holds the rating."""
        if task is None:
            return
        drafts = valid_drafts(self.session.store)
        if task in drafts:
            d = drafts[task]
            self.saved[task] = (dict(d.scores), d.notes.brief_rationale)

    # ----- invariants ---------------------------------------------------------------------------------
    @invariant()
    def counts_agree(self) -> None:
        s = self.session
        records = valid_records(s.store)  # every record file loads
        tasks_with_records = {name.split(".")[0] for name in records}
        assert s.progress() == (len(self.revisions), len(TASKS))
        expected = sum(self.revisions.values())
        TALLY.records(expected, max(0, expected - len(records)))
        assert tasks_with_records == set(self.revisions)
        assert len(records) == expected, "a revision was lost or invented"
        _data, manifest = ExportPlan(
            s.store,
            bundle_id=s.manifest.bundle_id,
            bundle_sha256=s.bundle.manifest_sha256,
            study_id=s.manifest.study_id,
            task_ids=s.task_ids,
            drafts_not_submitted=s.drafts_not_submitted(),
            clock=self.clock,
        ).build()
        assert manifest.counts.submitted == s.progress()[0]
        assert len(manifest.files) == len(records)
        assert sum(1 for f in manifest.files if f.latest) == len(self.revisions)
        assert audit_hash_problems(s.store) == ([], [])
        assert all_orphans(self.data) == []
        TALLY.stateful_steps += 1


class EncryptedSessionMachine(SessionMachine):
    """:class:`SessionMachine` on an encrypted bundle's data folder."""

    def __init__(self) -> None:
        self.data_key = os.urandom(32)
        self.coordinator = coordinator_keys()
        super().__init__()

    @invariant()
    def nothing_readable(self) -> None:
        for path in self.data.rglob("*"):
            name = str(path.relative_to(self.data)).encode()
            blob = path.read_bytes() if path.is_file() and path.name != "settings.json" else b""
            for secret in (*(t.encode() for t in TASKS), b"Complete enough.", b"B-REL", b"STUDY-REL", RATER.encode()):
                assert secret not in name and secret not in blob, (secret, path)


STATEFUL_SETTINGS = settings(
    max_examples=30,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    derandomize=True,  # the same examples every run: the published figures are reproducible
)
SessionMachine.TestCase.settings = STATEFUL_SETTINGS
test_stateful_rating_session = SessionMachine.TestCase
EncryptedSessionMachine.TestCase.settings = settings(STATEFUL_SETTINGS, max_examples=15)
test_stateful_rating_session_of_an_encrypted_bundle = EncryptedSessionMachine.TestCase
