"""Style separability: can the model be told from the response text alone? (``wmcdp study validate``,
``wmcdp bundle build`` and ``wmcdp report``; docs/COORDINATORS.md explains it for coordinators.)

Blinding hides the model's name, not its style. A model that greets every user by a pet name, writes twice
as long or formats everything as markdown is recognised by a rater who has seen a few of its answers,
whatever the leak scan says. This module measures how well the *text a rater sees* tells the models apart:

- **The classifier.** A logistic regression (scikit-learn, ``liblinear``) on TF-IDF of the words and
  symbols of each response (single tokens and pairs; a symbol such as ``#``, ``*`` or an emoji is a token
  of its own) together with the length and formatting measures below, scaled. It is cross-validated with
  ``GroupKFold`` grouped by **item**: every response to an item is in the same fold, so the classifier is
  never tested on an item it was trained on and cannot recognise a model by the prompt. Up to 5 folds
  (fewer when the study has fewer items). The vocabulary, its IDF weights and the scaling of the measures
  are taken from all responses (they use no model label); the regression is fitted per fold.
- **Accuracy against chance.** The best of the three classifiers below (the full one, length alone,
  formatting alone; each cross-validated, so picking the best of three is only slightly optimistic, and the
  threshold's margin covers it): many word features can drown a length difference that the length
  measures alone show plainly. The share of responses whose model it names, against the share
  of the most common model (what always naming that model gives; ``1 / models`` when every model answers
  every item). The 95% interval is a percentile bootstrap over items (1,000 resamples drawn from the seed):
  responses to one item are not independent, so items are resampled, not responses; it is widened where
  needed to the exact (Clopper-Pearson) interval over the responses, which a bootstrap of a few items
  (two items: two values to resample) would undercut.
- **What carries it.** The same cross-validated classifier on the length measures alone (characters,
  words, lines, paragraphs; log scale) and on the formatting measures alone (markdown headings, bullet and
  numbered lists, bold, tables, code, links, rules, emoji); per model the median length and, per item,
  which model wrote the longest answer; per model how many responses use each kind of formatting; and the
  words, symbols, openings (first two tokens) and closings (last two) that most separate one model from
  the others, with how many responses of each model contain them (```Didi``: 243 of 244 responses of
  A, 0 of 244 of B``). A token is listed for a model when its share of that model's responses exceeds its
  share among every other model's by at least :data:`TOKEN_CONTRAST` and at least
  :data:`TOKEN_MIN_RESPONSES` of its responses contain it; at most :data:`TOKENS_PER_MODEL` per model and
  kind.
- **The warning** (:data:`WARN_ABOVE_CHANCE`): when the accuracy is at least 0.10 above chance *and* the
  lower end of its 95% interval is above chance, the models are *separable*: a warning names the evidence
  and the coordinator's choices. It never stops a build. A coordinator who has looked and decided accepts
  it in ``study.json`` (``accepted_style``, with a reason, up to an accuracy).

Everything is deterministic for a seed (the study's): the same texts and seed give the same figures.
scikit-learn, numpy and scipy come with the coordinator's ``analysis`` extra; without them the result says
so plainly (:attr:`StyleResult.not_measured`) and nothing else changes.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from wmcdp_desktop.core.counts import count

WARN_ABOVE_CHANCE = 0.10
"""The accuracy must exceed chance by this much (and the interval's lower end exceed chance) to warn."""
MAX_FOLDS = 5
C_REGULARISATION = 100.0
"""The logistic regression's inverse regularisation strength (scikit-learn's ``C``)."""
BOOTSTRAP = 1000
TOKEN_CONTRAST = 0.25
"""A token is evidence for a model when its share of that model's responses exceeds its share of every
other model's responses by at least this much."""
TOKEN_MIN_RESPONSES = 3
TOKENS_PER_MODEL = 3
INSTALL_HINT = "pip install 'wmcdp-desktop[analysis]'"
TOKEN_PATTERN = r"(?u)\w+|[^\w\s]"
"""A word (letters, digits, underscore) or any one other visible character (``#``, ``*``, ``!``, an emoji)."""
_TOKEN = re.compile(TOKEN_PATTERN)
_PAIR = r"(?:\w+|[^\w\s])(?:\s*(?:\w+|[^\w\s]))?"
_OPENING = re.compile(rf"\s*({_PAIR})")
"""The first two tokens, with what stands between them."""
CLOSING_WINDOW = 400
"""Characters at the end of a response searched for its closing (a word is rarely longer)."""

FORMATTING: dict[str, re.Pattern[str]] = {
    "headings": re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S", re.MULTILINE),
    "bullet lists": re.compile(r"^[ \t]*[-*+•][ \t]+\S", re.MULTILINE),
    "numbered lists": re.compile(r"^[ \t]*\d{1,3}[.)][ \t]+\S", re.MULTILINE),
    "bold": re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__"),
    "tables": re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE),
    "code": re.compile(r"```|`[^`\n]+`"),
    "links": re.compile(r"\[[^\]\n]+\]\([^)\n]+\)"),
    "rules": re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$", re.MULTILINE),
}
"""Markdown, counted per response (how often each appears)."""
LENGTH_MEASURES = ("characters", "words", "lines", "paragraphs")
FORMATTING_MEASURES = (*FORMATTING, "emoji")


