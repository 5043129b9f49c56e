"""No subject the gateway writes reads as a decision, whatever the agent's ask says.

Every decision phrase of every language the reply parser knows is put into an
agent's ask; the subjects of every kind of email, and the same subjects replied
to ("Re: ..."), must carry no decision; a quick-reply subject carries exactly its
own keyword's.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gateway.outbound.quickreply import QUICK_REPLIES, quick_subject
from gateway.outbound.subjects import MAX_SUBJECT, Tags, subject
from gateway.replies import DecisionKind, read_decision

LEXICON = Path(__file__).resolve().parents[2] / "gateway" / "replies" / "lexicon"
KEYS = ("approve", "reject", "decline", "question", "close", "acknowledge", "yes", "no")
PREFIXES = (
    "",
    "Reminder 3 (overdue): ",
    "Escalated to you: ",
    "Withdrawn - no answer needed: ",
    "Request closed - no answer needed: ",
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


@pytest.mark.parametrize("start", range(0, 26))
def test_no_gateway_subject_reads_as_a_decision(start: int) -> None:
    every = phrases()
    chunk = every[start * len(every) // 26 : (start + 1) * len(every) // 26]
    for phrase in chunk:
        for ask in asks(phrase):
            for prefix in PREFIXES:
                tags = Tags("BLOCKING", "due 4 Dec") if not prefix else None
                line = subject(prefix, ask, "HFA-00001", tags)
                assert len(line) <= MAX_SUBJECT
                for seen in (line, "Re: " + line):
                    decision = read_decision("", seen)
                    assert decision.kind is None, (phrase, seen, decision)
