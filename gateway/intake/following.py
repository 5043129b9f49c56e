"""Adding to a request the caller may write to: the turn, the lawyers' email, the audit.

``filing.add_to_request`` checks the access token and comes here; so do the
interfaces that authorize a caller their own way (A2H v1 by API key and
interaction id), so a follow-up and a withdrawal are the same everywhere.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gateway import contract
from gateway.errors import Conflict, FieldProblem
from gateway.outbound.closing import Tell, close_request
from gateway.outbound.tell import tell_thread
from gateway.services import Services
from gateway.store.models import Request
from gateway.store.thread import add_turn

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
    payload = {"message": message, "recorded_at": contract.iso(now)}
    if withdraw:
        # The agent withdrew it itself: the lawyers are told, the agent is not pushed.
        close_request(
            services,
            session,
            request,
            at=now,
            reason="withdrawn by the agent",
            actor="agent",
            tell=Tell("withdrawal", payload),
        )
    else:
        tell_thread(services, session, request, "follow_up", payload, at=now)
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