_PICTOGRAPHS = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF]")


def emoji_count(text: str) -> int:
    """Pictographic symbols (emoji, dingbats, pictographs) in ``text``; letters and punctuation never count."""
    return sum(1 for m in _PICTOGRAPHS.finditer(text) if unicodedata.category(m.group()) == "So")


def length_measures(text: str) -> list[int]:
    """Characters, words, lines and paragraphs (blocks separated by a blank line) of ``text``."""
    stripped = text.strip()
    return [
        len(text),
        len(text.split()),
        stripped.count("\n") + 1 if stripped else 0,
        len([p for p in re.split(r"\n[ \t]*\n", stripped) if p.strip()]),
    ]


def formatting_measures(text: str) -> list[int]:
    """How often each kind of formatting (:data:`FORMATTING_MEASURES`) appears in ``text``."""
    return [len(p.findall(text)) for p in FORMATTING.values()] + [emoji_count(text)]


@dataclass(frozen=True)
class StyleText:
    """One response as a rater sees it."""

    item: str
    model: str
    text: str


@dataclass(frozen=True)
class TokenEvidence:
    """A word, symbol, opening or closing that points to one model."""

    kind: str
    """``word or symbol``, ``opening`` or ``closing``."""
    token: str
    model: str
    """The model whose responses contain it more often."""
    contain: dict[str, int]
    """Per model, how many of its responses contain it."""
    contrast: float

    def describe(self, totals: dict[str, int]) -> str:
        parts = [f"{self.contain.get(m, 0):,} of {totals[m]:,} responses of {m}" for m in sorted(totals, key=lambda m: (m != self.model, m))]
        return f"{self.kind} `{self.token}`: " + ", ".join(parts)

    def as_obj(self) -> dict[str, Any]:
        return {"kind": self.kind, "token": self.token, "model": self.model, "responses_containing": self.contain,
                "contrast": round(self.contrast, 4)}


