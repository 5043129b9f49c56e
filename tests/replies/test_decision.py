"""read_decision: the case table plus the safety rules around approval."""

from __future__ import annotations

import pytest

from gateway.replies import (
    DecisionKind,
    ReplyError,
    decide_answer,
    extract_reply,
    read_decision,
)
from gateway.replies.lexicon import LANGUAGES, LEXICON
from tests.replies.adversarial import NDA
from tests.replies.cases import CASES, Case
from tests.replies.typed import under_approve

A, R, D, Q, C = (
    DecisionKind.APPROVAL,
    DecisionKind.REJECTION,
    DecisionKind.DECLINE,
    DecisionKind.QUESTION,
    DecisionKind.CLOSE,
)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_decision_of_case(case: Case) -> None:
    new_text = extract_reply(case.plain, case.html).new_text
    # A yes/no answers the ask: the cases' ask is whether to carry out the action.
    decision = decide_answer(read_decision(new_text, case.subject), NDA)
    assert decision.kind is case.decision
    if case.trigger is not None:
        assert decision.trigger == case.trigger


@pytest.mark.parametrize(
    ("text", "kind", "trigger"),
    [
        ("approve", A, "approve"),
        ("APPROVED.", A, "APPROVED"),
        ("Approval granted", A, "Approval granted"),
        ("reject", R, "reject"),
        ("Denied!", R, "Denied"),
        ("deny", R, "deny"),
        ("declined", D, "declined"),
        ("Question - who signs?", Q, "Question"),
        ("closed", C, "closed"),
        ("Close.", C, "Close"),
        ("genehmigt", A, "genehmigt"),
        ("Freigegeben!", A, "Freigegeben"),
        ("ablehnen", R, "ablehnen"),
        ("approuvé", A, "approuvé"),
        ("Approuve", A, "Approuve"),
        ("Accepté.", A, "Accepté"),
        ("rejeté", R, "rejeté"),
        ("aprobado", A, "aprobado"),
        ("rechazado", R, "rechazado"),
        ("goedgekeurd", A, "goedgekeurd"),
        ("afgewezen", R, "afgewezen"),
        ("Akkoord.", A, "Akkoord"),
        ("Yes", A, "Yes"),
        ("yes.", A, "yes"),
        ("Sí, adelante.", A, "Sí"),
        ("No", R, "No"),
        ("nein!", R, "nein"),
        ("Nee.", R, "Nee"),
        ("Frage: gilt das auch für Töchter?", Q, "Frage"),
    ],
)
def test_decision_words(text: str, kind: DecisionKind, trigger: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert (decision.kind, decision.trigger) == (kind, trigger)


@pytest.mark.parametrize(
    "text",
    [
        "not approved",
        "Do not approve.",
        "I cannot approve this.",
        "We can't approve it.",
        "Don't approve yet",
        "I won't approve",
        "disapprove",
        "Disapproved.",
        "unapproved",
        "nicht genehmigt",
        "Nicht freigegeben.",
        "non approuvé",
        "pas approuvé",
        "disallow",
        "no aprobado",
        "niet goedgekeurd",
        "Approved\n\nActually I do not approve clause 5.",
        "Approved. Rejected.",
        "approved and denied",
        "Approved?",
        "Approvedly",
        "approves",
        "Pre-approved",
        "Yes? No.",
        "No approval from me.",
        "Maybe. Approved later.",
        "> Approved",
        "",
        "   ",
    ],
)
def test_never_an_approval(text: str) -> None:
    assert read_decision(text, None).kind is not DecisionKind.APPROVAL


@pytest.mark.parametrize(
    ("subject", "kind"),
    [
        ("APPROVE [HFA-00042]", A),
        ("Re: APPROVE [HFA-00042]", A),
        ("AW: RE: approve [HFA-00042]", A),
        ("REJECT [HFA-00042]", R),
        ("DECLINE [HFA-00042]", D),
        ("QUESTION [HFA-00042]", Q),
        # Only the quick-reply links' keywords decide from a subject; there is no CLOSE link.
        ("CLOSE [HFA-00042]", None),
        ("Re: [HFA-00042] Legal review: approve the NDA", None),
        ("Re: [HFA-00042] Legal review: supplier contract", None),
        ("NOT APPROVED [HFA-00042]", None),
        (None, None),
        ("", None),
    ],
)
def test_subject_quick_reply(subject: str | None, kind: DecisionKind | None) -> None:
    assert read_decision("", subject).kind is kind


def test_subject_approval_vetoed_by_negated_body() -> None:
    assert read_decision("I do not approve after all.", "APPROVE [HFA-00042]").kind is None


def test_body_and_subject_agreeing() -> None:
    decision = read_decision("Approved.", "APPROVE [HFA-1]")
    assert (decision.kind, decision.trigger, decision.conditions) == (A, "Approved", ())


def test_wrong_types_raise_reply_error() -> None:
    with pytest.raises(ReplyError):
        read_decision(None, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Approved. Rejected. I am torn.", None),
        ("Approved. We do not need the partner's approval.", None),
        ("Approved", "REJECT [HFA-00001]"),
        ("Approve - no, reject it.", None),
    ],
)
def test_conflicting_or_negated_words_are_unclear_not_absent(
    text: str, subject: str | None
) -> None:
    decision = read_decision(text, subject)
    assert decision.kind is None and decision.ambiguous


