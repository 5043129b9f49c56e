"""What a paragraph says when no decision word opens it: a decline said naturally, or a promise to answer later."""

from __future__ import annotations

import pytest

from gateway.replies import DecisionKind, read_decision
from gateway.replies.lexicon import LANGUAGES, LEXICON
from tests.replies.asks import PAY, read

# Promises to answer later as lawyers write them, two per table language.
_LATER = {
    "en": ["Got your note. I'll review the clause tonight and get back to you.",
           "In court all day; I will have a look tomorrow morning."],
    "de": ["Ich sehe mir das heute Abend an und gebe Ihnen Bescheid.",
           "Danke, ich komme darauf zurück, sobald ich aus dem Termin bin."],
    "fr": ["Merci, je vais regarder ce soir et je vous réponds demain.",
           "Bien reçu, je reviens vers vous d'ici vendredi."],
    "es": ["Gracias, lo reviso esta tarde y te contesto.",
           "Estoy en una reunión; le contestaré mañana por la mañana."],
    "it": ["Grazie, lo guardo stasera e ti faccio sapere.", "Sono in udienza, le risponderò domani."],
    "nl": ["Dank je, ik kijk er vanavond naar en laat het je weten.",
           "Ik kom erop terug na mijn overleg van vanmiddag."],
    "pt": ["Obrigado, vou analisar hoje à noite e dou notícias.",
           "Estou em reunião; respondo amanhã de manhã."],
    "sv": ["Tack, jag tittar på det i kväll och återkommer.", "Sitter i möte, jag hör av mig i morgon."],
    "da": ["Tak, jeg kigger på det i aften og vender tilbage.",
           "Jeg sidder i møde; jeg melder tilbage i morgen."],
    "nb": ["Takk, jeg ser på det i kveld og kommer tilbake til deg.",
           "Sitter i møte, jeg gir beskjed i morgen."],
    "fi": ["Kiitos, katson asian tänään illalla ja palaan asiaan.",
           "Olen oikeudessa koko päivän, palaan tähän huomenna."],
    "pl": ["Dziękuję, przejrzę to wieczorem i dam znać.", "Jestem w sądzie, odezwę się jutro rano."],
    "cs": ["Díky, podívám se na to večer a ozvu se.", "Jsem celý den u soudu, dám vědět zítra."],
    "ru": ["Спасибо, посмотрю вечером и вернусь к вам.", "Я на заседании, отвечу завтра утром."],
    "uk": ["Дякую, подивлюся ввечері й повернуся до вас.", "Я на засіданні, відповім завтра зранку."],
    "ja": ["ありがとうございます。今晩確認します。", "本日は外出中のため、明日ご連絡いたします。"],
    "zh": ["谢谢，我看一下，明天回复。", "我在开会，稍后回复。"],
}  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Da bin ich der Falsche – fragen Sie Frau Roth.",
        "Non è materia mia, scrivi al reparto fiscale.",
        "Det er ikke mit bord – tag den med Camilla.",
        "Jag har en jävssituation här. Hör med Karin.",
    ],
)
def test_natural_declines_decline(text: str) -> None:
    assert read(text, PAY).kind == "decline"


@pytest.mark.parametrize(
    ("text", "language", "because"),
    [
        ("Je regarde ça demain matin et je vous reviens.", "fr", "Je regarde"),
        ("Thanks, let me look at it tomorrow.", "en", "let me look"),
        ("Ich schaue es mir morgen an und melde mich.", "de", "Ich schaue"),
        ("Lo reviso mañana y te contesto.", "es", "Lo reviso"),
        ("Ik kijk er morgen naar en laat het je weten.", "nl", "Ik kijk er"),
        ("Przejrzę to jutro i dam znać.", "pl", "Przejrzę"),
        ("Посмотрю завтра и отвечу.", "ru", "Посмотрю"),
        ("明日確認します。", "ja", "確認します"),
        ("我看一下，明天回复。", "zh", "我看一下"),
    ],
)
def test_a_promise_to_answer_later_is_read_as_on_it_not_as_an_answer(
    text: str, language: str, because: str
) -> None:
    """Read as an answer, "I'll look at it tomorrow" would tell the agent the request was
    answered; it is I'M ON IT (reviewed), in the lawyer's language."""
    decision = read_decision(text, "Re: [HFA-00042] Legal review")
    assert decision.kind is DecisionKind.ACKNOWLEDGE
    assert (decision.language, decision.trigger, decision.read_from) == (
        language,
        because,
        "phrase",
    )
    assert decision.because == text.split("\n")[0]


@pytest.mark.parametrize(
    ("language", "text"), [(code, text) for code, texts in _LATER.items() for text in texts]
)
def test_every_table_language_reads_a_promise_to_answer_later(language: str, text: str) -> None:
    decision = read_decision(text, None)
    assert (decision.kind, decision.language) == (DecisionKind.ACKNOWLEDGE, language), decision


def test_every_table_language_has_promises_to_answer_later() -> None:
    assert set(_LATER) == set(LANGUAGES)
    assert all(LEXICON.languages[code].entries["deferrals"] for code in LANGUAGES)


@pytest.mark.parametrize(
    "text",
    [
        "The cap in clause 7 is market standard; the notice period of 30 days is fine for us.",
        "Die Haftungsgrenze in Ziffer 7 ist marktüblich, die Kündigungsfrist ebenfalls.",
        "Le plafond de la clause 7 est conforme au marché ; le préavis de 30 jours nous convient.",
        "第7条の責任上限は市場水準です。通知期間も問題ありません。",
        "Ограничение ответственности в пункте 7 соответствует рыночной практике.",
    ],
)
def test_an_answer_that_promises_nothing_later_is_not_read_as_on_it(text: str) -> None:
    assert read_decision(text, None).kind is None
