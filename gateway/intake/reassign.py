"""Moving a request from one lawyer to another (``hfa requests reassign``).

One transaction: the new lawyer takes the earlier one's place in the request's
approval policy and receives the request, with a reply address of their own; the
earlier lawyer is told that no answer is needed from them any more (an answer they
send anyway is kept on the thread, but no longer counts for the policy) and gets no
more reminders; the thread has a system turn that the agent is pushed; the audit log
has ``request.reassigned``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.errors import ConfigError, NotReassigned
from gateway.outbound import outbox, push
from gateway.services import Services
from gateway.settings.lawyers import check_address
from gateway.store.models import Recipient, Request
from gateway.store.thread import add_turn
from gateway.store.votes import replace_approver, waiting_for

# The role of a recipient whose part went to another lawyer (reminders go to those the
# policy awaits once a lawyer was replaced: ``votes.awaited``).
REASSIGNED = "reassigned"


@dataclass(frozen=True)
class Reassigned:
    earlier: str
    now: str
    rule: str


def reassign(
    services: Services,
    session: Session,
    request: Request,
    *,
    to: str,
    earlier: str | None,
    by: str,
    reason: str,
) -> Reassigned:
    """Move ``request`` from ``earlier`` (default: the one lawyer awaited) to ``to``."""
    new = to.strip().lower()
    check_address(new, "--to")
    now = services.clock.now()
    old = _earlier(session, request, earlier)
    on_thread = {
        r.address.lower(): r
        for r in session.scalars(select(Recipient).where(Recipient.request_id == request.id))
    }
    if new in on_thread:
        raise NotReassigned(f"{new} is already on {request.reference}'s thread")
    policy = replace_approver(session, request.id, old, new, now)
    if policy is None:
        raise NotReassigned(f"{request.reference} no longer waits for {old}")
    recipient = Recipient(request_id=request.id, address=new, role="lawyer", created_at=now)
    session.add(recipient)
    replaced = on_thread[old]
    replaced.role = REASSIGNED
    session.flush()
    outbox.enqueue_lawyer_email(services, session, request, recipient, purpose="request", at=now)
    outbox.enqueue_lawyer_email(
        services,
        session,
        request,
        replaced,
        purpose="reassigned",
        at=now,
        payload={"to": new, "by": f"ops:{by}", "reason": reason},
    )
    services.audit.append(
        session,
        "request.reassigned",
        at=now,
        actor=f"ops:{by}",
        reference=request.reference,
        details={"from": old, "to": new, "reason": reason, "rule": policy.text()},
    )
    turn = add_turn(
        session,
        request,
        author="system",
        kind="reassigned",
        at=now,
        body=f"Reassigned from {old} to {new} by {by}: {reason}. {new} received the request; "
        f"an answer from {old} is kept on the thread but no longer counts.",
        data={"from": old, "to": new, "by": f"ops:{by}", "reason": reason},
    )
    session.flush()
    push.enqueue_for_turn(services, session, request, turn)
    return Reassigned(old, new, policy.text())


# Alike in shape to settings.sender_auth's readers (a value lowered, checked against what
# may be, refused in words), not in meaning: here the lawyer a request waits for.
def _earlier(session: Session, request: Request, earlier: str | None) -> str:
    if request.status in ("closed", "declined"):
        raise NotReassigned(f"{request.reference} is {request.status}: nobody works on it")
    awaited = waiting_for(session, request.id)
    if earlier is not None:
        old = earlier.strip().lower()
        if old not in awaited:
            raise NotReassigned(
                f"{request.reference} does not wait for {old} (it waits for "
                f"{', '.join(awaited) or 'nobody'})"
            )
        return old
    if len(awaited) != 1:
        raise ConfigError(
            f"--from: {request.reference} waits for {', '.join(awaited) or 'nobody'}; "
            "name the lawyer to replace"
        )
    return awaited[0]
