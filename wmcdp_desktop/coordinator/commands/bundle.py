"""``wmcdp bundle build`` (blinded per-rater bundles + unblinding key) and ``wmcdp bundle verify``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.bundles.build import BuildOptionError, build
from wmcdp_desktop.coordinator.bundles.verification import may_be_encrypted, verify_bundle
from wmcdp_desktop.coordinator.commands.common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    command,
    group,
    print_accepted,
    print_json,
    print_problems,
    print_style,
    problem_obj,
)
from wmcdp_desktop.coordinator.commands.progress import ProgressBar
from wmcdp_desktop.core.counts import count

BUILD_DESCRIPTION = """\
Build one blinded .wmcdp bundle per rater from a study folder, plus the coordinator's unblinding key.

A task is one (benchmark item, candidate response). Items are sent when their split is in the study's
rater_splits, they have no exclusionReason, and they are not held out (split held_out_project or
leakageControl.heldOutProject). Each task goes to OVERLAP raters; any two raters' task counts differ by
at most one, and so do each rater's counts of the models. The order per rater is shuffled from the seed,
responses to the same item never back to back where avoidable; which response of an item comes first is
drawn per rater and item (one recognised response says nothing about the next), model positions kept
balanced. No bundle contains a model name, a response id, gold standards of non-calibration items,
adjudication notes or exclusion reasons: the leak scan of `wmcdp study validate` runs first (findings
accepted in study.json are listed), then every string of every bundle is searched again; the only
exception is the blinding check's labels, when study.json sets blinding_check. Same study + same seed =
byte-identical bundles. Style separability is measured as by `wmcdp study validate` (a warning with the
evidence when the model can be told from the text; never a refusal).

Files written in OUT: <study_id>-<rater_id>.wmcdp for each rater and <study_id>-unblinding-key.json
(owner-only permissions; keep it private, never send it to raters).