@dataclass
class StyleResult:
    """What the text alone tells about the model (module docstring)."""

    responses: int = 0
    items: int = 0
    models: list[str] = field(default_factory=list)
    responses_per_model: dict[str, int] = field(default_factory=dict)
    not_measured: str | None = None
    """Why there is no figure (scikit-learn missing, one model only, too few items), in plain words."""
    folds: int = 0
    seed: int = 0
    classifier: str = ""
    """Which of the three classifiers gives :attr:`accuracy` (the best): words with length and formatting,
    length alone, or formatting alone."""
    accuracy: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    chance: float | None = None
    length_accuracy: float | None = None
    formatting_accuracy: float | None = None
    median_characters: dict[str, float] = field(default_factory=dict)
    longest_in: dict[str, int] = field(default_factory=dict)
    """Per model, in how many items with two or more models its response was the longest."""
    items_compared: int = 0
    formatting: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per kind of formatting, per model: how many responses use it."""
    tokens: list[TokenEvidence] = field(default_factory=list)

    @property
    def separable(self) -> bool:
        """Above the threshold: accuracy >= chance + 0.10 and the interval's lower end above chance."""
        if self.accuracy is None or self.chance is None or self.ci_low is None:
            return False
        return self.accuracy >= self.chance + WARN_ABOVE_CHANCE - 1e-12 and self.ci_low > self.chance

    def summary(self) -> str:
        """One sentence: the accuracy, its interval and chance (or why there is none)."""
        if self.not_measured is not None:
            return f"style separability not measured: {self.not_measured}"
        assert self.accuracy is not None and self.chance is not None
        return (
            f"a classifier ({self.classifier}) predicts the model from the response text alone with accuracy "
            f"{self.accuracy:.3f} "
            f"(95% interval {self.ci_low:.3f} to {self.ci_high:.3f}; chance {self.chance:.3f}; "
            f"{self.folds}-fold cross-validation grouped by item, {self.responses:,} responses to "
            f"{count(self.items, 'item')}, {len(self.models)} models)"
        )

    def evidence(self) -> list[str]:
        """What carries the separation, most telling first: length, formatting, then tokens."""
        if self.accuracy is None:
            return []
        out: list[str] = []
        lengths = ", ".join(f"{m} {self.median_characters[m]:,.0f}" for m in self.models)
        longest = ""
        if self.items_compared:
            longest = "; the longest answer of an item was " + ", ".join(
                f"{m}'s in {self.longest_in.get(m, 0):,}" for m in self.models) + f" of {self.items_compared:,} items"
        out.append(f"length alone predicts the model with accuracy {self.length_accuracy:.3f} (median characters: "
                   f"{lengths}{longest})")
        used = []
        for kind, per_model in self.formatting.items():
            shares = [per_model.get(m, 0) / self.responses_per_model[m] for m in self.models]
            if max(shares) - min(shares) >= TOKEN_CONTRAST:
                used.append(f"{kind} in " + ", ".join(
                    f"{per_model.get(m, 0):,} of {self.responses_per_model[m]:,} of {m}" for m in self.models))
        out.append(f"formatting alone predicts the model with accuracy {self.formatting_accuracy:.3f}"
                   + (f" ({'; '.join(used)})" if used else " (no kind of formatting differs much by model)"))
        out.extend(t.describe(self.responses_per_model) for t in self.tokens)
        return out

    def as_obj(self) -> dict[str, Any]:
        return {
            "measured": self.not_measured is None,
            "not_measured": self.not_measured,
            "responses": self.responses,
            "items": self.items,
            "models": self.models,
            "responses_per_model": self.responses_per_model,
            "folds": self.folds,
            "classifier": self.classifier,
            "seed": self.seed,
            "accuracy": self.accuracy,
            "accuracy_ci_low": self.ci_low,
            "accuracy_ci_high": self.ci_high,
            "chance": self.chance,
            "separable": self.separable,
            "length_accuracy": self.length_accuracy,
            "formatting_accuracy": self.formatting_accuracy,
            "median_characters": self.median_characters,
            "longest_in": self.longest_in,
            "items_compared": self.items_compared,
            "formatting": self.formatting,
            "tokens": [t.as_obj() for t in self.tokens],
            "evidence": self.evidence(),
        }


def _prepare(texts: Sequence[StyleText], seed: int) -> StyleResult:
    """Counts, lengths, formatting and the reason (if any) there can be no classifier."""
    result = StyleResult(seed=seed)
    result.responses = len(texts)
    result.models = sorted({t.model for t in texts})
    for t in texts:
        result.responses_per_model[t.model] = result.responses_per_model.get(t.model, 0) + 1
    items = sorted({t.item for t in texts})
    result.items = len(items)
    if len(result.models) < 2:
        result.not_measured = "the responses raters see come from fewer than two models"
    elif len(items) < 2:
        result.not_measured = "the responses raters see answer fewer than two items"
    return result


