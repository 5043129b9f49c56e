"""A human turn counted as a vote under the request's approval policy.

``cast_vote`` is called once a human turn is on the thread; what it returns
decides the status change, who is told and whether the agent gets a push: an
approval or rejection is a vote, anything else (a decline, I'M ON IT, a
question, a reply with no decision) counts as neither and changes no tally.
The outcome is told and pushed only by the vote that reached it, under the
request's row lock (``store.votes``), so exactly once.

``expire`` ends a pending policy whose time ran out; ``absence`` handles an
approver who is away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import policy as rules
from gateway.contract import APPROVAL_KINDS
from gateway.inbound.reply import Answer
from gateway.outbound import outbox
from gateway.outbound.closing import Push, Tell, close_request
from gateway.outbound.tell import tell_thread
from gateway.services import Services
from gateway.store.models import Recipient, Request, Turn
from gateway.store.thread import add_turn
from gateway.store.votes import Cast, cast, standing, steps_overdue

_VOTES = {**dict.fromkeys(APPROVAL_KINDS, rules.APPROVE), "rejection": rules.REJECT}


@dataclass(frozen=True)
class Counted:
    """What a human turn did to the policy: ``cast`` is None when it was no vote."""

    cast: Cast | None
    person: str = ""
    # Not a vote, on a request with more than one approver.
    several: bool = False
    # A yes or no from someone the policy does not count (kept, told to the agent).
    outsider: Cast | None = None

    def status(self, proposed: str, current: str) -> str:
        """The request's status after this turn (``proposed``: what the turn alone says)."""
        if self.outsider is not None:
            # Decides nothing: never answers the request, never takes an answer back.
            return current if current == "answered" else "reviewed"
        if self.cast is None:
            # One approver's decline leaves the others' answers still to come.
            return "reviewed" if proposed == "declined" and self.several else proposed
        if self.cast.reached_now:
            return "answered"
        # A vote that leaves it pending is read, not answered; one after the outcome
        # is kept and changes nothing.
        return "reviewed" if not self.cast.evaluation.decided else current

    @property
    def pushes(self) -> bool:
        """The agent hears of this turn: any non-vote as before, a vote only when it
        decided the outcome or disagrees with one already reached."""
        return self.cast is None or self.cast.reached_now or self.late_conflict

    @property
    def tells_others(self) -> bool:
        """The others are stood down only when the outcome is reached."""
        return self.cast is not None and self.cast.reached_now

    @property
    def late_conflict(self) -> bool:
        """A vote after the outcome that disagrees with it."""
        if self.cast is None or self.cast.reached_now or not self.cast.evaluation.decided:
            return False
        approving = self.cast.evaluation.outcome.startswith(rules.APPROVED)
        mine = [v for v in self.cast.evaluation.rejections if v.person == self.person]
        theirs = [v for v in self.cast.evaluation.approvals if v.person == self.person]
        return bool(mine) if approving else bool(theirs)

    def policy(self) -> dict[str, object] | None:
        state = self.cast or self.outsider
        return state.as_object() if state is not None else None

    def tally(self) -> str:
        """The receipt's line on the policy, when more than one person may vote."""
        if self.outsider is not None:
            rule = self.outsider.policy.text()
            return f"not counted: you are not an approver under its rule ({rule})"
        if self.cast is None or len(self.cast.policy.approvers) < 2:
            return ""
        return rules.tally(self.cast.policy, self.cast.evaluation, self.person)

    def tally_parts(self) -> dict[str, object]:
        """What ``tally`` says, as values, for the receipt to say in the lawyer's language."""
        if self.outsider is not None:
            return {"kind": "not_counted", "rule": self.outsider.policy.text()}
        if self.cast is None or len(self.cast.policy.approvers) < 2:
            return {}
        policy, evaluation = self.cast.policy, self.cast.evaluation
        if evaluation.step >= len(policy.steps) or evaluation.decided:
            return {
                "kind": "outcome",
                "outcome": evaluation.outcome,
                "conflict": evaluation.conflict,
            }
        step = policy.steps[evaluation.step]
        approvals = [v.person for v in evaluation.approvals if v.person in step.members]
        return {
            "kind": "count",
            "needed": sum(g.required for g in step.groups),
            "of": len(step.members),
            "step": evaluation.step + 1 if len(policy.steps) > 1 else 0,
            "steps": len(policy.steps),
            "place": approvals.index(self.person) + 1 if self.person in approvals else 0,
            "waiting": [a.partition("@")[0] + "@" for a in evaluation.waiting_for],
        }


