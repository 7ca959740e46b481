"""``wmcdp bundle build --encrypt`` and ``bundle verify`` of an encrypted bundle: the default rule, the keys
folder, names that show no study, a bundle that reveals nothing, re-issue, and every refusal in plain words."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import pytest

from tests.kit.commands import build_json as build
from tests.kit.commands import run
from tests.kit.encryption import FAST_KDF, fast_kdf
from tests.kit.studies import build_study, item_obj, write_study
from wmcdp_desktop.core.encryption.bundle_envelope import HEADER_SIZE, is_encrypted, open_bundle, read_header
from wmcdp_desktop.core.encryption.sealed_box import public_key_of


@pytest.fixture(autouse=True)
def _fast() -> object:
    with fast_kdf():
        yield


def policy(text: str):  # type: ignore[no-untyped-def]
    def change(item: dict) -> None:  # type: ignore[type-arg]
        item["leakageControl"]["accessPolicy"] = text
    return change


def held_out_study(root: Path) -> Path:
    """The held-out project's own study: rater_splits list held_out_project."""
    return write_study(root, extra_items=[item_obj("ITEM-HOP", "CASE-001", split="held_out_project"),
                                          item_obj("ITEM-HELD", "CASE-001", held_out=True)],
                       study_extra={"rater_splits": ["test", "calibration", "held_out_project"]})


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("text", ["Held out: WM-CDP raters only, encrypted bundles only.", "CONFIDENTIAL",
                                  "study raters only; never in the clear (encrypt at rest)", "held-out set"])
def test_an_access_policy_that_says_so_encrypts_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           text: str) -> None:
    study = write_study(tmp_path / "s", item_change=policy(text))
    result = build(capsys, study, tmp_path / "out")
    assert result["encrypted"] is True
    assert result["encryption_reasons"] and "accessPolicy" in result["encryption_reasons"][0]
    assert sorted(Path(b["file"]).name for b in result["bundles"]) == ["R1.wmcdp", "R2.wmcdp", "R3.wmcdp"]


def test_an_ordinary_policy_stays_plain_and_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s", item_change=policy("WM-CDP study team and raters only; not for model training"))
    plain = build(capsys, study, tmp_path / "a")
    again = build(capsys, study, tmp_path / "b", "--no-encrypt")
    assert plain["encrypted"] is False and plain["encryption_reasons"] == []
    assert not (tmp_path / "a" / "keys").exists()
    for one, two in zip(plain["bundles"], again["bundles"], strict=True):
        assert Path(one["file"]).name == f"STUDY-T1-{one['rater_id']}.wmcdp"
        assert Path(one["file"]).read_bytes() == Path(two["file"]).read_bytes()


def test_the_build_writes_owner_only_keys_and_bundles_that_show_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = build_study(tmp_path, encrypt=True)
    keys = built.out / "keys"
    if os.name == "posix":
        assert mode(keys) == 0o700
        assert mode(keys / "coordinator.key") == mode(keys / "passphrases.json") == 0o600
    listed = json.loads((keys / "passphrases.json").read_text(encoding="utf-8"))
    assert listed["study_id"] == "STUDY-T1"
    assert [(e["rater_id"], e["bundle_file"]) for e in listed["bundles"]] == [("R1", "R1.wmcdp"), ("R2", "R2.wmcdp"),
                                                                               ("R3", "R3.wmcdp")]
    assert len({e["passphrase"] for e in listed["bundles"]}) == 3
    public = public_key_of((keys / "coordinator.key").read_bytes())
    assert base64.b64decode(listed["coordinator_public_key"]) == public
    key = json.loads(built.key.read_text(encoding="utf-8"))
    assert sorted(b["file_name"] for b in key["bundles"]) == ["R1.wmcdp", "R2.wmcdp", "R3.wmcdp"]
    secrets = [e["passphrase"].encode() for e in listed["bundles"]] + [(keys / "coordinator.key").read_bytes()[30:80]]
    for rater, bundle in built.bundles.items():
        assert bundle.manifest.format_version == "1.3.0"
        assert bundle.manifest.export_public_key_bytes == public
        raw = built.bundle_files[rater].read_bytes()
        assert is_encrypted(raw[:64])
        header = read_header(raw, rater)
        assert (header.kdf.n, header.kdf.r, header.kdf.p) == (FAST_KDF.n, FAST_KDF.r, FAST_KDF.p)
        shown = [b"STUDY-T1", b"Test study", b"ITEM-0", b"CASE-", b"bundle.json", b"tasks/", b"rubric", b"PK\x03\x04",
                 bundle.manifest.bundle_id.encode(), *(t.encode() for t in bundle.task_ids), *secrets]
        shown += [bundle.task(t).candidate_response_text.encode()[:40] for t in bundle.task_ids]
        assert not [s for s in shown if s in raw], rater
        plain_zip = open_bundle(raw, built.passphrases[rater], rater)[0]  # inside: no passphrase, no private key
        assert not [s for s in secrets if s in plain_zip] and b"PRIVATE KEY" not in plain_zip
    # the plain bundle is the same as without encryption, but for the key in its manifest
    assert all(p.name in ("keys", "STUDY-T1-unblinding-key.json") or p.suffix == ".wmcdp" for p in built.out.iterdir())


