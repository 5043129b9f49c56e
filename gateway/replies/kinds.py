"""What a reading of a reply gives: the decision, where it came from, and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal


class DecisionKind(enum.StrEnum):
    APPROVAL = "approval"
    REJECTION = "rejection"
    DECLINE = "decline"
    QUESTION = "question"
    CLOSE = "close"
    # "I'M ON IT": read, not answered; the quick-reply link fills it in.
    ACKNOWLEDGE = "acknowledgement"


# The lexicon's names for the kinds.
KIND = {
    "approve": DecisionKind.APPROVAL,
    "reject": DecisionKind.REJECTION,
    "decline": DecisionKind.DECLINE,
    "question": DecisionKind.QUESTION,
    "close": DecisionKind.CLOSE,
    "acknowledge": DecisionKind.ACKNOWLEDGE,
}

ReadFrom = Literal["quick_reply", "keyword", "phrase", "yes_no", "action_verb"]
YesNo = Literal["yes", "no"]


@dataclass(frozen=True)
class Decision:
    """The decision (None when there is none) and the words that triggered it.

    ``ambiguous`` is set when decision words were found but conflict, are
    negated, held back or taken back: the reply is then recorded with no
    decision, as read but not answered either way. ``conditions`` is non-empty
    for an approval with conditions: never treat it as a bare approval.
    """

    kind: DecisionKind | None
    trigger: str | None = None
    ambiguous: bool = False
    conditions: tuple[str, ...] = ()
    # Where the decision came from: "quick_reply" (an answer link's keyword with nothing
    # typed under its prompt: it may act at once), "keyword" (a decision word of the
    # tables, or a link's keyword with notes typed under it), "phrase" (a natural
    # statement such as "No objection") or "yes_no" (a yes/no to an ask that is whether
    # to carry out the proposed action). None when nothing was decided.
    read_from: ReadFrom | None = None
    # The lawyer's own words that decided it (or that made it no decision), quoted
    # back in the receipt as "because you wrote: ...".
    because: str | None = None
    # A bare yes/no answers the ask; it becomes a decision only through
    # ``decide_answer``, where the ask is whether to carry out the action.
    answer: YesNo | None = None
    # The language the decision was read in (ISO 639-1), where one was identified.
    language: str | None = None


@dataclass(frozen=True)
class Ask:
    """What the lawyer was asked: the request's text and the proposed action, if any."""

    request: str
    proposed_action: str | None = None
    # The request's reference ("HFA-00012"): an answer naming another one is doubtful.
    reference: str | None = None


NO_DECISION = Decision(None)
