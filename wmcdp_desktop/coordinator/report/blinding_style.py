"""What the text alone reveals: the style separability of the responses that were rated (``wmcdp report``,
section 5, beside the blinding indices; docs/ANALYSIS.md).

The responses rated are found in the study folder the report is given (``responses/*.jsonl``): those whose
(item, model) a kept rating names. They are measured exactly as ``wmcdp study validate`` measures the
responses it will send (:mod:`wmcdp_desktop.coordinator.study.style`, the study's seed), so a study that was
separable before it started is reported as separable after it, and no index of the raters' answers is read
as "blind" when the text tells the models apart.
"""

from __future__ import annotations

from pathlib import Path

from wmcdp_desktop.coordinator.report.common import Note, Table
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.coordinator.study.style import StyleResult, StyleText, measure_style
from wmcdp_desktop.core.documents import load_jsonl, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.files import MAX_JSONL_BYTES
from wmcdp_desktop.core.models.candidate_response import CandidateResponse

COLUMNS = ["responses", "items", "models", "folds", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "chance",
           "length_accuracy", "formatting_accuracy", "separable", "evidence"]


def rated_texts(study_dir: Path, ds: Dataset) -> tuple[list[StyleText], str | None]:
    """The study's responses that a kept rating names (by item and model), and why there are none (a missing
    or unreadable ``responses/`` folder), in plain words."""
    folder = study_dir / "responses"
    if not folder.is_dir():
        return [], f"the study folder {study_dir} has no responses/ folder to read the rated texts from"
    rated = {(ds.item_ids[i], ds.model_ids[m]) for i, m in zip(ds.item.tolist(), ds.model.tolist(), strict=True)
             if m >= 0}
    out: list[StyleText] = []
    seen: set[tuple[str, str]] = set()
    for path in sorted(folder.glob("*.jsonl")):
        source = f"responses/{path.name}"
        try:
            responses = load_jsonl(CandidateResponse, read_file_bytes(path, source, MAX_JSONL_BYTES), source)
        except DocumentError as exc:
            return [], f"{exc.problems[0]}" if exc.problems else f"{source} cannot be read"
        except OSError as exc:
            return [], f"{source} cannot be read: {exc.strerror or exc}"
        for r in responses:
            key = (r.benchmark_item_id, r.model_source)
            if key in rated and key not in seen:
                seen.add(key)
                out.append(StyleText(r.benchmark_item_id, r.model_source, r.text))
    return out, None


def measure_rated(study_dir: Path, ds: Dataset) -> None:
    """Measure the rated responses' style into ``ds.rated_style`` (or say why not in ``ds.rated_style_note``)."""
    texts, why = rated_texts(study_dir, ds)
    if why is not None:
        ds.rated_style_note = why
        return
    result = measure_style(texts, ds.study.seed if ds.study is not None else 0)
    if result.not_measured is not None:
        ds.rated_style_note = result.not_measured
    ds.rated_style = result


def style_section(ds: Dataset) -> tuple[list[Table], list[Note]]:
    """The table and notes of the rated responses' style separability (none when there was nothing to measure)."""
    result: StyleResult | None = ds.rated_style
    if result is None or result.accuracy is None:
        if ds.rated_style_note and len(ds.model_ids) >= 2:
            return [], [Note("blinding", f"Style separability of the rated responses not measured: "
                                         f"{ds.rated_style_note}.")]
        return [], []
    table = Table(
        "blinding_style", "What the text alone reveals: style separability of the rated responses",
        COLUMNS, [[result.responses, result.items, len(result.models), result.folds, result.accuracy, result.ci_low,
                   result.ci_high, result.chance, result.length_accuracy, result.formatting_accuracy,
                   result.separable, " | ".join(result.evidence())]],
        description="A classifier (logistic regression on words, symbols, length and formatting) cross-validated "
        "by item predicts each rated response's model from its text alone, as `wmcdp study validate` does before "
        "the study. accuracy against chance (the share of the most common model), 95% interval (bootstrap over "
        "items, never narrower than the exact one); length_accuracy and formatting_accuracy: the same on length "
        "or formatting alone; separable: accuracy >= chance + 0.10 and the interval above chance. When the text "
        "is separable, raters could tell the models apart whatever they answered to the blinding question.")
    notes = []
    if result.separable:
        notes.append(Note(
            "blinding", f"The text alone reveals the model: {result.summary()}. What carries it: "
            f"{'; '.join(result.evidence())}. Whatever the blinding answers say, these ratings cannot be called "
            "blind: raters could tell the models apart from the text."))
    return [table], notes
