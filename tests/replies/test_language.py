"""The language of a reply: one table reads it, or every table of its script must agree."""

from __future__ import annotations

import pytest

from gateway.replies import DecisionKind, read_decision
from gateway.replies.language import identify, script_languages


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Ja, ich schaue es mir morgen an.", "de"),
        ("Oui, mais appelez-moi d'abord.", "fr"),
        ("Yes, I'll look at it tomorrow morning.", "en"),
        ("Tak, przejrzę to jutro rano.", "pl"),
        ("問題ありません", "ja"),
        ("是的，我明天上午看一下。", "zh"),
        ("Так, подивлюся завтра зранку.", "uk"),
    ],
)
def test_a_clear_text_gets_one_language(text: str, language: str) -> None:
    assert identify(text) == (language,)


@pytest.mark.parametrize(
    ("text", "script"), [("Approved.", "latin"), ("承認", "han"), ("Да.", "cyrillic")]
)
def test_a_short_text_gets_every_language_of_its_script(text: str, script: str) -> None:
    found = identify(text)
    assert len(found) > 1
    assert set(found) == set(script_languages(text))


def test_kana_is_japanese_alone() -> None:
    assert script_languages("問題ありません") == ("ja",)
    assert "ja" in script_languages("问题") and "zh" in script_languages("问题")


def test_short_texts_decide_only_where_every_table_agrees() -> None:
    # "Ja." is yes in every table that has the word; "Tak." is thanks in Danish: no answer.
    assert read_decision("Ja.", None).answer == "yes"
    assert read_decision("Tak.", None).answer is None
    assert read_decision("Godkänt.", None).kind is DecisionKind.APPROVAL


def test_the_reading_records_its_language() -> None:
    assert read_decision("Genehmigt, danke.", None).language == "de"
    assert read_decision("Approved, thanks.", None).language == "en"
