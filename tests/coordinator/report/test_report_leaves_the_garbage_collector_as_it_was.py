"""``wmcdp report`` keeps the data it read out of the cycle collector's passes while it runs (much faster on a
large study) and leaves the collector as it found it, also when the run fails: a long-lived process (the
tests, a notebook) must not keep objects frozen or the collector off."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from tests.kit.ratings import Spec, make_ratings, write_collection, write_report_study
from wmcdp_desktop.coordinator.report import report as report_module
from wmcdp_desktop.core.errors import WmcdpError


def _inputs(tmp: Path) -> tuple[Path, Path]:
    study = write_report_study(tmp / "study", Spec(n_items=3, raters=2))
    return write_collection(tmp / "collected", make_ratings(Spec(n_items=3, raters=2))), study


def test_the_data_is_frozen_while_the_report_is_computed_and_thawed_after(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    collected, study = _inputs(tmp_path)
    seen: dict[str, object] = {}
    compute = report_module.compute_report

    def spy(*args: object, **kwargs: object) -> report_module.Report:
        seen.update(frozen=gc.get_freeze_count(), enabled=gc.isenabled())
        return compute(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(report_module, "compute_report", spy)
    assert gc.isenabled()
    report_module.run(collected, study, tmp_path / "out", None, 0, with_charts=False)
    assert seen["frozen"] and seen["enabled"]  # the data read is out of the passes; the collector runs
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_a_failed_run_leaves_the_collector_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    collected, study = _inputs(tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        assert not gc.isenabled()  # off while the data is read
        raise WmcdpError("cannot read")

    monkeypatch.setattr(report_module, "load_dataset", broken)
    with pytest.raises(WmcdpError):
        report_module.run(collected, study, tmp_path / "out", None, 0, with_charts=False)
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    gc.disable()
    try:  # a caller that had the collector off gets it back off
        with pytest.raises(WmcdpError):
            report_module.run(collected, study, tmp_path / "out", None, 0, with_charts=False)
        assert not gc.isenabled()
    finally:
        gc.enable()