def test_held_out_items_are_sent_only_encrypted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = held_out_study(tmp_path / "s")
    code, out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "plain"), "--no-encrypt")
    assert code != 0 and "--no-encrypt: held-out items are sent only in encrypted bundles" in out + err
    assert "ITEM-HELD, ITEM-HOP" in out + err
    assert not (tmp_path / "plain").exists()  # nothing written
    result = build(capsys, study, tmp_path / "out")
    assert result["encrypted"] is True
    assert {"ITEM-HOP: split held_out_project", "ITEM-HELD: leakageControl.heldOutProject is true"} <= set(
        result["encryption_reasons"])
    assert not [i for i in result["left_out"] if i["benchmark_item_id"] in ("ITEM-HOP", "ITEM-HELD")]


def test_a_study_that_does_not_list_the_held_out_split_still_leaves_held_out_items_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_study(tmp_path / "s", extra_items=[item_obj("ITEM-HOP", "CASE-001", split="held_out_project"),
                                                     item_obj("ITEM-HELD", "CASE-001", held_out=True)])
    result = build(capsys, study, tmp_path / "out", "--encrypt")
    assert {i["benchmark_item_id"] for i in result["left_out"]} == {"ITEM-HOP", "ITEM-HELD"}
    assert result["encryption_reasons"] == []  # encrypted because asked


