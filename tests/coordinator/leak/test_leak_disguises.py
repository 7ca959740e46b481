"""Names disguised in ways a reader still reads as the name are found, and ordinary text in any language
is not: look-alike letters of any script, letters Unicode does not decompose, small capitals, digits and
symbols written for letters, punctuation or HTML tags inside a word, words run together, plurals, a
right-to-left override, tag characters, HTML character references and percent-encoding."""

from __future__ import annotations

import unicodedata

import pytest

from wmcdp_desktop.coordinator.leak.confusables import look_alikes
from wmcdp_desktop.coordinator.leak.normalise import skeleton
from wmcdp_desktop.coordinator.leak.scan import Matcher
from wmcdp_desktop.coordinator.leak.terms import Term, built_in_terms, natural_spellings

MODEL_IDS = ["gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022", "o1"]


def matcher() -> Matcher:
    terms = built_in_terms()
    for model in MODEL_IDS:
        terms.append(Term(skeleton(model), model, "model id", "word", model))
        terms += [Term(skeleton(s), s, "natural spelling", "word", model) for s in natural_spellings(model)]
    terms += [Term(skeleton(r), r, "response id", "word", r) for r in ("resp-0001", "alpha", "beef")]
    return Matcher(terms)


MATCHER = matcher()


def found(text: str) -> list[tuple[str, str]]:
    return [(m.term.display, text[m.start:m.end]) for m in MATCHER.find(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # look-alike letters of scripts other than Cyrillic and Greek (Unicode's confusables data)
        ("I am Gr\u0585k", [("Grok", "Gr\u0585k")]),  # Armenian oh
        ("\u13df\u13de\u13aaUDE", [("Claude", "\u13df\u13de\u13aaUDE")]),  # Cherokee
        ("Cl\u0251ude", [("Claude", "Cl\u0251ude")]),  # Latin alpha
        ("\u249e\u24a7\u249c\u24b0\u249f\u24a0", [("Claude", "\u249e\u24a7\u249c\u24b0\u249f\u24a0")]),  # parenthesised
        # letters with a stroke that Unicode does not decompose, small capitals
        ("C\u0142aude and Anthr\u00f8pic", [("Claude", "C\u0142aude"), ("Anthropic", "Anthr\u00f8pic")]),
        ("\u1d04\u029f\u1d00\u1d1c\u1d05\u1d07", [("Claude", "\u1d04\u029f\u1d00\u1d1c\u1d05\u1d07")]),
        # a letter that reads as I or l
        ("Gem\ua4f2n\ua4f2", [("Gemini", "Gem\ua4f2n\ua4f2")]),
        # digits and symbols written for letters, inside one word
        ("Cl4ude, C1aude, G3m1n1, Cl@ude", [("Claude", "Cl4ude"), ("Claude", "C1aude"), ("Gemini", "G3m1n1"),
                                            ("Claude", "Cl@ude")]),
        # spelled out one character at a time, with digits for letters
        ("C-L-4-U-D-E, G 3 M 1 N 1 and M.1.5.T.R.4.L", [("Claude", "C-L-4-U-D-E"), ("Gemini", "G 3 M 1 N 1"),
                                                      ("Mistral", "M.1.5.T.R.4.L")]),
        # punctuation or HTML tags inside a word
        ("**Cl**aude, Cl'aude, Mis/tral", [("Claude", "Cl**aude"), ("Claude", "Cl'aude"), ("Mistral", "Mis/tral")]),
        ("Cl<b>aude</b> and Cl<!-- x -->aude", [("Claude", "Cl<b>aude"), ("Claude", "Cl<!-- x -->aude")]),
        # words run together (camel case), plurals
        ("ClaudeAI, AskClaude, BioGPT, ChatGPTPlus", [("Claude", "Claude"), ("Claude", "Claude"), ("GPT", "GPT"),
                                                     ("ChatGPT", "ChatGPT")]),
        ("custom GPTs", [("GPT", "GPT")]),
        # shown reversed by a right-to-left override
        ("see \u202eedualC\u202c now", [("Claude", "edualC")]),
        ("\u202e1000-pser", [("resp-0001", "1000-pser")]),
        # hidden in tag characters (invisible ASCII)
        ("".join(chr(0xE0000 + ord(c)) for c in "Claude"), [("Claude", "".join(chr(0xE0000 + ord(c)) for c in "Claude"))]),
        ("Cl\U000e0061ude", [("Claude", "Cl\U000e0061ude")]),
        # HTML character references and percent-encoding
        ("&#67;laude &#x43;laude Cl&auml;ude", [("Claude", "&#67;laude"), ("Claude", "&#x43;laude"),
                                                ("Claude", "Cl&auml;ude")]),
        ("Cl%61ude and resp%2D0001", [("Claude", "Cl%61ude"), ("resp-0001", "resp%2D0001")]),
        # a product tier with its version
        ("As Sonnet 3.5, or 3.5 Sonnet", [("sonnet-3-5", "Sonnet 3.5"), ("3-5-sonnet", "3.5 Sonnet")]),
    ],
)
def test_disguised_names_are_found_and_quoted_as_written(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # words run together that are not names
        "She got a new iPhone and spends hours on YouTube, TikTok and WhatsApp; McDonald's; PowerPoint; eBay.",
        # letters and digits together, punctuation inside words
        "B12 deficiency, 5HT3 antagonists, CYP2D6, H1N1, COVID-19 at 10am, q4h, 3x/day, T4, TSH 2.1.",
        "Y-BOCS 24, CY-BOCS 18; e.g. and i.e.; and/or; w/o; c/o; n/a; he/she can't; don't; it's the child's.",
        "He said N0 way, l8r, gr8, b4, 2day, 4ever, sk8; Dr. O'Neil, Mr. D'Angelo, l'enfant, rock'n'roll.",
        "a 6-pt drop; 6pt font; 9pt; x86; USB-C; iOS 17; PS5; ICD-10-CM F42.2; DSM-5-TR; NHS 111.",
        "Call 1-800-555-1212 or 0 8 0 0 1 2 3 4 5 6; U.S.A.; A-B-C-D-E-F; 1.2.3.4; q 4 h; t i d; 3 x 5 s; p.r.n.",
        # HTML and percent signs in ordinary text
        "AT&T, A&E, R&D; 50% fewer; 100% sure; if a<b and c>d; &nbsp; &amp; %20",
        # other languages and scripts
        "Мама говорит, что дочь боится грязи и моет руки по двадцать раз в день.",
        "Η μητέρα λέει ότι το παιδί φοβάται τα μικρόβια και πλένει τα χέρια του συνέχεια.",
        "Matka mówi, że córka boi się brudu i myje ręce dwadzieścia razy dziennie; łóżko, żółw.",
        "Мама каже, що дочка боїться бруду і миє руки двадцять разів на день; їжак, іграшка.",
        "Մայրը ասում է, որ աղջիկը վախենում է կեղտից և օրը քսան անգամ լվանում է ձեռքերը։",
        "Mor siger, at datteren er bange for snavs og vasker hænder tyve gange om dagen; ørkenen, sø.",
        "Anne dedi ki kızı kirden korkuyor ve günde yirmi kez ellerini yıkıyor; İstanbul, ılık.",
        "Mẹ nói con gái sợ bẩn và rửa tay hai mươi lần mỗi ngày; đường, đồ chơi.",
        "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᏣᎳᎩ ᏗᏕᎬᏗ",
        # poems and ordinary words that are model tiers
        "Opus, Haiku, Sonnet: the poetry club; 4 sonnets; Shakespeare's Sonnet 18.",
        # generated ids do not spell a one-word name put back together
        "t-8eef3a1c9d2b4e6f cr-a1b2c3d4e5f6a7b8c9d0e1f2",
    ],
)
def test_ordinary_text_is_not_a_leak(text: str) -> None:
    assert found(text) == []


def test_the_look_alike_table_holds_letters_that_normalisation_alone_leaves_alone() -> None:
    assert len(look_alikes()) > 500
    for ch, to in look_alikes().items():
        assert not ch.isascii() and len(ch) == 1 and to.isascii() and to.isalnum() and to == to.lower(), ch
        assert unicodedata.category(ch)[0] == "L" or unicodedata.category(ch) == "Nl", ch
        plain = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", ch).casefold())
        plain = "".join(c for c in plain if not unicodedata.combining(c))
        assert not (plain.isascii() and plain.isalnum()), ch  # NFKC already spells it


def test_hostile_runs_of_marks_references_and_tags_are_no_findings() -> None:
    # one override mark per character, unterminated references, tags and broken words: nothing to report
    for text in ["\u202e" * 50_000, "&#" * 50_000, "%41" * 30_000, "<a " * 30_000, "a," * 50_000, "C l 4 u d " * 20_000]:
        assert found(text) == []
