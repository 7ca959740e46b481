"""The data folder of an encrypted bundle: drafts, records and the audit log sealed with the data folder's key,
names opaque, and every guarantee of a plain folder kept (restore, revisions, quarantine, the audit chain over the
plain lines, an export as a plain bundle's, sealed to the coordinator's key)."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.encryption import coordinator_keys
from tests.kit.sessions import fill, new_session
from wmcdp_desktop.core.audit_chain import split_lines, verify_chain
from wmcdp_desktop.core.encryption.sealed_box import is_sealed, open_sealed
from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.rater.export import export_receipt, sealed_export_file_name
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock

RATER = "RZQ-ENC-9"
RATIONALE = "Quartz-zebra rationale, only typed"
SECRETS = [
    "T-0001", "T-0002", "T-0003", "ocd-07", "cr-3f9a1c", "cr-5d0e42", "cr-77b2e0", "B-test", "S-test", RATER,
    RATIONALE, "exhausting to answer", "40 times tonight", "front door lock", "WM-RUB-001",
]
"""Every id of the bundle, the rater's, and texts of the scenario, the response and the rationale."""


def leaks(root: Path) -> list[str]:
    """Each secret found in a file's bytes or a name under ``root``, with where."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        blob = path.read_bytes() if path.is_file() else b""
        for secret in SECRETS:
            if secret in rel or secret.encode() in blob:
                found.append(f"{secret!r} in {rel}")
    return found


@pytest.fixture
def key() -> bytes:
    return os.urandom(32)


@pytest.fixture
def bundle(tmp_path: Path, sample_docs: Any) -> Path:
    return make_bundle(tmp_path / "bundle", sample_docs)


def session_of(bundle: Path, data: Path, key: bytes, clock: FakeClock | None = None,
               public: bytes | None = None) -> RatingSession:
    return new_session(bundle, data, clock or FakeClock(), rater=RATER, data_key=key, export_public_key=public)


def rate(session: RatingSession) -> None:
    """T-0001 submitted and revised, T-0002 submitted, T-0003 a draft."""
    for tid in ("T-0001", "T-0002"):
        session.open_task(tid)
        fill(session, 3, RATIONALE)
        assert session.submit().ok
    session.open_task("T-0001")
    session.revise()
    session.set_score("WM-RUB-001", 5)
    assert session.submit().ok
    session.open_task("T-0003")
    session.set_note("brief_rationale", RATIONALE + " draft")
    session.save_draft()


def test_a_whole_session_leaves_no_id_and_no_text_in_the_folder_and_comes_back(bundle: Path, tmp_path: Path,
                                                                             key: bytes) -> None:
    data = tmp_path / "data"
    rate(session_of(bundle, data, key))
    assert leaks(data) == []
    names = sorted(str(p.relative_to(data)) for p in data.rglob("*") if p.is_file())
    assert len(names) == 5 and all(n.startswith("bundles/") for n in names), names  # 3 records, 1 draft, the log
    assert sum(n.endswith(".sealed") for n in names) == 5

    again = session_of(bundle, data, key)  # the app started again with the same passphrase
    assert [again.state(t) for t in again.task_ids] == ["submitted", "submitted", "draft"]
    again.open_task("T-0003")
    assert again.current is not None and again.current.notes["brief_rationale"] == RATIONALE + " draft"
    again.open_task("T-0001")
    assert again.viewing_record is not None and again.viewing_record.envelope.revision == 2
    check = verify_chain(again.store.audit_bytes())
    assert check.ok, check.problems
    assert [e["event"] for e in check.events].count("opened") == 2


def test_another_key_sees_another_empty_folder(bundle: Path, tmp_path: Path, key: bytes) -> None:
    data = tmp_path / "data"
    rate(session_of(bundle, data, key))
    other = session_of(bundle, data, os.urandom(32))
    assert [other.state(t) for t in other.task_ids] == ["not_started"] * 3
    assert other.store.root != session_of(bundle, data, key).store.root


def test_a_sealed_draft_put_under_another_tasks_name_is_set_aside(bundle: Path, tmp_path: Path, key: bytes) -> None:
    data = tmp_path / "data"
    session = session_of(bundle, data, key)
    session.open_task("T-0003")
    session.set_note("brief_rationale", RATIONALE)
    session.save_draft()
    store = session.store
    os.replace(store.draft_path("T-0003"), store.draft_path("T-0001"))
    again = session_of(bundle, data, key)
    assert again.state("T-0001") == "not_started"  # the moved draft does not open as T-0001's
    again.open_task("T-0001")
    assert len(again.store.quarantined) == 1
    assert any(e["event"] == "draft_quarantined" for e in again.store.read_audit())
    assert leaks(data) == []


def test_a_torn_sealed_audit_line_is_left_out_and_the_chain_holds(bundle: Path, tmp_path: Path, key: bytes) -> None:
    data = tmp_path / "data"
    session = session_of(bundle, data, key)
    rate(session)
    with open(session.store.audit_path, "ab") as log:
        log.write(b"AAAAB3NzaC1yc2EAAAADAQABAAABAQ")  # a line cut short by a crash: no newline
    again = session_of(bundle, data, key)
    again.open_task("T-0002")
    again.revise()
    fill(again, 2, RATIONALE)
    assert again.submit().ok
    check = verify_chain(again.store.audit_bytes())
    assert check.ok, check.problems


def test_a_changed_sealed_audit_line_breaks_the_chain(bundle: Path, tmp_path: Path, key: bytes) -> None:
    data = tmp_path / "data"
    session = session_of(bundle, data, key)
    rate(session)
    path = session.store.audit_path
    lines = path.read_bytes().split(b"\n")
    middle = bytearray(lines[2])
    middle[20] = ord("A") if middle[20] != ord("A") else ord("B")
    lines[2] = bytes(middle)
    path.write_bytes(b"\n".join(lines))
    check = verify_chain(session_of(bundle, data, key).store.audit_bytes())
    assert not check.ok and any("broken" in p for p in check.problems)


def test_the_export_is_the_plain_export_sealed_to_the_coordinator(bundle: Path, tmp_path: Path, key: bytes) -> None:
    private, public = coordinator_keys()
    clock = FakeClock()
    session = session_of(bundle, tmp_path / "data", key, clock, public)
    rate(session)
    dest = tmp_path / "out" / sealed_export_file_name(RATER, clock)
    dest.parent.mkdir()
    manifest = session.export_results(dest)
    assert dest.name == f"wmcdp-results-{RATER}-20270115T080000Z.wmcdp-sealed"
    blob = dest.read_bytes()
    assert is_sealed(blob[:64])
    assert leaks(dest.parent) == [f"{RATER!r} in {dest.name}"]  # the rater's own id names the file, nothing else
    with zipfile.ZipFile(io.BytesIO(open_sealed(private, blob, dest.name))) as zf:
        assert sorted(zf.namelist()) == [
            "audit.jsonl", "manifest.json", "records/T-0001.r1.json", "records/T-0001.r2.json", "records/T-0002.r1.json"
        ]
        log = zf.read("audit.jsonl")
        assert RATIONALE.encode() in zf.read("records/T-0001.r2.json")
    check = verify_chain(log)
    assert manifest.audit is not None and check.ok and check.head == manifest.audit.head
    assert export_receipt(manifest)  # the receipt of the plain chain, as for a plain bundle
    assert split_lines(log)[-1].startswith(b"{")


def test_an_encrypted_folder_without_a_coordinator_key_exports_nothing(bundle: Path, tmp_path: Path, key: bytes) -> None:
    session = session_of(bundle, tmp_path / "data", key)
    rate(session)
    dest = tmp_path / "out" / "x.wmcdp-sealed"
    dest.parent.mkdir()
    with pytest.raises(StorageError, match="cannot be exported without showing the ratings"):
        session.export_results(dest)
    assert list(dest.parent.iterdir()) == []


def test_a_sealed_record_that_does_not_open_is_set_aside_and_the_export_goes_on(bundle: Path, tmp_path: Path,
                                                                             key: bytes) -> None:
    private, public = coordinator_keys()
    session = session_of(bundle, tmp_path / "data", key, public=public)
    rate(session)
    store = session.store
    os.replace(store.record_path("T-0001", 1), store.record_path("T-0002", 2))  # an old record under another name
    again = session_of(bundle, tmp_path / "data", key, public=public)
    dest = tmp_path / "r.wmcdp-sealed"
    again.export_results(dest)
    with zipfile.ZipFile(io.BytesIO(open_sealed(private, dest.read_bytes(), dest.name))) as zf:
        assert "records/T-0002.r2.json" not in zf.namelist()
    assert any(e["event"] == "record_quarantined" for e in again.store.read_audit())
