"""Key findings: a few plain sentences at the top of the report, read off the computed tables.

Nothing here computes a new statistic; it picks out what a coordinator should look at first.
"""

from __future__ import annotations

from typing import Any

from wmcdp_desktop.coordinator.report.common import Table
from wmcdp_desktop.core import counts

TENTATIVE = 0.667
FIRM = 0.8
SIGNIFICANT = 0.05


def _rows(tables: dict[str, Table], name: str) -> list[dict[str, Any]]:
    table = tables.get(name)
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows] if table else []


def key_findings(tables: list[Table], scope: str | None = None) -> list[str]:
    """``scope``: what the intervals are about (named where an interval is quoted)."""
    by_name = {t.name: t for t in tables}
    out: list[str] = []

    alphas = [r for r in _rows(by_name, "agreement_alpha") if r["alpha_ordinal"] is not None]
    if alphas:
        low = [r for r in alphas if r["alpha_ordinal"] < TENTATIVE]
        mid = [r for r in alphas if TENTATIVE <= r["alpha_ordinal"] < FIRM]
        lo = min(alphas, key=lambda r: r["alpha_ordinal"])
        hi = max(alphas, key=lambda r: r["alpha_ordinal"])
        out.append(f"Agreement (ordinal alpha) ranges from {lo['alpha_ordinal']:.2f} ({lo['dimension']} "
                   f"{lo['label']}) to {hi['alpha_ordinal']:.2f} ({hi['dimension']} {hi['label']}).")
        if low:
            out.append(f"{counts.count(len(low), 'dimension')} below {TENTATIVE}, too unreliable to draw conclusions from: "
                       + ", ".join(f"{r['dimension']} ({r['alpha_ordinal']:.2f})" for r in low) + ".")
        if mid:
            out.append(f"{counts.count(len(mid), 'dimension')} between {TENTATIVE} and {FIRM} (tentative conclusions only): "
                       + ", ".join(r["dimension"] for r in mid) + ".")
        if not low and not mid:
            out.append(f"Every dimension reaches alpha {FIRM} or more.")

    kappa = _rows(by_name, "kappa_by_rater")
    if len(kappa) >= 3:
        means = {r["rater"]: [v for k, v in r.items() if k not in ("rater", "note") and v is not None] for r in kappa}
        avg = {k: sum(v) / len(v) for k, v in means.items() if v}
        if avg:
            worst = min(avg, key=lambda k: avg[k])
            others = [v for k, v in avg.items() if k != worst]
            if others and avg[worst] < sum(others) / len(others) - 0.2:
                out.append(f"Rater {worst} agrees least with the others (mean weighted kappa {avg[worst]:.2f} "
                           f"against {sum(others) / len(others):.2f}).")

    flagged = sorted({r["rater"] for name in ("rater_straightlining", "rater_drift")
                      for r in _rows(by_name, name) if r.get("flag")})
    if flagged:
        out.append(counts.agree(len(flagged), "Rater", "Raters") + " to review (straight-lining or deviation from the others): " + ", ".join(flagged) + ".")

    overall = [r for r in _rows(by_name, "model_scores") if r["dimension"] == "WM-RUB-008" and r["mean"] is not None]
    if len(overall) >= 2:
        ranked = sorted(overall, key=lambda r: -r["mean"])
        out.append("Overall clinical judgment, mean per model: " + "; ".join(
            f"{r['model']} {r['mean']:.2f}" + (f" [{r['mean_ci_low']:.2f}, {r['mean_ci_high']:.2f}]"
                                               if r["mean_ci_low"] is not None else "")
            for r in ranked) + (f" (95% intervals {scope})" if scope and any(
                r["mean_ci_low"] is not None for r in ranked) else "") + ".")
    paired = _rows(by_name, "model_paired")
    if paired:
        sig = [r for r in paired if r["p_holm"] is not None and r["p_holm"] < SIGNIFICANT]
        out.append(f"{len(sig)} of {len(paired)} paired model comparisons differ after Holm adjustment "
                   f"(p < {SIGNIFICANT})" + (": " + "; ".join(
                       f"{r['model_a'] if r['mean_diff'] > 0 else r['model_b']} better on {r['dimension']} "
                       f"(difference {abs(r['mean_diff']):.2f})" for r in sig[:6]) if sig else "") + ".")

    gold = [r for r in _rows(by_name, "gold_by_criterion") if r["agreement"] is not None]
    if gold:
        total = sum(r["ratings"] for r in gold)
        agree = sum(r["agree"] for r in gold)
        worst_g = min(gold, key=lambda r: r["agreement"])
        out.append(f"Ratings agree with the gold standard in {agree / total:.0%} of {total} comparisons; lowest on "
                   f"{worst_g['criterion']} {worst_g['label']} ({worst_g['agreement']:.0%}).")
    style = _rows(by_name, "blinding_style")
    separable = next((r for r in style if r["separable"]), None)
    if separable is not None:
        out.append(f"The text alone reveals the model: a classifier tells the rated responses' models apart with "
                   f"accuracy {separable['accuracy']:.2f} [{separable['accuracy_ci_low']:.2f}, "
                   f"{separable['accuracy_ci_high']:.2f}] (chance {separable['chance']:.2f}); the ratings cannot be "
                   "called blind (section 5).")
    index = _rows(by_name, "blinding_index")
    named = _rows(by_name, "blinding_recognition")
    flagged = [r for r in named if r["recognised"]]
    answers = sum(r["answers"] for r in index)
    if flagged:
        out.append("Blinding: " + "; ".join(
            f"{'raters' if r['scope'] == 'all raters' else 'rater ' + r['scope']} recognised {r['model']} (named it "
            f"for {r['share_named_for_model']:.0%} of its responses, at most {r['share_named_for_other']:.0%} of "
            "another's)" for r in flagged) + "; read those ratings with care.")
    elif index and answers and all(r["no_information"] for r in named if r["scope"] == "all raters"):
        out.append(f"Blinding: no information: all {answers} answers to the blinding question were \"I can't "
                   "tell\"; that does not show the raters were blind.")
    elif index and answers:
        out.append(f"Blinding: no model was named more often for its own responses than for the others' "
                   f"({answers} answers to the blinding question; all raters and each rater)"
                   + ("; but the text alone tells the models apart." if separable is not None else "."))
    return out
