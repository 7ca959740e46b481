"""What the leak scan looks for: model ids, their natural spellings, aliases, vendor and product names,
response ids - and how each is matched (docs/COORDINATORS.md, "The leak scan").

Every term is searched in the normal form of :mod:`leak_normalise` (case, width, accents, look-alike
letters, invisible characters, spaces/dots/hyphens between letters and digits all ignored). How a term
must sit in the text is its *mode*:

- ``word``: a whole word: neither the character before nor the one after is a letter or digit
  (``o1`` matches ``o1``, ``O-1`` and ``o1-preview``, not ``co1`` or ``o12``);
- ``family``: starts a word and is not followed by a letter, so a version may follow (``claude`` matches
  ``Claude``, ``Claude's`` and ``Claude3``, not ``Claudette``; ``gpt`` matches ``GPT-4o``), except a plural
  ``s`` (``GPTs``);

A capital inside a word starts a new word (``ClaudeAI``, ``AskClaude``), and one-word names are also
looked for in words put back together (:class:`leak_scan.Matcher`).
- ``versioned``: an ordinary word that names a model only with a version number after it (``phi``
  matches ``Phi-3`` and ``phi 3.5``, not ``phi`` the Greek letter or the phi coefficient).

The built-in list (:data:`BUILT_IN`) names the major vendors and model families. A name that is also an
ordinary word is either ``versioned`` or only listed with its vendor (``Meta AI``, ``Google Bard``,
``Perplexity AI``): docs/COORDINATORS.md lists the words deliberately not searched on their own, and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from wmcdp_desktop.coordinator.leak.normalise import skeleton
from wmcdp_desktop.coordinator.leak.transliterations import native_spellings

Mode = Literal["word", "family", "versioned", "native"]
Kind = Literal[
    "model id", "response id", "alias", "natural spelling", "vendor or product name", "short form or serving name",
    "name in another script", "misspelling", "serving artefact", "self-description", "self-introduction",
    "name with a role noun", "model size or tuning suffix",
]

MODE_RANK: dict[str, int] = {"versioned": 0, "word": 1, "family": 2, "native": 3}
"""More permissive modes rank higher (a term listed twice keeps the more permissive mode)."""
KIND_RANK: dict[str, int] = {
    "model id": 0, "response id": 1, "alias": 2, "natural spelling": 3, "vendor or product name": 4,
    "short form or serving name": 5, "name in another script": 6, "misspelling": 7, "serving artefact": 8,
    "self-description": 9, "self-introduction": 10, "name with a role noun": 11, "model size or tuning suffix": 12,
}
"""A term listed twice is reported as its most specific kind."""

LEAK_CLASS: dict[str, str] = {
    "model id": "name", "response id": "name", "alias": "name", "natural spelling": "name",
    "vendor or product name": "name", "short form or serving name": "short form",
    "name in another script": "transliteration", "misspelling": "misspelling",
    "serving artefact": "serving artefact", "self-description": "self-description",
    "self-introduction": "self-introduction", "name with a role noun": "name and role noun",
    "model size or tuning suffix": "model size",
}
"""The class of leak each kind of term belongs to (``class`` in ``study validate --json``)."""


# vendor -> (name, mode); the names a rater could recognise a model by.
BUILT_IN: dict[str, list[tuple[str, Mode]]] = {
    "OpenAI": [("OpenAI", "family"), ("ChatGPT", "family"), ("GPT", "family"), ("DALL-E", "family")],
    "Anthropic": [("Anthropic", "family"), ("Claude", "family")],
    "Google": [
        ("by Google", "word"), ("Google AI", "word"), ("Google Bard", "word"), ("DeepMind", "family"),
        ("Gemini", "family"), ("PaLM", "versioned"), ("Gemma", "versioned"), ("LaMDA", "family"),
    ],
    "Meta": [
        ("by Meta", "word"), ("Meta AI", "word"), ("Meta Llama", "word"), ("Llama", "family"),
        ("Code Llama", "family"),
    ],
    "Mistral AI": [
        ("Mistral", "family"), ("Mixtral", "family"), ("Codestral", "family"), ("Pixtral", "family"),
        ("Ministral", "family"), ("Magistral", "family"),
    ],
    "Microsoft": [
        ("Microsoft", "family"), ("Copilot", "family"), ("Bing Chat", "word"), ("Phi", "versioned"),
        ("Orca", "versioned"),
    ],
    "xAI": [("xAI", "word"), ("Grok", "family")],
    "DeepSeek": [("DeepSeek", "family")],
    "Alibaba": [("Alibaba", "family"), ("Qwen", "family"), ("QwQ", "family"), ("Tongyi", "family")],
    "Cohere": [
        ("by Cohere", "word"), ("Cohere AI", "word"), ("Cohere Command", "word"), ("Command R", "family"),
        ("Command Light", "word"), ("Command Nightly", "word"),
    ],
    "AI21 Labs": [("AI21", "family"), ("Jamba", "family"), ("Jurassic", "versioned")],
    "01.AI": [("01.AI", "word"), ("Yi", "versioned"), ("Yi Large", "word")],
    "Perplexity": [("Perplexity AI", "word"), ("by Perplexity", "word"), ("pplx", "family")],
    "Amazon": [("by Amazon", "word"), ("Amazon Nova", "word"), ("Amazon Titan", "word")],
    "NVIDIA": [("NVIDIA", "family"), ("Nemotron", "family")],
    "IBM": [("IBM Granite", "word"), ("Granite", "versioned")],
    "TII": [("Falcon", "versioned")],
    "Hugging Face": [("Hugging Face", "word"), ("HuggingChat", "family")],
    "Inflection AI": [("Inflection AI", "word")],
    "Character.AI": [("Character.AI", "word")],
    "Stability AI": [("Stability AI", "word"), ("StableLM", "family")],
    "Reka": [("Reka AI", "word"), ("by Reka", "word"), ("Reka Core", "word"), ("Reka Flash", "word")],
    "Zhipu AI": [("Zhipu", "family"), ("ChatGLM", "family"), ("GLM", "versioned")],
    "Moonshot AI": [("Moonshot AI", "word"), ("Kimi", "versioned")],
    "Baidu": [("Baidu", "family"), ("ERNIE Bot", "word"), ("ERNIE", "versioned")],
    "Tencent": [("Tencent", "family"), ("Hunyuan", "family")],
    "MiniMax": [("MiniMax", "family")],
    "LMSYS": [("Vicuna", "versioned")],
    "Allen Institute for AI": [("AllenAI", "family"), ("OLMo", "versioned")],
    "ByteDance": [("ByteDance", "family"), ("Doubao", "family")],
    "Baichuan": [("Baichuan", "family")],
    "iFlytek": [("iFlytek", "family"), ("SparkDesk", "family")],
    "SenseTime": [("SenseTime", "family"), ("SenseNova", "family")],
}

# stands for -> (name, mode): short forms of model names, and the programs and services that serve
# models (a response that names its serving stack names the model behind it, or narrows it down).
SHORT_FORMS: dict[str, list[tuple[str, Mode]]] = {
    "OpenAI": [("OAI", "word"), ("CGPT", "word"), ("o1 mini", "word"), ("o1 preview", "word"), ("o1 pro", "word"),
               ("o3 mini", "word"), ("o3 pro", "word"), ("o4 mini", "word"), ("o1 model", "word"),
               ("o3 model", "word"), ("o4 model", "word")],
    "Ollama (serves Llama and other open models)": [("Ollama", "family")],
    "vLLM (serves open models)": [("vLLM", "family")],
    "LM Studio (serves open models)": [("LM Studio", "word"), ("LMStudio", "family")],
    "llama.cpp and its tools (serve Llama and other open models)": [
        ("llamafile", "family"), ("KoboldCpp", "family"), ("KoboldAI", "family"), ("oobabooga", "family"),
        ("text-generation-webui", "word"), ("GPT4All", "family"), ("LM Deploy", "word"),
        ("LMDeploy", "family"), ("TensorRT-LLM", "word"), ("Text Generation Inference", "word"),
    ],
    "Groq (serves open models)": [("Groq", "family"), ("GroqCloud", "family")],
    "quantised model files (llama.cpp, AutoGPTQ, AutoAWQ, ExLlama: open models)": [
        ("GGUF", "word"), ("GGML", "word"), ("GPTQ", "word"), ("AWQ", "word"), ("EXL2", "word"), ("ExLlama", "family"),
        ("ExLlamaV2", "family"), ("AutoGPTQ", "family"), ("AutoAWQ", "family"),
    ],
    "Amazon (Bedrock serves Claude, Llama, Titan...)": [("Amazon Bedrock", "word"), ("AWS Bedrock", "word")],
    "Google (Vertex AI serves Gemini, Claude...)": [("Vertex AI", "word"), ("Google AI Studio", "word")],
    "Microsoft (Azure serves OpenAI's models)": [("Azure AI", "word")],
    "model hosts": [
        ("Together AI", "word"), ("TogetherAI", "family"), ("OpenRouter", "family"), ("Fireworks AI", "word"),
        ("DeepInfra", "family"), ("Cerebras", "family"), ("SambaNova", "family"),
        ("RunPod", "family"), ("LiteLLM", "family"), ("LangChain", "family"), ("LlamaIndex", "family"),
        ("Chatbot Arena", "word"), ("LMSYS", "family"), ("LM Arena", "word"), ("LMArena", "family"),
        ("Poe.com", "word"),
    ],
}

ORDINARY_AFTER: dict[str, tuple[frozenset[str], str]] = {
    "llama": (frozenset({"se", "me", "te", "le", "lo", "la", "nos", "os", "les", "los", "las", "que", "quien", "cual"}),
              "after this word, the Spanish verb llamar ('se llama Ana') or 'la llama' (the flame)"),
    "magistral": (frozenset({"clase", "clases", "cours", "leccion", "conferencia", "lezione", "aula", "aulas"}),
                  "after this word, 'a lecture' ('clase magistral', 'cours magistral')"),
}
"""Names that are also an ordinary word of another language right after one of these words: there a
warning, not a refusal ("se llama Ana" is Spanish; "Llama 3" and "el modelo Llama" are still refused)."""


@dataclass(frozen=True)
class Term:
    """One thing the scan looks for."""

    skeleton: str
    """The term in normal form without soft separators (what is matched)."""
    display: str
    """How findings name it."""
    kind: Kind
    mode: Mode
    about: str
    """The model id, response id or vendor it identifies."""
    warning: bool = False
    """A warning, not a refusal: reported, and passes (``study validate`` exits 0, the build goes on) - for
    a likely misspelling, or a spelling that is also an ordinary word."""
    stands_for: str = ""
    """For a name in another script, a misspelling or a short form: the name of the built-in list it
    stands for (``Claude``)."""
    note: str = ""
    """What the finding is, in a few words (the script, what the artefact or description is, why it is
    only a warning)."""

    @property
    def leak_class(self) -> str:
        """``name``, ``transliteration``, ``misspelling``, ``short form``, ``serving artefact``,
        ``self-description``, ``self-introduction``, ``name and role noun`` or ``model size``."""
        return LEAK_CLASS[self.kind]

    def describe(self) -> str:
        note = f"; {self.note}" if self.note else ""
        if self.kind == "name in another script":
            return f"{self.display!r} ({self.stands_for} in {self.note}, a name of the built-in list: {self.about})"
        if self.kind == "misspelling":
            return (f"{self.display!r} (one letter from {self.stands_for!r}, a name of the built-in list: "
                    f"{self.about}; a possible misspelling{note})")
        if self.kind == "short form or serving name":
            what = f"{self.stands_for}, " if self.stands_for else ""
            return f"{self.display!r} (a short form or serving name of the built-in list: {what}{self.about}{note})"
        if self.kind == "self-introduction":
            return f"{self.display!r} (a model introducing itself by a name: {self.about}{note})"
        if self.kind == "name with a role noun":
            return f"{self.display!r} (a model's name with a role noun: {self.about}{note})"
        if self.kind == "model size or tuning suffix":
            return f"{self.display!r} ({self.about}: the shape of an open model's name{note})"
        if self.kind in ("serving artefact", "self-description"):
            return f"{self.display!r} (a {self.kind}: {self.about}{note})"
        if self.kind == "model id":
            return f"model id {self.display!r}"
        if self.kind == "response id":
            return f"response id {self.display!r}"
        if self.kind == "vendor or product name":
            return f"{self.display!r} (a {self.kind} of the built-in list: {self.about}{note})"
        return f"{self.display!r} ({'an' if self.kind == 'alias' else 'a'} {self.kind} of model {self.about})"


# ----------------------------------------------------------------------------- natural spellings

VENDOR_PREFIXES = frozenset({
    "anthropic", "meta", "mistral", "cohere", "ai21", "amazon", "openai", "google", "deepseek", "qwen", "us",
    "eu", "apac", "global", "models", "microsoft", "nvidia", "xai",
})
"""``vendor.`` prefixes of cloud model ids (``anthropic.claude-3-...``, ``us.meta.llama3-...``)."""
QUALIFIERS = frozenset({
    "latest", "preview", "exp", "experimental", "beta", "alpha", "instruct", "chat", "it", "hf", "base",
    "online", "fp8", "fp16", "bf16", "int4", "int8", "awq", "gptq", "gguf", "hd",
})
"""Trailing words of a model id that are not part of how people name the model."""
TIERS = frozenset({
    "mini", "nano", "pro", "flash", "ultra", "large", "medium", "small", "tiny", "lite", "plus", "max",
    "turbo", "sonnet", "opus", "haiku", "vision", "omni", "light", "air",
})
"""Tier words: dropped last, for the shortest natural spelling (``Claude 3.5``, ``Gemini 1.5``)."""
PRODUCT_TIERS = frozenset({"sonnet", "opus", "haiku"})
"""Tier words people name a model by with its version alone (``Sonnet 3.5``, ``3.5 Sonnet``, ``Opus 4``);
not searched on their own (poems)."""
_DATE8 = re.compile(r"20[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])")
_MMDD_OR_YYMM = re.compile(r"(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])|2[3-9](0[1-9]|1[0-2])")
_VERSION_TAG = re.compile(r"v[0-9]+(\.[0-9]+)*|0[0-9]{2}")
_SIZE = re.compile(r"[0-9]+(\.[0-9]+)?[bmk]|[0-9]+x[0-9]+(\.[0-9]+)?b|a[0-9]+(\.[0-9]+)?b|e[0-9]+b")


def _strip_dates_and_tags(tokens: list[str]) -> list[str]:
    tokens = list(tokens)
    while len(tokens) > 1:
        last = tokens[-1].lower()
        if (len(tokens) > 3 and re.fullmatch("20[0-9]{2}", tokens[-3]) and re.fullmatch("[0-9]{2}", tokens[-2])
                and re.fullmatch("[0-9]{2}", last)):
            del tokens[-3:]
        elif (_DATE8.fullmatch(last) or (len(tokens) > 2 and _MMDD_OR_YYMM.fullmatch(last))
              or _VERSION_TAG.fullmatch(last) or last in QUALIFIERS):
            tokens.pop()
        else:
            break
    return tokens


def natural_spellings(model_id: str) -> list[str]:
    """How people write ``model_id`` besides the id itself: without its provider path or cloud prefix,
    without dates, version tags and qualifiers, without size and tier (``meta-llama/Llama-3.1-70B-Instruct``
    -> ``Llama-3.1-70B-Instruct``, ``Llama-3.1-70B``, ``Llama-3.1``); a product tier with the version alone
    (``claude-3-5-sonnet`` -> ``sonnet-3-5``, ``3-5-sonnet``). Single words without a digit are left out (a
    family name is searched only when it is in the built-in list or an alias)."""
    found: list[str] = []

    def add(tokens: list[str]) -> None:
        text = "-".join(tokens)
        if len(skeleton(text)) >= 2 and (len(tokens) > 1 or re.search("[0-9]", text)) and text not in found:
            found.append(text)

    name = model_id.strip().rsplit("/", 1)[-1]
    parts = name.split(".")
    while len(parts) > 1 and parts[0].lower() in VENDOR_PREFIXES:
        parts = parts[1:]
    name = ".".join(parts)
    add([name])
    for cut in ("@", ":"):
        if cut in name:
            name = name.split(cut, 1)[0]
            add([name])
    tokens = [t for t in re.split(r"[-_\s]+", name) if t]
    if not tokens:
        return [s for s in found if skeleton(s) != skeleton(model_id)]
    tokens = _strip_dates_and_tags(tokens)
    add(tokens)
    versions = [t for t in tokens if t.isdigit()]
    for tier in (t for t in tokens if t.lower() in PRODUCT_TIERS):
        if versions:  # claude-3-5-sonnet is also "Sonnet 3.5" and "3.5 Sonnet"
            add([tier, *versions])
            add([*versions, tier])
    while len(tokens) > 1 and (_SIZE.fullmatch(tokens[-1].lower()) or tokens[-1].lower() in TIERS):
        tokens = _strip_dates_and_tags(tokens[:-1])
        add(tokens)
    return [s for s in found if skeleton(s) != skeleton(model_id)]


def built_in_terms() -> list[Term]:
    """Every name of :data:`BUILT_IN` and :data:`SHORT_FORMS` as a term, and every name of the built-in
    list in other scripts (:mod:`transliterations`)."""
    terms = [
        Term(skeleton(name), name, "vendor or product name", mode, vendor)
        for vendor, names in BUILT_IN.items()
        for name, mode in names
    ]
    terms += [
        Term(skeleton(name), name, "short form or serving name", mode, about)
        for about, names in SHORT_FORMS.items()
        for name, mode in names
    ]
    for spelling in native_spellings():
        for key in spelling.skeletons:
            terms.append(Term(key, spelling.spelling, "name in another script", "native", spelling.vendor,
                              warning=spelling.ordinary is not None, stands_for=spelling.stands_for,
                              note=spelling.script + (f"; also {spelling.ordinary}: a warning"
                                                      if spelling.ordinary else "")))
    return terms


def searchable(identifier: str) -> bool:
    """Whether an id can be told apart from ordinary text: at least two characters, one of them a letter.

    A number (``42``) or one letter (``A``) would match every number or every article in the texts; such
    ids carry no model name, so they are not searched (``study validate`` says so).
    """
    norm = skeleton(identifier)
    return len(norm.replace(" ", "")) >= 2 and bool(re.search(r"[^\W\d_]", norm))


def merge(terms: list[Term]) -> dict[str, Term]:
    """One term per skeleton: its most specific kind, its most permissive mode; a warning only when every
    listing of it is one."""
    out: dict[str, Term] = {}
    for term in terms:
        if not term.skeleton:
            continue
        old = out.get(term.skeleton)
        if old is None:
            out[term.skeleton] = term
            continue
        best = old if KIND_RANK[old.kind] <= KIND_RANK[term.kind] else term
        mode = old.mode if MODE_RANK[old.mode] >= MODE_RANK[term.mode] else term.mode
        # a spelling listed as a refusal and as a warning is a refusal
        out[term.skeleton] = replace(best, mode=mode, warning=old.warning and term.warning)
    return out