def test_the_text_output_names_the_keys_and_never_prints_a_passphrase(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_study(tmp_path / "s")
    code, out, _ = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"), "--encrypt")
    assert code == 0
    assert "keys/coordinator.key" in out and "keys/passphrases.json" in out and "by phone" in out
    listed = json.loads((tmp_path / "out" / "keys" / "passphrases.json").read_text(encoding="utf-8"))
    assert not [e for e in listed["bundles"] if e["passphrase"] in out]


def test_a_rebuild_keeps_the_keys_and_each_raters_passphrase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build_study(tmp_path, encrypt=True)
    keys = built.out / "keys"
    before_key = (keys / "coordinator.key").read_bytes()
    before = json.loads((keys / "passphrases.json").read_text(encoding="utf-8"))
    old_r2 = built.bundle_files["R2"].read_bytes()
    result = build(capsys, built.folder, built.out, "--raters", "R2")
    assert [Path(b["file"]).name for b in result["bundles"]] == ["R2.wmcdp"]
    assert (keys / "coordinator.key").read_bytes() == before_key
    assert json.loads((keys / "passphrases.json").read_text(encoding="utf-8")) == before
    new_r2 = built.bundle_files["R2"].read_bytes()
    assert new_r2 != old_r2 and new_r2[:HEADER_SIZE - 20] == old_r2[:HEADER_SIZE - 20]  # same salt, new nonce
    code, out, _ = run(capsys, "bundle", "verify", str(built.bundle_files["R2"]), "--passphrase", built.passphrases["R2"])
    assert code == 0, out


def test_another_studys_keys_are_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build_study(tmp_path, encrypt=True)
    listed = built.out / "keys" / "passphrases.json"
    doc = json.loads(listed.read_text(encoding="utf-8"))
    doc["study_id"] = "OTHER-STUDY"
    listed.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run(capsys, "bundle", "build", str(built.folder), "--out", str(built.out), "--encrypt")
    assert code != 0 and "holds the keys of study OTHER-STUDY" in out + err
    (built.out / "keys" / "coordinator.key").unlink()
    code, out, err = run(capsys, "bundle", "build", str(built.folder), "--out", str(built.out), "--encrypt")
    assert code != 0 and "but not coordinator.key" in out + err


# ------------------------------------------------------------------------------------------ verify


def test_verify_opens_it_with_the_passphrase_or_the_builds_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build_study(tmp_path, encrypt=True)
    bundle = built.bundle_files["R1"]
    typed = "  " + built.passphrases["R1"].replace("-", " ").upper() + " "
    code, out, err = run(capsys, "bundle", "verify", str(bundle), "--passphrase", typed)
    out += err
    assert code == 0, out
    assert "valid bundle" in out and "encrypted (scrypt N=1024, r=8, p=1" in out
    code, out, err = run(capsys, "bundle", "verify", str(bundle), "--passphrases", str(built.out / "keys" / "passphrases.json"),
                       "--json")
    out += err
    result = json.loads(out)
    assert code == 0 and result["ok"] and result["encrypted"] and result["kdf"]["n"] == FAST_KDF.n
    assert result["rater_id"] == "R1" and result["tasks"] == len(built.bundles["R1"].task_ids)


def test_verify_without_a_passphrase_says_what_to_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build_study(tmp_path, encrypt=True)
    code, out, err = run(capsys, "bundle", "verify", str(built.bundle_files["R1"]))
    out += err
    assert code == 1
    assert "is an encrypted bundle: give its passphrase with --passphrase TEXT" in out and "--passphrases" in out


def test_verify_refuses_a_wrong_passphrase_a_changed_byte_and_a_cut_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = build_study(tmp_path, encrypt=True)
    bundle, passphrase = built.bundle_files["R1"], built.passphrases["R1"]
    code, out, err = run(capsys, "bundle", "verify", str(bundle), "--passphrase", built.passphrases["R2"])
    out += err
    assert code == 1 and "the passphrase does not open" in out and "NOT valid" in out
    raw = bundle.read_bytes()
    for at, expected in ((3, "is not an encrypted bundle"), (12, "damaged key-derivation settings"),
                         (30, "the passphrase does not open"), (45, "the passphrase does not open"),
                         (56, "its header declares"), (HEADER_SIZE + 7, "the passphrase does not open"),
                         (len(raw) - 1, "the passphrase does not open")):
        changed = tmp_path / "changed.wmcdp"
        changed.write_bytes(raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1:])
        code, out, err = run(capsys, "bundle", "verify", str(changed), "--passphrase", passphrase)
        out += err
        assert code == 1 and expected in out, (at, out)
    cut = tmp_path / "cut.wmcdp"
    cut.write_bytes(raw[: len(raw) // 2])
    code, out, err = run(capsys, "bundle", "verify", str(cut), "--passphrase", passphrase)
    out += err
    assert code == 1 and "is cut short" in out


def test_verify_refuses_a_file_above_the_size_cap_before_reading_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build_study(tmp_path, encrypt=True)
    huge = tmp_path / "huge.wmcdp"
    with huge.open("wb") as f:
        f.write(built.bundle_files["R1"].read_bytes()[:HEADER_SIZE])
        f.truncate(1200 * 1024 * 1024)  # sparse: no disk used
    code, out, err = run(capsys, "bundle", "verify", str(huge), "--passphrase", built.passphrases["R1"])
    out += err
    assert code == 1 and "is larger than" in out


def test_verify_of_a_bundle_not_in_the_passphrases_file_or_with_a_passphrase_for_a_plain_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = build_study(tmp_path, encrypt=True)
    renamed = tmp_path / "R9.wmcdp"
    renamed.write_bytes(built.bundle_files["R1"].read_bytes())
    code, out, err = run(capsys, "bundle", "verify", str(renamed), "--passphrases", str(built.out / "keys" / "passphrases.json"))
    out += err
    assert code == 1 and "does not list R9.wmcdp" in out
    plain = build_study(tmp_path / "plain")
    code, out, err = run(capsys, "bundle", "verify", str(plain.bundle_files["R1"]), "--passphrase", "acid-acorn")
    out += err
    assert code != 0 and "is not an encrypted bundle" in out + err


def test_verify_says_when_a_bundle_carries_another_builds_coordinator_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = build_study(tmp_path / "one", encrypt=True)
    two = build_study(tmp_path / "two", encrypt=True)
    listed = json.loads((two.out / "keys" / "passphrases.json").read_text(encoding="utf-8"))
    listed["bundles"] = json.loads((one.out / "keys" / "passphrases.json").read_text(encoding="utf-8"))["bundles"]
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(listed), encoding="utf-8")
    code, out, err = run(capsys, "bundle", "verify", str(one.bundle_files["R1"]), "--passphrases", str(mixed))
    assert code == 1 and "export_public_key: is not the coordinator key of" in out + err


def test_an_unassigned_encrypted_bundle_is_named_without_the_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "s")
    result = build(capsys, study, tmp_path / "out", "--unassigned", "--encrypt")
    assert [Path(b["file"]).name for b in result["bundles"]] == ["unassigned.wmcdp"]
    listed = json.loads((tmp_path / "out" / "keys" / "passphrases.json").read_text(encoding="utf-8"))
    assert [(e.get("rater_id"), e["bundle_file"]) for e in listed["bundles"]] == [(None, "unassigned.wmcdp")]
    code, out, err = run(capsys, "bundle", "verify", str(tmp_path / "out" / "unassigned.wmcdp"),
                         "--passphrases", str(tmp_path / "out" / "keys" / "passphrases.json"))
    assert code == 0, out + err
    code, out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "o2"), "--unassigned",
                         "--encrypt", "--bundle-file", str(tmp_path / "o2" / "demo bundle.zip"))
    assert code != 0 and "an encrypted bundle's file name ends in .wmcdp" in out + err
    assert not (tmp_path / "o2" / "demo bundle.zip").exists() and not (tmp_path / "o2" / "keys").exists()
