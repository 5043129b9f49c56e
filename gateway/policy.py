"""Approval policies: who must approve a request, and what their votes add up to.

A policy is one or more steps taken in order (``then``); a step is met when
each of its groups has its count of approvals (``2 of legal + 1 of finance``);
a rejection either ends it at once (``veto``, the default) or is counted until
the step can no longer be met (``wait``). Everything here is pure: the votes
come in, in the order they were cast, and the outcome comes out.

The outcome is decided by the first vote after which the policy is met or can
no longer be met, and it stands: a later or changed vote is kept and shown,
and flagged as a conflict when it disagrees, but never changes it (the agent
may already have acted on it). Before that, a person's later vote replaces
their earlier one. ``settings.policies`` reads the rules from settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

APPROVE = "approve"
REJECT = "reject"
# A log entry that is no vote: the deadline passed with the policy unmet.
EXPIRE = "expire"

PENDING = "pending"
APPROVED = "approved"
APPROVED_WITH_CONDITIONS = "approved_with_conditions"
REJECTED = "rejected"
EXPIRED = "expired"
OUTCOMES = (PENDING, APPROVED, APPROVED_WITH_CONDITIONS, REJECTED, EXPIRED)


@dataclass(frozen=True)
class Group:
    """``need`` approvals from distinct ``members``; ``need`` None means all of them."""

    members: tuple[str, ...]
    need: int | None = 1
    name: str = ""

    @property
    def required(self) -> int:
        return len(self.members) if self.need is None else self.need

    def text(self) -> str:
        count = "all" if self.need is None else "any" if self.need == 1 else str(self.need)
        return f"{count} of {self.name or ','.join(self.members)}"


@dataclass(frozen=True)
class Step:
    groups: tuple[Group, ...]
    # Seconds this step may take from when it starts; None: only the request's deadline.
    within: float | None = None

    @property
    def members(self) -> tuple[str, ...]:
        return _unique(m for g in self.groups for m in g.members)

    def text(self) -> str:
        rule = " + ".join(g.text() for g in self.groups)
        return rule if self.within is None else f"{rule} within {_duration(self.within)}"


@dataclass(frozen=True)
class Policy:
    steps: tuple[Step, ...]
    veto: bool = True

    @property
    def approvers(self) -> tuple[str, ...]:
        return _unique(m for s in self.steps for m in s.members)

    def text(self) -> str:
        return " then ".join(s.text() for s in self.steps) + (" veto" if self.veto else " wait")

    def with_extra_approvers(self, extra: Sequence[str]) -> Policy:
        """The policy plus ``all of`` the agent's own approvers in its first step: more
        approvals are needed, never fewer."""
        extra = _unique(a.lower() for a in extra)
        if not extra:
            return self
        first = self.steps[0]
        grown = Step((*first.groups, Group(extra, None, "the agent's approvers")), first.within)
        return Policy((grown, *self.steps[1:]), self.veto)


def any_of(addresses: Sequence[str]) -> Policy:
    """Today's rule and the default: any one of the lawyers decides."""
    return Policy((Step((Group(_unique(addresses), 1),)),), veto=True)


@dataclass(frozen=True)
class Vote:
    """One entry of a request's vote log, in the order it was cast."""

    person: str  # the approver it counts for
    decision: str  # approve | reject | expire
    at: str = ""
    by: str = ""  # who sent it: the person, one of their addresses, or their delegate
    conditions: tuple[str, ...] = ()

    def shown(self) -> dict[str, object]:
        shown: dict[str, object] = {"who": self.person, "at": self.at}
        if self.by and self.by != self.person:
            shown["by"] = self.by
        shown["conditions"] = list(self.conditions)
        return shown


@dataclass(frozen=True)
class Evaluation:
    outcome: str
    # The step being waited on (index), or len(steps) once the policy is met.
    step: int = 0
    waiting_for: tuple[str, ...] = ()
    # Each person's latest vote, in the order they voted.
    approvals: tuple[Vote, ...] = ()
    rejections: tuple[Vote, ...] = ()
    conditions: tuple[str, ...] = ()
    conflict: bool = False
    # How many log entries it took to decide (0 while pending).
    decided_after: int = 0

    @property
    def decided(self) -> bool:
        return self.outcome != PENDING


