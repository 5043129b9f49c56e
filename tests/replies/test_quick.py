"""Quick-reply answers as mail clients send them: the keyword decides, the notes are read.

Each reply is built from the link the lawyer tapped (its real subject and body, as
``gateway.outbound.quickreply`` writes them), with the notes typed under the prompt and
what the client adds below (Gmail's quote, "Sent from my iPhone", an Outlook signature
and header block), then read the way the gateway reads it: new text, then decision.
"""

from __future__ import annotations

from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from gateway import i18n
from gateway.outbound.quickreply import QUICK_REPLIES, QuickLink, links_for
from gateway.replies import DecisionKind, extract_reply, read_decision
from gateway.replies.quick import NEUTRAL_KEYWORDS, PROMPTS, subject_keyword

ADDRESS = "reply+aeaaaaaaaaaaaakg4v4a@hfa.example"
_LINKS = {link.reply.key: link for link in links_for(ADDRESS, "HFA-00027")}

_GMAIL = (
    "\r\n\r\nOn Tue, Dec 1, 2026 at 9:02 PM Human for AI <hfa-gateway@reply.firm.test> wrote:\r\n"
    "> Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH.\r\n"
    "> Proposed action: Release payment of EUR 62,000.00.\r\n"
)
_IPHONE = "\r\n\r\nSent from my iPhone\r\n"
_OUTLOOK = (
    "\r\n\r\nJane Smith\r\nPartner | Smith & Co\r\n+49 30 1234567\r\n\r\n"
    "From: Human for AI <hfa-gateway@reply.firm.test>\r\nSent: Tuesday, December 1, 2026 9:02 PM\r\n"
    "To: Jane Smith <counsel@firm.test>\r\nSubject: [HFA-00027] Confirm payment\r\n\r\n"
    "Please confirm the payment of EUR 62,000.00.\r\n"
)
_CLIENTS = {"gmail": _GMAIL, "iphone": _IPHONE, "outlook": _OUTLOOK}


def _links_in(language: str) -> dict[str, QuickLink]:
    """The links as an email written in ``language`` carries them (its prompts translated)."""
    with i18n.speaking(language):
        return {link.reply.key: link for link in links_for(ADDRESS, "HFA-00027")}


def _opened(key: str, links: dict[str, QuickLink] | None = None) -> tuple[str, str]:
    query = parse_qs(urlsplit((links or _LINKS)[key].url).query, keep_blank_values=True)
    return unquote(query["subject"][0]), query["body"][0]


def _sent(
    key: str,
    notes: str,
    client: str,
    *,
    same_line: bool = False,
    links: dict[str, QuickLink] | None = None,
) -> tuple[str, str]:
    """(subject, body) of the mail sent from the link, with ``notes`` typed under the prompt."""
    subject, body = _opened(key, links)
    body = body.rstrip("\r\n")
    if key == "approve_with_conditions" and notes:
        body = body.replace("- \r\n- ", notes.replace("\n", "\r\n"))
    elif notes:
        body += (" " if same_line else "\r\n") + notes.replace("\n", "\r\n")
    return subject, body + _CLIENTS[client]


# (link, notes typed under its prompt, reading: None / kind / "conditional")
CORPUS = [
    ("approve", "", "approval"),
    ("approve", "Thanks!", "approval"),
    ("approve", "Fine as proposed.\n\nDana", "approval"),
    ("approve", "only if the amount stays under EUR 50,000.", "conditional"),
    ("approve", "NOT the full amount - pay only EUR 49,600 for the 8 pallets received.", None),
    ("approve", "Do not pay without a call-back first.", None),
    ("approve", "max. EUR 50.000", "conditional"),
    ("approve", "up to 50k only", "conditional"),
    ("approve", "Please send me the remittance advice afterwards.", "conditional"),
    ("approve", "but don't pay yet", None),
    ("approve", "Wait - I meant REJECT.", None),
    ("approve", "Is this the final invoice?", None),
    ("approve", "Nicht den vollen Betrag, nur EUR 49.600.", None),
    ("approve", "seulement jusqu'à 50 000 EUR", "conditional"),
    # Part of the action held back ("the rest waits"), as "der Rest wartet" in German.
    ("approve", "Seulement jusqu'à 10 000 EUR ; le reste attend l'avoir.", None),
    ("approve", "Nur bis EUR 10.000; der Rest wartet auf die Gutschrift.", None),
    ("approve", "Let me check with Anna first.", None),
    ("approve_with_conditions", "", None),
    (
        "approve_with_conditions",
        "- pay only after the goods receipt is complete\n- send me the remittance advice",
        "conditional",
    ),
    ("approve_with_conditions", "- liability shall not exceed EUR 1M", "conditional"),
    ("approve_with_conditions", "- let me check with Anna first", None),
    ("reject", "", "rejection"),
    ("reject", "Pay only EUR 49,600 instead.", "rejection"),
    ("reject", "Actually, approved.", None),
    ("question", "Who at Kraftwerk confirmed the pallet count?", "question"),
    ("decline", "I am conflicted.", "decline"),
    ("acknowledge", "Friday", "acknowledgement"),
]