Encrypted bundles (docs/COORDINATORS.md, "Encrypted bundles"). By default the bundles are encrypted when any
item sent is held out (split held_out_project or leakageControl.heldOutProject true: sent only by a study
whose rater_splits list held_out_project) or its leakageControl.accessPolicy says so (it contains "held
out", "held-out", "heldout", "encrypt" or "confidential", in any case). --encrypt encrypts in any case;
--no-encrypt writes plain bundles, and is refused when a held-out item is sent. An encrypted bundle is
named <rater_id>.wmcdp (no study id) and opens only with its passphrase (six words, generated; tell it
to the rater by phone, not in the mail with the bundle). The build also writes, owner-only, in OUT/keys/
(beside the unblinding key): coordinator.key (opens the raters' sealed exports: results validate --key,
results collect finds it there) and passphrases.json (each bundle's file and passphrase). A later build
into the same folder keeps those keys and passphrases."""

VERIFY_DESCRIPTION = """\
Check a bundle (.wmcdp file or bundle folder): zip safety, bundle.json against the files present, every
file's SHA-256, every task and the rubric against their schemas. Exit 0 only if everything holds.
An encrypted bundle is decrypted in memory (nothing is written) with --passphrase TEXT or with the
build's --passphrases FILE (keys/passphrases.json), then checked the same way."""


def register(sub: Any) -> None:
    actions = group(sub, "bundle", help="build or verify rater bundles",
                    description="Rater bundles: build one blinded .wmcdp per rater (and the unblinding key), or "
                    "verify a bundle before sending it.")
    b = command(
        actions, "build", help="build blinded per-rater bundles and the unblinding key",
        description=BUILD_DESCRIPTION, prog="wmcdp bundle build", body=_build,
        examples=[("wmcdp bundle build my-study --out bundles", "every rater's bundle and the key"),
                  ("wmcdp bundle build my-study --out bundles --raters R-002", "re-issue one rater's bundle"),
                  ("wmcdp bundle build my-study --out demo --unassigned", "one bundle for any rater (pilots)"),
                  ("wmcdp bundle build my-study --out bundles --one-response-per-item",
                   "no rater sees two responses to one item")])
    b.add_argument("study_dir", type=Path, metavar="STUDY_DIR", help="the study folder")
    b.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for the bundles and the key")
    b.add_argument("--seed", type=int, metavar="N", help="randomisation seed (default: the study's seed)")
    b.add_argument("--overlap", type=int, metavar="K", help="raters per task (default: the study's overlap)")
    b.add_argument(
        "--raters",
        metavar="ID,...",
        help="write only these raters' bundles (assignment is still computed over all raters, so a "
        "re-issued bundle is identical to the original, and so is the key written with it)",
    )
    b.add_argument(
        "--one-response-per-item",
        action="store_true",
        help="no rater sees two responses to the same item (no side-by-side contrast of length or style; "
        "needs responses-per-item x overlap raters, and each rater compares fewer models within an item). "
        "Re-issue a bundle (--raters) with the same options",
    )
    b.add_argument(
        "--unassigned",
        action="store_true",
        help="write one bundle with every task and no rater id (for demos and pilots)",
    )
    b.add_argument(
        "--bundle-file",
        type=Path,
        metavar="FILE",
        help="with --unassigned: write the bundle to FILE instead of DIR/<study_id>-unassigned.wmcdp",
    )
    b.add_argument(
        "--key",
        type=Path,
        metavar="FILE",
        help="where to write the unblinding key (default: DIR/<study_id>-unblinding-key.json); the keys/ folder of "
        "an encrypted build goes beside it",
    )
    encrypting = b.add_mutually_exclusive_group()
    encrypting.add_argument(
        "--encrypt", dest="encrypt", action="store_const", const=True, default=None,
        help="encrypt every bundle with its own passphrase (default: when an item sent is held out or its "
        "accessPolicy says held out, encrypt or confidential); writes keys/coordinator.key and "
        "keys/passphrases.json, owner-only",
    )
    encrypting.add_argument(
        "--no-encrypt", dest="encrypt", action="store_const", const=False,
        help="write plain bundles even when the items' access policies ask for encryption (refused when a "
        "held-out item is sent)",
    )
    v = command(
        actions, "verify", help="check a bundle's structure, schemas, hashes and zip safety",
        description=VERIFY_DESCRIPTION, prog="wmcdp bundle verify", body=_verify,
        examples=[("wmcdp bundle verify bundles/MY-STUDY-R-001.wmcdp", "before sending it"),
                  ("wmcdp bundle verify unzipped-bundle/ --json", "a bundle folder, machine-readable")])
    v.add_argument("bundle", type=Path, metavar="BUNDLE", help="a .wmcdp file or a bundle folder")
    opening = v.add_mutually_exclusive_group()
    opening.add_argument("--passphrase", metavar="TEXT",
                         help="the passphrase of an encrypted bundle (case, spaces and hyphens do not matter)")
    opening.add_argument("--passphrases", type=Path, metavar="FILE",
                         help="the build's keys/passphrases.json: the passphrase of an encrypted bundle is looked up "
                         "by its file name")


def _build(args: argparse.Namespace) -> int:
    raters: list[str] | None = None
    if args.raters is not None:
        raters = [r.strip() for r in args.raters.split(",") if r.strip()]
        if not raters:
            raise UsageError("--raters needs at least one rater id")
        if args.unassigned:
            raise UsageError("--raters and --unassigned cannot be used together")
    if args.bundle_file is not None and not args.unassigned:
        raise UsageError("--bundle-file is only for --unassigned")
    with ProgressBar("Reading study", enabled=False if args.json else None) as bar:
        try:
            result = build(
                args.study_dir,
                args.out,
                seed=args.seed,
                overlap=args.overlap,
                raters=raters,
                unassigned=args.unassigned,
                bundle_file=args.bundle_file,
                key_path=args.key,
                reading=bar,
                progress=bar.stage,
                one_response_per_item=args.one_response_per_item,
                encrypt=args.encrypt,
            )
        except BuildOptionError as exc:  # the build checks its options; said here in the command's terms
            raise UsageError(f"--{exc.option}: {exc}") from None
    warnings = result.warnings
    bundles = [
        {
            "file": str(path),
            "rater_id": bundle.rater_id,
            "bundle_id": bundle.bundle_id,
            "bundle_sha256": bundle.manifest_sha256,
            "tasks": len(bundle.task_ids),
            "encrypted": result.encrypted,
        }
        for bundle, path in zip(result.bundles, result.bundle_paths, strict=True)
    ]
    keys = result.keys
    left_out = [{"benchmark_item_id": i.benchmark_item_id, "reason": i.reason} for i in result.plan.left_out]
    if args.json:
        print_json(
            {
                "ok": True,
                "study_id": result.study_id,
                "seed": result.plan.seed,
                "overlap": result.plan.overlap,
                "tasks": len(result.plan.tasks),
                "bundles": bundles,
                "key": str(result.key_path),
                "encrypted": result.encrypted,
                "encryption_reasons": result.encryption_reasons,
                "coordinator_key": str(keys.key_path) if keys else None,
                "passphrases": str(keys.passphrases_path) if keys else None,
                "left_out": left_out,
                "accepted_findings": [a.as_obj() for a in result.scan.accepted],
                "leak_warnings": [f.as_obj() for f in result.scan.warned],
                "blinding_check_labels": result.blinding_labels,
                "style": result.style.as_obj() if result.style else None,
                "side_by_side": {rater or "unassigned": {"items_with_two_or_more_responses": two, "items": items}
                                 for rater, (two, items) in sorted(result.plan.side_by_side().items())},
                "warnings": [problem_obj(w) for w in warnings],
            }
        )
        return EXIT_OK
    print_problems(warnings, "warnings:")
    print_accepted(result.scan.accepted)
    if result.style is not None:
        print_style(result.style)
    print(
        f"{len(result.plan.tasks)} tasks (seed {result.plan.seed}"
        + ("" if args.unassigned else f", overlap {result.plan.overlap}")
        + f"); {count(len(left_out), 'item')} left out."
    )
    for item in left_out:
        print(f"  left out {item['benchmark_item_id']}: {item['reason']}")
    side = result.plan.side_by_side()
    together = {r: v for r, v in side.items() if v[0]}
    if together:
        print("side by side: raters get two or more responses to the same item in "
              + ", ".join(f"{rater or 'the unassigned bundle'} {two} of {items}" for rater, (two, items)
                          in sorted(together.items()))
              + " items (--one-response-per-item removes this)")
    for entry in bundles:
        who = entry["rater_id"] or "any rater (unassigned)"
        print(f"wrote {entry['file']}  ({who}, {entry['tasks']} tasks)")
    print(f"wrote {result.key_path}  (unblinding key: keep it private, never send it to raters)")
    if keys is not None:
        why = ("--encrypt" if not result.encryption_reasons else
               "; ".join(result.encryption_reasons[:3]) + (" …" if len(result.encryption_reasons) > 3 else ""))
        print(f"encrypted: every bundle opens only with its own passphrase ({why})")
        print(f"wrote {keys.key_path}  (coordinator key: opens the raters' sealed exports; keep it private)")
        print(f"wrote {keys.passphrases_path}  (each bundle's passphrase: tell each rater theirs by phone, never with "
              "the bundle)" + ("; earlier passphrases kept" if keys.reused else ""))
    elif result.encryption_reasons:
        print(f"not encrypted (--no-encrypt), although {result.encryption_reasons[0]}")
    return EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    if (args.passphrase is not None or args.passphrases is not None) and not may_be_encrypted(args.bundle):
        raise UsageError(f"{args.bundle} is not an encrypted bundle: give it without --passphrase/--passphrases")
    with ProgressBar("Verifying", enabled=False if args.json else None) as bar:
        verified = verify_bundle(args.bundle, passphrase=args.passphrase, passphrases=args.passphrases, progress=bar)
    bundle, header, problems, calibration = verified.bundle, verified.header, verified.problems, verified.calibration_tasks
    ok = not problems
    if args.json:
        out: dict[str, Any] = {"ok": ok, "bundle": str(args.bundle), "problems": [problem_obj(p) for p in problems],
                               "encrypted": header is not None}
        if header is not None:
            out["kdf"] = {"name": "scrypt", "n": header.kdf.n, "r": header.kdf.r, "p": header.kdf.p}
        if bundle is not None:
            out.update(
                bundle_id=bundle.manifest.bundle_id,
                study_id=bundle.manifest.study_id,
                rater_id=bundle.manifest.rater_id,
                bundle_sha256=bundle.manifest_sha256,
                tasks=len(bundle.task_ids),
                calibration_tasks=calibration if ok else None,
            )
        print_json(out)
        return EXIT_OK if ok else EXIT_INVALID
    if not ok:
        print_problems(problems, f"{args.bundle}: {count(len(problems), 'problem')}:")
        print(f"{args.bundle}: NOT valid", flush=True)
        return EXIT_INVALID
    assert bundle is not None
    who = bundle.manifest.rater_id or "any rater (unassigned)"
    print(
        f"{args.bundle}: valid bundle {bundle.manifest.bundle_id} of study {bundle.manifest.study_id} for {who}: "
        f"{len(bundle.task_ids)} tasks, all hashes match (bundle.json sha256 {bundle.manifest_sha256})."
    )
    if header is not None:
        print(f"{args.bundle}: encrypted (scrypt N={header.kdf.n}, r={header.kdf.r}, p={header.kdf.p}; AES-256-GCM); "
              "the passphrase opens it and no byte was changed; its export is sealed to the coordinator key")
    return EXIT_OK