def evaluate(policy: Policy, log: Sequence[Vote]) -> Evaluation:
    """The outcome of ``policy`` over its vote ``log``, oldest first."""
    approvers = set(policy.approvers)
    counted: dict[str, Vote] = {}
    latest: dict[str, Vote] = {}
    outcome, step, decided_after = PENDING, 0, 0
    conditions: tuple[str, ...] = ()
    for index, vote in enumerate(log, 1):
        if vote.decision == EXPIRE:
            if outcome == PENDING:
                outcome, decided_after = EXPIRED, index
            continue
        if vote.person not in approvers or vote.decision not in (APPROVE, REJECT):
            continue
        latest.pop(vote.person, None)
        latest[vote.person] = vote
        if outcome != PENDING:
            continue
        counted[vote.person] = vote
        outcome, step = _decide(policy, counted)
        if outcome != PENDING:
            decided_after = index
            conditions = _conditions(counted.values()) if outcome == APPROVED else ()
            if conditions:
                outcome = APPROVED_WITH_CONDITIONS
    waiting = _waiting(policy, step, counted) if outcome == PENDING else ()
    approvals = tuple(v for v in latest.values() if v.decision == APPROVE)
    rejections = tuple(v for v in latest.values() if v.decision == REJECT)
    return Evaluation(
        outcome=outcome,
        step=step,
        waiting_for=waiting,
        approvals=approvals,
        rejections=rejections,
        conditions=conditions,
        conflict=_conflict(outcome, approvals, rejections),
        decided_after=decided_after,
    )


def _decide(policy: Policy, counted: Mapping[str, Vote]) -> tuple[str, int]:
    """(outcome, step being waited on) after the votes counted so far."""
    for index, step in enumerate(policy.steps):
        members = step.members
        rejecting = {m for m in members if m in counted and counted[m].decision == REJECT}
        approving = {m for m in members if m in counted and counted[m].decision == APPROVE}
        if policy.veto and rejecting:
            return REJECTED, index
        if not can_meet(step, set(members) - rejecting):
            return REJECTED, index
        if not can_meet(step, approving):
            return PENDING, index
    return APPROVED, len(policy.steps)


def can_meet(step: Step, approving: set[str]) -> bool:
    """Can ``approving`` fill every group's count, each person counted in one group only?

    A bipartite matching of people to the groups' places (Kuhn's augmenting paths):
    a person in two groups counts for one of them, never both.
    """
    if any(g.required > len(g.members) for g in step.groups):
        return False
    places = [g for g in step.groups for _ in range(g.required)]
    taken: dict[int, str] = {}

    def place(person: str, seen: set[int]) -> bool:
        for slot, group in enumerate(places):
            if slot in seen or person not in group.members:
                continue
            seen.add(slot)
            if slot not in taken or place(taken[slot], seen):
                taken[slot] = person
                return True
        return False

    for person in sorted(approving):
        place(person, set())
    return len(taken) == len(places)


def _waiting(policy: Policy, step: int, counted: Mapping[str, Vote]) -> tuple[str, ...]:
    if step >= len(policy.steps):
        return ()
    return tuple(m for m in policy.steps[step].members if m not in counted)


def _conditions(votes: Iterable[Vote]) -> tuple[str, ...]:
    """Every condition of every approval counted, each once: the agent is bound by all."""
    return _unique(c for v in votes if v.decision == APPROVE for c in v.conditions)


def _conflict(outcome: str, approvals: Sequence[Vote], rejections: Sequence[Vote]) -> bool:
    if outcome in (APPROVED, APPROVED_WITH_CONDITIONS):
        return bool(rejections)
    if outcome == REJECTED:
        return bool(approvals)
    return False


def as_object(policy: Policy, evaluation: Evaluation) -> dict[str, object]:
    """The ``policy`` object an agent reads: rule, votes, who is awaited, outcome."""
    return {
        "rule": policy.text(),
        "approvers": list(policy.approvers),
        "step": min(evaluation.step + 1, len(policy.steps)),
        "steps": len(policy.steps),
        "approvals": [v.shown() for v in evaluation.approvals],
        "rejections": [v.shown() for v in evaluation.rejections],
        "waiting_for": list(evaluation.waiting_for),
        "conditions": list(evaluation.conditions),
        "conflict": evaluation.conflict,
        "outcome": evaluation.outcome,
    }


