"""gc_paused: the collector is off inside, and afterwards as it was before (also after an error)."""

from __future__ import annotations

import gc

import pytest

from wmcdp_desktop.core.gc_pause import gc_paused


def test_off_inside_and_back_on_after_even_on_error() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyboardInterrupt), gc_paused():
        raise KeyboardInterrupt
    assert gc.isenabled()


def test_left_off_when_it_was_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_report_loading_pauses_it(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    from wmcdp_desktop.analysis import loading

    seen: list[bool] = []

    def fake_load_study_and_rubric(study_dir: object) -> object:
        seen.append(gc.isenabled())
        raise RuntimeError("stop here")

    monkeypatch.setattr(loading, "load_study_and_rubric", fake_load_study_and_rubric)
    with pytest.raises(RuntimeError):
        loading.load_dataset(tmp_path, tmp_path)  # type: ignore[arg-type]
    assert seen == [False] and gc.isenabled()
