"""The data folder deleted, moved or replaced while the app runs (issue 13 item 9): the store notices it
(the lock file it holds is gone or is another file, or one of its folders is missing), says so in plain
words with what to do, and never writes again — it does not make the folder again, so ratings are never
saved where nobody looks for them, nor beside a second app that may now open on a new folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.sessions import new_session
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.rater.storage import DataFolderGoneError, InstanceLock, RaterStore
from wmcdp_desktop.rater.timing import FakeClock


@pytest.fixture
def opened(tmp_path: Path, sample_docs: Any) -> Any:
    bundle = open_bundle(make_bundle(tmp_path / "bundle", sample_docs))
    data = tmp_path / "data"
    lock = InstanceLock(data)
    lock.acquire()
    clock = FakeClock()
    session = new_session(bundle, data, clock, lock=lock)
    session.open_task("T-0001")
    session.set_note("brief_rationale", "typed before")
    assert session.save_draft()
    yield session, data
    lock.release()


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def test_a_deleted_folder_is_noticed_and_never_made_again(opened: Any) -> None:
    session, data = opened
    shutil.rmtree(data)
    problem = session.data_folder_problem()
    assert problem is not None and str(data) in problem and "deleted or moved" in problem
    assert "put the folder back" in problem and "close the app and start it again" in problem
    session.set_note("brief_rationale", "typed after the folder was deleted")
    assert not session.save_draft()
    assert session.save_error == problem
    outcome = session.submit()
    assert outcome.record is None and outcome.error == problem
    with pytest.raises(DataFolderGoneError):
        session.export_results(data.parent / "results.zip")
    assert not data.exists() and not (data.parent / "results.zip").exists()  # nothing made, nothing written


def test_a_moved_folder_keeps_its_ratings_and_is_not_written_to_again_even_when_put_back(opened: Any) -> None:
    session, data = opened
    moved = data.parent / "moved-away"
    shutil.move(data, moved)
    before = files_under(moved)
    assert session.data_folder_problem() is not None
    shutil.move(moved, data)  # put back while the app still runs
    session.set_note("brief_rationale", "typed after it came back")
    assert not session.save_draft()  # still refused: restart the app, as the message says
    assert files_under(data) == before
    assert '"typed before"' in (data / "bundles/B-test/R01/drafts/T-0001.json").read_text(encoding="utf-8")


def test_a_folder_replaced_by_a_second_app_is_left_to_it(opened: Any) -> None:
    """Deleted, then a second app starts on the same path (a new folder, a new lock file): the first app
    notices the lock file is another one and writes nothing into the second app's folder."""
    session, data = opened
    shutil.rmtree(data)
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys; from pathlib import Path; from wmcdp_desktop.rater.storage import InstanceLock\n"
            "lock = InstanceLock(Path(sys.argv[1])); lock.acquire(); print('locked', flush=True); sys.stdin.readline()"
        ), str(data)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        (data / "bundles/B-test/R01/drafts").mkdir(parents=True)  # the second app's session made its folders
        second = files_under(data)
        problem = session.data_folder_problem()
        assert problem is not None and "made again" in problem
        assert not session.save_draft()
        assert files_under(data) == second
    finally:
        holder.communicate("\n", timeout=30)


def test_a_deleted_records_folder_alone_is_noticed(opened: Any) -> None:
    session, data = opened
    shutil.rmtree(data / "bundles/B-test/R01/records")
    problem = session.data_folder_problem()
    assert problem is not None and "records is missing" in problem
    assert not session.save_draft() and not (data / "bundles/B-test/R01/records").exists()


def test_a_store_without_a_lock_still_makes_its_folders_on_first_use(tmp_path: Path) -> None:
    """Tools that hold no lock (and a store's first save) make the folders as before."""
    store = RaterStore(tmp_path / "data", "B-test", "R01", FakeClock())
    store.audit("opened", bundle_id="B-test")
    assert store.audit_path.exists() and store.folder_problem() is None
