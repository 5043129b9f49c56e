"""What a reading of a reply gives: the decision, where it came from, and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Literal

from gateway.errors import ReplyError


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


ReadingKind = Literal[
    "approval",
    "conditional_approval",
    "rejection",
    "decline",
    "question",
    "close",
    "acknowledgement",
    "reply",
    "no_answer",
]
# A reply that decides nothing: kept on the record, never an answer either way.
UNDECIDED: frozenset[str] = frozenset({"reply", "no_answer"})
APPROVING: frozenset[str] = frozenset({"approval", "conditional_approval"})

KIND_OF: dict[DecisionKind, ReadingKind] = {
    DecisionKind.APPROVAL: "approval",
    DecisionKind.REJECTION: "rejection",
    DecisionKind.DECLINE: "decline",
    DecisionKind.QUESTION: "question",
    DecisionKind.CLOSE: "close",
    DecisionKind.ACKNOWLEDGE: "acknowledgement",
}


@dataclass(frozen=True)
class TextReading:
    """What the text alone says: the lawyer's words, what was cut, the decision read."""

    new_text: str
    said: str
    cut: tuple[str, ...]
    decision: Decision
    listed: tuple[str, ...]
    says_nothing: bool


@dataclass(frozen=True)
class Reading:
    """The one reading of a reply.

    ``kind`` is the turn's kind once in effect. ``conditions`` is non-empty exactly
    when the kind is ``conditional_approval``. ``read_from`` is None exactly when the
    kind decides nothing (``reply``, ``no_answer``). ``unclear`` marks decision words
    that conflict, are negated, held back or taken back: no decision either way.
    """

    kind: ReadingKind
    conditions: tuple[str, ...] = ()
    read_from: ReadFrom | None = None
    because: str | None = None
    trigger: str | None = None
    answer: YesNo | None = None
    language: str | None = None
    unclear: bool = False
    said: str = ""
    cut: tuple[str, ...] = ()
    # The agent's choice the reply picks, exactly as the agent wrote it (``choice.py``).
    choice: str | None = None
    # A limit among the conditions that the proposed action exceeds (``exceeds.py``).
    exceeds: str | None = None

    def __post_init__(self) -> None:
        if bool(self.conditions) != (self.kind == "conditional_approval"):
            raise ReplyError(f"conditions on a {self.kind} reading")
        if (self.read_from is None) != (self.kind in UNDECIDED):
            raise ReplyError(f"read_from {self.read_from!r} on a {self.kind} reading")

    @property
    def decides(self) -> bool:
        return self.kind not in UNDECIDED

    @property
    def decision(self) -> str | None:
        """The decision as the thread names it: ``approval`` for both kinds of approval."""
        if self.kind in UNDECIDED:
            return None
        return "approval" if self.kind in APPROVING else self.kind

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "decision": self.decision,
            "conditions": list(self.conditions),
            "read_from": self.read_from,
            "because": self.because,
            "answer": self.answer,
            "language": self.language,
            "unclear": self.unclear,
            "cut": list(self.cut),
            "choice": self.choice,
            "exceeds": self.exceeds,
        }
