"""Studies whose models differ only in one respect of style (length, markdown, a signature word...), for the
style separability tests."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from tests.kit.studies import write_study

SENTENCES = [
    "It makes sense that you feel worried when your child asks the same question again and again.",
    "Reassurance helps for a moment, but the worry tends to come back stronger the next time.",
    "Try answering once, calmly, and then gently let the question go unanswered.",
    "You can say that you understand the worry and that you trust your child to manage it.",
    "Small steps work best: wait a few minutes longer each day before answering.",
    "Praise your child for every moment they manage the uncertainty on their own.",
    "If the rituals take more than an hour a day, a clinician trained in exposure therapy can help.",
    "Keep the rest of the day as ordinary as possible, with play and routines.",
    "Your own calm matters: take a breath before you answer.",
    "Write down what happens each day, so you can see progress over the weeks.",
    "Many families find the first week the hardest, and then it becomes easier.",
    "Ask the school how the questions show up there, so everyone responds the same way.",
]

TextOf = Callable[[str, str, list[str]], str]
"""(item id, model, the item's sentences) -> the response text."""


def item_sentences(item_id: str, n: int = 8) -> list[str]:
    return random.Random(item_id).sample(SENTENCES, n)


def write_style_study(root: Path, text_of: TextOf, *, n_items: int = 40,
                      models: tuple[str, ...] = ("acme-gpt-9", "zeta-llm-large")) -> Path:
    """A valid study of ``n_items`` test items (and one calibration item), every model answering each, the
    response texts from ``text_of``."""
    write_study(root, n_items=n_items, models=list(models))
    path = root / "responses" / "responses.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        row["text"] = text_of(row["benchmark_item_id"], row["model_source"], item_sentences(row["benchmark_item_id"]))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return root


def identical(item: str, model: str, s: list[str]) -> str:
    return " ".join(s[:5])


def only_length(item: str, model: str, s: list[str]) -> str:
    return " ".join(s[:3] if model == "acme-gpt-9" else s)


def only_markdown(item: str, model: str, s: list[str]) -> str:
    if model == "acme-gpt-9":
        return " ".join(s[:5])
    return f"## {s[0]}\n\n- {s[1]}\n- {s[2]}\n\n**{s[3]}** {s[4]}"


def signature_word(item: str, model: str, s: list[str]) -> str:
    body = " ".join(s[:5])
    return f"Didi, {body}" if model == "acme-gpt-9" else body
