"""Which of the agent's choices a reply picks (``replies.choice``), in every table language."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.replies.choice import named_choices, read_choice, with_choice
from gateway.replies.kinds import Reading
from gateway.replies.lexicon import LEXICON

CHOICES = ("Delaware law", "English law", "Swiss law")
REF = "HFA-00012"

# Per table language: naming the second choice by marker and letter, by its place, and
# a reply that names two choices (none is picked).
BY_LANGUAGE: dict[str, tuple[str, str, str]] = {
    "en": ("Option B, please.", "The second one.", "Option A or option B, both work."),
    "de": ("Variante B bitte.", "Die zweite, bitte.", "Variante A oder B, beides geht."),
    "fr": ("L'option B, merci.", "Je prends la deuxième option.", "Option A ou B, les deux."),
    "es": ("La opción B, gracias.", "Elijo la segunda.", "Opción A o B, cualquiera."),
    "it": ("L'opzione B, grazie.", "Scelgo la seconda.", "Opzione A o B, vanno bene entrambe."),
    "nl": ("Optie B graag.", "De tweede optie.", "Optie A of B, allebei goed."),
    "pt": ("Opção B, obrigado.", "Escolho a segunda.", "Opção A ou B, tanto faz."),
    "sv": ("Alternativ B, tack.", "Det andra alternativet.", "Alternativ A eller B, båda går."),
    "da": ("Mulighed B, tak.", "Den anden mulighed.", "Mulighed A eller B, begge går."),
    "nb": ("Alternativ B, takk.", "Det andre alternativet.", "Alternativ A eller B, begge går."),
    "fi": ("Vaihtoehto B, kiitos.", "Toinen vaihtoehto.", "Vaihtoehto A tai B, kumpi vain."),
    "pl": ("Opcja B, dziękuję.", "Wybieram drugą.", "Opcja A lub B, obie są dobre."),
    "cs": ("Varianta B, díky.", "Druhá možnost.", "Varianta A nebo B, obě jsou dobré."),
    "ru": ("Вариант B, спасибо.", "Второй вариант.", "Вариант A или B, оба подходят."),
    "uk": ("Варіант B, дякую.", "Другий варіант.", "Варіант A або B, обидва підходять."),
    "ja": ("選択肢Bでお願いします。", "二番目でお願いします。", "選択肢AかB、どちらでも。"),
    "zh": ("选项B。", "我选第二个。", "选项A和B都可以。"),
}


def test_every_table_language_has_cases_and_a_choices_table() -> None:
    tables = Path(__file__).parents[2] / "gateway/replies/lexicon/choices"
    codes = set(LEXICON.languages)
    assert codes == set(BY_LANGUAGE)
    assert {p.stem for p in tables.glob("*.toml")} == codes


@pytest.mark.parametrize("language", sorted(BY_LANGUAGE))
def test_each_language_names_the_second_choice_and_two_choices_pick_none(language: str) -> None:
    by_letter, by_place, two = BY_LANGUAGE[language]
    assert read_choice(by_letter, CHOICES, None, REF) == "English law", by_letter
    assert read_choice(by_place, CHOICES, None, REF) == "English law", by_place
    assert read_choice(two, CHOICES, None, REF) is None, two
    assert named_choices(two, CHOICES).picked == {0, 1}


@pytest.mark.parametrize(
    "text",
    [
        "B",
        "B.",
        "(b)",
        "2",
        "Option 2",
        "#2",
        "No. 2",
        "the second one",
        "the second, please",
        "Second.",
        "English law, please.",
        "english LAW",
        "We'll go with B.",
        "CHOICE B",
    ],
)
def test_one_choice_named_is_picked(text: str) -> None:
    assert read_choice(text, CHOICES, None, REF) == "English law"


@pytest.mark.parametrize(
    "text",
    [
        "Delaware or English law, either works.",
        "A or B",
        "1, 2",
        "Not B.",
        "B is not what we want.",
        "B?",
        "Is the second one safer?",
        "Option E",
        "Option B, but let me check with the client first.",
        "Option B. Scratch that.",
        "Give me a second.",
        "The second clause needs work.",
        "Mandami la bozza prima.",
        "Thanks, I'll look at it tomorrow.",
        "",
        "B " + "very long discussion " * 60,
    ],
)
def test_anything_else_picks_no_choice(text: str) -> None:
    assert read_choice(text, CHOICES, None, REF) is None


def test_a_choice_whose_own_words_hold_a_negation_is_read_by_its_text() -> None:
    choices = ("Sign now", "Do not sign")
    assert read_choice("Do not sign.", choices, None, REF) == "Do not sign"
    assert read_choice("Option A", choices, None, REF) == "Sign now"


def test_the_button_subject_decides_and_typed_words_may_only_agree() -> None:
    subject = f"Re: CHOICE B [{REF}]"
    assert read_choice("CHOICE B", CHOICES, subject, REF) == "English law"
    assert read_choice("CHOICE B\nThanks.", CHOICES, subject, REF) == "English law"
    assert read_choice("CHOICE B\nActually Swiss law.", CHOICES, subject, REF) is None
    assert read_choice("CHOICE B\nNot this one.", CHOICES, subject, REF) is None
    # Another request's button, or a letter past the last choice: no pick.
    assert read_choice("CHOICE B", CHOICES, "CHOICE B [HFA-00099]", REF) is None
    assert read_choice("CHOICE E", CHOICES, f"CHOICE E [{REF}]", REF) is None


def test_with_choice_keeps_the_reading_and_adds_only_the_pick() -> None:
    fields = {"options": {"format": "multiple_choice", "choices": list(CHOICES)}}
    reading = Reading("reply", said="Option B")
    assert with_choice(reading, fields, None, REF) == Reading(
        "reply", said="Option B", choice="English law"
    )
    assert with_choice(reading, {"request": "Which law?"}, None, REF) is reading
    approval = Reading("approval", read_from="keyword", said="Approved, option C.")
    assert with_choice(approval, fields, None, REF).choice == "Swiss law"
    assert with_choice(approval, fields, None, REF).kind == "approval"
    # A tapped button whose body is all that was sent is an answer, not an empty reply.
    empty = Reading("no_answer", said="CHOICE A")
    assert with_choice(empty, fields, f"CHOICE A [{REF}]", REF).kind == "reply"
