"""Exports sealed to the coordinator's key: ``results validate --key`` and ``results collect`` open them in
memory and check them as plain ones; without the key (or with another build's) they are refused in plain
words and never counted; the incremental collect keys each by the file as received."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.kit.encryption import coordinator_keys
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.encryption.sealed_box import is_sealed


@pytest.fixture
def built(tmp_path: Path) -> BuiltStudy:
    return build_study(tmp_path, encrypt=True, n_items=3, n_raters=3, overlap=2)


def sealed(built: BuiltStudy, rater: str, **kw: object) -> Path:
    return built.export(rater, built.records(rater, **kw), f"wmcdp-results-{rater}.wmcdp-sealed")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, (json.loads(out) if out.strip() else {}), err


def messages(result: dict) -> str:  # type: ignore[type-arg]
    return "\n".join(f"{p['file']}: {p['message']}" for p in result.get("problems", []))


def test_the_kit_seals_as_the_app_does(built: BuiltStudy) -> None:
    path = sealed(built, "R1")
    raw = path.read_bytes()
    assert is_sealed(raw[:64])
    assert b"STUDY-T1" not in raw and b"manifest.json" not in raw and not [t for t in built.bundles["R1"].task_ids
                                                                             if t.encode() in raw]


def test_validate_opens_a_sealed_export_with_the_key(built: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    path = sealed(built, "R1")
    code, result, _ = run(capsys, "results", "validate", str(path), "--key", str(built.coordinator_key),
                          "--bundle", str(built.out))
    assert code == 0, messages(result)
    assert result["valid_records"] == len(built.bundles["R1"].task_ids) and result["quarantined"] == 0


def test_validate_without_the_key_says_what_to_give(built: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    path = sealed(built, "R1")
    code, result, _ = run(capsys, "results", "validate", str(path))
    assert code == 1 and result["valid_records"] == 0
    assert "wmcdp-results-R1.wmcdp-sealed: is encrypted to the coordinator's key: give --key keys/coordinator.key" \
        in messages(result)


def test_another_builds_key_or_a_changed_byte_is_refused(built: BuiltStudy, capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    path = sealed(built, "R2")
    other = tmp_path / "other.key"
    other.write_bytes(coordinator_keys()[0])
    code, result, _ = run(capsys, "results", "validate", str(path), "--key", str(other))
    assert code == 1 and "does not open with this coordinator key" in messages(result)
    raw = path.read_bytes()
    for at in (20, 50, 70, len(raw) // 2, len(raw) - 1):
        path.write_bytes(raw[:at] + bytes([raw[at] ^ 0x04]) + raw[at + 1:])
        code, result, _ = run(capsys, "results", "validate", str(path), "--key", str(built.coordinator_key))
        assert code == 1 and result["valid_records"] == 0 and "wmcdp-results-R2.wmcdp-sealed" in messages(result)
    path.write_bytes(raw[:100])
    code, result, _ = run(capsys, "results", "validate", str(path), "--key", str(built.coordinator_key))
    assert code == 1 and "is cut short" in messages(result)


def test_a_key_file_that_is_not_one_is_refused_naming_it(built: BuiltStudy, capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n", encoding="utf-8")
    code = main(["results", "validate", str(sealed(built, "R1")), "--key", str(bad)])
    out, err = capsys.readouterr()
    assert code != 0 and "Traceback" not in out + err
    assert f"{bad}: is not a WM-CDP coordinator key" in out + err


def test_collect_finds_the_key_beside_the_unblinding_key_and_counts_every_export(
    built: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    exports = [str(sealed(built, r)) for r in ("R1", "R2", "R3")]
    code, result, _ = run(capsys, "results", "collect", *exports, "--key", str(built.key), "--out", str(built.root / "res"))
    assert code == 0, messages(result)
    assert result["ratings"] == sum(len(b.task_ids) for b in built.bundles.values())
    assert result["quarantined"] == 0 and result["exports_in_collection"] == 3
    # incremental: the same sealed files again are recognised as collected (by the file as received)
    code, again, _ = run(capsys, "results", "collect", exports[0], "--key", str(built.key), "--out", str(built.root / "res"))
    assert code == 0 and again["exports_already_collected"] == [exports[0]] and again["exports_read"] == []
    assert again["ratings"] == result["ratings"]


def test_collect_without_the_key_refuses_the_sealed_export_plainly(built: BuiltStudy, capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    exports = [str(sealed(built, r)) for r in ("R1", "R2")]
    elsewhere = tmp_path / "safe"
    shutil.move(str(built.out / "keys"), elsewhere)
    code, result, _ = run(capsys, "results", "collect", *exports, "--key", str(built.key), "--out", str(tmp_path / "res"))
    assert code == 1 and result["ratings"] == 0
    text = messages(result)
    assert "wmcdp-results-R1.wmcdp-sealed: is encrypted to the coordinator's key: give --coordinator-key" in text
    assert "wmcdp-results-R2.wmcdp-sealed" in text
    # given the key later, the same files are read (a file refused for want of the key is not recorded as collected)
    code, result, _ = run(capsys, "results", "collect", *exports, "--key", str(built.key), "--out", str(tmp_path / "res"),
                          "--coordinator-key", str(elsewhere / "coordinator.key"))
    assert code == 0, messages(result)
    assert result["ratings"] == len(built.bundles["R1"].task_ids) + len(built.bundles["R2"].task_ids)


def test_plain_and_sealed_exports_collect_together(built: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    plain = built.export("R1", built.records("R1"), "wmcdp-results-R1.zip", sealed=False)
    code, result, _ = run(capsys, "results", "collect", str(plain), str(sealed(built, "R2")), "--key", str(built.key),
                          "--out", str(built.root / "res"))
    assert code == 0, messages(result)
    assert result["exports_in_collection"] == 2
