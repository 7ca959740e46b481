"""The leak classes found by rules rather than by a list of names: misspellings (:mod:`misspellings`),
serving artefacts (:mod:`artefacts`), self-descriptions (:mod:`self_descriptions`), ``4o`` and emoji
(:mod:`short_forms`). :class:`Rules` runs them all on one text for the :class:`scan.Matcher`, and makes
the :class:`terms.Term` each finding names."""

from __future__ import annotations

import re

from wmcdp_desktop.coordinator.leak import artefacts, model_sizes, self_descriptions, short_forms
from wmcdp_desktop.coordinator.leak.introductions import NAMES, Introductions, written_as_name
from wmcdp_desktop.coordinator.leak.misspellings import Misspellings, eligible
from wmcdp_desktop.coordinator.leak.normalise import SOFT, Normalised, skeleton
from wmcdp_desktop.coordinator.leak.terms import Term

_RUN = re.compile("[a-z]+")
_WORD = re.compile(r"[^\W_]+")
Raw = tuple[int, int, Term]
"""Where a term was found (offsets of the normal form, or of the original text) and the term."""

ARTEFACT_ABOUT = "a chat-template token or transcript marker that a model's serving stack leaves in its output"


class Rules:
    """The rule-found classes for one set of terms (misspellings are of the built-in names among them)."""

    def __init__(self, terms: dict[str, Term]) -> None:
        names = [(key, t.display) for key, t in terms.items()
                 if t.kind in ("vendor or product name", "short form or serving name") and eligible(key, t.display, t.mode)]
        self._names = {key: terms[key] for key, _ in names}
        self.misspellings = Misspellings(names, set(terms))
        self._patterns = self_descriptions.compiled()
        self._by_word: dict[str, list[int]] = {}
        """anchor word -> the spaced patterns it anchors"""
        self._unspaced: list[tuple[int, frozenset[str]]] = []
        """the patterns of scripts without spaces, and their anchors (substrings)"""
        for i, (_what, _reveals, _warning, unspaced, _regex, anchors) in enumerate(self._patterns):
            if unspaced:
                self._unspaced.append((i, anchors))
            else:
                for word in anchors:
                    self._by_word.setdefault(word, []).append(i)
        self._terms: dict[tuple[str, str, bool, str, str, str], Term] = {}
        built_in = [(t.display, t.about) for t in terms.values()
                    if t.kind == "vendor or product name" and not t.display.lower().startswith("by ")]
        self.introductions = Introductions(built_in)
        self._model_names = frozenset(
            key for key in (*(skeleton(n) for n, (_, ordinary) in NAMES.items() if not ordinary),
                            *(skeleton(d) for d, _ in built_in))
            if key.isascii() and key.isalnum())
        """Names after which a parameter count is refused even after a space (``Zephyr 7B``)."""
        self._ordinary_names = frozenset(skeleton(n) for n, (_, ordinary) in NAMES.items() if ordinary
                                         and skeleton(n).isascii() and skeleton(n).isalnum())
        """The same that are also ordinary words: there only written with a capital (``Alpaca 7B``)."""

    def _term(self, kind: str, display: str, about: str, warning: bool, stands_for: str = "", note: str = "") -> Term:
        cached = (kind, display, warning, about, stands_for, note)
        made = self._terms.get(cached)
        if made is None:
            key = skeleton(display) or display
            made = self._terms[cached] = Term(key, display, kind, "word", about, warning=warning,  # type: ignore[arg-type]
                                                       stands_for=stands_for, note=note)
        return made

    def in_normal_form(self, text: str, s: str, others: set[str]) -> list[Raw]:
        """Findings in the normal form ``s`` of ``text`` (and in its artefact form, when it may hold an
        artefact), normal-form offsets."""
        out: list[Raw] = []
        runs = set(_RUN.findall(s))
        plain = s.isascii()  # most texts: curly quotes and dashes are separators in the normal form
        words = runs if plain else set(_WORD.findall(s))
        for start, end, word, name in self.misspellings.find(s, runs):
            of = self._names[name]
            out.append((start, end, self._term("misspelling", word, of.about, True, of.display)))
        for start, end in short_forms.find_four_o(s):
            out.append((start, end, self._term("short form or serving name", "4o", "OpenAI", False, "GPT-4o")))
        active = {i for word in self._by_word.keys() & words for i in self._by_word[word]}
        if not plain:
            active |= {i for i, anchors in self._unspaced if any(a in s for a in anchors)}
        for i in sorted(active):
            what, reveals, warning, _unspaced, regex, _anchors = self._patterns[i]
            for m in regex.finditer(s):
                note = "the model describing itself" if warning else ""
                out.append((m.start(), m.end(), self._term("self-description", what, reveals, warning, note=note)))
        for start, end, named, kind, warning in self.introductions.find(text, s, words):
            note = "also ordinary words: a warning" if warning else ""
            if kind == "speaker label":
                kind, note = "self-introduction", "a name with a colon at a line start (a speaker label): a warning"
            out.append((start, end, self._term(kind, named.display, named.about, warning, named.display, note)))
        sized = model_sizes.size_form(text, s, others)
        if sized is not None:
            for start, end, what, warning, capital in model_sizes.find(sized, self._model_names, self._ordinary_names):
                if capital and not written_as_name(text[slice(*Normalised(text, s).span(start, end))], "name"):
                    continue
                note = "or a number after an ordinary word: a warning" if warning else ""
                out.append((start, end, self._term("model size or tuning suffix", sized[start:end].replace(SOFT, " "),
                                                   what, warning, note=note)))
        form = artefacts.artefact_form(text, others, words)
        if form is not None:
            for start, end, what, warning in artefacts.find(form):
                note = "also ordinary markup or text: a warning" if warning else ""
                out.append((start, end, self._term("serving artefact", what, ARTEFACT_ABOUT, warning, note=note)))
        return out

    def in_original(self, text: str, others: set[str]) -> list[Raw]:
        """Findings that only the original text shows (emoji), original offsets."""
        out: list[Raw] = []
        for start, end in artefacts.find_piece_marks(text, others):
            out.append((start, end, self._term("serving artefact", "tokenizer mark " + text[start:end], ARTEFACT_ABOUT,
                                               False)))
        for start, end, emoji in short_forms.find_emoji(text, others):
            name, why, warning = short_forms.EMOJI[emoji]
            out.append((start, end, self._term("short form or serving name", emoji, why, warning, name)))
        return out
