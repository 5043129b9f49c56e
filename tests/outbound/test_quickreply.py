"""Quick-reply links: RFC 6068 encoding, and the reply parser reads what they fill in."""

from __future__ import annotations

from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from gateway import i18n
from gateway.outbound.quickreply import QUICK_REPLIES, QuickReply, links_for, mailto
from gateway.replies import DecisionKind, read_decision
from gateway.replies.prompts import conditions_in, without_unanswered_prompt

ADDRESS = "reply+aeaaaaaaaaaaaakg4v4a@hfa.example"
EXPECTED = {
    "approve": DecisionKind.APPROVAL,
    "approve_with_conditions": DecisionKind.APPROVAL,
    "reject": DecisionKind.REJECTION,
    "question": DecisionKind.QUESTION,
    "decline": DecisionKind.DECLINE,
    "acknowledge": DecisionKind.ACKNOWLEDGE,
}


def opened(url: str) -> tuple[str, str, str]:
    """(address, subject, body) as a mail client reads an RFC 6068 URL."""
    parts = urlsplit(url)
    assert parts.scheme == "mailto"
    query = parse_qs(parts.query, keep_blank_values=True)
    return unquote(parts.path), query["subject"][0], query["body"][0]


def test_links_are_rfc_6068_encoded() -> None:
    url = mailto(ADDRESS, "APPROVE: “Zahlung an Müller & Co?” [HFA-00001]", "a b\nc=d&e")
    assert url.startswith(f"mailto:{ADDRESS}?subject=")
    query = url.split("?", 1)[1]
    # Space is %20, never "+"; & and = inside values are encoded; line breaks are CRLF.
    assert "+" not in query and " " not in query
    assert "%20" in query and "%26" in query and "%3D" in query and "%0D%0A" in query
    assert "%E2%80%9C" in query and "M%C3%BCller" in query
    address, subject, body = opened(url)
    assert address == ADDRESS
    assert subject == "APPROVE: “Zahlung an Müller & Co?” [HFA-00001]"
    assert body == "a b\r\nc=d&e"


@pytest.mark.parametrize("reply", QUICK_REPLIES, ids=[r.key for r in QUICK_REPLIES])
def test_each_link_is_read_as_the_decision_it_names(reply: QuickReply) -> None:
    links = {link.reply.key: link for link in links_for(ADDRESS, "HFA-00001")}
    link = links[reply.key]
    _address, subject, body = opened(link.url)
    decision = read_decision(body.replace("\r\n", "\n"), subject)
    if link.reply.key == "approve_with_conditions":
        # Sent as opened, it promises conditions it does not give: no decision.
        assert decision.kind is None and decision.ambiguous
        assert read_decision("", subject).kind is None
        return
    assert decision.kind is EXPECTED[link.reply.key]
    assert not decision.ambiguous
    assert decision.read_from == "quick_reply"
    # The subject alone and the body alone each carry the same decision.
    assert read_decision("", subject).kind is EXPECTED[link.reply.key]
    assert read_decision(body.replace("\r\n", "\n"), None).kind is EXPECTED[link.reply.key]


def test_what_the_lawyer_writes_under_the_prompt_cannot_change_the_decision() -> None:
    link = next(
        k for k in links_for(ADDRESS, "HFA-00001") if k.reply.key == "approve_with_conditions"
    )
    _address, subject, body = opened(link.url)
    filled = body.replace("\r\n", "\n").replace(
        "- \n- ", "- only the business addresses\n- reject clause 9.3 as drafted"
    )
    decision = read_decision(filled, subject)
    assert decision.kind is DecisionKind.APPROVAL
    assert conditions_in(filled) == ["only the business addresses", "reject clause 9.3 as drafted"]


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_a_prompt_in_any_language_heads_the_conditions_and_goes_when_left_empty(
    language: str,
) -> None:
    with i18n.speaking(language):
        links = {k.reply.key: k for k in links_for(ADDRESS, "HFA-00001")}
    _address, _subject, body = opened(links["approve_with_conditions"].url)
    untouched = body.replace("\r\n", "\n")
    assert without_unanswered_prompt(untouched).strip() == "APPROVE WITH CONDITIONS"
    filled = untouched.replace("- \n- ", "- cap liability at 12 months\n- delete 9.3")
    assert conditions_in(filled) == ["cap liability at 12 months", "delete 9.3"]
    _address, _subject, body = opened(links["approve"].url)
    assert without_unanswered_prompt(body.replace("\r\n", "\n")).strip() == "APPROVE"
