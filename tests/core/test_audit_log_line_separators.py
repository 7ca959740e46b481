"""``RaterStore.read_audit`` splits the log at the newlines ``audit`` writes, and only there.

``json.dumps(ensure_ascii=False)`` leaves U+0085, U+2028 and U+2029 unescaped, and ``str.splitlines``
breaks lines at them: an event holding one (a quarantine reason quoting a damaged draft's key, an export
path) was cut in two and silently dropped from the log."""

from __future__ import annotations

from pathlib import Path

import pytest

from wmcdp_desktop.rater.storage import RaterStore


@pytest.mark.parametrize("char", ["\u0085", "\u2028", "\u2029", "\x1c", "\x0b", "\r"])
def test_events_holding_line_separators_are_read_back(tmp_path: Path, char: str) -> None:
    store = RaterStore(tmp_path / "data", "B1", "R01")
    store.audit("opened")
    store.audit("draft_quarantined", file="T1.json", reason=f"key 'a{char}b' appears more than once")
    store.audit("exported", file=str(tmp_path / f"results{char}.zip"), sha256="0" * 64)
    store.audit("submitted", task_id="T1", revision=1, file="T1.r1.json", sha256="1" * 64)
    events = store.read_audit()
    assert [e["event"] for e in events] == ["opened", "draft_quarantined", "exported", "submitted"]
    assert events[1]["reason"] == f"key 'a{char}b' appears more than once"
    assert events[2]["file"].endswith(f"results{char}.zip")


def test_a_torn_last_line_is_still_skipped(tmp_path: Path) -> None:
    store = RaterStore(tmp_path / "data", "B1", "R01")
    store.audit("opened")
    with store.audit_path.open("ab") as f:
        f.write(b'{"at": "2026-11-29T10:00:00Z", "event": "subm')
    store.audit("submitted", task_id="T1", revision=1, file="T1.r1.json", sha256="1" * 64)
    assert [e["event"] for e in store.read_audit()] == ["opened", "submitted"]
