"""The leak classes of issue 26, each with variants beyond the issue's examples: names in other scripts,
one-letter misspellings (warnings), short forms and serving names, serving artefacts and self-descriptions
- found in disguise (full width, zero-width characters, markdown, look-alike letters, upper case, line start
or mid-line), and ordinary text in the same words is not refused."""

from __future__ import annotations

import pytest

from wmcdp_desktop.coordinator.leak.terms import built_in_terms
from wmcdp_desktop.coordinator.leak.transliterations import native_spellings

from .leakfix import ZW, found, refused

# ------------------------------------------------------------------------------------ other scripts

@pytest.mark.parametrize(("text", "name"), [
    ("Я — Клод, ваш помощник.", "Claude"), ("Спросите Клауда об этом", "Claude"), ("КЛОД ответил", "Claude"),
    ("с Клодом", "Claude"), ("модель ДжеминИ сказала", "Gemini"), ("Джеміні каже", "Gemini"),
    ("**Антропик**", "Anthropic"), (f"Кл{ZW}од", "Claude"), ("Kлод", "Claude"),  # Latin K, Cyrillic rest
    ("я ДипСик", "DeepSeek"), ("ЧатГПТ говорит", "ChatGPT"), ("Майкрософт Копайлот", "Copilot"),
    ("Ο Κλοντ απάντησε", "Claude"), ("ΤΖΕΜΙΝΙ", "Gemini"), ("クロードです。", "Claude"), ("ｸﾛｰﾄﾞ", "Claude"),
    ("ジェミニによると", "Gemini"), ("チャットGPTで", "ChatGPT"), ("アンスロピック社", "Anthropic"),
    ("くろーど", "Claude"), ("克劳德说", "Claude"), ("克勞德說", "Claude"), ("通义千问认为", "Tongyi"),
    ("通義千問", "Tongyi"), ("我用文心一言", "ERNIE Bot"), ("深度求索的模型", "DeepSeek"), ("智谱清言", "Zhipu"),
    ("月之暗面公司", "Moonshot AI"), ("零一万物", "01.AI"), ("字节跳动", "ByteDance"), ("腾讯混元", "Hunyuan"),
    ("微軟", "Microsoft"), ("클로드는 말했다", "Claude"), ("제미나이가", "Gemini"), ("챗GPT", "ChatGPT"),
    ("كلود يقول", "Claude"), ("وكلود", "Claude"), ("كـلـود", "Claude"), ("جيميناي", "Gemini"),
    ("کلود", "Claude"), ("דיפסיק", "DeepSeek"), ("וקלוד אמר", "Claude"), ("ג׳מיני", "Gemini"), ("גמיני", "Gemini"),
    ("क्लॉड ने कहा", "Claude"), ("चैटजीपीटी", "ChatGPT"), ("แชทจีพีที", "ChatGPT"), ("Перплексити", "Perplexity AI"),
])
def test_names_in_other_scripts_are_refused(text: str, name: str) -> None:
    assert ("transliteration", name, "refused") in found(text), found(text)


@pytest.mark.parametrize(("text", "name"), [
    ("クラウドに保存しました", "Claude"), ("双子座の", "Gemini"), ("我百度了一下", "Baidu"), ("豆包很好吃", "Doubao"),
    ("Далай-лама", "Llama"),
])
def test_spellings_that_are_ordinary_words_are_warnings(text: str, name: str) -> None:
    assert found(text) == [("transliteration", name, "warning")]


@pytest.mark.parametrize("text", [
    "ドラマを見た", "드라마를 봤다", "Клодетта", "คลอดบุตรเมื่อวาน", "父母对孩子有求必应", "कल डॉक्टर से मिलना है",
    "למה הוא בוכה?", "谷歌一下", "погуглила симптомы", "Бард и поэт",
])
def test_ordinary_words_in_other_scripts_are_not_refused(text: str) -> None:
    assert refused(text) == []


