"""An approver who is away: their out-of-office reply asks their delegate, or tells.

With a delegate configured for the dates (HFA_DELEGATES), the request goes to the
delegate once, the thread says so, and the delegate's vote counts for the
approver; a delegate's own out-of-office reply is not delegated again. Without
one, the thread, the other approvers and escalation hear that this one is away.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.inbound.approvals import ask_recipient
from gateway.inbound.reply import Reply
from gateway.outbound.tell import tell_thread
from gateway.services import Services
from gateway.store.models import Recipient, Request, Turn
from gateway.store.thread import add_turn
from gateway.store.votes import add_delegate, standing


def approver_away(services: Services, session: Session, reply: Reply) -> str:
    """An out-of-office reply from the recipient: ask their delegate once, or say they
    are away. Returns what was done ('' when nothing was)."""
    request, recipient, now = reply.request, reply.recipient, reply.now
    state = standing(session, request.id, now)
    person = recipient.address
    if state.evaluation.decided or person not in state.evaluation.waiting_for:
        return ""
    if _told_away(session, request.id, person):
        return ""
    delegation = services.config.lawyer.approval.delegates.get(person.lower())
    on_thread = set(
        session.scalars(select(Recipient.address).where(Recipient.request_id == request.id))
    )
    if (
        delegation is not None
        and delegation.active(now.date())
        and delegation.delegate not in on_thread
        and add_delegate(session, request.id, delegation.delegate, person, now)
    ):
        ask_recipient(
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
