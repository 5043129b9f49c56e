"""Closing a request: the status change and its audit entry, the thread told, the push.

Every way a request closes comes here: an operator's ``hfa requests close``, the
agent's withdrawal, a deadline that closes (``HFA_DEADLINE_CLOSES``) and an
approval policy that ran out of time. They differ only in the words, in who is
named, in the mail the thread's humans get and in what the agent is pushed, and
those are the arguments; the steps and their order are written once, here.

It lives in ``outbound`` because closing tells people (the lawyers' mail, the
agent's push), and this is the lowest room that can: the CLI, the scheduler,
``intake`` and ``inbound`` all import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from gateway.outbound import push as pushes
from gateway.outbound.tell import tell_thread
from gateway.services import Services
from gateway.store.models import Request, Turn
from gateway.store.thread import change_status


@dataclass(frozen=True)
class Tell:
    """The email each human on the thread gets: its ``purpose`` and payload."""

    purpose: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Push:
    """What the agent's reply_to is pushed.

    ``turn``: that turn (a deadline's own turn); None pushes the status change's turn,
    and nothing when the request was closed already. ``policy``: where the approval
    policy stands, for the event. ``ahead_of_mail``: queued before the thread's mail,
    as an operator's close always has been (the others tell the humans first).
    """

    turn: Turn | None = None
    policy: dict[str, Any] | None = None
    ahead_of_mail: bool = False


def close_request(
    services: Services,
    session: Session,
    request: Request,
    *,
    at: datetime,
    reason: str,
    tell: Tell,
    push: Push | None = None,
    actor: str = "system",
    audit_reason: str | None = None,
    decision: str | None = None,
) -> Turn | None:
    """Close ``request``; the status change's turn, or None if it was closed already.

    ``reason`` is what the thread's status turn says, ``audit_reason`` the short reason
    of its ``request.status_changed`` entry (default: ``reason``). ``decision``: an
    operator's own reason, audited as ``request.closed`` before the change it causes.
    No ``push``: the agent is not told (it withdrew the request itself).
    """
    if decision is not None:
        # The decision first, then the status change it causes.
        services.audit.append(
            session,
            "request.closed",
            at=at,
            actor=actor,
            reference=request.reference,
            details={"reason": decision, "previous_status": request.status},
        )
    turn = change_status(
        session,
        services.audit,
        request,
        "closed",
        at=at,
        reason=reason,
        actor=actor,
        audit_reason=audit_reason,
    )
    if push is not None and push.ahead_of_mail:
        _push(services, session, request, push, turn)
    # The lawyers hear of it too: nobody works on a closed request.
    tell_thread(services, session, request, tell.purpose, tell.payload, at=at)
    if push is not None and not push.ahead_of_mail:
        _push(services, session, request, push, turn)
    return turn


def _push(
    services: Services, session: Session, request: Request, push: Push, turn: Turn | None
) -> None:
    pushed = push.turn or turn
    if pushed is not None:
        # The status change is written before the event that reports it is built.
        session.flush()
        pushes.enqueue_for_turn(services, session, request, pushed, policy=push.policy)
