"""A human turn counted as a vote under the request's approval policy.

``cast_vote`` is called once a human turn is on the thread; what it returns
decides the status change, who is told and whether the agent gets a push: an
approval or rejection is a vote, anything else (a decline, I'M ON IT, a
question, a reply with no decision) counts as neither and changes no tally.
The outcome is told and pushed only by the vote that reached it, under the
request's row lock (``store.votes``), so exactly once.

``approver_away`` handles an approver's out-of-office reply: their delegate is
asked (once), or the others and escalation are told that this one is away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import policy as rules
from gateway.contract import APPROVAL_KINDS
from gateway.outbound import outbox
from gateway.outbound.tell import tell_thread
from gateway.services import Services
from gateway.store.models import Recipient, Request, Turn
from gateway.store.thread import add_turn
from gateway.store.votes import Cast, add_delegate, cast, standing

_VOTES = {**dict.fromkeys(APPROVAL_KINDS, rules.APPROVE), "rejection": rules.REJECT}


@dataclass(frozen=True)
class Counted:
    """What a human turn did to the policy: ``cast`` is None when it was no vote."""

    cast: Cast | None
    person: str = ""
    # Not a vote, on a request with more than one approver.
    several: bool = False

    def status(self, proposed: str, current: str) -> str:
        """The request's status after this turn (``proposed``: what the turn alone says)."""
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
        return self.cast.as_object() if self.cast is not None else None

    def tally(self) -> str:
        """The receipt's line on the policy, when more than one person may vote."""
        if self.cast is None or len(self.cast.policy.approvers) < 2:
            return ""
        return rules.tally(self.cast.policy, self.cast.evaluation, self.person)


def cast_vote(
    services: Services,
    session: Session,
    request: Request,
    recipient: Recipient,
    turn: Turn,
    now: datetime,
) -> Counted:
    """Count ``turn`` (already on the thread) under the request's policy."""
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
    counted = Counted(counted_as, counted_as.person)
    _mark_on_thread(services, session, request, counted, now)
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
        add_turn(
            session,
            request,
            author="system",
            kind="policy_outcome",
            at=now,
            body=_outcome_text(state),
            data={"policy": state.as_object()},
        )
    elif counted.late_conflict:
        add_turn(
            session,
            request,
            author="system",
            kind="policy_conflict",
            at=now,
            body=f"Conflicting vote: {counted.person} disagrees with the outcome "
            f"({evaluation.outcome.replace('_', ' ')}), reached earlier. The outcome stands; "
            "both are on the record.",
            data={"policy": state.as_object()},
        )
    if not evaluation.decided and evaluation.step > state.step_before:
        ask_step(services, session, request, state.policy.steps[evaluation.step].members, now)


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
        _ask(services, session, request, address, "lawyer", now, {})
        asked.append(address)
    return asked


def _ask(
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


def approver_away(
    services: Services, session: Session, request: Request, recipient: Recipient, now: datetime
) -> str:
    """An out-of-office reply from ``recipient``: ask their delegate once, or say they
    are away. Returns what was done ('' when nothing was)."""
    state = standing(session, request.id, now)
    person = recipient.address
    if state.evaluation.decided or person not in state.evaluation.waiting_for:
        return ""
    if _told_away(session, request.id, person):
        return ""
    delegation = services.config.delegates.get(person.lower())
    on_thread = set(
        session.scalars(select(Recipient.address).where(Recipient.request_id == request.id))
    )
    if (
        delegation is not None
        and delegation.active(now.date())
        and delegation.delegate not in on_thread
        and add_delegate(session, request.id, delegation.delegate, person, now)
    ):
        _ask(
            services,
            session,
            request,
            delegation.delegate,
            "delegate",
            now,
            {"delegate_for": person},
        )
        add_turn(
            session,
            request,
            author="system",
            kind="delegated",
            at=now,
            body=f"{person} is away (out-of-office reply). The request was sent to their "
            f"delegate {delegation.delegate}, whose answer counts for {person}.",
            data={"who": person, "delegate": delegation.delegate},
        )
        return f"sent to the delegate {delegation.delegate}"
    _tell_away(services, session, request, recipient, now)
    return "the others were told this approver is away"


def _told_away(session: Session, request_id: int, person: str) -> bool:
    kinds = ("delegated", "approver_away")
    turns = session.scalars(
        select(Turn.data).where(Turn.request_id == request_id, Turn.kind.in_(kinds))
    )
    return any(data.get("who") == person for data in turns)


def _tell_away(
    services: Services, session: Session, request: Request, recipient: Recipient, now: datetime
) -> None:
    """No delegate: the thread, the other approvers and escalation hear that one is away."""
    person = recipient.address
    escalation = services.config.escalation_for(request.category)
    on_thread = set(
        session.scalars(select(Recipient.address).where(Recipient.request_id == request.id))
    )
    for address in escalation:
        if address not in on_thread:
            session.add(
                Recipient(request_id=request.id, address=address, role="escalation", created_at=now)
            )
    session.flush()
    add_turn(
        session,
        request,
        author="system",
        kind="approver_away",
        at=now,
        body=f"{person} is away (out-of-office reply) and has no delegate; the other "
        "approvers and escalation were told.",
        data={"who": person, "told": list(escalation)},
    )
    tell_thread(
        services,
        session,
        request,
        "approver_away",
        {"who": person},
        at=now,
        skip=frozenset({recipient.id}),
    )
