"""Names that are ordinary words, in the context that makes them a model's name: a model introducing
itself, and a name followed by a role noun (docs/COORDINATORS.md, "The leak scan").

Many model and assistant names are also ordinary words or first names (Gemma, Kimi, Bard, Pi, Granite,
Vicuna, Alpaca, Zephyr...): alone they are not searched, or only with a version (``Gemma 2``). Two contexts
make them a name all the same:

- **self-introduction**: "I am / I'm / my name is / this is / call me / they call me / I go by" and the same
  in the other languages the scan knows ("soy", "me llamo", "je suis", "je m'appelle", "ich bin", "ich
  heiße", "sono", "sou", "ik ben", "я", "меня зовут", "我是", "我叫", "私は", "저는", "أنا", "אני", "मैं"...)
  followed by a model or assistant name of any kind, and "as <name>, I..." (:data:`NAMES` and every name
  of the built-in list): refused;
- **name and role noun**: one of these names followed by AI, model, assistant, chatbot, LLM, bot or
  language model ("Cohere model", "Bard AI", "Pi assistant", "the Gemma language model"): refused; for
  names that are also technical words (``Pi``, ``Command``, ``Granite``, ``Falcon``, ``Meta``...: the pi
  model of a circuit, a command model, a meta-model) followed by *model* or *bot* alone, a warning.

A name that is also an ordinary word counts only written with a capital (``I'm Granite``, not "this is
granite"); a two-letter one only as written (``Pi``, not ``PI``, the principal investigator). A name
searched only in context followed by a capitalised word is a person's first name and surname ("I'm Gemma
Chan", "I'm Nova Scotian"), and one followed by a possessive is someone else's ("I'm Gemma's mum", "it's
Google's"): no finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from wmcdp_desktop.coordinator.leak.normalise import HARD, SOFT, Normalised
from wmcdp_desktop.coordinator.leak.phrases import compile_phrase

S = f"[{SOFT}{HARD}]"

# name -> (vendor or what it is, also an ordinary/technical word): names searched only in context
NAMES: dict[str, tuple[str, bool]] = {
    "Gemma": ("Google", False), "Bard": ("Google", False), "PaLM": ("Google", False),
    "Kimi": ("Moonshot AI", False), "OLMo": ("Allen Institute for AI", False), "Tulu": ("Allen Institute for AI", False),
    "Granite": ("IBM", True), "Pi": ("Inflection AI", True), "Vicuna": ("LMSYS (a Llama fine-tune)", False),
    "Alpaca": ("Stanford (a Llama fine-tune)", True), "Zephyr": ("Hugging Face (a Mistral fine-tune)", False),
    "Orca": ("Microsoft", True), "Phi": ("Microsoft", True), "Falcon": ("TII", True), "Yi": ("01.AI", False),
    "ERNIE": ("Baidu", False), "GLM": ("Zhipu AI", True), "Jurassic": ("AI21 Labs", True),
    "Cohere": ("Cohere", False), "Command": ("Cohere", True), "Aya": ("Cohere", False),
    "Sonnet": ("Anthropic", True), "Opus": ("Anthropic", True), "Haiku": ("Anthropic", True),
    "Codex": ("OpenAI", True), "Sora": ("OpenAI", False), "Bing": ("Microsoft", False),
    "Sydney": ("Microsoft (Bing Chat's code name)", False), "Cortana": ("Microsoft", False),
    "Dolly": ("Databricks", True), "Koala": ("Berkeley (a Llama fine-tune)", True),
    "StarCoder": ("BigCode", False), "WizardLM": ("Microsoft (a Llama fine-tune)", False),
    "Hermes": ("Nous Research", True), "OpenHermes": ("Nous Research", False), "Solar": ("Upstage", True),
    "Jais": ("G42", False), "Nova": ("Amazon", True), "Titan": ("Amazon", True), "Alexa": ("Amazon", False),
    "Siri": ("Apple", False), "Bixby": ("Samsung", False), "Replika": ("Luka", False),
    "Google": ("Google", False), "Meta": ("Meta", True), "Amazon": ("Amazon", True),
    "Perplexity": ("Perplexity", True), "Reka": ("Reka", False), "Inflection": ("Inflection AI", True),
    "Ernie": ("Baidu", False),
    # in other scripts (the table of names in other scripts has no entry for these ordinary words)
    "Джемма": ("Google (Gemma)", False), "Джема": ("Google (Gemma)", False), "Кими": ("Moonshot AI (Kimi)", False),
    "Бард": ("Google (Bard)", True), "젬마": ("Google (Gemma)", False), "키미": ("Moonshot AI (Kimi)", False),
    "ジェマ": ("Google (Gemma)", False), "ジェンマ": ("Google (Gemma)", False),
}
"""Names searched only as a self-introduction or with a role noun, besides every name of the built-in list
(which is also found alone)."""

FRAMES = (
    "i am", "i'm", "my name is", "my name's", "this is", "call me", "i am called", "i'm called", "i go by",
    "it's", "it is", "your assistant", "your ai assistant", "your ai", "your friend", "your helper", "your companion",
    "soy", "me llamo", "mi nombre es", "je suis", "je m'appelle", "mon nom est", "ich bin", "ich heiße",
    "ich heisse", "mein name ist", "eu sou", "sou", "me chamo", "meu nome é", "sono", "mi chiamo",
    "il mio nome è", "ik ben", "mijn naam is", "я", "меня зовут", "моё имя", "мое имя", "저는", "나는",
    "제 이름은", "أنا", "اسمي", "אני", "שמי", "मैं", "मेरा नाम",
)
"""What comes right before a name when a model introduces itself (spaced scripts)."""
UNSPACED_FRAMES = ("我是", "我叫", "我的名字是", "私は", "わたしは", "僕は", "ぼくは", "私の名前は", "わたしの名前は")
"""The same in scripts written without spaces (the name follows directly)."""
AS_FRAMES = ("as", "en tant que", "como", "als", "in quanto")
AS_FOLLOWERS = ("i", "yo", "je", "j", "ich", "eu", "io")
"""``as <name>, I``: the words before and after."""
ROLE_NOUNS = ("ai", "model", "models", "assistant", "chatbot", "llm", "bot", "language model")
WEAK_ROLE_NOUNS = frozenset({"model", "models", "bot"})
NOT_WITH_MODEL = frozenset({"GLM"})
"""Names that *model* after them never makes a finding (a GLM model is a generalised linear model)."""
"""After a name that is also a technical word, these alone make a warning."""
ROLE_BEFORE = ("ai", "model", "assistant", "chatbot", "llm", "bot", "language model", "ai assistant", "ai model",
               "ai chatbot", "virtual assistant")
"""The same before a name (``the model Gemma``, ``assistant Pi``)."""
SIGN_OFFS = frozenset({
    "best", "best wishes", "regards", "kind regards", "warm regards", "best regards", "cheers", "sincerely",
    "yours", "yours truly", "warmly", "take care", "with care", "thanks", "thank you", "-", "--", "—", "–",
    "~", "―",
})
"""What comes right before a name that signs a text off, on its line (``— Kimi``, ``Best wishes, Bard``)."""
ROLE_QUALIFIERS = ("large", "open", "open-source", "open-weight", "language", "chat", "foundation", "ai")


def _alternation(phrases: Iterable[str]) -> str:
    forms = sorted({compile_phrase(p)[0] for p in phrases}, key=lambda f: (-len(f), f))
    return "|".join(forms)


_BEFORE = re.compile(rf"(?<![^\W_])(?:{_alternation(FRAMES)})({S}+)$")
_BEFORE_UNSPACED = re.compile(rf"(?:{_alternation(UNSPACED_FRAMES)}){S}*$")
_BEFORE_AS = re.compile(rf"(?<![^\W_])(?:{_alternation(AS_FRAMES)}){S}+$")
_AFTER_AS = re.compile(rf"{S}+(?:{_alternation(AS_FOLLOWERS)})(?![^\W_])")
_ROLE = re.compile(
    rf"(?:{HARD}s)?(?:{SOFT}+(?:{_alternation(ROLE_QUALIFIERS)})){{0,3}}{SOFT}+({_alternation(ROLE_NOUNS)})(?![^\W_])")
_ROLE_BEFORE = re.compile(rf"(?<![^\W_])(?:{_alternation(ROLE_BEFORE)}){SOFT}+$")
_BREAKS = frozenset(":;.!?()[]/|=\uff1a\uff1b\u3002")
"""Punctuation between a frame and a name that ends the introduction ("it is: Orca")."""
_HERE = re.compile(rf"{SOFT}+here(?![^\W_]){SOFT}*(?:{HARD}|$)")
_POSSESSIVE = re.compile(f"{HARD}s(?![a-z0-9])")
_NEXT_WORD = re.compile(f"{SOFT}+([a-z]+)")
LOOK_BACK = 40
"""Characters before a name in which its frame is looked for."""


@dataclass(frozen=True)
class Name:
    display: str
    about: str
    ordinary: bool
    """Also an ordinary or technical word (needs a capital; *model* alone after it is a warning)."""
    context_only: bool
    """Not found alone (so a role noun after it is a finding of its own)."""


class Introductions:
    """Finds self-introductions and names with a role noun in normal-form texts."""

    def __init__(self, built_in: Iterable[tuple[str, str]]) -> None:
        """``built_in``: (display, vendor) of the names the scan also finds alone."""
        names: dict[str, Name] = {}
        for display, (about, ordinary) in NAMES.items():
            names[display] = Name(display, about, ordinary, True)
        for display, about in built_in:
            names.setdefault(display, Name(display, about, False, False))
        anchors: set[str] = set()
        forms = []
        for name in names.values():
            form, words = compile_phrase(name.display)
            forms.append((form, name))
            anchors |= words
        self.anchors = frozenset(anchors)
        """Words of which a text must hold one (as a word of its normal form) to hold a name."""
        self._forms = [(re.compile(f"(?:{form})$"), name) for form, name in forms]
        self._by_anchor: dict[str, list[tuple[str, Name]]] = {}
        for form, name in forms:
            for word in compile_phrase(name.display)[1]:
                self._by_anchor.setdefault(word, []).append((form, name))
        self._searches: dict[frozenset[str], re.Pattern[str]] = {}
        self._found: dict[str, Name] = {}

    def _search(self, present: frozenset[str]) -> re.Pattern[str]:
        """The regex of the names whose anchors are among ``present`` (made once per set: most texts hold
        one or two such words)."""
        found = self._searches.get(present)
        if found is None:
            forms = sorted({form for word in present for form, _ in self._by_anchor[word]}, key=lambda f: (-len(f), f))
            alternation = "|".join(f"(?:{f})" for f in forms)
            found = re.compile(rf"(?<![a-z0-9])(?:{alternation})(?![a-z0-9])")
            if len(self._searches) < 4096:
                self._searches[present] = found
        return found

    def _name(self, found: str) -> Name:
        known = self._found.get(found)
        if known is not None:
            return known
        for regex, name in self._forms:
            if regex.match(found):
                if len(self._found) < 4096:
                    self._found[found] = name
                return name
        raise LookupError(found)  # pragma: no cover - every match is one of the forms

    def find(self, text: str, s: str, words: set[str]) -> list[tuple[int, int, Name, str, bool]]:
        """(start, end, name, kind, warning) in normal-form offsets; ``words``: the words of ``s``."""
        present = self.anchors & words
        if not s.isascii():
            present |= {a for a in self.anchors if a in s}
        if not present:
            return []
        out: list[tuple[int, int, Name, str, bool]] = []
        norm: Normalised | None = None
        for m in self._search(frozenset(present)).finditer(s):
            start, end = m.span()
            name = self._name(m.group())
            if name.ordinary or len(name.display) <= 2:
                norm = norm or Normalised(text, s)
                if not written_as_name(text[slice(*norm.span(start, end))], name.display):
                    continue
            before = s[max(0, start - LOOK_BACK):start]
            role = _ROLE.match(s, end)
            surname = _NEXT_WORD.match(s, end) if name.context_only and role is None else None
            person = _POSSESSIVE.match(s, end) is not None  # "I'm Gemma's mum", "it's Google's"
            if surname is not None and not person:
                norm = norm or Normalised(text, s)
                at = norm.origin(surname.start(1))
                person = text[at:at + 1].isupper() and surname.group(1) != "i"  # "I'm Gemma Chan"
            frame = _BEFORE.search(before) if not person else None
            if frame is not None:
                norm = norm or Normalised(text, s)
                gap = text[slice(*norm.span(start - len(before) + frame.start(1), start))]
                if not _BREAKS.isdisjoint(gap):
                    frame = None  # "left as it is: Orca calls it" - a label or another sentence
            if not person and (frame is not None or _BEFORE_UNSPACED.search(before)
                    or (_BEFORE_AS.search(before) and _AFTER_AS.match(s, end))
                    or (_HERE.match(s, end) and before.rstrip(SOFT)[-1:] in ("", HARD))):
                out.append((start, end, name, "self-introduction", False))
                continue
            if role is not None and name.context_only:
                weak = name.ordinary and _plain(role.group(1)) in WEAK_ROLE_NOUNS
                if weak and name.display in NOT_WITH_MODEL:
                    continue
                out.append((start, role.end(), name, "name with a role noun", weak))
                continue
            role_before = _ROLE_BEFORE.search(before) if name.context_only else None
            if role_before is not None:
                weak = name.ordinary and _plain(role_before.group()) in WEAK_ROLE_NOUNS
                out.append((start, end, name, "name with a role noun", weak))
                continue
            if name.context_only:
                norm = norm or Normalised(text, s)
                o_start, o_end = norm.span(start, end)
                line = text[:o_start].rsplit("\n", 1)[-1]
                sign_off = line if line.strip() else text[:o_start].rstrip().rsplit("\n", 1)[-1]
                if not text[o_end:].strip(" \t\r\n.!*_~") and sign_off.strip(" \t*_").rstrip(",").strip().lower() in SIGN_OFFS:
                    out.append((start, end, name, "self-introduction", False))  # a sign-off: "— Kimi"
                elif not line.strip(" \t*_>#-") and text[o_end:].lstrip(" \t*_").startswith((":", "\uff1a")):
                    out.append((start, end, name, "speaker label", True))  # "Gemma: Hello" at a line start
        return out


def _plain(found: str) -> str:
    return found.replace(SOFT, "").replace(HARD, "")


def written_as_name(original: str, display: str) -> bool:
    """Whether an ordinary word is written as the name: with a capital; a short one exactly so (``Pi``)."""
    letters = [ch for ch in original if ch.isalpha()]
    if letters and not letters[0].isupper() and not letters[0].islower():
        return True  # a script without capitals
    if not letters or not letters[0].isupper():
        return False
    if len(display) <= 2:
        return all(ch.islower() for ch in letters[1:])
    return True
