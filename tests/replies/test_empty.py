"""is_no_answer: greetings, thanks and sign-offs in every table language are no answer."""

from __future__ import annotations

import pytest

from gateway.replies import extract_reply
from gateway.replies.empty import is_no_answer
from gateway.replies.lexicon import LEXICON


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Thanks!",
        "Thanks, Jane",
        "Thanks,\nJane Smith",
        "Hi Anna,\n\nthanks!\n\nBest,\nTom",
        "Vielen Dank!",
        "Mit freundlichen Grüßen\nDr. Anna Keller",
        "Merci beaucoup.",
        "Muchas gracias, Marta",
        "Grazie mille!",
        "Hartelijk dank!",
        "Dziękuję, pozdrawiam",
        "Muito obrigado!",
        "ありがとうございます。",
        "谢谢！",
        "Tack så mycket!",
        "Mange tak",
        "Tusen takk!",
        "Kiitos paljon!",
        "Děkuji, s pozdravem",
        "Спасибо, Иван",
        "Дякую!",
        "Hello 👍",
    ],
)
def test_courtesies_alone_are_no_answer(text: str) -> None:
    assert is_no_answer(text)


@pytest.mark.parametrize(
    "body",
    ["-- \nDana Counsel\nPartner, Example LLP\n", "--\nDana Counsel\n+49 30 1234 567\n"],
)
def test_a_reply_that_is_only_a_signature_is_no_answer(body: str) -> None:
    # The reply as it is left once nothing above the signature delimiter was typed.
    assert is_no_answer(extract_reply(body, None).new_text)


@pytest.mark.parametrize(
    "text",
    [
        "Approved.",
        "Thanks, approved.",
        "Thanks. No.",
        "Thanks, Yes",
        "Danke, genehmigt.",
        "Thanks - I will look at it tomorrow",
        "OK",
        "Jane",
        "Merci, mais non.",
        "ありがとうございます。承認します。",
    ],
)
def test_anything_more_is_an_answer(text: str) -> None:
    assert not is_no_answer(text)


def test_every_language_lists_its_courtesies() -> None:
    for language in LEXICON.languages.values():
        assert language.entries["courtesies"], language.code
        for courtesy in language.entries["courtesies"]:
            assert is_no_answer(courtesy), (language.code, courtesy)