def cast_vote(services: Services, session: Session, answer: Answer) -> Counted:
    """Count the answer's turn (already on the thread) under the request's policy."""
    request, recipient, turn, now = answer.request, answer.recipient, answer.turn, answer.at
    decision = _VOTES.get(turn.kind)
    if decision is None or turn.data.get("decision_unclear") or turn.data.get("late"):
        several = len(standing(session, request.id, now).policy.approvers) > 1
        return Counted(None, recipient.address, several)
    counted_as = cast(
        session,
        request.id,
        address=recipient.address,
        voter=str(turn.data.get("from") or recipient.address),
        decision=decision,
        at=now,
        conditions=[str(c) for c in turn.data.get("conditions") or ()],
        turn_id=turn.id,
        escalated=recipient.role == "escalation",
    )
    if counted_as.person not in counted_as.policy.approvers:
        # Recorded in the log, counted for nobody: to the agent it is a reply like any other.
        return Counted(None, counted_as.person, True, counted_as)
    counted = Counted(counted_as, counted_as.person)
    _mark_on_thread(services, session, request, counted, now)
    if counted.late_conflict:
        _tell_objection(services, session, request, recipient, turn, counted, now)
    elif counted_as.reached_now and "held_turn" in turn.data and _needs_several(counted_as.policy):
        # The deciding answer waited out its window: its receipt went out before the
        # outcome, so this lawyer gets the outcome email like everyone else.
        outbox.enqueue_lawyer_email(
            services,
            session,
            request,
            recipient,
            purpose="answered_by_other",
            at=now,
            payload={"who": counted.person, "outcome": counted.policy()},
        )
    return counted


def _mark_on_thread(
    services: Services, session: Session, request: Request, counted: Counted, now: datetime
) -> None:
    """A system turn for what the votes add up to, when more than one vote was needed
    or they disagree; the next step's approvers asked when one step is met."""
    state = counted.cast
    assert state is not None
    evaluation = state.evaluation
    if state.reached_now and (_needs_several(state.policy) or evaluation.conflict):
        _policy_turn(session, request, "policy_outcome", now, _outcome_text(state), state)
    elif counted.late_conflict:
        body = (
            f"Conflicting vote: {counted.person} disagrees with the outcome "
            f"({evaluation.outcome.replace('_', ' ')}), reached earlier. The outcome stands; "
            "both are on the record, and every approver has been told of the objection."
        )
        _policy_turn(session, request, "policy_conflict", now, body, state)
    if not evaluation.decided and evaluation.step > state.step_before:
        ask_step(services, session, request, state.policy.steps[evaluation.step].members, now)


def _policy_turn(
    session: Session,
    request: Request,
    kind: str,
    now: datetime,
    body: str,
    state: Cast,
    not_answered: list[str] | None = None,
) -> None:
    """A system turn saying what the votes came to, with the policy's standing as data."""
    data: dict[str, object] = {"policy": state.as_object()}
    if not_answered is not None:
        data["not_answered"] = not_answered
    add_turn(session, request, author="system", kind=kind, at=now, body=body, data=data)


def _tell_objection(
    services: Services,
    session: Session,
    request: Request,
    recipient: Recipient,
    turn: Turn,
    counted: Counted,
    now: datetime,
) -> None:
    """A vote against an outcome already reached is an alarm: every other human on the
    thread hears who objected and why (the objector's receipt says so, the agent gets
    the push). The outcome stands: the agent may already have acted on it."""
    tell_thread(
        services,
        session,
        request,
        "late_objection",
        {
            "who": counted.person,
            "decision_label": "REJECTION" if turn.kind == "rejection" else "APPROVAL",
            "body": turn.body,
            "at": now.isoformat(),
            "outcome": counted.policy(),
        },
        at=now,
        skip=frozenset({recipient.id}),
    )


def _needs_several(policy: rules.Policy) -> bool:
    return len(policy.steps) > 1 or sum(g.required for g in policy.steps[0].groups) > 1


