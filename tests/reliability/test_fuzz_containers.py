"""Hypothesis fuzzing of the container readers: the app's bundle open path on mutated bundle zips, and
results reading (the coordinator's reader of export zips) on mutated exports.

Only allowed failure: the project's own error type naming the file (or, for results reading, problems
collected and returned). Each execution is counted.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kit.bundles import bundle_zip, write_bundle
from tests.kit.sessions import RATER, fill, new_session

from .tally import TALLY
from .test_hostile_zips import open_problems

pytestmark = pytest.mark.reliability

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
def mutate(data: st.DataObject, raw: bytes) -> bytes:
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        pos = data.draw(st.integers(0, max(0, len(buf) - 1)))
        op = data.draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate", "splice"]))
        if op == "flip" and buf:
            buf[pos] ^= data.draw(st.integers(1, 255))
        elif op == "set" and buf:  # a header field set to an extreme value
            value = data.draw(st.sampled_from([b"\x00\x00", b"\xff\xff", b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x08\x00"]))
            buf[pos : pos + len(value)] = value
        elif op == "insert":
            buf[pos:pos] = data.draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del buf[pos : pos + data.draw(st.integers(1, 64))]
        elif op == "splice":  # duplicate a stretch (headers, names) elsewhere
            start = data.draw(st.integers(0, max(0, len(buf) - 1)))
            buf[pos:pos] = buf[start : start + data.draw(st.integers(1, 64))]
        else:
            del buf[pos:]
    return bytes(buf)


@functools.cache
def _bundle() -> bytes:
    return bundle_zip(2)


@functools.cache
def _export() -> bytes:
    from wmcdp_desktop.rater.export import ExportPlan

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        s = new_session(write_bundle(root / "bundle", 2), root / "data", rater=RATER)
        for task_id in s.task_ids:
            s.open_task(task_id)
            fill(s, 3)
            assert s.submit().ok
        data, _ = ExportPlan(
            s.store,
            bundle_id=s.manifest.bundle_id,
            bundle_sha256=s.bundle.manifest_sha256,
            study_id=s.manifest.study_id,
            task_ids=s.task_ids,
            drafts_not_submitted=0,
            clock=s.clock,
        ).build()
        return data


@FUZZ
@given(data=st.data())
def test_fuzz_bundle_open_path(data: st.DataObject, tmp_path: Path) -> None:
    path = tmp_path / "fuzzed.wmcdp"
    path.write_bytes(mutate(data, _bundle()))
    text = open_problems(path)  # "" when the mutation missed everything that matters (a timestamp byte)
    if text:
        assert "fuzzed.wmcdp" in text
    TALLY.fuzz("bundle_reader.open_bundle (mutated bundle zip)")


@FUZZ
@given(data=st.data())
def test_fuzz_results_reading(data: st.DataObject, tmp_path: Path) -> None:
    from wmcdp_desktop.coordinator.results.reader import read_export

    path = tmp_path / "fuzzed-results.zip"
    path.write_bytes(mutate(data, _export()))
    result = read_export(path)  # never raises for bad content: problems are collected
    for problem in result.problems:
        assert problem.file.startswith("fuzzed-results.zip"), problem
    if not result.problems:
        assert result.manifest is not None and len(result.records) == 2
    TALLY.fuzz("results_reader.read_export (mutated export zip)")


def test_unmutated_containers_are_valid(tmp_path: Path) -> None:
    """The fuzz seeds themselves are accepted (otherwise the fuzzers would test nothing)."""
    path = tmp_path / "seed.wmcdp"
    path.write_bytes(_bundle())
    assert open_problems(path) == ""
    from wmcdp_desktop.coordinator.results.reader import read_export

    (tmp_path / "seed.zip").write_bytes(_export())
    result = read_export(tmp_path / "seed.zip")
    assert result.problems == [] and len(result.records) == 2
