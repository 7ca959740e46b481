"""The style separability check of a study folder (``wmcdp study validate`` and ``wmcdp bundle build``):
the responses raters will see, measured by :mod:`style`, and the warning (or the coordinator's acceptance,
``study.json`` ``accepted_style``) it gives. It never stops a build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from wmcdp_desktop.coordinator.study.loader import LoadedStudy
from wmcdp_desktop.coordinator.study.style import StyleResult, StyleText, measure_style
from wmcdp_desktop.core.errors import Problem

CHOICES = (
    "Choices (docs/COORDINATORS.md, 'Style separability'): build with --one-response-per-item so that no rater "
    "sees two responses to the same item side by side (no length or style contrast within an item; needs more "
    "raters, and each rater compares fewer models); show formatting the same way for every model (the rater app "
    "renders every response alike; study.json render_markdown false shows all as plain text); edit or "
    "normalise the responses; or accept the finding in study.json accepted_style with a reason and the "
    "accuracy accepted (up_to_accuracy)."
)
WHERE = "responses"
"""The file a style warning names: the study's responses folder (the finding is about all of them)."""


@dataclass
class StyleCheck:
    """The measurement and what ``study validate`` / ``bundle build`` say about it."""

    result: StyleResult
    warnings: list[Problem] = field(default_factory=list)
    accepted: str | None = None
    """The acceptance's line when ``accepted_style`` covers the finding."""

    def as_obj(self) -> dict[str, object]:
        return {**self.result.as_obj(), "accepted": self.accepted}


def sent_texts(study: LoadedStudy) -> list[StyleText]:
    """Every response a bundle will carry (the items sent to raters), as the rater reads it."""
    sent = {i.benchmarkItemId for i in study.items.values() if study.leave_out_reason(i) is None}
    return [StyleText(r.response.benchmark_item_id, r.response.model_source, r.response.text)
            for r in study.responses if r.response.benchmark_item_id in sent]


def check_style(study: LoadedStudy, seed: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> StyleCheck:
    """Measure the sent responses (seed: the study's unless given) and word the finding; ``progress(done,
    total)`` hears the measurement's steps."""
    result = measure_style(sent_texts(study), study.study.seed if seed is None else seed, progress)
    check = StyleCheck(result)
    if result.not_measured is not None:
        # one model, or a single item: nothing to tell apart; only a missing library is worth a warning
        if "not installed" in result.not_measured:
            check.warnings.append(Problem(WHERE, "", result.summary()))
        return check
    if not result.separable:
        return check
    assert result.accuracy is not None
    accepted = study.study.accepted_style
    if accepted is not None and result.accuracy <= accepted.up_to_accuracy + 1e-12:
        check.accepted = (f"style separability accepted up to accuracy {accepted.up_to_accuracy:.3f} (measured "
                          f"{result.accuracy:.3f}): {accepted.reason}")
        return check
    evidence = "; ".join(result.evidence())
    again = ""
    if accepted is not None:
        again = (f" (study.json accepted_style accepts up to {accepted.up_to_accuracy:.3f}; the accuracy is now "
                 "higher)")
    check.warnings.append(Problem(
        WHERE, "text",
        f"the model can be told from the response text: {result.summary()}{again}. What carries it: {evidence}. "
        f"{CHOICES}",
    ))
    return check
