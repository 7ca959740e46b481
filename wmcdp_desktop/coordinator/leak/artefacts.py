"""Serving artefacts: what a model's serving stack leaves in a response when it leaks its chat template
(docs/COORDINATORS.md, "The leak scan").

Each chat template is a family's own (Llama's ``<|start_header_id|>assistant<|end_header_id|>`` and
``<|eot_id|>``, ChatML's ``<|im_start|>``/``<|im_end|>`` for Qwen and others, Gemma's ``<start_of_turn>``,
Mistral's and Llama 2's ``[INST]``/``<<SYS>>``, DeepSeek's ``<｜end▁of▁sentence｜>``, OpenAI's harmony
``<|channel|>``/``<|message|>``, reasoning models' ``<think>``), so a token names the model's family as
surely as its name. Found, in every text a bundle carries, in the scan's normal form with the template's
own punctuation kept (fullwidth ``＜｜``, zero-width characters inside and look-alike letters are no
disguise):

- **special tokens**: any ``<|...|>``; ``<s>``/``</s>`` (at the start or end of a text; elsewhere a warning:
  HTML strikes through with ``<s>``), ``<bos>``, ``<eos>``, ``<pad>``, ``<unk>``, ``<start_of_turn>``,
  ``<end_of_turn>``, ``<think>``/``</think>`` and other reasoning tags, ``[INST]``/``[/INST]``,
  ``<<SYS>>``/``<</SYS>>``;
- **instruction headers** at a line start: ``### Instruction:``, ``### Response:``, ``### Human``,
  ``### Assistant``...;
- **tokenizer marks**: SentencePiece's byte tokens (``<0x0A>``) and word marks (``▁the▁patient``), byte-level
  BPE's ``Ġ`` and ``Ċ`` glued to the word before (``TheĠpatient``); two or more marks make a finding;
- **role markers** at a line start (after spaces, ``>``, ``#``, ``*`` or ``-``): ``Human:``, ``Assistant:``,
  ``User:`` and the same roles in other languages (``Usuario:``, ``用户：``, ``ユーザー：``...) are refused; the
  weaker ``AI:``, ``System:``, ``Bot:``, ``Model:`` (``AI: mild`` is aortic insufficiency on an echo
  report) are a warning alone, refused when the same text has another role marker (a transcript).

A role *word* is not a marker: ``the assistant said``, ``human`` mid-sentence and the scenario's own
speaker fields (``"speaker": "assistant"``, where roles are data) have no colon at a line start and are no
finding; a scenario turn or response that holds a serialised transcript is.
"""

from __future__ import annotations

import re

from wmcdp_desktop.coordinator.leak.normalise import HARD, SOFT, normal_form, normal_form_keeping

STRUCTURE: dict[str, str] = {
    "<": "<", ">": ">", "|": "|", "[": "[", "]": "]", "/": "/", "#": "#", ":": ":", "\n": "\n", "\r": "\n",
    "\uff1c": "<", "\uff1e": ">", "\uff5c": "|", "\uff3b": "[", "\uff3d": "]", "\uff0f": "/", "\uff03": "#",
    "\uff1a": ":", "\ufe64": "<", "\ufe65": ">", "\ufe55": ":", "\ufe13": ":", "\u2039": "<", "\u203a": ">",
    "\u3008": "<", "\u3009": ">", "\u27e8": "<", "\u27e9": ">", "\u2223": "|", "\u2502": "|", "\uffe8": "|",
    "\u2236": ":", "\ua789": ":", "\u2044": "/", "\u2215": "/", "\u2028": "\n", "\u2029": "\n", "\x85": "\n",
    "\x0b": "\n", "\x0c": "\n",
}
"""Characters kept as themselves (or as the ASCII character they stand for) in the artefact form: the
punctuation of chat templates, and line breaks."""
_BRACKETS = frozenset(ch for ch, to in STRUCTURE.items() if to in "<[")
_TRIGGERS = _BRACKETS - {"<", "["}
_MARKS = frozenset(ch for ch, to in STRUCTURE.items() if to in ":#" and not ch.isascii())


