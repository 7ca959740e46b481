"""The rater's audit log is a hash chain (tamper-evident results, issue 13): each event carries the
SHA-256 of the line before it; an old log keeps its lines and the chain starts at the first new event."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest

from wmcdp_desktop.core.audit_chain import (
    GENESIS,
    RECEIPT_ALPHABET,
    line_sha256,
    normalise_receipt,
    receipt_code,
    receipt_problem,
    split_lines,
    verify_chain,
)
from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock


@pytest.fixture
def store(tmp_path: Path) -> RaterStore:
    return RaterStore(tmp_path, "B-test", "R01", FakeClock())


def _events(store: RaterStore) -> None:
    store.audit("opened", bundle_id="B-test")
    store.audit("draft_saved", durable=False, task_id="T-0001", sha256="a" * 64)
    store.audit("submitted", task_id="T-0001", revision=1, file="T-0001.r1.json", sha256="b" * 64)


def test_every_line_carries_the_hash_of_the_line_before(store: RaterStore) -> None:
    _events(store)
    lines = split_lines(store.audit_path.read_bytes())
    first = json.loads(lines[0])
    assert first["prev"] == GENESIS and first["chain_start"] == hashlib.sha256(b"").hexdigest()
    for before, line in itertools.pairwise(lines):
        event = json.loads(line)
        assert event["prev"] == line_sha256(before) and "chain_start" not in event
    check = verify_chain(store.audit_bytes())
    assert check.ok and check.head == line_sha256(lines[-1]) and check.chained_from == 1
    assert [e["event"] for e in check.events] == ["opened", "draft_saved", "submitted"]


def test_audit_returns_the_new_head(store: RaterStore) -> None:
    head = store.audit("opened")
    assert head == verify_chain(store.audit_bytes()).head


def test_an_old_log_keeps_working_and_the_chain_starts_at_the_first_new_event(store: RaterStore) -> None:
    old = (
        b'{"at": "2026-11-01T09:00:00Z", "event": "opened"}\n'
        b'{"at": "2026-11-01T09:05:00Z", "event": "submitted", "file": "T-0001.r1.json", "sha256": "' + b"c" * 64 + b'"}\n'
    )
    store.root.mkdir(parents=True)
    store.audit_path.write_bytes(old)
    store.audit("opened")
    store.audit("exported")
    data = store.audit_path.read_bytes()
    assert data.startswith(old)
    first_new = json.loads(split_lines(data)[2])
    assert first_new["chain_start"] == hashlib.sha256(old).hexdigest()
    assert first_new["prev"] == line_sha256(split_lines(old)[-1])
    check = verify_chain(data)
    assert check.ok and check.chained_from == 3 and len(check.events) == 4
    # Changing an old line is caught too: the chain's start covers every byte before it.
    tampered = data.replace(b"09:05:00", b"09:06:00", 1)
    assert verify_chain(tampered).problems[0] == (
        "the audit log's lines before line 3 (where its chain starts) were changed"
    )


def test_a_torn_line_stays_a_link_of_the_chain(store: RaterStore) -> None:
    store.audit("opened")
    with open(store.audit_path, "ab") as fh:
        fh.write(b'{"at": "2026-11-29T10:0')  # a crash in the middle of an append
    store.audit("submitted", task_id="T-0001")
    check = verify_chain(store.audit_bytes())
    assert check.ok, check.problems
    assert [e["event"] for e in check.events] == ["opened", "submitted"]
    assert [e["event"] for e in store.read_audit()] == ["opened", "submitted"]


def test_a_new_store_object_continues_the_same_chain(tmp_path: Path) -> None:
    RaterStore(tmp_path, "B-test", "R01", FakeClock()).audit("opened")
    RaterStore(tmp_path, "B-test", "R01", FakeClock()).audit("opened")
    store = RaterStore(tmp_path, "B-test", "R01", FakeClock())
    check = verify_chain(store.audit_bytes())
    assert check.ok and check.chained_from == 1 and check.lines == 2
    assert sum("chain_start" in e for e in check.events) == 1


@pytest.mark.parametrize(
    ("change", "broken_at"),
    [
        (lambda lines: [lines[0], lines[1].replace(b"T-0001", b"T-0002"), lines[2]], 3),  # an event edited
        (lambda lines: [lines[0], lines[2]], 2),  # an event removed
        (lambda lines: [lines[0], b'{"at": "x", "event": "submitted", "prev": "' + b"0" * 64 + b'"}', *lines[1:]], 2),
        (lambda lines: [lines[0], b'{"at": "x", "event": "submitted"}', *lines[1:]], 2),  # an unchained line
        (lambda lines: [lines[1], lines[0], lines[2]], 2),  # reordered
    ],
    ids=["edited", "removed", "inserted", "inserted-unchained", "reordered"],
)
def test_any_change_before_the_last_line_breaks_the_chain(store: RaterStore, change, broken_at: int) -> None:  # type: ignore[no-untyped-def]
    _events(store)
    lines = split_lines(store.audit_bytes())
    check = verify_chain(b"\n".join(change(lines)) + b"\n")
    assert not check.ok
    assert any(f"line {broken_at}" in p for p in check.problems), check.problems


def test_a_log_without_a_chain_says_so() -> None:
    check = verify_chain(b'{"at": "2026-11-01T09:00:00Z", "event": "opened"}\n')
    assert not check.ok and check.head is None
    assert check.problems == ["the audit log has no hash chain (it was removed or replaced)"]


def test_receipt_codes_are_short_and_forgiving() -> None:
    head = hashlib.sha256(b"head").hexdigest()
    code = receipt_code(head)
    assert len(code) == 11 and code[5] == "-" and all(c in RECEIPT_ALPHABET for c in code.replace("-", ""))
    assert receipt_code(head) == code  # the same head always gives the same code
    assert receipt_code(hashlib.sha256(b"other").hexdigest()) != code
    assert normalise_receipt(code.lower()) == code
    assert normalise_receipt(" " + code.replace("-", " ") + "\t") == code
    assert normalise_receipt(code.replace("0", "O").replace("1", "l")) == code
    for bad in ("", "ABCDE", code + "X", "UUUUU-UUUUU", "ABCDE_FGHJK"):
        assert normalise_receipt(bad) is None


@pytest.mark.parametrize(
    "typed",
    [
        "7K3QD\u2013M2XWA",  # an en dash: what an editor or mail program makes of a hyphen
        "7K3QD\u2014M2XWA",  # an em dash
        "7K3QD\u00a0M2XWA",  # a no-break space from an email
        "\uff17\uff2b\uff13\uff31\uff24-\uff2d\uff12\uff38\uff37\uff21",  # full-width, from an East Asian keyboard
        "7K3QD-M2XWA\u200b",  # a zero-width space copied from a web page
        " 7K3QD - M2XWA \n",  # pasted with its line break
        "7k3qd m2xwa",
    ],
)
def test_a_receipt_code_as_a_clumsy_hand_or_a_mail_program_gives_it(typed: str) -> None:
    assert normalise_receipt(typed) == "7K3QD-M2XWA"
    assert receipt_problem(typed) is None


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("7\u041a3QD-M2XWA", "'\u041a' (U+041A CYRILLIC CAPITAL LETTER KA) is not a character of a receipt code"),
        ("7K3QD-M2XWU", "'U' (U+0055 LATIN CAPITAL LETTER U) is not a character of a receipt code"),
        ("7K3QD-M2XW", "a receipt code has 10 letters and digits, e.g. 7K3QD-M2XWA; this has 9"),
        ("7K3QD.M2XWA", "'.' (U+002E FULL STOP) is not a character"),
    ],
)
def test_a_code_that_cannot_be_one_says_which_character(typed: str, words: str) -> None:
    assert normalise_receipt(typed) is None
    problem = receipt_problem(typed)
    assert problem is not None and words in problem


def test_two_threads_appending_through_two_store_objects_keep_one_chain(tmp_path: Path) -> None:
    """The app exports on a worker thread (its own store object, an "exported" line) while the rater's drafts
    are saved on the GUI thread ("draft_saved" lines): every link is made from the head before it."""
    import threading

    gui, worker = RaterStore(tmp_path, "B-test", "R01", FakeClock()), None
    gui.ensure()
    worker = gui.twin()
    start = threading.Barrier(2)

    def append(store: RaterStore, event: str) -> None:
        start.wait()
        for i in range(300):
            store.audit(event, durable=False, n=i)

    threads = [threading.Thread(target=append, args=(s, e)) for s, e in ((gui, "draft_saved"), (worker, "exported"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    check = verify_chain(gui.audit_path.read_bytes())
    assert check.problems == [] and check.ok and check.lines == 600