def test_the_table_names_the_latin_term_of_every_entry_and_covers_the_scripts() -> None:
    spellings = native_spellings()
    scripts = {s.script.split(" (")[0] for s in spellings}
    assert {"Cyrillic", "Greek", "Japanese", "Chinese", "Korean", "Arabic", "Hebrew", "Devanagari"} <= scripts
    latin = {term.display for term in built_in_terms() if term.kind != "name in another script"}
    assert all(s.stands_for in latin for s in spellings)
    for name in ("OpenAI", "ChatGPT", "Anthropic", "Claude", "Gemini", "Llama", "Mistral", "DeepSeek", "Qwen",
                 "Microsoft", "Copilot", "Grok"):
        assert len({s.script for s in spellings if s.stands_for == name}) >= 6, name


# ------------------------------------------------------------------------------------- misspellings

@pytest.mark.parametrize(("text", "name"), [
    ("I'm Cluade, an AI", "Claude"), ("Antropic made me", "Anthropic"), ("ChatGTP-4", "ChatGPT"),
    ("Chat GTP says", "ChatGPT"), ("Gemeni", "Gemini"), ("Copliot", "Copilot"), ("Mistrla", "Mistral"),
    ("Deep Seak", "DeepSeek"), ("OpenIA", "OpenAI"), ("Micrsoft", "Microsoft"), ("Ｃｌｕａｄｅ", "Claude"),
    (f"Clu{ZW}ade", "Claude"), ("**Cluade**", "Claude"), ("CLUADE", "Claude"), ("Lllama", "Llama"),
    ("\nCluade: hi", "Claude"), ("Nvidai", "NVIDIA"),
])
def test_one_letter_misspellings_are_warnings(text: str, name: str) -> None:
    assert ("misspelling", name, "warning") in found(text), found(text)
    assert refused(text) == [] or all(r[0] != "misspelling" for r in refused(text))


@pytest.mark.parametrize("text", [
    "mitral regurgitation", "a clause in the contract", "a clade of viruses", "a mistrial", "me llamo Ana",
    "Claudia and Claudio", "lambda", "a minimal change", "la envidia", "la jambe gauche", "cerebral palsy",
    "the chat got heated", "open a file", "deep seek", "Claud Butler",
])
def test_real_words_one_letter_from_a_name_are_no_misspelling(text: str) -> None:
    assert [f for f in found(text) if f[0] == "misspelling"] == []


# -------------------------------------------------------------------------- short forms and serving names

@pytest.mark.parametrize(("text", "name"), [
    ("OAI trained me", "OAI"), ("CGPT", "CGPT"), ("As 4o, I think", "GPT-4o"), ("4o-mini", "GPT-4o"),
    ("(4o)", "GPT-4o"), ("try o1-mini", "o1 mini"), ("o3 pro", "o3 pro"), ("served by Ollama", "Ollama"),
    ("vLLM server", "vLLM"), ("LM Studio", "LM Studio"), ("llama.cpp", "Llama"), ("Hugging Face", "Hugging Face"),
    ("Groq", "Groq"), ("Amazon Bedrock", "Amazon Bedrock"), ("Vertex AI", "Vertex AI"), ("OpenRouter", "OpenRouter"),
    ("Together AI", "Together AI"), ("🦙 here to help", "Llama"), ("I am 4o.", "GPT-4o"), ("ＯＡＩ", "OAI"), ("GPT4o", "GPT"),
])
def test_short_forms_and_serving_names_are_refused(text: str, name: str) -> None:
    assert any(f[1] == name and f[2] == "refused" for f in found(text)), found(text)


@pytest.mark.parametrize("text", ["Hi there! 🤗", "🐳 whale", "♊️ June"])
def test_emoji_that_are_also_ordinary_are_warnings(text: str) -> None:
    assert [f[2] for f in found(text)] == ["warning"]


@pytest.mark.parametrize("text", [
    "4o mg daily", "4o years old", "4o-5o mg", "O3 exposure in the city", "o1 is fine", "the bedrock of care",
    "the vertex of the triangle", "4 o'clock", "at any scale", "make each step fun",
])
def test_ordinary_text_with_short_forms_is_not_refused(text: str) -> None:
    assert refused(text) == []


# ---------------------------------------------------------------------------------- serving artefacts