def artefact_form(text: str, others: set[str], words: set[str]) -> str | None:
    """``text``'s normal form with the structural characters of :data:`STRUCTURE` put back (same length and
    offsets as the normal form); None when the text cannot hold an artefact: no ``<`` or ``[`` (of any
    width), and no role or header word (``words``: the words of its normal form) with a ``:`` or ``#``."""
    brackets = "<" in text or "[" in text or not _TRIGGERS.isdisjoint(others)
    if not brackets and (ROLE_WORDS.isdisjoint(words) or not (":" in text or "#" in text or not
                                                              _MARKS.isdisjoint(others))):
        return None
    return normal_form_keeping(text, others, STRUCTURE)


S = f"[{SOFT}{HARD}]"
"""A separator of the normal form."""


def _words(*words: str) -> str:
    """An alternation of words in normal form, separators inside them optional."""
    forms = {"".join(f"{S}*" if ch in (SOFT, HARD) else re.escape(ch) for ch in normal_form(w)) for w in words}
    return "|".join(sorted(forms, key=lambda w: (-len(w), w)))


STRONG_ROLES = (
    "human", "assistant", "user", "humano", "asistente", "usuario", "utilisateur", "humain", "nutzer", "benutzer",
    "assistent", "mensch", "utente", "assistente", "usuário", "пользователь", "ассистент", "человек", "用户", "用戶",
    "助手", "人类", "人類", "ユーザー", "アシスタント", "人間", "사용자", "어시스턴트", "المستخدم", "مستخدم", "المساعد",
    "مساعد", "משתמש", "עוזר", "ai assistant", "chatgpt", "gpt",
)
WEAK_ROLES = ("ai", "system", "bot", "model", "chatbot", "sistema", "système", "система", "系统", "系統")
TOKEN_WORDS = (
    "bos", "eos", "pad", "unk", "sep", "cls", "mask", "start_of_turn", "end_of_turn", "start_of_image",
    "end_of_image", "think", "thinking", "reasoning", "reflection", "scratchpad", "tool_call", "tool_response",
    "function_call", "im_start", "im_end", "endoftext", "end_of_text", "eot", "eom", "antthinking",
    "end_of_utterance", "function_calls", "function_results", "tool_calls", "tool_result", "tool_results",
    "fake_token_around_image", "image_soft_token", "start_of_image", "eos_token", "bos_token",
)

ROLE_WORDS = frozenset(piece for word in (*STRONG_ROLES, *WEAK_ROLES, "instruction", "response", "input")
                       for piece in normal_form(word).replace(HARD, SOFT).split(SOFT) if piece)
"""Words of role markers and headers in normal form: a text without one has none."""

