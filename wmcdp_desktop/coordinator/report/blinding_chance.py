"""Were models recognised? A guess x truth comparison whose chance is the raters' own (docs/ANALYSIS.md,
section 5).

Bang's index (``blinding.py``) takes a blind guess to be right with chance ``k / L`` (the share of labels
standing for the model). Raters do not choose labels evenly: raters who guess without looking but favour
"ChatGPT" name it for 60% of *every* model's responses, and the index then says they recognise the model
"ChatGPT" stands for (and that they mistake the others). Here the chance is how often the raters name the
model for the *other* models' responses:

- per model ``m``, ``a`` of the ``n_m`` answers to ``m``'s responses name ``m`` (a label standing for it),
  and, for each other model ``o``, ``b`` of the ``n_o`` answers to ``o``'s responses do; "I can't tell"
  counts as an answer that names no model (so raters who recognise one model and say "I can't tell" to the
  rest are seen);
- **the test**, per other model: one-sided Fisher exact test of the 2 x 2 table (``a``, ``n_m - a``; ``b``,
  ``n_o - b``): are ``m``'s responses given its label more often than ``o``'s? ``m`` counts as recognised
  only when that holds against **every** other model: the row reports the other model it is least told
  from (the largest p; an intersection-union test, which needs no adjustment over the others). Compared
  with all the others pooled instead, a rater who recognised only gpt (and so named the other labels less
  for gpt's responses) would seem to recognise every model;
- **recognition** ``J = a / n_m - b / n_o`` against that model: 0 when the label is chosen whatever wrote
  the response (a favourite label included), 1 when it is chosen for all of ``m``'s responses and none of
  ``o``'s (Youden's J of the label as a test for the model). Its 95% interval is Newcombe's hybrid score
  interval (method 10) for a difference of two proportions: it stays honest at 0 of n (every answer "I
  can't tell" gives ``J = 0`` with an interval of width about ``3.8 / n``, not ``[0, 0]``).

Computed pooled over all raters and for each rater on their own answers (three unblinded raters among
six are visible in their own rows, and do not vanish in the pool). A **warning** is written when a test's
p, Holm-adjusted over all the tests of the section (every model, pooled and per rater), is below 0.05:
with blind raters, whatever their preferred labels, a warning is then written in at most 5% of studies.
Answers of one rater are treated as independent within their table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wmcdp_desktop.coordinator.report.dataset import CANNOT_TELL

Z95 = 1.959963984540054
SIGNIFICANT = 0.05
POOLED = "all raters"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``k / n`` (``n > 0``)."""
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(a: int, n1: int, b: int, n2: int) -> tuple[float, float, float]:
    """``a / n1 - b / n2`` and Newcombe's hybrid score 95% interval (his method 10)."""
    p1, p2 = a / n1, b / n2
    l1, u1 = wilson(a, n1)
    l2, u2 = wilson(b, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def fisher_greater(a: int, n1: int, b: int, n2: int) -> float:
    """One-sided Fisher exact p: ``a`` or more of ``n1`` when ``a + b`` of ``n1 + n2`` are drawn (hypergeometric)."""
    from scipy.stats import hypergeom

    return float(min(1.0, hypergeom.sf(a - 1, n1 + n2, a + b, n1)))


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment (adjusted p values, in the order given)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    out = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        out[i] = running
    return out


@dataclass
class Recognition:
    """One model in one scope (all raters, or one rater)."""

    scope: str
    model: str
    compared_with: str
    """The other model it is least distinguished from (the largest p; every other model when it is the only one)."""
    named_for_model: int
    answers_for_model: int
    named_for_others: int
    """Answers to ``compared_with``'s responses that name ``model``."""
    answers_for_others: int
    guesses: int
    """Answers in the scope other than "I can't tell" (0 = no information)."""
    j: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float = 1.0

    @property
    def flagged(self) -> bool:
        return self.p_holm < SIGNIFICANT

    @property
    def share_model(self) -> float:
        return self.named_for_model / self.answers_for_model

    @property
    def share_others(self) -> float:
        return self.named_for_others / self.answers_for_others

    def row(self) -> list[object]:
        return [self.scope, self.model, self.compared_with, self.answers_for_model, self.named_for_model, self.share_model,
                self.answers_for_others, self.named_for_others, self.share_others, self.j, self.ci_low,
                self.ci_high, self.p_value, self.p_holm, self.guesses == 0, self.flagged]


COLUMNS = ["scope", "model", "compared_with", "answers_for_model", "named_for_model", "share_named_for_model",
           "answers_for_other", "named_for_other", "share_named_for_other", "recognition", "recognition_ci_low", "recognition_ci_high",
           "p_value", "p_holm", "no_information", "recognised"]


def recognition(
    models: list[str | None], guesses: list[str | None], raters: list[str], stands_for: dict[str, str | None]
) -> list[Recognition]:
    """Per scope (all raters, then each rater) and model, the comparison of the module docstring, Holm-adjusted
    over every row. Answers naming a label the study does not have, and ratings without a model, are left out."""
    kept: list[tuple[str, str, str]] = []
    for m, g, r in zip(models, guesses, raters, strict=True):
        if m is not None and g is not None and (g == CANNOT_TELL or g in stands_for):
            kept.append((m, g, r))
    scopes: list[tuple[str, list[tuple[str, str, str]]]] = [(POOLED, kept)]
    for rater in sorted({r for _, _, r in kept}):
        scopes.append((rater, [k for k in kept if k[2] == rater]))
    out: list[Recognition] = []
    for scope, answers in scopes:
        in_scope = sorted({m for m, _, _ in answers})
        guesses_here = sum(1 for _, g, _ in answers if g != CANNOT_TELL)
        for model in in_scope:
            mine = [g for m, g, _ in answers if m == model]
            a = sum(1 for g in mine if g != CANNOT_TELL and stands_for[g] == model)
            weakest: Recognition | None = None
            for other in in_scope:
                if other == model:
                    continue
                theirs = [g for m, g, _ in answers if m == other]
                b = sum(1 for g in theirs if g != CANNOT_TELL and stands_for[g] == model)
                j, lo, hi = newcombe(a, len(mine), b, len(theirs))
                row = Recognition(scope, model, other, a, len(mine), b, len(theirs), guesses_here, j, lo, hi,
                                  fisher_greater(a, len(mine), b, len(theirs)))
                if weakest is None or (row.p_value, -row.j) > (weakest.p_value, -weakest.j):
                    weakest = row
            if weakest is not None:  # None: one model only in this scope, nothing to compare with
                out.append(weakest)
    for row, adjusted in zip(out, holm([r.p_value for r in out]), strict=True):
        row.p_holm = adjusted
    return out


def warning_text(r: Recognition) -> str:
    who = "raters" if r.scope == POOLED else f"rater {r.scope}"
    return (
        f"Warning: {who} recognised {r.model}: they named it for {r.named_for_model} of {r.answers_for_model} answers "
        f"to its responses ({r.share_model:.0%}) and at most for {r.named_for_others} of {r.answers_for_others} "
        f"answers to another model's ({r.compared_with}: {r.share_others:.0%}); recognition {r.j:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}], "
        f"one-sided Fisher exact p = {r.p_value:.3g}, Holm-adjusted p = {r.p_holm:.3g}. Its ratings"
        + (" by this rater" if r.scope != POOLED else "") + " may not be blind; read them with care."
    )
