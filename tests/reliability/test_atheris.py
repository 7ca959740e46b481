"""A bounded coverage-guided (atheris) fuzz run of the loaders, when atheris is installed (dev extra,
Linux). The executions are counted with the Hypothesis ones."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import HERE, REPO
from .samples import all_models, valid_samples
from .tally import Tally

pytestmark = pytest.mark.reliability

RUNS = 2000
"""Fixed, with a fixed seed: the published figure is reproducible."""
SECONDS = 60
"""A guard only (about 8 s are needed here); a slower machine runs fewer executions, and says so."""


def test_atheris_fuzz_of_every_loader(tmp_path: Path, tally: Tally) -> None:
    pytest.importorskip("atheris", reason="atheris is not installed (pip install -e '.[dev]' on Linux)")
    from wmcdp_desktop.core.models.draft import Draft

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    models = [m for m in all_models() if m.__name__ != "UnblindingKey"]
    assert models[-1] is Draft
    count = len(models) + 2
    for name, (model, data) in valid_samples().items():
        selector = models.index(model) + 2
        (corpus / f"{name}.seed").write_bytes(bytes([selector]) + data)
    (corpus / "json.seed").write_bytes(b"\x00" + b'{"a": [1, 2.5, "x", null, true]}')
    from tests.kit.bundles import bundle_zip

    (corpus / "zip.seed").write_bytes(bytes([1 + count]) + bundle_zip(1))  # 1 + count ≡ 1 (mod count)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, str(HERE / "atheris_target.py"), f"-runs={RUNS}", f"-max_total_time={SECONDS}", "-max_len=8192", "-seed=1234",
         f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True,
        text=True,
        timeout=SECONDS + 60,
        env=env,
        cwd=str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    done = re.search(r"Done (\d+) runs", proc.stderr)
    assert done, proc.stderr[-2000:]
    executions = int(done.group(1))
    assert executions >= 200
    if executions < RUNS:
        tally.skipped.append(f"atheris stopped by its time guard after {executions} of {RUNS} executions")
    tally.fuzz("atheris (coverage-guided): strict_json, zip checks, every model", executions)
