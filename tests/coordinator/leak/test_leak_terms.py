"""What the leak scan looks for and how each term must sit in the text (word, family, versioned)."""

from __future__ import annotations

import pytest

from wmcdp_desktop.coordinator.leak.normalise import skeleton
from wmcdp_desktop.coordinator.leak.scan import Matcher, visible
from wmcdp_desktop.coordinator.leak.terms import (
    BUILT_IN,
    Term,
    built_in_terms,
    natural_spellings,
    searchable,
)

MODEL_IDS = ["gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022", "meta-llama/Llama-3.1-70B-Instruct", "o1"]


def matcher(*extra: Term) -> Matcher:
    terms = built_in_terms() + list(extra)
    for model in MODEL_IDS:
        terms.append(Term(skeleton(model), model, "model id", "word", model))
        terms += [Term(skeleton(s), s, "natural spelling", "word", model) for s in natural_spellings(model)]
    return Matcher(terms)


def found(text: str, m: Matcher | None = None) -> list[tuple[str, str]]:
    return [(x.term.display, text[x.start:x.end]) for x in (m or matcher()).find(text)]


@pytest.mark.parametrize(
    ("model", "spellings"),
    [
        ("claude-3-5-sonnet-20241022", ["claude-3-5-sonnet", "sonnet-3-5", "3-5-sonnet", "claude-3-5"]),
        ("claude-sonnet-4-20250514", ["claude-sonnet-4", "sonnet-4", "4-sonnet"]),
        ("claude-opus-4-1-20250805", ["claude-opus-4-1", "opus-4-1", "4-1-opus"]),
        ("gpt-4o-2024-08-06", ["gpt-4o"]),
        ("meta-llama/Llama-3.1-70B-Instruct", ["Llama-3.1-70B-Instruct", "Llama-3.1-70B", "Llama-3.1"]),
        ("o1-2024-12-17", ["o1"]),
        ("gpt-4-0613", ["gpt-4"]),
        ("gemini-1.5-pro-002", ["gemini-1.5-pro", "gemini-1.5"]),
        ("mistral-large-2407", ["mistral-large"]),
        ("claude-3-5-sonnet@20240620", ["claude-3-5-sonnet", "sonnet-3-5", "3-5-sonnet", "claude-3-5"]),
        ("anthropic.claude-3-haiku-20240307-v1:0",
         ["claude-3-haiku-20240307-v1:0", "claude-3-haiku-20240307-v1", "claude-3-haiku", "haiku-3", "3-haiku",
          "claude-3"]),
        ("Qwen2.5-72B-Instruct", ["Qwen2.5-72B", "Qwen2.5"]),
        ("o1", []),
        ("acme-model", []),
    ],
)
def test_natural_spellings(model: str, spellings: list[str]) -> None:
    assert natural_spellings(model) == spellings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As ChatGPT, developed by OpenAI, I", [("ChatGPT", "ChatGPT"), ("OpenAI", "OpenAI")]),
        ("I'm Claude, made by Anthropic.", [("Claude", "Claude"), ("Anthropic", "Anthropic")]),
        ("As a Llama model, I", [("Llama", "Llama")]),
        ("The Open AI answer", [("OpenAI", "Open AI")]),
        ("Llama 3.1 70B Instruct wrote", [("Llama-3.1-70B-Instruct", "Llama 3.1 70B Instruct")]),
        ("see claude-3-5-sonnet", [("claude-3-5-sonnet", "claude-3-5-sonnet")]),
        ("gpt\u200b-4o-2024-08-06", [("gpt-4o-2024-08-06", "gpt\u200b-4o-2024-08-06")]),
        ("claude\u20113\u20115\u2011sonnet\u201120241022", [("claude-3-5-sonnet-20241022", "claude\u20113\u20115\u2011sonnet\u201120241022")]),
        ("compared with o1 and O-1", [("o1", "o1"), ("o1", "O-1")]),
        ("Phi-3 and phi 3.5", [("Phi", "Phi"), ("Phi", "phi")]),
        ("trained by Google", [("by Google", "by Google")]),
        ("Gemma 2 and Yi-34B and PaLM 2", [("Gemma", "Gemma"), ("Yi", "Yi"), ("PaLM", "PaLM")]),
        ("Command R+ and Cohere AI", [("Command R", "Command R"), ("Cohere AI", "Cohere AI")]),
        ("ChatGРТ", [("ChatGPT", "ChatGРТ")]),  # Cyrillic Er and Te
        ("xAI's Grok and Mixtral", [("xAI", "xAI"), ("Grok", "Grok"), ("Mixtral", "Mixtral")]),
        ("DeepSeek, Qwen, Jamba, AI21, 01.AI", [("DeepSeek", "DeepSeek"), ("Qwen", "Qwen"), ("Jamba", "Jamba"),
                                                ("AI21", "AI21"), ("01.AI", "01.AI")]),
        ("Copilot by Microsoft, Perplexity AI", [("Copilot", "Copilot"), ("Microsoft", "Microsoft"),
                                                 ("Perplexity AI", "Perplexity AI")]),
        ("Llama3 and Claude's", [("Llama", "Llama"), ("Claude", "Claude")]),
    ],
)
def test_leaks_are_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the phi coefficient was 0.4",  # Phi only with a version
        "a meta-analysis of CBT trials",  # Meta only as Meta AI / Meta Llama / by Meta
        "Sometimes we google things together",  # the verb
        "a philanthropic foundation",  # Anthropic inside a word
        "Claudette and Claudia",  # names that start like Claude
        "a graphic novel",
        "the command is clear; a bard sang",
        "her perplexity grew",
        "O2 saturation, co1, o12, to 1",
        "Yield, yiddish, gemmae",
        "the story does not cohere",
        "a falcon and an orca at the zoo",
        "Amazon delivered the book",
    ],
)
def test_ordinary_words_are_not_leaks(text: str) -> None:
    assert found(text) == []