@pytest.mark.parametrize("text", ["The notice period is 30 days.", "Noted, thank you."])
def test_plain_answers_are_not_unclear(text: str) -> None:
    decision = read_decision(text, None)
    assert decision.kind is None and not decision.ambiguous


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
    "text",
    [
        # A question asks; a deferral after a decision is a hold-back, not an acknowledgement.
        "I'll look at it tomorrow, but which version is the final one?",
        "Yes, I'll look at it tomorrow.",
        # A substantive answer that mentions no later answer.
        "The cap looks fine to me; the notice period is 30 days.",
    ],
)
def test_a_deferral_never_outranks_a_question_or_a_held_back_decision(text: str) -> None:
    decision = read_decision(text, None)
    assert decision.kind is not DecisionKind.ACKNOWLEDGE


OUTLOOK_LINES = '<div class="WordSection1">{}</div>'


def _outlook(*lines: str) -> str:
    """Outlook's HTML: each typed line its own paragraph (MsoNormal, no margin)."""
    return OUTLOOK_LINES.format(
        "".join(f'<p class="MsoNormal">{line}<o:p></o:p></p>' for line in lines)
    )


@pytest.mark.parametrize(
    ("plain", "html", "stopped_by"),
    [
        ("Approved.\n\nDon't sign yet though.", None, "Don't sign yet though."),
        ("Approved.\n\nOh no, wait - not yet.", None, "Oh no, wait - not yet."),
        ("Approved,\n\nbut only after the DPA is signed.", None, "but only after the DPA"),
        ("Hi Tom,\n\nOK to sign.\n\nLet me check with Anna first.", None, "Let me check"),
        ("Approved.\n\nRejected for the Dutch entity, though.", None, "Rejected"),
        ("Genehmigt.\n\nAber bitte noch nicht unterschreiben.", None, "noch nicht"),
        (None, _outlook("Approved", "but don't sign until Finance confirms."), "don't sign"),
        (None, _outlook("Go ahead", "and send me the draft first."), "draft first"),
    ],
)
def test_a_later_paragraph_that_holds_the_approval_back_leaves_no_decision(
    plain: str | None, html: str | None, stopped_by: str
) -> None:
    # The first paragraph decides, but it is not the last word: what follows it stops it.
    decision = read_decision(extract_reply(plain, html).new_text, "Re: the NDA [HFA-00001]")
    assert decision.kind is None and decision.ambiguous
    assert decision.because is not None and stopped_by in decision.because