def tally(policy: Policy, evaluation: Evaluation, voter: str) -> str:
    """One line for a receipt: "2 of 3 approvals needed; you are the first; waiting for ..."."""
    if evaluation.step >= len(policy.steps) or evaluation.decided:
        return _decided_line(evaluation)
    step = policy.steps[evaluation.step]
    needed = sum(g.required for g in step.groups)
    rule = f"{needed} of {len(step.members)} approvals needed"
    if len(policy.steps) > 1:
        rule = f"step {evaluation.step + 1} of {len(policy.steps)}: {rule}"
    approvals = [v.person for v in evaluation.approvals if v.person in step.members]
    place = ""
    if voter in approvals:
        place = f"; you are the {_ordinal(approvals.index(voter) + 1)}"
    waiting = ", ".join(_short(a) for a in evaluation.waiting_for) or "nobody"
    return f"{rule}{place}; waiting for {waiting}"


def _decided_line(evaluation: Evaluation) -> str:
    line = f"outcome: {evaluation.outcome.replace('_', ' ')}"
    if evaluation.conflict:
        line += " (with conflicting votes, all on the record)"
    return line


_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def _ordinal(n: int) -> str:
    return _ORDINALS[n - 1] if n <= len(_ORDINALS) else f"{n}th"


def _short(address: str) -> str:
    """``partner@firm.test`` -> ``partner@``: enough to tell colleagues apart."""
    return address.partition("@")[0] + "@"


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def to_json(policy: Policy) -> dict[str, object]:
    """The policy as stored with a request, so a later change of settings leaves it be."""
    return {
        "veto": policy.veto,
        "steps": [
            {
                "within": s.within,
                "groups": [
                    {"members": list(g.members), "need": g.need, "name": g.name} for g in s.groups
                ],
            }
            for s in policy.steps
        ],
    }


def from_json(data: Mapping[str, object]) -> Policy:
    steps = data.get("steps")
    assert isinstance(steps, list)
    return Policy(
        tuple(
            Step(
                tuple(
                    Group(tuple(g["members"]), g["need"], g.get("name", "")) for g in step["groups"]
                ),
                step.get("within"),
            )
            for step in steps
        ),
        bool(data.get("veto", True)),
    )


_VOTE_SCHEMA: dict[str, object] = {
    "type": "object",
    "required": ["who", "at", "conditions"],
    "properties": {
        "who": {"type": "string", "description": "The approver the vote counts for."},
        "by": {
            "type": "string",
            "description": "Who sent it, when not the approver's own address (their delegate).",
        },
        "at": {"type": "string", "format": "date-time"},
        "conditions": {"type": "array", "items": {"type": "string"}},
    },
}
# The ``policy`` object on the opening request turn of check_request_status.
POLICY_SCHEMA: dict[str, object] = {
    "type": "object",
    "description": "The approval policy of the request and where it stands. On the opening "
    "`request` turn: the status object itself takes no other keys.",
    "required": ["rule", "approvals", "rejections", "waiting_for", "outcome"],
    "properties": {
        "rule": {"type": "string", "description": "e.g. '2 of a@x,b@x,c@x veto'."},
        "approvers": {"type": "array", "items": {"type": "string"}},
        "step": {"type": "integer", "description": "The step being waited on (1-based)."},
        "steps": {"type": "integer"},
        "approvals": {"type": "array", "items": _VOTE_SCHEMA},
        "rejections": {"type": "array", "items": _VOTE_SCHEMA},
        "waiting_for": {"type": "array", "items": {"type": "string"}},
        "conditions": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Every condition of the approvals that met the policy.",
        },
        "conflict": {
            "type": "boolean",
            "description": "Some votes disagree with the outcome; all are on the record.",
        },
        "outcome": {"type": "string", "enum": list(OUTCOMES)},
    },
}