def test_the_built_in_list_covers_the_major_vendors() -> None:
    names = {skeleton(name) for names in BUILT_IN.values() for name, _ in names}
    for name in ["OpenAI", "ChatGPT", "GPT", "Anthropic", "Claude", "Gemini", "Google Bard", "PaLM", "Gemma",
                 "Meta AI", "Llama", "Mistral", "Mixtral", "Microsoft", "Copilot", "Phi", "xAI", "Grok",
                 "DeepSeek", "Alibaba", "Qwen", "Cohere AI", "Command R", "AI21", "Jamba", "01.AI", "Yi",
                 "Perplexity AI"]:
        assert skeleton(name) in names, name


def test_longest_match_wins_and_inner_matches_are_not_repeated() -> None:
    assert found("claude-3-5-sonnet-20241022") == [("claude-3-5-sonnet-20241022", "claude-3-5-sonnet-20241022")]
    rid = Term(skeleton("resp-gpt-4o-007"), "resp-gpt-4o-007", "response id", "word", "resp-gpt-4o-007")
    assert found("see RESP-GPT-4O-007.", matcher(rid)) == [("resp-gpt-4o-007", "RESP-GPT-4O-007")]


def test_ids_are_searchable_only_with_a_letter_and_two_characters() -> None:
    assert searchable("o1") and searchable("r-1") and searchable("abc")
    assert not searchable("42") and not searchable("A") and not searchable("2024-01")


def test_generated_hex_ids_do_not_match_short_ids() -> None:
    short = Term(skeleton("a1"), "a1", "response id", "word", "a1")
    assert found('"task_id": "t-3fa1c9", "candidate_response_id": "cr-9a1e"', Matcher([short])) == []
    assert found("see a1 here", Matcher([short])) == [("a1", "a1")]


def test_visible_shows_hidden_characters() -> None:
    assert visible("a\u200bb\nc\td\u202e") == "a<U+200B>b\\nc\\td<U+202E>"
    assert visible("\x1b[31mred") == "<U+001B>[31mred"
