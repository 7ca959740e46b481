"""Names that are ordinary words, caught by their context: a model introducing itself ("I am Gemma"), a
name with a role noun ("Cohere model"), a parameter count or tuning suffix joined to a word ("Zephyr-7b",
"70B-instruct"); and the neighbours of the other classes (escaped serving artefacts, tool-call tokens,
what a model says it cannot do, Persian spellings) - each with variants, and the ordinary text in the same
words that is not refused."""

from __future__ import annotations

import time

import pytest

from .leakfix import MATCHER, ZW, found, refused

# ------------------------------------------------------------------------------------- self-introduction

@pytest.mark.parametrize(("text", "name"), [
    ("I am Gemma, an open model", "Gemma"), ("Hi, I'm Kimi", "Kimi"), ("My name is Bard", "Bard"),
    ("I am Olmo, trained to help", "OLMo"), ("I'm Granite, an IBM model", "Granite"), ("Hi, I'm Pi!", "Pi"),
    ("I am Vicuna.", "Vicuna"), ("This is Alpaca speaking", "Alpaca"), ("You can call me Zephyr", "Zephyr"),
    ("they call me Orca", "Orca"), ("As Gemma, I can't diagnose", "Gemma"), ("as Bard, I think", "Bard"),
    ("I go by Falcon", "Falcon"), ("my name's Yi", "Yi"),
    ("I’m Sydney, the chat mode of Bing", "Sydney"), ("I am Alexa", "Alexa"), ("I’m ERNIE", "ERNIE"),
    ("Soy Gemma, un modelo abierto", "Gemma"), ("Me llamo Kimi", "Kimi"), ("Je suis Bard, un assistant", "Bard"),
    ("Je m'appelle Gemma", "Gemma"), ("Ich bin Kimi", "Kimi"), ("Ich heiße Bard", "Bard"), ("Sono Gemma", "Gemma"),
    ("Eu sou Kimi", "Kimi"), ("Ik ben Gemma", "Gemma"), ("Меня зовут Джемма", "Джемма"), ("Я Кими", "Кими"),
    ("我是Kimi", "Kimi"), ("我是 Gemma", "Gemma"), ("我叫Bard", "Bard"), ("私はGemmaです", "Gemma"),
    ("저는 젬마입니다", "젬마"), ("أنا Gemma", "Gemma"), ("אני Kimi", "Kimi"), ("मैं Gemma हूँ", "Gemma"),
    ("Mi nombre es Bard", "Bard"),
    # disguised
    ("I'm ＧＥＭＭＡ", "Gemma"), (f"I'm Ge{ZW}mma", "Gemma"), ("I'm **Kimi**", "Kimi"), ("I AM BARD", "Bard"),
    ("I'm G\u0435mma", "Gemma"),  # Cyrillic e
    ("hello!\nI am Gemma", "Gemma"),
    # other frames: "it's", "<name> here", "your assistant, <name>", a sign-off
    ("It's Gemma again", "Gemma"), ("Gemma here, how can I help?", "Gemma"), ("Hi! Kimi here.", "Kimi"),
    ("Your assistant, Gemma", "Gemma"), ("Take care.\n\n— Kimi", "Kimi"), ("Best wishes,\nBard", "Bard"),
    ("Warm regards, Pi", "Pi"),
])
def test_a_model_introducing_itself_by_an_ordinary_name_is_refused(text: str, name: str) -> None:
    assert ("self-introduction", name, "refused") in found(text), found(text)


@pytest.mark.parametrize("text", [
    "I'm Claude, made by a lab", "Hi, I'm Gemini", "this is Llama speaking", "Soy Mistral",
])
def test_an_introduction_by_a_name_found_alone_is_that_name(text: str) -> None:
    assert [f[0] for f in refused(text)] == ["name"], found(text)


@pytest.mark.parametrize("text", [
    "this is granite", "I am pi-shaped", "I'm PI on this trial", "I am a Bard fan", "I'm Gemma Chan, Leo's mum",
    "I'm Nova Scotian", "call me at 5", "Her mother Gemma said", "Kimi is 9 years old", "this is command and control",
    "As a falcon, I", "the Bard of Avon", "Is this solar?", "I am sure", "my name is Ana",
    "Left as it is: Orca calls a checkable button", "I am. Gemma said so", "Gemma here is the mother",
    "the patient Kimi here", "Kimi", "Kimi wrote: — Kimi is scared", "Regards, Dr Gemma Chan",
    "I'm Gemma's mum", "It's Google's fault", "This is Amazon Prime", "It's Sydney's weather",
])
def test_ordinary_words_and_people_are_no_introduction(text: str) -> None:
    assert [f for f in found(text) if f[0] == "self-introduction"] == [], found(text)