def _reading(subject: str, body: str) -> str | None:
    decision = read_decision(extract_reply(body.replace("\r\n", "\n"), None).new_text, subject)
    if decision.kind is DecisionKind.APPROVAL:
        return "conditional" if decision.conditions else "approval"
    return decision.kind.value if decision.kind else None


@pytest.mark.parametrize("client", sorted(_CLIENTS))
@pytest.mark.parametrize(("key", "notes", "expected"), CORPUS)
def test_quick_reply_notes_are_read(
    key: str, notes: str, expected: str | None, client: str
) -> None:
    assert _reading(*_sent(key, notes, client)) == expected


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != "en"])
@pytest.mark.parametrize(("key", "notes", "expected"), CORPUS)
def test_notes_under_a_prompt_in_the_lawyers_language_are_read_alike(
    key: str, notes: str, expected: str | None, language: str
) -> None:
    # The link's prompt is written in the lawyer's language: it is the gateway's words
    # whatever the language, never notes of the lawyer's (which would make a plain
    # APPROVE conditional, or hide what was typed under it).
    links = _links_in(language)
    assert _opened(key, links)[1] != _opened(key)[1]  # the prompt is translated
    assert _reading(*_sent(key, notes, "gmail", links=links)) == expected


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_an_untouched_link_in_any_language_is_its_keyword_alone(language: str) -> None:
    links = _links_in(language)
    for key, link in links.items():
        subject, body = _sent(key, "", "iphone", links=links)
        decision = read_decision(extract_reply(body, None).new_text, subject)
        if key == "approve_with_conditions":
            # It promised conditions and gave none: no decision.
            assert decision.kind is None, language
            continue
        assert (decision.read_from, decision.because) == ("quick_reply", link.reply.keyword)
        assert decision.conditions == ()


def test_notes_typed_on_the_prompt_line_are_read() -> None:
    subject, body = _sent(
        "approve", "only if the amount stays under EUR 50,000.", "gmail", same_line=True
    )
    decision = read_decision(extract_reply(body, None).new_text, subject)
    assert decision.kind is DecisionKind.APPROVAL
    assert decision.conditions == ("only if the amount stays under EUR 50,000.",)
    assert decision.read_from == "keyword"  # typed text: not the untouched keyword


def test_an_untouched_keyword_is_read_from_the_quick_reply() -> None:
    subject, body = _sent("approve", "", "iphone")
    decision = read_decision(extract_reply(body, None).new_text, subject)
    assert (decision.kind, decision.read_from, decision.because) == (
        DecisionKind.APPROVAL,
        "quick_reply",
        "APPROVE",
    )


# Short notes whose language is taken for a neighbour's: the hold-back is still read.
MISTAKEN_LANGUAGE = [
    "批准。其余部分推迟。",  # taken for Japanese
    "Akkoord; over de rest denk ik nog na.",  # taken for Danish
    "Godkänt, men pausa resten.",  # taken for Finnish
    "Aprobado; lo del resto lo pienso.",  # taken for Italian
]


@pytest.mark.parametrize("notes", MISTAKEN_LANGUAGE)
def test_a_hold_back_under_approve_is_read_whatever_language_the_notes_are_taken_for(
    notes: str,
) -> None:
    for client in _CLIENTS:
        assert _reading(*_sent("approve", notes, client)) is None, client


def test_listed_conditions_are_quoted_on_the_receipt_after_their_keyword() -> None:
    # The receipt says "read this way because you wrote: ... (a decision word)": the
    # quote starts with the keyword that decided, not with the first condition.
    items = "- liability shall not exceed EUR 1M\n- data breaches carved out"
    subject, body = _sent("approve_with_conditions", items, "gmail")
    decision = read_decision(extract_reply(body, None).new_text, subject)
    assert decision.conditions == ("liability shall not exceed EUR 1M", "data breaches carved out")
    assert decision.because is not None
    assert decision.because.startswith("APPROVE WITH CONDITIONS: - liability")
    assert decision.because.endswith("- data breaches carved out")


def test_a_blank_approve_with_conditions_records_no_condition() -> None:
    subject, body = _sent("approve_with_conditions", "", "gmail")
    decision = read_decision(extract_reply(body, None).new_text, subject)
    assert decision.kind is None and decision.conditions == ()
    assert "WITH CONDITIONS" not in decision.conditions


def test_the_reader_knows_every_link_keyword_and_prompt() -> None:
    for reply in QUICK_REPLIES:
        assert reply.keyword in NEUTRAL_KEYWORDS
        assert PROMPTS[reply.keyword] == reply.prompt.split("\n")[0]


@pytest.mark.parametrize(
    "subject",
    [
        "Re: Please approve the payment",
        "Re: [HFA-00027] Approve: release EUR 62,000",
        "Re: APPROVE the payment [HFA-00027]",
        "Approved",
        "Fwd: APPROVE",
    ],
)
def test_no_other_subject_decides(subject: str) -> None:
    assert subject_keyword(subject) is None
    assert read_decision("", subject).kind is None
    assert read_decision("Thanks, will look tomorrow.", subject).kind is None


def test_a_link_whose_keyword_was_overwritten_is_unclear() -> None:
    subject, _body = _opened("approve")
    decision = read_decision("REJECT\n\nwrong button, do not pay", subject)
    assert decision.kind is None and decision.ambiguous
