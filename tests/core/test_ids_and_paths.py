"""Ids that would leave their folder, or mean something else on Windows, are refused at every entry, and
every path made from ids goes through ``core/paths.child_path`` (issue 13, items 2 and 3).

The checks run on every system as if it were both Windows and POSIX (``PureWindowsPath`` and
``PurePosixPath``): a name made on Linux must be safe on the coordinator's Windows laptop.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pytest

from wmcdp_desktop.core.documents import validate_obj
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.core.ids import id_problem
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey
from wmcdp_desktop.core.paths import UnsafeNameError, check_id, child_path, name_problem
from wmcdp_desktop.rater.export import export_file_name
from wmcdp_desktop.rater.settings import RaterIdError, Settings, load_settings, with_rater
from wmcdp_desktop.rater.storage import RaterStore, record_file_name
from wmcdp_desktop.rater.timing import FakeClock

Docs = Callable[[str], dict[str, Any]]

HOSTILE_IDS = [
    "../../../../x",
    "..",
    ".",
    "a/b",
    "a\\b",
    "D:evil",
    "C:",
    "t1:stream",
    "CON",
    "con",
    "NUL.txt",
    "com1",
    "LPT9.json",
    "AUX.tar.gz",
    "COM¹",
    "LPT²",
    "trailing.",
    "Dr Smith",
    " lead",
    "tab\there",
    "new\nline",
    "nul\x00byte",
    "bell\x07",
    "zero\u200bwidth",
    "rtl\u202eoverride",
    "",
    "x" * 129,
    "-starts-with-dash",
    ".hidden",
    "Hélène",
    "a*b",
    'quote"d',
]
GOOD_IDS = ["R01", "a", "T-0001", "t-0a1b2c3d4e5f6a7b", "S.1_2-3", "x" * 128, "CONSOLE", "COM10", "LPTX", "nul-1"]


@pytest.mark.parametrize("value", HOSTILE_IDS)
def test_hostile_ids_are_refused_with_a_reason(value: str) -> None:
    problem = id_problem(value, "rater id")
    assert problem is not None
    assert "rater id" in problem
    with pytest.raises(UnsafeNameError, match="rater id"):
        check_id(value, "rater id")


@pytest.mark.parametrize("value", GOOD_IDS)
def test_plain_ids_are_accepted(value: str, tmp_path: Path) -> None:
    assert id_problem(value) is None
    assert check_id(value, "task id") == value
    path = child_path(tmp_path, value)
    assert path.parent == tmp_path and path.name == value


# Names, unlike ids, may hold spaces, non-ASCII letters and leading dots or dashes, and be longer.
@pytest.mark.parametrize("value", [v for v in HOSTILE_IDS if v not in ("Hélène", "-starts-with-dash", ".hidden", "Dr Smith", "x" * 129)])
@pytest.mark.parametrize("flavour", [PureWindowsPath, PurePosixPath])
def test_child_path_never_leaves_its_folder(value: str, flavour: type[PureWindowsPath | PurePosixPath]) -> None:
    folder = flavour("C:/data/bundles") if flavour is PureWindowsPath else flavour("/data/bundles")
    assert name_problem(value) is not None
    with pytest.raises(UnsafeNameError):
        child_path(folder, value)  # type: ignore[arg-type]
    with pytest.raises(UnsafeNameError):
        child_path(folder, "R01", value, "drafts")  # type: ignore[arg-type]


@pytest.mark.parametrize("flavour", [PureWindowsPath, PurePosixPath])
def test_child_path_joins_plain_names(flavour: type[PureWindowsPath | PurePosixPath]) -> None:
    folder = flavour("C:/data") if flavour is PureWindowsPath else flavour("/data")
    path = child_path(folder, "bundles", "B-1", "R01", "records", "T-1.r2.json")  # type: ignore[arg-type]
    assert path.parts == (*folder.parts, "bundles", "B-1", "R01", "records", "T-1.r2.json")


def test_what_windows_would_make_of_the_old_ids() -> None:
    # Why ':' and trailing dots had to go: on Windows "D:evil" is a drive-relative path (outside the data
    # folder), "t1:stream" a hidden stream of the file t1, and "x." names the same file as "x".
    assert PureWindowsPath("C:/data") / "D:evil" == PureWindowsPath("D:evil")
    assert PureWindowsPath("C:/data/bundles/B/D:evil").drive == "C:"
    assert name_problem("D:evil") and name_problem("t1:stream") and name_problem("x.")


# ----- every entry ------------------------------------------------------------------------------------
def _set(doc: dict[str, Any], path: list[str | int], value: Any) -> None:
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


ENTRIES = [
    ("BundleManifest", BundleManifest, ["bundle_id"]),
    ("BundleManifest", BundleManifest, ["rater_id"]),
    ("BundleManifest", BundleManifest, ["study_id"]),
    ("BundleManifest", BundleManifest, ["task_order", 0]),
    ("Task", Task, ["task_id"]),
    ("Draft", Draft, ["rater_id"]),
    ("Draft", Draft, ["task_id"]),
    ("RatingRecord", RatingRecord, ["envelope", "task_id"]),
    ("RatingRecord", RatingRecord, ["envelope", "bundle_id"]),
    ("Study", Study, ["study_id"]),
    ("Study", Study, ["raters", 0, "rater_id"]),
    ("UnblindingKey", UnblindingKey, ["study_id"]),
]


@pytest.mark.parametrize(("sample", "model", "path"), ENTRIES, ids=[f"{s}.{'.'.join(map(str, p))}" for s, _, p in ENTRIES])
@pytest.mark.parametrize("value", ["D:evil", "../x", "CON", "Dr Smith", "t:1", "x."])
def test_every_document_refuses_hostile_ids(
    sample: str, model: type[Any], path: list[str | int], value: str, sample_docs: Docs
) -> None:
    doc = sample_docs(sample)
    _set(doc, path, value)
    with pytest.raises(DocumentError) as info:
        validate_obj(model, doc, "doc.json")
    assert any(p.path.replace("[", ".").replace("]", "") == ".".join(map(str, path)) for p in info.value.problems)


def test_settings_file_with_a_hostile_rater_id_falls_back_to_defaults(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{"document_type": "wmcdp_settings", "rater_id": "../../x"}')
    settings, warning = load_settings(tmp_path)
    assert settings.rater_id is None
    assert warning is not None and "rater_id" in warning and "'/'" in warning


@pytest.mark.parametrize("value", ["Dr Smith", "../../../../x", "D:evil", "CON", "a\\b", ""])
def test_a_rater_id_from_the_command_line_or_the_dialog_is_checked(value: str) -> None:
    with pytest.raises(RaterIdError) as info:
        with_rater(Settings(), value, None)
    assert info.value.problem.startswith("a rater id ") or "reserved device name" in info.value.problem
    assert "--rater" not in str(info.value)  # the core does not know where the id came from


def test_dr_smith_gets_a_suggestion() -> None:
    with pytest.raises(RaterIdError) as info:
        with_rater(Settings(), "Dr Smith", "GP")
    assert info.value.problem == (
        "a rater id may hold only letters A-Z and a-z, digits, '-', '_' and '.', start with a letter or digit, "
        "and have at most 128 characters: it has a space (for example Dr_Smith would do)"
    )
    assert with_rater(Settings(), "Dr_Smith", " GP ").rater_role_or_background == "GP"


# ----- the rater's store and export names --------------------------------------------------------------
def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize(("bundle_id", "rater_id"), [("B1", "../../../../x"), ("../../x", "R01"), ("D:evil", "R01"),
                                                      ("B1", "C:"), ("B1", "CON"), ("B1", "Dr Smith")])
def test_the_store_refuses_ids_that_would_leave_the_data_folder(bundle_id: str, rater_id: str, tmp_path: Path) -> None:
    data = tmp_path / "a" / "b" / "c" / "d" / "data"
    data.mkdir(parents=True)
    before = _tree(tmp_path)
    with pytest.raises(UnsafeNameError):
        RaterStore(data, bundle_id, rater_id, FakeClock())
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("task_id", ["../../../x", "t:1", "CON", "a/b", "x."])
def test_the_store_refuses_task_ids_that_would_leave_its_folders(task_id: str, tmp_path: Path) -> None:
    store = RaterStore(tmp_path, "B1", "R01", FakeClock())
    store.ensure()
    before = _tree(tmp_path)
    for call in (lambda: store.draft_path(task_id), lambda: store.record_path(task_id, 1),
                 lambda: record_file_name(task_id, 1)):
        with pytest.raises(UnsafeNameError):
            call()
    assert _tree(tmp_path) == before


def test_record_revision_numbers_are_bounded(tmp_path: Path) -> None:
    store = RaterStore(tmp_path, "B1", "R01", FakeClock())
    for revision in (0, -1, 10**9, 10**308):
        with pytest.raises(WmcdpError):
            store.record_path("T1", revision)


def test_export_file_names_are_checked() -> None:
    clock = FakeClock()
    name = export_file_name("S1", "R01", clock)
    assert name.startswith("wmcdp-results-S1-R01-") and name.endswith(".zip") and name_problem(name) is None
    long_name = export_file_name("S" * 128, "R" * 128, clock)
    assert name_problem(long_name) is None
    for study, rater in (("S1", "../x"), ("D:evil", "R01"), ("S1", "CON")):
        with pytest.raises(UnsafeNameError):
            export_file_name(study, rater, clock)


def test_no_path_in_the_code_is_made_from_an_id_by_hand() -> None:
    # Every place an id becomes a path goes through child_path; these were the hand-made joins.
    root = Path(__file__).resolve().parents[2] / "wmcdp_desktop"
    offenders = []
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for needle in ('/ bundle_id', '/ rater_id', '/ f"{task_id}', '.replace(":", "_")'):
            if needle in text:
                offenders.append(f"{path.relative_to(root)}: {needle}")
    assert offenders == []


def test_a_data_folder_deep_inside_stays_untouched_by_a_hostile_rater(tmp_path: Path) -> None:
    # The case the issue found: --rater "../../../../x" wrote drafts outside the data folder.
    data = tmp_path / "home" / "user" / "data"
    data.mkdir(parents=True)
    with pytest.raises(RaterIdError):
        with_rater(Settings(), "../../../../x", None)
    with pytest.raises(UnsafeNameError):
        RaterStore(data, "B1", "../../../../x", FakeClock())
    assert not any(p.name == "x" for p in tmp_path.rglob("*"))
    assert os.listdir(data) == []