def _outcome_text(state: Cast) -> str:
    evaluation = state.evaluation
    approvals = ", ".join(v.person for v in evaluation.approvals) or "none"
    rejections = ", ".join(v.person for v in evaluation.rejections) or "none"
    text = (
        f"Outcome under the approval policy ({state.policy.text()}): "
        f"{evaluation.outcome.replace('_', ' ').upper()}. Approvals: {approvals}. "
        f"Rejections: {rejections}."
    )
    if evaluation.conditions:
        text += " Conditions: " + "; ".join(evaluation.conditions) + "."
    if evaluation.conflict:
        text += " The votes CONFLICT: the outcome follows the policy; every vote is on the record."
    return text


def ask_step(
    services: Services, session: Session, request: Request, members: tuple[str, ...], now: datetime
) -> list[str]:
    """Send the request to approvers not on the thread yet (a later step, a delegate)."""
    on_thread = set(
        session.scalars(select(Recipient.address).where(Recipient.request_id == request.id))
    )
    asked = []
    for address in members:
        if address in on_thread:
            continue
        ask_recipient(services, session, request, address, "lawyer", now, {})
        asked.append(address)
    return asked


def ask_recipient(
    services: Services,
    session: Session,
    request: Request,
    address: str,
    role: str,
    now: datetime,
    payload: dict[str, object],
) -> Recipient:
    recipient = Recipient(request_id=request.id, address=address, role=role, created_at=now)
    session.add(recipient)
    session.flush()
    outbox.enqueue(
        services,
        session,
        channel="email",
        purpose="request",
        request_id=request.id,
        reference=request.reference,
        recipient_id=recipient.id,
        target=address,
        message_id=services.tokens.message_id(recipient.id, services.config.reply_domain),
        payload=payload,
        at=now,
    )
    return recipient


def expire(
    services: Services, session: Session, request: Request, now: datetime, why: str
) -> Cast | None:
    """The policy's time ran out (``why``): the outcome is ``expired`` if still pending.

    Returns the cast when this call ended it (told and pushed by the caller), else None.
    """
    ended = cast(session, request.id, address="", voter="system", decision=rules.EXPIRE, at=now)
    if not ended.reached_now:
        return None
    if not _needs_several(ended.policy):
        # One answer was all it took: the deadline's own turn says it all.
        return ended
    waiting = ", ".join(ended.evaluation.waiting_for or _waited(ended)) or "nobody"
    body = (
        f"Outcome under the approval policy ({ended.policy.text()}): EXPIRED: {why}. "
        f"No answer from: {waiting}."
    )
    _policy_turn(session, request, "policy_outcome", now, body, ended, list(_waited(ended)))
    return ended


def _waited(state: Cast) -> tuple[str, ...]:
    """Who had not voted in the step being waited on when it expired."""
    if state.evaluation.step >= len(state.policy.steps):
        return ()
    voted = {v.person for v in (*state.evaluation.approvals, *state.evaluation.rejections)}
    return tuple(m for m in state.policy.steps[state.evaluation.step].members if m not in voted)


def expire_overdue_steps(services: Services, now: datetime) -> int:
    """End each pending policy whose step ran past its ``within``; how many were ended."""
    with services.db.read_only() as session:
        overdue = steps_overdue(session, now)
    ended = 0
    for request_id in overdue:
        # One transaction per request: one bad row never holds back the rest.
        with services.db.transaction() as session:
            request = session.get(Request, request_id)
            if request is None:
                continue
            state = expire(services, session, request, now, "a step ran out of time")
            if state is None:
                continue
            _close_expired(services, session, request, now)
            ended += 1
    return ended


def _close_expired(services: Services, session: Session, request: Request, now: datetime) -> None:
    """Closed without an answer: the lawyers and the agent are told, once.

    Like the scheduler's close at a closing deadline, through the same ``close_request``;
    the two differ in what they say and push (the policy's standing, not a deadline turn).
    """
    close_request(
        services,
        session,
        request,
        at=now,
        reason="the approval policy expired",
        audit_reason="policy expired",
        tell=Tell("deadline_passed", {"closes": True}),
        push=Push(policy=standing(session, request.id, now).as_object()),
    )
