"""open_zip_file reads members from the file (not a copy held in memory) with the very checks of
open_zip_bytes, keeps no handle open, and refuses a file changed on disk after it was opened."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.reader import READ_AHEAD, open_zip_bytes, open_zip_file
from wmcdp_desktop.core.zips.rules import Limits
from wmcdp_desktop.core.zips.writer import deterministic_zip

from .hostile_zips import CASES


def make_zip(members: list[tuple[str, bytes]]) -> bytes:
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def _outcome_bytes(data: bytes, limits: Limits) -> object:
    try:
        sz = open_zip_bytes(data, "z.wmcdp", limits)
        return {name: sz.read(name) for name in sz.names()}
    except DocumentError as exc:
        return sorted(str(p) for p in exc.problems)


def _outcome_file(path: Path, limits: Limits) -> object:
    try:
        sz = open_zip_file(path, "z.wmcdp", limits)
        return {name: sz.read(name) for name in sz.names()}
    except DocumentError as exc:
        return sorted(str(p) for p in exc.problems)


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_zips_give_the_same_errors_from_a_file(case: str, tmp_path: Path) -> None:
    data = CASES[case]()
    path = tmp_path / "z.wmcdp"
    path.write_bytes(data)
    from_bytes = _outcome_bytes(data, Limits())
    assert isinstance(from_bytes, list) and from_bytes  # hostile: rejected
    assert _outcome_file(path, Limits()) == from_bytes


_BASE = make_zip([("bundle.json", b'{"a": 1}'), ("tasks/t1.json", os.urandom(300)), ("tasks/t2.json", b"x" * 900)])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, len(_BASE) - 1), st.integers(0, 255)), min_size=0, max_size=6),
       cut=st.integers(1, len(_BASE)))
def test_damaged_zips_same_outcome_from_file_and_bytes(edits: list[tuple[int, int]], cut: int, tmp_path: Path) -> None:
    data = bytearray(_BASE)
    for pos, value in edits:
        data[pos] = value
    blob = bytes(data[:cut])
    path = tmp_path / "z.wmcdp"
    path.write_bytes(blob)
    limits = Limits(max_ratio=100_000)
    assert _outcome_file(path, limits) == _outcome_bytes(blob, limits)


def test_members_read_from_disk_no_handle_left_open(tmp_path: Path) -> None:
    files = {"a.json": os.urandom(5000), "tasks/b.json": b"{}"}
    path = tmp_path / "ok.wmcdp"
    path.write_bytes(deterministic_zip(files))
    sz = open_zip_file(path)
    assert sz.read_all() == files
    fds = Path("/proc/self/fd")
    if fds.is_dir():
        assert not any(os.path.realpath(fd) == str(path.resolve()) for fd in fds.iterdir())


def test_a_file_changed_on_disk_after_opening_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ok.wmcdp"
    # members larger than the read-ahead, so that reading b must go back to the file
    a, b = os.urandom(3 * READ_AHEAD), os.urandom(3 * READ_AHEAD)
    path.write_bytes(deterministic_zip({"a.json": a, "b.json": b}))
    sz = open_zip_file(path)
    assert sz.read("a.json") == a
    # same names, different content: read must not mix the new bytes with the old directory
    path.write_bytes(deterministic_zip({"a.json": b"111111", "b.json": b}))
    with pytest.raises(DocumentError, match="changed on disk"):
        sz.read("b.json")
    # replaced by another file of the same size: the modification time / file id differ
    path2 = tmp_path / "two.wmcdp"
    data = deterministic_zip({"a.json": os.urandom(3 * READ_AHEAD)})
    path2.write_bytes(data)
    sz2 = open_zip_file(path2)
    tmp = tmp_path / "new"
    tmp.write_bytes(data)
    os.replace(tmp, path2)
    with pytest.raises(DocumentError, match="changed on disk"):
        sz2.read("a.json")
    path2.unlink()
    with pytest.raises(DocumentError, match="cannot be read"):
        sz2.read("a.json")


def test_zipfile_module_sees_the_same_members(tmp_path: Path) -> None:
    data = make_zip([("x.json", b"{}"), ("y/z.json", b"[]")])
    path = tmp_path / "m.zip"
    path.write_bytes(data)
    assert open_zip_file(path).names() == sorted(i.filename for i in zipfile.ZipFile(path).infolist())


def test_read_ahead_gives_the_same_bytes_for_many_members(tmp_path: Path) -> None:
    files = {f"tasks/t{i:03d}.json": os.urandom(i * 997 % 9000) for i in range(60)}
    files["big.json"] = os.urandom(2 * READ_AHEAD + 5)
    path = tmp_path / "many.wmcdp"
    path.write_bytes(deterministic_zip(files))
    sz = open_zip_file(path)
    names = sorted(files, reverse=True)  # out of order: reads jump back and forth in the file
    assert {n: sz.read(n) for n in names} == files
    assert sz.read_all() == files