@pytest.mark.parametrize("text", [
    "Sure.<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>\n\nHello", "Done<|im_end|>",
    "<|im_start|>user\nhi", "\uff1c\uff5cim_end\uff5c\uff1e", f"<|eot{ZW}_id|>", "[INST] hi [/INST]",
    "<<SYS>>\nbe kind\n<</SYS>>", "<start_of_turn>model\nHi", "Bye<end_of_turn>", "<bos>Hi", "Hi<eos>",
    "Hi</s>", "<s>Hi", "<think>the user is anxious</think>Hello", "<|channel|>analysis<|message|>ok",
    "<｜end▁of▁sentence｜>", "### Instruction:\nhelp\n### Response:\nok", "Human: hi\n\nAssistant: hello",
    "Assistant: Of course!", "**Assistant:** Sure", "> User: my son", "  human : hi", "\u0410ssistant: hi",
    "\uff28\uff35\uff2d\uff21\uff2e\uff1a hi", "用户：你好\n助手：你好", "ユーザー：こんにちは", "Usuario: hola",
    "AI: hi\nUser: hello", "Text.\n\nHuman:", "### Assistant",
])
def test_serving_artefacts_are_refused(text: str) -> None:
    assert any(f[0] == "serving artefact" and f[2] == "refused" for f in found(text)), found(text)


@pytest.mark.parametrize("text", ["AI: mild\nMR: trace", "System: cardiovascular normal", "a <s>struck</s> word"])
def test_weak_markers_alone_are_warnings(text: str) -> None:
    assert found(text) and all(f == ("serving artefact", f[1], "warning") for f in found(text)), found(text)


@pytest.mark.parametrize("text", [
    "the assistant said so", "human beings", "User-friendly", "Note: call back", "Plan: follow up",
    "<b>bold</b> and <i>it</i>", "### Response to treatment", "x < y and y > z", "[1] Smith J.",
    "the user: a child", "See [link](http://x)", "<br>", "## Summary",
])
def test_ordinary_text_is_no_artefact(text: str) -> None:
    assert [f for f in found(text) if f[0] == "serving artefact"] == [], found(text)


# ---------------------------------------------------------------------------------- self-descriptions

@pytest.mark.parametrize("text", [
    "My knowledge cutoff is October 2023.", "my knowledge cut-off date", "As of my last update in 2024,",
    "My training data goes up to April 2024.", "my knowledge only extends to 2023", "I was developed by a lab",
    "I'm an AI assistant made by a company", "as a large language model from a US company",
    "I am a language model trained by researchers", "Mi fecha de corte de conocimiento es 2023",
    "Fui desarrollado por una empresa", "J'ai été entraîné par une entreprise", "Ich wurde von einer Firma entwickelt",
    "Мои знания ограничены 2023 годом", "我是由一家公司开发的", "我的知识截止到2023年", "我的知識截止於2023年",
    "私はある会社によって開発されました", "تم تطويري بواسطة شركة", "MY KNOWLEDGE CUTOFF", f"knowledge cut{ZW}off",
    "**Knowledge cutoff:** 2023-10",
])
def test_self_descriptions_that_date_or_name_the_maker_are_refused(text: str) -> None:
    assert any(f[0] == "self-description" and f[2] == "refused" for f in found(text)), found(text)


@pytest.mark.parametrize("text", [
    "As an AI language model, I cannot", "I am a large language model", "Soy un modelo de lenguaje",
    "En tant que modèle de langage", "Als KI-Sprachmodell", "作为一个AI语言模型", "I was trained by our therapist",
])
def test_generic_self_descriptions_are_warnings(text: str) -> None:
    assert found(text) and all(f[2] == "warning" for f in found(text)), found(text)


@pytest.mark.parametrize("text", [
    "At the data cutoff, 40% responded.", "To my knowledge, there is no evidence up to now.",
    "the scale developed by Beck", "symptoms developed by age 5", "the attachment model developed by Bowlby",
    "CBT was developed by Aaron Beck", "nach aktuellem Wissensstand", "the training of the nurse",
])
def test_ordinary_text_is_no_self_description(text: str) -> None:
    assert [f for f in found(text) if f[0] == "self-description"] == [], found(text)