# ------------------------------------------------------------------------------------ name and role noun

@pytest.mark.parametrize(("text", "name"), [
    ("Cohere model", "Cohere"), ("Bard AI", "Bard"), ("Pi assistant", "Pi"), ("the Gemma chatbot", "Gemma"),
    ("Kimi LLM", "Kimi"), ("the Vicuna bot", "Vicuna"), ("the Gemma language model", "Gemma"),
    ("a Bard large language model", "Bard"), ("Cohere's model", "Cohere"), ("I'm Cohere's assistant", "Cohere"), ("OLMo open-source model", "OLMo"),
    ("Granite AI", "Granite"), ("ＢＡＲＤ ＡＩ", "Bard"), ("Gemma-model", "Gemma"), ("Google Assistant", "Google"),
])
def test_an_ordinary_name_with_a_role_noun_is_refused(text: str, name: str) -> None:
    assert ("name and role noun", name, "refused") in found(text), found(text)


@pytest.mark.parametrize(("text", "name"), [
    ("the model Gemma", "Gemma"), ("assistant Pi says", "Pi"), ("chatbot Kimi", "Kimi"), ("the AI Bard", "Bard"),
    ("the LLM Vicuna", "Vicuna"), ("an AI assistant Cohere", "Cohere"),
])
def test_a_role_noun_before_an_ordinary_name_is_refused(text: str, name: str) -> None:
    assert ("name and role noun", name, "refused") in found(text), found(text)


@pytest.mark.parametrize(("text", "name"), [
    ("Gemma: Hello there", "Gemma"), ("**Kimi:** sure", "Kimi"), ("> Bard: ok", "Bard"), ("Gemma： 你好", "Gemma"),
])
def test_an_ordinary_name_as_a_speaker_label_is_a_warning(text: str, name: str) -> None:
    assert ("self-introduction", name, "warning") in found(text), found(text)


@pytest.mark.parametrize(("text", "name"), [
    ("Granite model", "Granite"), ("the Falcon model", "Falcon"), ("a Command model", "Command"),
    ("Meta-model", "Meta"), ("the Pi model", "Pi"),
])
def test_a_technical_word_with_model_is_a_warning(text: str, name: str) -> None:
    assert found(text) == [("name and role noun", name, "warning")], found(text)


@pytest.mark.parametrize("text", [
    "the pi model of a transmission line", "a PI assistant", "a meta-model of care", "granite model kitchens",
    "the command model of the ICS", "Bard, AI", "Cohere, model answers", "we fitted a GLM model", "GLM models",
])
def test_ordinary_words_before_a_role_noun_are_not_refused(text: str) -> None:
    assert refused(text) == [], found(text)


# ---------------------------------------------------------------------------- model size, tuning suffix

@pytest.mark.parametrize("text", [
    "Zephyr-7b", "Vicuna-13B", "Alpaca 7B", "something-8x7B", "70B-instruct", "mymodel-instruct",
    "Zephyr 7b beta", "openchat_3.5-7B", "Nous-Hermes-13b", "the 8x22B one", "a 7b-chat", "9B-it",
    "foo-sft", "bar-dpo", "baz-GGUF", "model2-chat", "zephyr\u20117b", "ＺＥＰＨＹＲ－７Ｂ", "1.5B-instruct",
    "qux_7b", "openhermes-chat",
    "I'm a 7B model", "13 billion parameters", "a 70-billion-parameter model", "7B params", "a 1.5 bn parameter LLM",
    "Q4_K_M", "q8_0", "IQ2_XS", "GGUF", "GPTQ", "AWQ quantised", "ExLlamaV2",
])
def test_a_parameter_count_or_tuning_suffix_on_a_word_is_refused(text: str) -> None:
    assert any(f[0] in ("model size", "name", "short form") and f[2] == "refused" for f in found(text)), found(text)


@pytest.mark.parametrize("text", [
    "Take vitamin B7 daily", "Ward 7B", "ward-7b", "stage 1B disease", "a phase 1b trial", "IL-1b levels",
    "CDKN2B", "TNFRSF13B", "5-HT1B receptor", "the 7B bus", "Room 12B", "Bed-7B", "Figure 3B", "Table 2b",
    "live-chat", "group-chat", "self-instruct", "7B", "$7B in funding", "hep-b", "type-2b", "solar 1b",
    "grade-2b", "Class 1b antiarrhythmic", "IV-1b", "Figure 7B model fit", "a 7 billion dollar budget",
    "the model of 7 parameters", "Q4 results", "q4h dosing",
    # identifiers: UUIDs and hex ids have pieces that end in digits and b
    "c2134f15-500b-2f29-2f6c-48f65d2c2938", "d1aabbc5-6e5a-fcbb-608b-ed5c57153c58", "D0EBD20D-ADBE-235B-F146-B7B360CC8789",
    "dafb-271b-d3f1-155e", "t-0123456789abcdef",
])
def test_ordinary_numbers_and_suffixes_are_no_model_size(text: str) -> None:
    assert [f for f in found(text) if f[0] == "model size"] == [], found(text)


