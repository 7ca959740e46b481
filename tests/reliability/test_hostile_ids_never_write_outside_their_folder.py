"""No file is ever written outside its folder (issue 13, items 2 and 3): hostile ids are driven through every
entry an id comes in by — the app's ``--rater``, the rater dialog, the settings file, a bundle's id and task
ids (zip and folder bundles, through the app and ``wmcdp bundle verify``), and the ids inside record files
and results exports (``wmcdp results validate`` and ``collect``). Afterwards nothing outside the data and
output folders has changed (a sentinel tree: home, cwd, the temp folder), nothing named after a hostile id
exists anywhere, and every file and folder that was made inside has a name that is one plain name both by
Windows' rules and by POSIX's (``PureWindowsPath``, ``PurePosixPath``): a name made on Linux is also safe
on the coordinator's Windows laptop."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pytest

from tests.kit.bundles import bundle_files, task_obj, with_manifest
from tests.kit.exports import export_zip, record_obj
from tests.kit.studies import write_study
from wmcdp_desktop.coordinator.commands.main import main as wmcdp
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.paths import name_problem
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.writer import deterministic_zip
from wmcdp_desktop.rater.settings import load_settings

from .sentinel import Sentinel
from .tally import Tally

pytestmark = pytest.mark.reliability

HOSTILE = ["../../../../x-evil", "..\\..\\x-evil", "D:x-evil", "x-evil:stream", "CON", "nul.txt", "x-evil.",
           "Dr x-evil", "/tmp/x-evil", "C:\\x-evil", "a/x-evil", "\u202ex-evil"]
"""Each would leave its folder, or mean another file, on Windows or on POSIX (those naming a file hold "x-evil")."""
WINDOW_RUNS = 4


def _portable(root: Path) -> list[str]:
    """Every path under ``root`` whose names are not each one plain name on Windows and on POSIX."""
    bad = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        for flavour in (PureWindowsPath, PurePosixPath):
            pure = flavour(*rel.parts)
            if pure.anchor or len(pure.parts) != len(rel.parts):
                bad.append(f"{rel} ({flavour.__name__})")
        bad += [f"{rel}: {part!r} {problem}" for part in rel.parts if (problem := name_problem(part)) is not None]
    return bad


def _zip_bundle(folder: Path, name: str, bundle_id: str = "B-REL", task_id: str = "t0001") -> Path:
    files = {"rubric.json": bundle_files(1)["rubric.json"], f"tasks/{task_id}.json": dumps_canonical(task_obj(task_id)).encode()}
    path = folder / name
    path.write_bytes(deterministic_zip(with_manifest(files, [task_id], bundle_id=bundle_id)))
    return path


def _folder_bundle(folder: Path, bundle_id: str, task_id: str) -> Path:
    """A folder bundle whose bundle.json names the hostile ids (its task file stored under a plain name)."""
    files = bundle_files(1)
    manifest = json.loads(files["bundle.json"])
    manifest["bundle_id"], manifest["task_order"] = bundle_id, [task_id]
    files["bundle.json"] = dumps_canonical(manifest).encode()
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture
def world(sentinel: Sentinel, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """A built study (its key, a bundle, a valid record per task) in the inbox."""
    inbox = sentinel.inbox
    study = write_study(inbox / "study", n_items=2, n_raters=1, overlap=1)
    assert wmcdp(["bundle", "build", str(study), "--out", str(inbox / "built")]) == 0
    capsys.readouterr()
    bundle = open_bundle(inbox / "built" / "STUDY-T1-R1.wmcdp")
    records = [record_obj(bundle.task(t), "R1", bundle.manifest.bundle_id, bundle.manifest_sha256) for t in bundle.task_ids]
    return {"key": inbox / "built" / "STUDY-T1-unblinding-key.json", "bundle": bundle, "records": records}


def test_hostile_ids_through_every_entry_write_nothing_outside(
    sentinel: Sentinel, world: dict[str, Any], qtbot: Any, capsys: pytest.CaptureFixture[str], tally: Tally
) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QDialog

    from wmcdp_desktop.rater.app import main as app_module
    from wmcdp_desktop.rater.app import self_test
    from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog

    qapp = QApplication.instance()
    assert qapp is not None
    inbox, data, out = sentinel.inbox, sentinel.data, sentinel.root / "out"
    any_rater = _zip_bundle(inbox, "any-rater.wmcdp")
    for n, hostile in enumerate(HOSTILE):
        window = n < WINDOW_RUNS  # the real window for the first few; the same open path (the core's) for all
        # the app's command line
        with tally.hostile("hostile id: --rater"):
            assert app_module.main(["--data-dir", str(data), "--rater", hostile, str(any_rater)]) == 1
            assert "--rater" in capsys.readouterr().err
        # the rater dialog: OK keeps it open and says why
        with tally.hostile("hostile id: the rater dialog"):
            dialog = RaterDialog(None, None)
            qtbot.addWidget(dialog)
            dialog.show()  # the OK button must be on screen for Return to press it
            dialog.id_edit.setText(hostile)
            qtbot.keyClick(dialog.id_edit, Qt.Key.Key_Return)
            assert dialog.result() != QDialog.DialogCode.Accepted and dialog.problem.text()
        # the settings file: the app starts with defaults and rates, submits and exports in the data folder
        with tally.hostile("hostile id: settings.json"):
            folder = data / f"settings-{n}"
            folder.mkdir()
            (folder / "settings.json").write_text(json.dumps({"document_type": "wmcdp_settings", "rater_id": hostile}))
            settings, warning = load_settings(folder)
            assert settings.rater_id is None and warning and "rater_id" in warning
            if window:
                assert self_test.run(qapp, [str(any_rater), "--data-dir", str(folder), "--self-test"],
                                     app_module.create_main_window) == 0
                assert capsys.readouterr().out.splitlines()[-1] == "self-test: passed"
        # a bundle's id and task ids, in a zip and in a folder: the app and bundle verify refuse them
        with tally.hostile("hostile id: bundle id and task id"):
            for bundle in (_zip_bundle(inbox, f"id-{n}.wmcdp", bundle_id=hostile),
                           _folder_bundle(inbox / f"ids-{n}", hostile, hostile)):
                assert wmcdp(["bundle", "verify", str(bundle)]) == 1
                with pytest.raises(DocumentError):
                    open_bundle(bundle)
                if not window:
                    continue
                assert self_test.run(qapp, [str(bundle), "--data-dir", str(data / f"bundle-{n}"), "--rater", "R01",
                                            "--self-test"], app_module.create_main_window) == 1
                assert "the bundle was refused" in capsys.readouterr().out
        # the ids inside record files and exports: validate reads, collect writes only into its folder
        with tally.hostile("hostile id: record files and exports"):
            b = world["bundle"]
            records = [dict(r) for r in world["records"]]
            records[0] = json.loads(json.dumps(records[0]))
            records[0]["envelope"]["task_id"] = hostile
            records[0]["rater_id"] = hostile
            loose = inbox / f"records-{n}"
            loose.mkdir()
            (loose / "T1.r1.json").write_text(dumps_canonical(records[0]))
            export = inbox / f"export-{n}.zip"
            export.write_bytes(export_zip(records[1:], study_id=b.manifest.study_id, rater_id=hostile,
                                          bundle_id=b.manifest.bundle_id, bundle_sha256=b.manifest_sha256))
            assert wmcdp(["results", "validate", str(loose), str(export)]) == 1
            assert wmcdp(["results", "collect", str(export), "--key", str(world["key"]), "--out", str(out / str(n))]) == 1
            capsys.readouterr()
    with tally.hostile("hostile ids: the tree afterwards"):
        sentinel.check("x-evil", also_written=("out",))  # the only folder given to collect
        assert _portable(data) == [] and _portable(out) == []
        made = [p for p in data.rglob("records/*.json")]
        assert len(made) == WINDOW_RUNS  # each settings case through the window rated and submitted one task, in its data folder
        assert all(zipfile.is_zipfile(p) for p in data.rglob("*.zip"))
