"""``results collect`` reports its progress in both phases: merging the exports, then writing the outputs
(a million ratings take minutes to write), each on its own line of the terminal's progress bar."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.collect.collection import collect_results
from wmcdp_desktop.coordinator.commands.main import main


def _exports(tmp_path: Path) -> tuple[list[Path], Path]:
    built = build_study(tmp_path, n_items=4, n_raters=3, overlap=2)
    exports = []
    for rater in ("R1", "R2", "R3"):
        b = built.bundles[rater]
        recs = [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256) for t in b.task_ids]
        exports.append(built.export(rater, recs, f"export-{rater}.zip"))
    return exports, built.key


def test_the_writing_of_the_outputs_is_reported_to_the_end(tmp_path: Path) -> None:
    exports, key = _exports(tmp_path)
    merging: list[tuple[int, int]] = []
    writing: list[tuple[int, int]] = []
    result = collect_results(exports, key, tmp_path / "results", progress=lambda d, t: merging.append((d, t)),
                             writing=lambda d, t: writing.append((d, t)))
    assert merging and merging[-1][0] == merging[-1][1]
    assert writing and writing[-1] == (result.ratings + result.cannot_rate, result.ratings + result.cannot_rate)


def test_the_command_draws_each_phase_on_a_terminal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path)

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Tty()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["results", "collect", *map(str, exports), "--key", str(key), "--out", str(tmp_path / "a")]) == 0
    drawn = terminal.getvalue()
    assert "\rCollecting [" in drawn and "\rWriting the outputs [" in drawn
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["results", "collect", *map(str, exports), "--key", str(key), "--out", str(tmp_path / "b")]) == 0
    assert "\r" not in capsys.readouterr().err  # not a terminal: no bar
