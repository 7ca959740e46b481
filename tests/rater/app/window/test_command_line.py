"""The rater app's command line: --version, and usage errors said plainly."""

from __future__ import annotations

import pytest

from wmcdp_desktop.rater.app import main as app_module


def test_command_line_version_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        app_module.main(["--version"])
    assert exc.value.code == 0 and "wmcdp-desktop" in capsys.readouterr().out
    assert app_module.main(["--no-such-option"]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err