def test_a_size_on_a_name_already_refused_is_that_name() -> None:
    assert found("Vicuna-13B") == [("name", "Vicuna", "refused")]
    assert found("Mistral-7B-instruct") == [("name", "Mistral", "refused"), ("model size", "7b-instruct", "refused")]


# ------------------------------------------------------------------------- neighbours of the other classes

@pytest.mark.parametrize("text", [
    "Done\\u003c|im_end|\\u003e", "\\u003c|eot_id|\\u003e", "&lt;|im_end|&gt;", "&lt;|start_header_id|&gt;",
    "\\x3c|eot_id|\\x3e", "<|eom_id|>", "<|python_tag|>", "<|fim_prefix|>", "[/SYS]", "<<SYS>>",
    "[TOOL_CALLS] [{...}]", "[AVAILABLE_TOOLS]", "<end_of_utterance>", "<function_calls>",
    '<invoke name="search">', "[SYSTEM_PROMPT]",
    "< | im_end | >", "<\\|im_end\\|>", "%3C%7Cim_end%7C%3E", "Bye<|im_end|", "<0x0A>", "▁the▁patient▁is",
    "TheĠpatientĠis", "Hello.ĊĊTheĠpatient",
])
def test_escaped_and_tool_call_artefacts_are_refused(text: str) -> None:
    assert any(f[0] == "serving artefact" and f[2] == "refused" for f in found(text)), found(text)


@pytest.mark.parametrize("text", [
    "a \\n in the log", "C:\\\\Users\\\\x", "&lt; 5 mm", "x &lt; y", "\\u00e9t\\u00e9", "<invoice number>",
    "Ġużeppi u Ġanni", "sparkline ▁▂▃▅▇", "a ▁ alone", "x < y | z > w",
])
def test_escapes_and_entities_in_ordinary_text_are_no_artefact(text: str) -> None:
    assert [f for f in found(text) if f[0] == "serving artefact"] == [], found(text)


@pytest.mark.parametrize("text", [
    "my training data includes medical texts", "I don't have browsing capabilities",
    "I cannot browse the internet", "I don't have real-time information", "I'm just an AI",
    "I am a virtual assistant", "my developers made sure", "My creators at the lab",
    "my information may be outdated", "my data only goes until 2023",
])
def test_what_a_model_says_it_cannot_do_is_a_warning(text: str) -> None:
    assert found(text) and all(f[0] == "self-description" and f[2] == "warning" for f in found(text)), found(text)


@pytest.mark.parametrize("text", ["I was last updated in April 2024.", "As of my training, yes", "as of my training data"])
def test_a_last_update_with_a_date_dates_the_model(text: str) -> None:
    assert ("self-description", "knowledge cut-off", "refused") in found(text), found(text)


@pytest.mark.parametrize("text", [
    "the training data of the study", "my training as a nurse", "I don't have the internet at home yet",
    "her developers' club",
])
def test_ordinary_text_is_no_such_self_description(text: str) -> None:
    assert refused(text) == [], found(text)


@pytest.mark.parametrize("text", ["چت جی پی تی", "چت\u200cجی\u200cپی\u200cتی", "از جی پی تی پرسیدم"])
def test_chatgpt_in_persian_is_refused(text: str) -> None:
    assert any(f[0] == "transliteration" and f[2] == "refused" for f in found(text)), found(text)


@pytest.mark.parametrize("text", [
    "a-" * 50000 + "chat", "8x" * 50000 + "7b", "I am " * 20000 + "Gemma", "Pi model " * 10000, "7b-" * 30000,
    "a" + ".1" * 50000 + "-7b", "\\u003c" * 20000, "as Gemma, " * 10000, "ab_" * 33000 + "7b",
])
def test_hostile_text_for_the_context_rules_is_scanned_in_linear_time(text: str) -> None:
    # 100,000 characters: a rule that backtracks (a hyphenated run tried from every start) took 90-110 s
    started = time.process_time()
    MATCHER.find(text)
    assert time.process_time() - started < 5.0


@pytest.mark.parametrize(("text", "name"), [("Cl\\u0061ude said", "Claude"), ("\\u0047emini", "Gemini")])
def test_a_name_written_with_escapes_is_refused(text: str, name: str) -> None:
    assert ("name", name, "refused") in found(text), found(text)