def _describe(result: StyleResult, texts: Sequence[StyleText], lengths: list[list[int]],
              formats: list[list[int]]) -> None:
    models = result.models
    by_model: dict[str, list[int]] = {m: [] for m in models}
    for t, measures in zip(texts, lengths, strict=True):
        by_model[t.model].append(measures[0])
    result.median_characters = {m: float(median(v)) for m, v in by_model.items()}
    per_item: dict[str, dict[str, int]] = {}
    for t, measures in zip(texts, lengths, strict=True):
        chars = per_item.setdefault(t.item, {})
        chars[t.model] = max(chars.get(t.model, 0), measures[0])
    for chars in per_item.values():
        if len(chars) < 2:
            continue
        top = max(chars.values())
        winners = [m for m, c in chars.items() if c == top]
        if len(winners) == 1:
            result.longest_in[winners[0]] = result.longest_in.get(winners[0], 0) + 1
        result.items_compared += 1
    for k, kind in enumerate(FORMATTING_MEASURES):
        per_model: dict[str, int] = {m: 0 for m in models}
        for t, measures in zip(texts, formats, strict=True):
            if measures[k]:
                per_model[t.model] += 1
        result.formatting[kind] = per_model


def _tokens(texts: Sequence[StyleText], models: list[str], totals: dict[str, int],
            words: dict[str, dict[str, int]]) -> list[TokenEvidence]:
    """The words and symbols (``words``: per token, per model, how many responses contain it), openings and
    closings that most separate each model (module docstring)."""
    kinds: dict[str, dict[str, dict[str, int]]] = {"word or symbol": words, "opening": {}, "closing": {}}
    for t in texts:
        opening = _OPENING.match(t.text)
        tail = t.text[-CLOSING_WINDOW:]
        last = list(_TOKEN.finditer(tail))[-2:]
        seen = {"opening": opening.group(1) if opening else None,
                "closing": tail[last[0].start():last[-1].end()] if last else None}
        for kind, found in seen.items():
            if found is not None:
                row = kinds[kind].setdefault(found, {})
                row[t.model] = row.get(t.model, 0) + 1
    out: list[TokenEvidence] = []
    for kind, table in kinds.items():
        for model in models:
            scored: list[tuple[float, str, dict[str, int]]] = []
            for token, row in table.items():
                mine = row.get(model, 0)
                if mine < TOKEN_MIN_RESPONSES:
                    continue
                share = mine / totals[model]
                other = max(row.get(m, 0) / totals[m] for m in models if m != model)
                if share - other >= TOKEN_CONTRAST:
                    scored.append((share - other, token, row))
            scored.sort(key=lambda s: (-s[0], s[1]))
            out.extend(TokenEvidence(kind, token, model, {m: row.get(m, 0) for m in models}, contrast)
                       for contrast, token, row in scored[:TOKENS_PER_MODEL])
    out.sort(key=lambda e: (-e.contrast, e.kind, e.model, e.token))
    return out


WORDS_AND_ALL = "words, symbols, length and formatting"
LENGTH_ALONE = "length alone"
FORMATTING_ALONE = "formatting alone"
STEPS = 5
"""What ``progress`` counts: features, token evidence, then the three cross-validated classifiers and the interval."""


