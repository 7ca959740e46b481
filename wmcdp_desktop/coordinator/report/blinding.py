"""How well blinding held: Bang's blinding index per model from the blinding check (docs/ANALYSIS.md).

After submitting a task the rater may answer "Do you think you know which system wrote this response?"
with "I can't tell" or one of the study's labels (``study.json`` ``blinding_check``; a label stands for a
model, or for none: a decoy). Per model, the answers to its responses are counted as *correct* (a label
standing for that model), *wrong* (any other label, decoys included) and *can't tell*.

**Bang's blinding index** (Bang, Ni & Davis 2004, Controlled Clinical Trials 25:143-156) for one arm of a
two-arm trial is ``(correct - wrong) / n`` over all ``n`` answers, "don't know" included: 0 when guesses
are no better than a coin, 1 when everyone is unblinded, -1 when everyone guesses the other arm. Here a
rater chooses among ``L`` labels, ``k`` of which stand for the model, so a blind guess is right with
chance ``c = k / L``. The adaptation weighs wrong guesses so that blind guessing again gives 0:

    BI = (correct - w * wrong) / n,   w = c / (1 - c)

(equivalently ``(share of correct answers - c * share of guesses) / (1 - c)``: correct answers beyond what
blind guessing gives, per answer). With two labels, one per model (``c = 1/2``, ``w = 1``) it is exactly
Bang's index. It ranges from ``-w`` (every guess wrong) to 1 (every answer right); "I can't tell" pulls it
towards 0. Its 95% interval is Bang's Wald interval, from the multinomial variance of
``p_correct - w * p_wrong``::

    var = (p_c (1 - p_c) + w^2 p_w (1 - p_w) + 2 w p_c p_w) / n

clipped to ``[-w, 1]``. Beside it, the share of correct guesses among the guesses (answers other than "I
can't tell") is compared with the chance ``c``: a Clopper-Pearson 95% interval and a one-sided exact
binomial test. When that test gives p < 0.05 the report warns that raters recognise the model more often
than chance. Answers of one rater are counted as independent, so with few raters the intervals are too
narrow rather than too wide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from wmcdp_desktop.coordinator.report.common import Note, Table
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.coordinator.report.rating_rows import CANNOT_TELL
from wmcdp_desktop.core.counts import agree, count

INTRO = (
    "Did raters know which system wrote what? After submitting, raters could answer \"Do you think you know which "
    "system wrote this response?\" with \"I can't tell\" or a label (some labels may be decoys). Bang's blinding "
    "index, adapted to a choice among labels, is 0 when guesses are no better than chance and 1 when every answer "
    "is right. The leak-scan findings the coordinator accepted are listed too."
)
Z95 = 1.959963984540054
SIGNIFICANT = 0.05


@dataclass(frozen=True)
class BangIndex:
    value: float
    ci_low: float
    ci_high: float


def bang_index(correct: int, wrong: int, cannot_tell: int, chance: float) -> BangIndex | None:
    """Bang's blinding index adapted to a guess among labels (module docstring); None without answers or
    when every guess or no guess can be right (``chance`` 0 or 1)."""
    n = correct + wrong + cannot_tell
    if n == 0 or not 0 < chance < 1:
        return None
    w = chance / (1 - chance)
    p_c = correct / n
    p_w = wrong / n
    value = p_c - w * p_w
    variance = (p_c * (1 - p_c) + w * w * p_w * (1 - p_w) + 2 * w * p_c * p_w) / n
    half = Z95 * math.sqrt(max(variance, 0.0))
    return BangIndex(value, max(-w, value - half), min(1.0, value + half))


@dataclass
class ModelGuesses:
    model: str
    correct: int = 0
    wrong: int = 0
    cannot_tell: int = 0
    by_label: dict[str, int] = field(default_factory=dict)

    @property
    def answers(self) -> int:
        return self.correct + self.wrong + self.cannot_tell


@dataclass
class BlindingResult:
    tables: list[Table] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


def count_guesses(
    models: list[str | None], guesses: list[str | None], stands_for: dict[str, str | None]
) -> tuple[dict[str, ModelGuesses], int]:
    """Per model, the answers to its ratings; and how many answers name a label the study does not have."""
    out: dict[str, ModelGuesses] = {}
    unknown = 0
    for model, guess in zip(models, guesses, strict=True):
        if guess is None or model is None:
            continue
        if guess != CANNOT_TELL and guess not in stands_for:
            unknown += 1
            continue
        counts = out.setdefault(model, ModelGuesses(model))
        if guess == CANNOT_TELL:
            counts.cannot_tell += 1
        elif stands_for[guess] == model:
            counts.correct += 1
        else:
            counts.wrong += 1
        key = "I can't tell" if guess == CANNOT_TELL else guess
        counts.by_label[key] = counts.by_label.get(key, 0) + 1
    return out, unknown


def _binomial(correct: int, guesses: int, chance: float) -> tuple[float | None, float | None, float | None]:
    """One-sided exact p (more correct than chance) and the Clopper-Pearson 95% interval of the share."""
    if guesses == 0 or not 0 < chance < 1:
        return None, None, None
    from scipy.stats import binomtest

    test = binomtest(correct, guesses, chance, alternative="greater")
    interval = binomtest(correct, guesses, chance).proportion_ci(confidence_level=0.95, method="exact")
    return float(test.pvalue), float(interval.low), float(interval.high)


def analyse_blinding(ds: Dataset) -> BlindingResult:
    """The blinding section: the index per model, the answers per label, the accepted leak findings."""
    result = BlindingResult()
    study = ds.study
    check = study.blinding_check if study is not None else None
    answered = sum(1 for g in ds.blinding_guess if g is not None)
    if study is not None and study.accepted_findings:
        accepted = Table(
            "blinding_accepted_findings", "Leak-scan findings accepted by the coordinator",
            ["where", "term", "reason"],
            [[f"response {a.response_id}" if a.response_id else a.file, a.term, a.reason]
             for a in study.accepted_findings],
            description="Model or vendor names the leak scan found in texts sent to raters and the coordinator "
            "accepted (study.json accepted_findings), with the reason given.")
        result.tables.append(accepted)
    if check is None:
        if answered:
            result.notes.append(Note("blinding", f"{count(answered, 'rating')} {agree(answered, 'answers', 'answer')} a blinding check, but study.json has "
                                                 "none (blinding_check): the answers cannot be scored."))
        return result
    stands_for = {label.label: label.model_source for label in check.labels}
    n_labels = len(stands_for)
    models = [ds.model_ids[m] if m >= 0 else None for m in ds.model.tolist()]
    counts, unknown = count_guesses(models, ds.blinding_guess, stands_for)
    if unknown:
        result.notes.append(Note("blinding", f"{count(unknown, 'answer')} {agree(unknown, 'names', 'name')} a label that is not in study.json's "
                                             "blinding_check; they are left out."))
    if not answered:
        result.notes.append(Note("blinding", "The study asks the blinding question, but no rating answers it."))
    index = Table(
        "blinding_index", "Blinding index per model (Bang, adapted to a choice among labels)",
        ["model", "answers", "cannot_tell", "correct", "wrong", "labels_for_model", "chance", "correct_share",
         "correct_share_ci_low", "correct_share_ci_high", "p_value", "bang_bi", "bang_bi_ci_low",
         "bang_bi_ci_high", "recognised_above_chance"],
        description="Answers to \"Do you think you know which system wrote this response?\" for each model's "
        "responses. chance: the share of labels standing for the model (a blind guess is right this often); "
        "correct_share: correct guesses among guesses (\"I can't tell\" left out), with its exact 95% interval "
        "and one-sided binomial p against chance. bang_bi: 0 = guesses no better than chance, 1 = every answer "
        "right, negative = guesses wrong more often than chance; 95% Wald interval.")
    guesses = Table(
        "blinding_guesses", "Answers per model and label", ["model", "label", "stands_for", "answers"],
        description="What raters answered for each model's responses (decoys stand for no model).")
    for model in sorted(counts, key=str):
        c = counts[model]
        k = sum(1 for m in stands_for.values() if m == model)
        chance = k / n_labels
        bi = bang_index(c.correct, c.wrong, c.cannot_tell, chance)
        p, lo, hi = _binomial(c.correct, c.correct + c.wrong, chance)
        flagged = p is not None and p < SIGNIFICANT
        share = c.correct / (c.correct + c.wrong) if c.correct + c.wrong else None
        index.rows.append([
            model, c.answers, c.cannot_tell, c.correct, c.wrong, k, chance, share, lo, hi, p,
            bi.value if bi else None, bi.ci_low if bi else None, bi.ci_high if bi else None, flagged,
        ])
        if k == 0:
            result.notes.append(Note("blinding", f"No label stands for {model}: whether raters recognise it cannot "
                                                 "be measured."))
        if flagged and share is not None and p is not None:
            result.notes.append(Note(
                "blinding",
                f"Warning: raters recognised {model} more often than chance: {c.correct} of {c.correct + c.wrong} "
                f"guesses named it ({share:.0%}), where guessing blindly names it {chance:.0%} of the time "
                f"(one-sided exact binomial p = {p:.3g}). Its ratings may not be blind; read them with care.",
            ))
        for label, answers in sorted(c.by_label.items()):
            guesses.rows.append([model, label, stands_for.get(label) or ("decoy" if label in stands_for else ""),
                                 answers])
    result.tables[:0] = [index, guesses]
    return result