@pytest.mark.parametrize(
    "plain",
    [
        "Approved.\n\nThanks for the clear summary.",
        "Approved.\n\nPlease send me the signed copy afterwards.",
        "Approved.\n\nAnna",
    ],
)
def test_an_approval_followed_by_thanks_or_an_afterthought_stands(plain: str) -> None:
    assert read_decision(extract_reply(plain, None).new_text, None).kind is A


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


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Approved. The cap must stay at EUR 10,000.", "The cap must stay at EUR 10,000."),
        ("Approved. Cap at EUR 50k.", "Cap at EUR 50k."),
        (
            "Approved.\nSend it to the client's legal inbox only.",
            "Send it to the client's legal inbox only.",
        ),
        ("Genehmigt. Die Haftung bleibt bei 10.000 EUR.", "Die Haftung bleibt bei 10.000 EUR."),
        ("Akkoord. De looptijd blijft twee jaar.", "De looptijd blijft twee jaar."),
        ("Approuvé. Le plafond reste à 10 000 EUR.", "Le plafond reste à 10 000 EUR."),
        ("Aprobado. El límite sigue en 10.000 EUR.", "El límite sigue en 10.000 EUR."),
        ("承認します。上限は1万ユーロのままです。", "上限は1万ユーロのままです。"),
    ],
)
def test_a_limit_in_a_sentence_after_the_approval_is_its_condition(
    text: str, condition: str
) -> None:
    # The paragraph after "Approved." is read as notes under the APPROVE link are: a
    # limit there was dropped, and the agent told of an approval without it.
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is DecisionKind.APPROVAL
    assert decision.conditions == (condition,)


@pytest.mark.parametrize(
    "text",
    [
        "Approved. Don't pay the second instalment.",
        "Approved. Please don't.",
        "Approved. Not above EUR 50k.",
        "Akkoord. Niet doen.",
        "Aprobado. No firmes todavía.",
    ],
)
def test_a_negation_in_a_sentence_after_the_approval_is_no_decision(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is None, decision


@pytest.mark.parametrize(
    "text",
    ["Approved. Thanks for the quick turnaround.", "Approved. Go ahead.", "Approved. Thanks!"],
)
def test_thanks_or_agreement_after_the_approval_adds_no_condition(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is DecisionKind.APPROVAL and decision.conditions == ()


# "Approved." followed by a sentence saying it stands as it is, one per table language;
# the "no" of "No changes needed." is about the document, not the approval.
STANDS_AS_IS = [
    "Approved. No changes needed.",
    "Approved. Nothing further from me.",
    "Approved. No objections.",
    "Approved. Sorry for the delay.",
    "Genehmigt. Keine Änderungen nötig.",
    "Genehmigt. Schönes Wochenende.",
    "Approuvé. Rien à ajouter.",
    "Akkoord. Geen opmerkingen.",
    "Aprobado. Sin comentarios.",
    "Approvato. Nessuna obiezione.",
    "Aprovado. Nada a acrescentar.",
    "Godkendt. Ingen bemærkninger.",
    "Godkjent. Ingen merknader.",
    "Godkänt. Inga synpunkter.",
    "Hyväksytty. Ei huomautettavaa.",
    "Zatwierdzam. Bez uwag.",
    "Schváleno. Bez připomínek.",
    "Одобрено. Замечаний нет.",
    "Схвалено. Зауважень немає.",
    "承認します。問題ありません。",
]


@pytest.mark.parametrize("text", STANDS_AS_IS)
def test_a_sentence_saying_the_approval_stands_as_it_is_adds_nothing(text: str) -> None:
    for decision in (
        read_decision(text, None),
        under_approve(text),
    ):
        decision = decide_answer(decision, NDA)
        assert decision.kind is DecisionKind.APPROVAL and decision.conditions == (), decision


@pytest.mark.parametrize(
    "text",
    [
        "Approved. No changes needed?",  # a question
        "Approved. No changes to clause 4.",  # more words: a limit, or no decision
        "Approved. No.",
        "Одобрено. Нет.",
        "Approved. No changes needed. Don't sign yet.",
        "Not approved. No changes needed.",
    ],
)
def test_only_the_whole_sentence_stands_as_it_is(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is not DecisionKind.APPROVAL or decision.conditions, decision


def test_a_sentence_saying_it_stands_never_decides_on_its_own() -> None:
    for text in ("No changes needed.", "Nothing to add.", "Замечаний нет."):
        assert read_decision(text, None).kind is None