def measure_style(texts: Sequence[StyleText], seed: int,
                  progress: Callable[[int, int], None] | None = None) -> StyleResult:
    """How well the model can be told from ``texts`` (module docstring). Never raises for want of a library
    or of data: :attr:`StyleResult.not_measured` then says why. ``progress(done, total)`` hears each step."""

    def step(done: int) -> None:
        if progress is not None:
            progress(done, STEPS)

    result = _prepare(texts, seed)
    if result.not_measured is not None:
        return result
    try:
        import numpy as np
        from scipy.sparse import csr_matrix, hstack
        from scipy.stats import binomtest
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GroupKFold, cross_val_predict
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.preprocessing import StandardScaler
    except ImportError as exc:
        result.not_measured = (f"scikit-learn is not installed ({exc.name or 'a library'} is missing); it comes "
                               f"with the coordinator's analysis extra: {INSTALL_HINT}")
        return result

    lengths = [length_measures(t.text) for t in texts]
    formats = [formatting_measures(t.text) for t in texts]
    _describe(result, texts, lengths, formats)
    step(1)
    # Features from all responses at once: the vocabulary, the IDF weights and the scaling use no model
    # label, so only the regression needs fitting per fold.
    measures = StandardScaler().fit_transform(
        np.log1p(np.asarray([a + b for a, b in zip(lengths, formats, strict=True)], dtype=float)))
    n_length = len(LENGTH_MEASURES)
    labels = np.asarray([result.models.index(t.model) for t in texts])
    vectorizer = TfidfVectorizer(token_pattern=TOKEN_PATTERN, ngram_range=(1, 2), min_df=2, sublinear_tf=True,
                                 lowercase=False)
    try:
        words = vectorizer.fit_transform([t.text for t in texts])
        vocabulary = [str(v) for v in vectorizer.get_feature_names_out()]
    except ValueError:  # no token occurs in two responses: the words say nothing
        words, vocabulary = csr_matrix((len(texts), 0)), []
    # per model, how many of its responses contain each single token (the pairs are the classifier's only)
    single = np.asarray([" " not in v for v in vocabulary], dtype=bool)
    presence = words[:, np.flatnonzero(single)].tocsc()
    presence.data[:] = 1.0
    by_model = np.zeros((len(result.models), len(texts)))
    by_model[labels, np.arange(len(texts))] = 1.0
    containing = np.asarray(by_model @ presence).astype(int)
    names = [v for v, keep in zip(vocabulary, single, strict=True) if keep]
    word_counts = {name: {m: int(containing[k, j]) for k, m in enumerate(result.models) if containing[k, j]}
                   for j, name in enumerate(names)}
    result.tokens = _tokens(texts, result.models, result.responses_per_model, word_counts)
    step(2)
    item_ids = sorted({t.item for t in texts})
    index_of = {item: i for i, item in enumerate(item_ids)}
    groups = np.asarray([index_of[t.item] for t in texts])
    folds = min(MAX_FOLDS, len(item_ids))
    result.folds = folds

    def predict(features: Any, model: Any) -> Any:
        return cross_val_predict(model, features, labels, groups=groups, cv=GroupKFold(n_splits=folds))

    # the words: many sparse features, one-vs-rest liblinear; the few dense measures: lbfgs (liblinear takes
    # thousands of iterations on a few overlapping measures)
    sparse = OneVsRestClassifier(LogisticRegression(solver="liblinear", C=C_REGULARISATION, dual=True,
                                                    random_state=seed))
    dense = LogisticRegression(solver="lbfgs", max_iter=1000)
    try:
        with warnings.catch_warnings():
            # scikit-learn's notes (a regression that did not converge, a fold holding one model only) are not
            # the coordinator's business: the figures say what was found
            warnings.simplefilter("ignore")
            full = predict(hstack([words, csr_matrix(measures)], format="csr"), sparse)
            step(3)
            length = predict(measures[:, :n_length], dense)
            formatting = predict(measures[:, n_length:], dense)
            step(4)
    except ValueError:
        # a fold whose training items hold one model only: a model answers too few items to hold some out
        result.not_measured = (f"a model answers too few items to hold some out: each of the {folds} groups of "
                               "items is predicted from the others, which must hold responses of two models or more")
        return result
    result.length_accuracy = float(np.mean(length == labels))
    result.formatting_accuracy = float(np.mean(formatting == labels))
    # the headline is the best of the three (each cross-validated): many word features can drown a length
    # difference that the length measures alone show plainly
    candidates = [(WORDS_AND_ALL, full == labels), (LENGTH_ALONE, length == labels),
                  (FORMATTING_ALONE, formatting == labels)]
    best = max(range(3), key=lambda k: (float(np.mean(candidates[k][1])), -k))
    result.classifier, correct = candidates[best]
    result.accuracy = float(np.mean(correct))
    result.chance = max(result.responses_per_model.values()) / len(texts)
    # percentile bootstrap over items: resample items, count their responses' hits
    hits = np.bincount(groups, weights=correct.astype(float), minlength=len(item_ids))
    sizes = np.bincount(groups, minlength=len(item_ids)).astype(float)
    draws = np.random.default_rng(seed).integers(0, len(item_ids), size=(BOOTSTRAP, len(item_ids)))
    shares = hits[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    low, high = (float(x) for x in np.quantile(shares, [0.025, 0.975]))
    # a handful of items makes the bootstrap's interval too narrow (two items: two values to resample): the
    # interval is never narrower than the exact (Clopper-Pearson) one over the responses
    exact = binomtest(int(correct.sum()), len(texts)).proportion_ci(confidence_level=0.95, method="exact")
    result.ci_low, result.ci_high = min(low, float(exact.low)), max(high, float(exact.high))
    step(STEPS)
    return result
