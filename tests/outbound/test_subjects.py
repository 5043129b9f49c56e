"""Subjects keep the agent's words; a quick-reply subject carries exactly its keyword.

An ask's verb is what says what is asked, so no word of it is cut out: the
gist is only shortened at a word boundary. A quick-reply subject carries
exactly its own keyword's decision.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gateway.outbound.quickreply import QUICK_REPLIES, quick_subject
from gateway.outbound.subjects import MAX_SUBJECT, Tags, gist, shorten, subject
from gateway.replies import DecisionKind, read_decision

LEXICON = Path(__file__).resolve().parents[2] / "gateway" / "replies" / "lexicon"
KEYS = ("approve", "reject", "decline", "question", "close", "acknowledge", "yes", "no")
PREFIXES = (
    "",
    "Reminder 3 (overdue): ",
    "Escalated to you: ",
    "Withdrawn, no answer needed: ",
    "Closed, no answer needed: ",
    "Deadline passed: ",
    "Answered by another lawyer: ",
    "Recorded: your reply (no decision): ",
    "Follow-up from the agent: ",
)
EXPECTED = {
    "approve": DecisionKind.APPROVAL,
    "approve_with_conditions": DecisionKind.APPROVAL,
    "reject": DecisionKind.REJECTION,
    "question": DecisionKind.QUESTION,
    "decline": DecisionKind.DECLINE,
    "acknowledge": DecisionKind.ACKNOWLEDGE,
}


def phrases() -> list[str]:
    found: set[str] = set()
    for path in sorted(LEXICON.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for key in KEYS:
            found.update(str(p) for p in data.get(key, []))
    return sorted(found)


def asks(phrase: str) -> list[str]:
    return [
        f"{phrase}",
        f"{phrase.upper()}: pay the supplier's new IBAN?",
        f"“{phrase}” - sign the NDA",
        f"Review the NDA, then {phrase} it",
        f"[HFA-00009] {phrase} - Re: {phrase}",
    ]


def test_the_lexicon_is_found() -> None:
    assert len(phrases()) > 200


def test_quick_reply_subjects_carry_only_the_keyword_and_the_reference() -> None:
    # A "not" or "without" in the agent's ask next to APPROVE would veto the approval.
    for reply in QUICK_REPLIES:
        line = quick_subject(reply.keyword, "HFA-00001")
        assert line == f"{reply.keyword} [HFA-00001]"
        approving = reply.key in ("approve", "approve_with_conditions")
        for body in ("", f"{reply.keyword}\n\nDo not pay without a call-back first."):
            decision = read_decision(body, line)
            if approving and (body or reply.key == "approve_with_conditions"):
                # What is typed under an approval link is read: this note holds it back.
                assert decision.kind is None and decision.ambiguous, (line, body, decision)
                continue
            assert decision.kind is EXPECTED[reply.key], (line, body, decision)
            assert not decision.ambiguous


ISSUE_ASKS = {
    "Is clause 7 (limitation of liability) acceptable for us as the supplier?": (
        "acceptable for us"
    ),
    "Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH.": (
        "Please confirm the payment"
    ),
    "May we accept Zoom's updated Terms of Service for the sales team?": "May we accept Zoom's",
    "Please approve the payment of EUR 62,000.00": "Please approve the payment",
    "Should I decline the settlement offer of EUR 20,000?": "Should I decline the settlement",
}


@pytest.mark.parametrize(("ask", "kept"), sorted(ISSUE_ASKS.items()))
def test_a_subject_keeps_the_asks_words_and_its_verb(ask: str, kept: str) -> None:
    for prefix in PREFIXES:
        tags = Tags("BLOCKING", "due Fri 4 Dec") if not prefix else None
        line = subject(prefix, ask, "HFA-00001", tags)
        assert len(line) <= MAX_SUBJECT
        quoted = line.split("“", 1)[1].split("”", 1)[0]
        # The quoted words are the agent's, in order: an aside or the end may give way.
        for part in quoted.removesuffix("…").split(" (…)"):
            assert part in ask, (prefix, line)
        if not prefix:
            assert kept in line, line


def test_a_gist_is_shortened_at_a_word_boundary_with_an_ellipsis() -> None:
    ask = "Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH today"
    assert shorten(ask, 30) == "Please confirm the payment of…"
    assert gist("[HFA-00009] Re: May we sign?") == "May we sign?"
    aside = "Is clause 7 (limitation of liability) acceptable for us as the supplier?"
    assert shorten(aside, 50) == "Is clause 7 (…) acceptable for us as the supplier?"


def test_a_preheader_keeps_the_asks_verb() -> None:
    assert gist("Please approve the payment of EUR 62,000.00") == (
        "Please approve the payment of EUR 62,000.00"
    )
