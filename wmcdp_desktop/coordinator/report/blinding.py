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

clipped to ``[-w, 1]``. When every answer is "I can't tell" the index is 0 by definition but says
nothing: its interval is then ``[-w * g, g]``, ``g`` the exact upper 97.5% bound of the share of guesses
(``1 - 0.025^(1/n)``), and the report says "no information". Beside it, the share of correct guesses among
the guesses (answers other than "I can't tell") is compared with the chance ``c``: a Clopper-Pearson 95%
interval and a one-sided exact binomial test, reported as computed (Bang's question: are guesses right more
often than a guess among equally likely labels?). That chance ignores how often raters choose each label,
so a favourite label looks like recognition: the report's warnings come from the comparison of
``blinding_chance.py`` instead (is the model's label chosen more often for its responses than for the
others'?), pooled and per rater. Answers of one rater are counted as independent, so with few raters the
intervals are too narrow rather than too wide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from wmcdp_desktop.coordinator.report.blinding_chance import COLUMNS, POOLED, recognition, warning_text
from wmcdp_desktop.coordinator.report.blinding_style import style_section
from wmcdp_desktop.coordinator.report.common import Note, Table
from wmcdp_desktop.coordinator.report.dataset import CANNOT_TELL, Dataset
from wmcdp_desktop.core.counts import agree, count

INTRO = (
    "Did raters know which system wrote what? After submitting, raters could answer \"Do you think you know which "
    "system wrote this response?\" with \"I can't tell\" or a label (some labels may be decoys). Bang's blinding "
    "index, adapted to a choice among labels, is 0 when guesses are no better than chance and 1 when every answer "
    "is right (chance: a guess among equally likely labels). The recognition index compares how often raters "
    "named a model for its own responses with how often they named it for the others' (chance: the raters' own "
    "habits, so a favourite label is no finding), for all raters and for each; its warnings are the section's. "
    "Beside them, what the text alone reveals: how well a classifier tells the models apart from the rated "
    "responses (style separability); when it can, the ratings are not called blind. The leak-scan findings the "
    "coordinator accepted are listed too."
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
    if correct + wrong == 0:
        # Every answer "I can't tell": BI is 0 by definition, but 0 of n guesses does not show that nobody
        # would guess; up to the exact upper bound of the share of guesses, all could be right or all wrong.
        most = 1 - 0.025 ** (1 / n)
        return BangIndex(0.0, -w * most, most)
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
    style_tables, style_notes = style_section(ds)
    if style_tables or check is not None or (study is not None and study.accepted_findings):
        # a study folder without responses/ (nothing measured) adds no section of its own
        result.tables.extend(style_tables)
        result.notes.extend(style_notes)
    if check is None:
        if answered:
            result.notes.append(Note("blinding", f"{count(answered, 'rating')} {agree(answered, 'answers', 'answer')} a blinding check, but study.json has "
                                                 "none (blinding_check): the answers cannot be scored."))
        return result
    stands_for = {label.label: label.model_source for label in check.labels}
    n_labels = len(stands_for)
    models = [ds.model_ids[m] if m >= 0 else None for m in ds.model.tolist()]
    raters = [ds.rater_ids[r] for r in ds.rater.tolist()]
    counts, unknown = count_guesses(models, ds.blinding_guess, stands_for)
    recognised = recognition(models, ds.blinding_guess, raters, stands_for)
    pooled = {r.model: r for r in recognised if r.scope == POOLED}
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
        "right, negative = guesses wrong more often than chance; 95% Wald interval (p_value and bang_bi take "
        "chance as a guess among equally likely labels, as Bang's index does). recognised_above_chance: the "
        "pooled recognition test (blinding_recognition) warns for the model.")
    guesses = Table(
        "blinding_guesses", "Answers per model and label", ["model", "label", "stands_for", "answers"],
        description="What raters answered for each model's responses (decoys stand for no model).")
    for model in sorted(counts, key=str):
        c = counts[model]
        k = sum(1 for m in stands_for.values() if m == model)
        chance = k / n_labels
        bi = bang_index(c.correct, c.wrong, c.cannot_tell, chance)
        p, lo, hi = _binomial(c.correct, c.correct + c.wrong, chance)
        flagged = model in pooled and pooled[model].flagged
        share = c.correct / (c.correct + c.wrong) if c.correct + c.wrong else None
        index.rows.append([
            model, c.answers, c.cannot_tell, c.correct, c.wrong, k, chance, share, lo, hi, p,
            bi.value if bi else None, bi.ci_low if bi else None, bi.ci_high if bi else None, flagged,
        ])
        if k == 0:
            result.notes.append(Note("blinding", f"No label stands for {model}: whether raters recognise it cannot "
                                                 "be measured."))
        for label, answers in sorted(c.by_label.items()):
            guesses.rows.append([model, label, stands_for.get(label) or ("decoy" if label in stands_for else ""),
                                 answers])
    table = Table(
        "blinding_recognition", "Recognition per model: named for its responses vs. for the others' (all raters, "
        "then each rater)", COLUMNS, [r.row() for r in recognised],
        description="scope: all raters, or one rater's own answers. named_for_model: answers to the model's "
        "responses that name it (a label standing for it) of answers_for_model (\"I can't tell\" included); "
        "named_for_other: the same for compared_with's responses, the other model it is least told from. "
        "recognition = share_named_for_model - share_named_for_other: 0 when the label is chosen whatever "
        "wrote the response (a favourite label gives 0), 1 when it is chosen for all of the model's responses "
        "and none of the other's; Newcombe's 95% interval. p_value: one-sided Fisher exact test against "
        "compared_with (the largest of the tests against each other model); p_holm: Holm-adjusted over every "
        "row. "
        "no_information: every answer in the scope was \"I can't tell\". recognised: p_holm < 0.05.")
    for r in recognised:
        if r.flagged:
            result.notes.append(Note("blinding", warning_text(r)))
    if answered and not any(r.guesses for r in recognised if r.scope == POOLED):
        result.notes.append(Note(
            "blinding", f"No information: every one of the {count(answered, 'answer')} to the blinding question was "
            "\"I can't tell\". That is not evidence that blinding held: raters who cannot name a system may still "
            "tell the models apart (see the style separability of the rated responses), and the intervals say how "
            "little the answers show."))
    result.tables[:0] = [index, guesses, table]
    return result
