"""Passphrases: words of the shipped list a person can read out, and what is typed back is forgiven."""

from __future__ import annotations

import pytest

from wmcdp_desktop.core.encryption.passphrase import new_passphrase, normalise_passphrase, word_list


def test_a_new_passphrase_is_six_listed_lower_case_words_joined_with_hyphens() -> None:
    words = set(word_list())
    phrase = new_passphrase()
    parts = phrase.split("-")
    assert len(parts) == 6
    assert all(part in words for part in parts)
    assert phrase == phrase.lower()
    assert normalise_passphrase(phrase) == phrase


def test_the_word_list_is_long_enough_and_has_no_separator_in_a_word() -> None:
    words = word_list()
    assert len(words) == 1295
    assert len(set(words)) == len(words)
    assert all(w.isalpha() and w.isascii() and 3 <= len(w) <= 5 for w in words)


def test_passphrases_differ_and_the_word_count_is_asked_for() -> None:
    assert len({new_passphrase() for _ in range(50)}) == 50
    assert len(new_passphrase(8).split("-")) == 8
    with pytest.raises(ValueError):
        new_passphrase(0)


@pytest.mark.parametrize("typed", [
    "acid-acorn-acre",
    "Acid Acorn Acre",
    "  ACID   acorn\tacre \n",
    "acid - acorn -- acre",
    "acid\u2013acorn\u2014acre",  # dashes a word processor puts in
    "acid_acorn_acre",
    "\uff21\uff43\uff49\uff44 acorn acre",  # full-width letters
    "-acid-acorn-acre-",
])
def test_normalising_forgives_case_spaces_and_separators(typed: str) -> None:
    assert normalise_passphrase(typed) == "acid-acorn-acre"


def test_normalising_keeps_the_words_and_their_order() -> None:
    assert normalise_passphrase("acorn acid acre") != normalise_passphrase("acid acorn acre")
    assert normalise_passphrase("acidacorn acre") != normalise_passphrase("acid acorn acre")
    assert normalise_passphrase("   ") == ""