_LINE = f"(?:^|\n)[{SOFT}{HARD}>#]*"
SPECIAL = re.compile(rf"<{S}*\|[^\n<>|]{{1,64}}\|{S}*>")
"""``<|...|>``, also with spaces inside or markdown's backslashes (``< | im_end | >``, ``<\\|im_end\\|>``)."""
KNOWN_SPECIAL = (
    "im_start", "im_end", "im_sep", "eot_id", "eom_id", "start_header_id", "end_header_id", "begin_of_text",
    "end_of_text", "endoftext", "python_tag", "fim_prefix", "fim_middle", "fim_suffix", "endofprompt",
)
TRUNCATED = re.compile(rf"<{S}*\|{S}*(?:{_words(*KNOWN_SPECIAL)})(?![a-z0-9])")
"""A well-known special token cut short (``<|im_end|`` at the end of a reply)."""
BYTE_TOKEN = re.compile(r"<0x[0-9a-f]{2}>")
"""SentencePiece's byte tokens (``<0x0A>``: Llama's and Mistral's tokenizers)."""
NAMED = re.compile(rf"<{S}*/?{S}*(?:{_words(*TOKEN_WORDS)}){S}*>")
TOOL_USE = re.compile(rf"<{S}*(?:antml{S}*)?(?:invoke|function{S}*calls|function{S}*results){S}+name{S}")
"""A tool call written as XML (``<invoke name="...">``)."""
STRIKE = re.compile(rf"<{S}*/?{S}*s{S}*>")
BRACKET_WORDS = ("inst", "sys", "tool_calls", "available_tools", "tool_results", "system_prompt", "tool_content")
"""Mistral's and Llama 2's bracketed tokens (``[INST]``, ``[TOOL_CALLS]``, ``[AVAILABLE_TOOLS]``...)."""
BRACKETS = re.compile(rf"\[{S}*/?{S}*(?:{_words(*BRACKET_WORDS)}){S}*\]|<<{S}*/?{S}*sys{S}*>>")
HEADER = re.compile(
    rf"{_LINE}#{{2,}}{S}*({_words('instruction', 'response', 'input', 'human', 'assistant', 'system', 'user')})"
    rf"{S}*(?::|(?=\n)|$)")
STRONG = re.compile(rf"{_LINE}({_words(*STRONG_ROLES)}){S}*:")
WEAK = re.compile(rf"{_LINE}({_words(*WEAK_ROLES)}){S}*:")


def display(found: str) -> str:
    """How a finding names an artefact: its normal form with separators written plainly (``<|eot_id|>``,
    ``human``)."""
    return found.strip(f"\n{SOFT}{HARD}").replace(SOFT, "_").replace(HARD, " ")


def find(a: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, what, warning) of every artefact in the artefact form ``a``."""
    out: list[tuple[int, int, str, bool]] = []
    if "<" in a or "[" in a:
        for regex in (SPECIAL, NAMED, BRACKETS, TOOL_USE, TRUNCATED, BYTE_TOKEN):
            out += [(m.start(), m.end(), display(m.group()), False) for m in regex.finditer(a)]
        stripped_start = len(a) - len(a.lstrip(f"\n{SOFT}{HARD}"))
        stripped_end = len(a.rstrip(f"\n{SOFT}{HARD}"))
        for m in STRIKE.finditer(a):
            at_edge = m.start() <= stripped_start or m.end() >= stripped_end
            out.append((m.start(), m.end(), display(m.group()), not at_edge))
    if "#" in a:
        for m in HEADER.finditer(a):
            out.append((m.start(1), m.end(), "### " + display(m.group(1)), False))
    if ":" not in a:
        return out
    roles = [(m.start(1), m.end(), display(m.group(1)) + ":") for m in STRONG.finditer(a)]
    weak = [(m.start(1), m.end(), display(m.group(1)) + ":") for m in WEAK.finditer(a)]
    out += [(start, end, what, False) for start, end, what in roles]
    transcript = len(roles) > 0 or len({what for _, _, what in weak}) > 1
    out += [(start, end, what, not transcript) for start, end, what in weak]
    return out


PIECE_MARKS = re.compile("\u2581(?=[^\\W\\d_])|(?<=[a-z.,])[\u0120\u010a](?=[^\\W_])")
"""Tokenizers' own marks left in a text: SentencePiece's word start ``▁`` before a letter (``▁the▁patient``), and
byte-level BPE's space ``Ġ`` and newline ``Ċ`` glued to the word before (``TheĠpatient``; Maltese writes Ġ and
Ċ at a word's start, not after a small letter)."""
PIECE_TRIGGERS = frozenset("\u2581\u0120\u010a")


def find_piece_marks(text: str, others: set[str]) -> list[tuple[int, int]]:
    """Where tokenizer marks are in the original ``text``: only when there are two or more."""
    if PIECE_TRIGGERS.isdisjoint(others):
        return []
    found = [(m.start(), m.end()) for m in PIECE_MARKS.finditer(text)]
    return found if len(found) >= 2 else []
