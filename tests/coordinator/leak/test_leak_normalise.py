"""The leak scan's normal form: every spelling a reader takes for the same name is the same string, and
every position maps back to the text the coordinator wrote."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.coordinator.leak.normalise import HARD, SOFT, fold_char, normalise, skeleton


@pytest.mark.parametrize(
    "spelling",
    [
        "claude-3-5-sonnet",
        "CLAUDE 3.5 SONNET",
        "Claude 3.5 Sonnet",
        "claude_3_5_sonnet",
        "cla\u200bude-3-5-sonnet",  # zero-width space
        "claude\u20113\u20115\u2011sonnet",  # non-breaking hyphens
        "claude\u20143\u20135\u2212sonnet",  # em dash, en dash, minus sign
        "ｃｌａｕｄｅ－３．５ ｓｏｎｎｅｔ",  # fullwidth
        "𝐜𝐥𝐚𝐮𝐝𝐞 3.5 𝐬𝐨𝐧𝐧𝐞𝐭",  # mathematical bold
        "Cláude 3.5 Sönnet",  # accents
        "С\u200dlaude 3.5 Sonnet",  # Cyrillic capital Es and a zero-width joiner
        "claude\u00a03.5\u2009sonnet",  # no-break and thin spaces
        "clau\u00adde 3.5 sonnet",  # soft hyphen
        "claude \u202e3.5\u202c sonnet",  # bidirectional overrides
        "claude\u2800 3.5\u3164sonnet",  # blank Braille pattern, Hangul filler
        "claude ٣.٥ sonnet",  # Arabic-Indic digits
    ],
)
def test_spellings_share_one_skeleton(spelling: str) -> None:
    assert skeleton(spelling) == "claude35sonnet"


def test_hard_separators_stay_boundaries() -> None:
    assert skeleton("meta-llama/Llama-3.1") == "metallama llama31"
    assert normalise("Claude, 3").text == "claude" + HARD + SOFT + "3"
    # a symbol is not the letters NFKC spells it with
    assert normalise("ChatGPT™").text == "chatgpt" + HARD
    assert normalise("5㎏").text == "5" + HARD


def test_offsets_map_back_to_the_original() -> None:
    text = "ab\u200bcd½ef\u0301"
    norm = normalise(text)
    assert norm.text == "abcd1" + HARD + "2ef"
    # every normal-form position points at the original character it came from
    assert [text[norm.origin(i)] for i in range(len(norm.text))] == list("abcd½½½ef")
    assert norm.span(1, 4) == (1, 5)  # "b", then the zero-width space, "c", "d"
    assert normalise("plain text").origin(3) == 3


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40))
def test_every_position_comes_from_a_character_that_folds_to_it(text: str) -> None:
    norm = normalise(text)
    assert norm.text == "".join(fold_char(ch) for ch in text)
    cursor = 0
    for i, ch in enumerate(norm.text):
        origin = norm.origin(i)
        assert cursor <= origin < len(text)
        assert ch in fold_char(text[origin])
        cursor = origin
    for i in range(len(norm.text)):
        start, end = norm.span(i, i + 1)
        assert 0 <= start < end <= len(text)


def test_folding_is_idempotent_on_the_basic_alphabet() -> None:
    for ch in "abcdefghijklmnopqrstuvwxyz0123456789":
        assert fold_char(ch) == ch
    assert fold_char("_") == fold_char(".") == fold_char("\u2011") == SOFT
    assert fold_char("\u200b") == fold_char("\u00ad") == fold_char("\x07") == ""


def test_every_dash_is_a_soft_separator() -> None:
    dashes = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Pd"]
    assert len(dashes) > 20
    assert {fold_char(d) for d in dashes} == {SOFT}
