"""Adding to a request the caller may write to: the turn, the lawyers' email, the audit.

``filing.add_to_request`` checks the access token and comes here; so do the
interfaces that authorize a caller their own way (A2H v1 by API key and
interaction id), so a follow-up and a withdrawal are the same everywhere.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.errors import Conflict, FieldProblem
from gateway.outbound import outbox
from gateway.services import Services
from gateway.store.models import Recipient, Request
from gateway.store.thread import add_turn, change_status

NOTICE_ADDED = (
    "Added to the record; the human is notified. Nothing here pauses your task or "
    "authorises you to proceed."
)
NOTICE_WITHDRAWN = "Withdrawn and closed; the human is told that no answer is needed."


def add_to_authorized(
    services: Services,
    session: Session,
    request: Request,
    arguments: dict[str, Any],
    *,
    withdraw: bool = False,
) -> dict[str, Any]:
    """The message (or withdrawal) on ``request``, whose caller is already authorized."""
    if request.status == "closed":
        raise Conflict(
            f"{request.reference} is closed; file a new request instead",
            [FieldProblem("reference", "a request that is not closed")],
        )
    now = services.clock.now()
    message = arguments["message"]
    extra = {
        k: v for k, v in arguments.items() if k not in ("reference", "access_token", "message")
    }
    add_turn(
        session,
        request,
        author="sender",
        kind="withdrawal" if withdraw else "message",
        at=now,
        body=message,
        data=extra,
    )
    if withdraw:
        change_status(
            session,
            services.audit,
            request,
            "closed",
            at=now,
            reason="withdrawn by the agent",
            actor="agent",
        )
    recipients = session.scalars(select(Recipient).where(Recipient.request_id == request.id))
    for recipient in recipients:
        outbox.enqueue_lawyer_email(
            services,
            session,
            request,
            recipient,
            purpose="withdrawal" if withdraw else "follow_up",
            at=now,
            payload={"message": message, "recorded_at": contract.iso(now)},
        )
    services.audit.append(
        session,
        "request.withdrawn" if withdraw else "request.follow_up_recorded",
        at=now,
        actor="agent",
        reference=request.reference,
        details={"chars": len(message)},
    )
    return {
        "reference": request.reference,
        "status": "recorded",
        "recorded_at": contract.iso(now),
        "thread_status": request.status,
        "notice": NOTICE_WITHDRAWN if withdraw else NOTICE_ADDED,
    }
