"""Run the reliability suite and publish its figures.

    python -m tests.reliability.report            # from the repository root

Runs ``pytest tests/reliability -m reliability`` in a subprocess with the counting plugin switched on
(``WMCDP_RELIABILITY_JSON``), then writes the figures to ``docs/reliability-figures.json`` and between
the ``figures`` markers of ``docs/RELIABILITY.md``. Exit status: pytest's, or 1 if any record was lost.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "RELIABILITY.md"
FIGURES = REPO / "docs" / "reliability-figures.json"
START = "<!-- figures:start (written by python -m tests.reliability.report) -->"
END = "<!-- figures:end -->"
COMMAND = "python -m tests.reliability.report"


def run_suite(extra: list[str]) -> tuple[int, dict[str, Any], float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        env = dict(os.environ, WMCDP_RELIABILITY_JSON=str(out))
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/reliability", "-m", "reliability", "-p", "no:cacheprovider", "-q",
             # one process: the counts are kept in the process that ran the tests (the suite runs on every core)
             "-n", "0", *extra],
            cwd=REPO,
            env=env,
        )
        elapsed = time.monotonic() - started
        if not out.exists():
            raise SystemExit(f"the suite wrote no figures (pytest exit {proc.returncode})")
        return proc.returncode, json.loads(out.read_text(encoding="utf-8")), elapsed


def _table(block: dict[str, Any], a: str, b: str, title: str) -> list[str]:
    lines = [f"| {title} | {a} | {b} |", "|---|---:|---:|"]
    for kind, counts in block["by_kind"].items():
        lines.append(f"| {kind} | {counts[a]} | {counts[b]} |")
    lines.append(f"| **total** | **{block[a]}** | **{block[b]}** |")
    return lines


def render(fig: dict[str, Any]) -> str:
    faults, hostile, fuzz, records = fig["faults"], fig["hostile_inputs"], fig["fuzz_executions"], fig["records"]
    tests = fig["tests"]
    lines = [
        START,
        "",
        f"Last run: {fig['run']['date']} on {fig['run']['platform']}, Python {fig['run']['python']}, "
        f"{fig['run']['seconds']:.0f} s; tests {', '.join(f'{v} {k}' for k, v in tests.items())}.",
        "",
        "| figure | count |",
        "|---|---:|",
        f"| faults injected | {faults['injected']} |",
        f"| faults survived | {faults['survived']} |",
        f"| hostile inputs tried (incl. fuzz executions) | {hostile['tried'] + fuzz['total']} |",
        f"| hostile inputs handled (incl. fuzz executions) | {hostile['handled'] + fuzz['total']} |",
        f"| of these, fuzz executions | {fuzz['total']} |",
        f"| stateful session steps, invariants checked after each | {fig.get('stateful_steps', 0)} |",
        f"| records and drafts checked after a fault | {records['checked']} |",
        f"| **records lost** | **{records['lost']}** |",
        "",
        "<details><summary>Faults by kind</summary>",
        "",
        *_table(faults, "injected", "survived", "fault"),
        "",
        "</details>",
        "",
        "<details><summary>Hostile inputs by kind</summary>",
        "",
        *_table(hostile, "tried", "handled", "hostile input"),
        "",
        "| fuzz target | executions |",
        "|---|---:|",
        *[f"| {k} | {v} |" for k, v in fuzz["by_target"].items()],
        "",
        "</details>",
        "",
    ]
    if fig["skipped"]:
        lines += ["Skipped in this run:", "", *[f"- `{s}`" for s in fig["skipped"]], ""]
    lines.append(END)
    return "\n".join(lines)


def write_doc(block: str) -> None:
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else f"# Reliability\n\n{START}\n{END}\n"
    if START not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n{START}\n{END}\n"
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + block + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    extra = list(sys.argv[1:] if argv is None else argv)
    code, fig, elapsed = run_suite(extra)
    fig["run"] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "platform": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "seconds": round(elapsed, 1),
        "pytest_exit": code,
        "command": COMMAND,
    }
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    FIGURES.write_text(json.dumps(fig, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    write_doc(render(fig))
    print(
        f"faults {fig['faults']['survived']}/{fig['faults']['injected']} survived, hostile inputs "
        f"{fig['hostile_inputs']['handled']}/{fig['hostile_inputs']['tried']} handled, "
        f"{fig['fuzz_executions']['total']} fuzz executions, records lost {fig['records']['lost']}"
    )
    print(f"wrote {DOC.relative_to(REPO)} and {FIGURES.relative_to(REPO)}")
    if fig["records"]["lost"]:
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
