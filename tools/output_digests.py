"""The SHA-256 of every file ``wmcdp bundle build``, ``wmcdp results collect`` and ``wmcdp report`` write,
on the demo study and on a synthetic study, a developer's tool for changes that must not change any output
byte (a move, a fold, a removal). Run it on both sides of the change and compare the two listings:

    python -m tools.output_digests /tmp/before > before.txt      # in a checkout of the old revision
    python -m tools.output_digests /tmp/after > after.txt        # in this one
    diff before.txt after.txt && echo byte-identical

- **demo**: the demo study's bundles, each rated in full by its rater through the rater's own session (the
  app's code without its window: scores, a rationale, a failure mode, a flag, one "cannot rate" and one
  revision) and exported; collected with the build's key; the report with its default intervals.
- **synthetic** (``--tasks``, default 10,000): a study of that many tasks (``benchmarks/synth.py``) built
  into five raters' bundles; and that many tasks rated twice each by three raters, as the export zips the
  app makes (``benchmarks/scale.py``), collected and reported (200 resamples).

Time, record and export ids are fixed (a fake clock, numbered ids), so two runs of one revision list the
same digests. Run it as a command, once per process (the ids are numbered from the start of the process).
Needs the analysis extra (the report). Exit code 0, or the failing command's."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import itertools
import os
import shutil
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from unittest import mock

from benchmarks import scale, synth
from wmcdp_desktop.coordinator.commands.main import main as wmcdp
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.resources import demo_study_dir
from wmcdp_desktop.rater.session import RaterIdentity, RatingSession
from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock


@contextlib.contextmanager
def _numbered_ids() -> Iterator[None]:
    counter = itertools.count(1)
    with mock.patch.object(uuid, "uuid4", lambda: uuid.UUID(int=next(counter))):
        yield


def _run(*args: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = wmcdp([*args, "--json"])
    if code != 0:
        sys.stderr.write(out.getvalue())
        raise SystemExit(code)


def _rate_and_export(bundle: Path, data: Path, export: Path) -> None:
    opened = open_bundle(bundle)
    rater = opened.manifest.rater_id or "R01"
    clock = FakeClock()
    session = RatingSession(opened, RaterStore(data, opened.manifest.bundle_id, rater, clock), RaterIdentity(rater, None),
                            clock)
    modes = [fm.id for fm in session.rubric.failure_modes]
    for i, tid in enumerate(session.task_ids):
        session.open_task(tid)
        clock.advance(40 + 7 * i)
        session.user_input()
        if i == 2:
            session.mark_cannot_rate(True)
            session.set_cannot_rate(reason="outside_expertise", detail="")
        else:
            for d, dim in enumerate(session.rubric.dimensions):
                session.set_score(dim.id, dim.scale.min + (i + d) % (dim.scale.max - dim.scale.min + 1))
            session.set_note("brief_rationale", f"Task {i + 1}: steady and specific, **one** gap 😊.")
            if i % 3 == 0 and modes:
                session.set_failure_mode(modes[i % len(modes)], checked=True, severity="minor", note=f"evidence {i}")
        if i == 0:
            session.set_flag(True)
            session.set_flag_note("please check =SUM(A1) this scenario")
        result = session.submit()
        if not result.ok:
            raise SystemExit(f"{bundle.name} {tid}: {result.problems}")
        if i == 1:
            session.open_task(tid)
            session.revise()
            session.set_note("brief_rationale", "Revised: the plan comes too early.")
            clock.advance(20)
            session.submit()
    session.export_results(export)
    session.close()


def demo(out: Path) -> None:
    bundles = out / "bundles"
    _run("bundle", "build", str(demo_study_dir()), "--out", str(bundles))
    exports = out / "exports"
    exports.mkdir()
    for n, bundle in enumerate(sorted(bundles.glob("*.wmcdp"))):
        _rate_and_export(bundle, out / "data" / str(n), exports / f"{bundle.stem}-results.zip")
    key = next(bundles.glob("*-unblinding-key.json"))
    _run("results", "collect", *map(str, sorted(exports.glob("*.zip"))), "--key", str(key), "--out", str(out / "collected"))
    _run("report", str(out / "collected"), "--study", str(demo_study_dir()), "--out", str(out / "report"))
    shutil.rmtree(out / "data")


def synthetic(out: Path, tasks: int) -> None:
    built = synth.write_study(out / "built-study", tasks, n_raters=5, overlap=3)
    _run("bundle", "build", str(built), "--out", str(out / "bundles"))
    raters, overlap, models = 3, 2, 2
    study = scale.write_study(out / "study", max(1, tasks // models), raters, overlap)
    ratings = scale.synth_ratings(tasks * overlap, raters, overlap, models)
    with mock.patch.object(time, "localtime", lambda *_: time.gmtime(1_790_000_000)):  # the zips' file times
        key, zips = scale.write_exports(out / "exports", ratings, raters)
    _run("results", "collect", *map(str, zips), "--key", str(key), "--out", str(out / "collected"))
    _run("report", str(out / "collected"), "--study", str(study), "--out", str(out / "report"))


def digests(root: Path) -> list[str]:
    """``<sha256>  <path>`` of every file written, the studies made as input left out."""
    return [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.as_posix()}"
            for p in sorted(root.rglob("*")) if p.is_file() and not p.parts[1].endswith("study")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.output_digests", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="an empty or new folder for the outputs")
    parser.add_argument("--tasks", type=int, default=10_000, help="tasks of the synthetic study (default 10,000)")
    args = parser.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        parser.error(f"{args.out} is not empty")
    args.out.mkdir(parents=True, exist_ok=True)
    os.chdir(args.out)  # the outputs name their inputs by these relative paths, wherever OUT is
    with _numbered_ids():
        demo(Path("demo"))
        synthetic(Path("synthetic"), args.tasks)
    sys.stdout.write("\n".join(digests(Path("."))) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
