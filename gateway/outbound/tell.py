"""Mail every human on a thread about a change, so nobody acts on a settled request."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.outbound import outbox
from gateway.services import Services
from gateway.store.models import Recipient, Request


def tell_thread(
    services: Services,
    session: Session,
    request: Request,
    purpose: str,
    payload: dict[str, Any],
    *,
    at: datetime,
    skip: frozenset[int] = frozenset(),
) -> list[str]:
    """Queue a ``purpose`` email to each recipient of ``request`` not in ``skip``."""
    told = []
    recipients = session.scalars(
        select(Recipient).where(Recipient.request_id == request.id).order_by(Recipient.id)
    )
    for recipient in recipients:
        if recipient.id in skip:
            continue
        outbox.enqueue_lawyer_email(
            services, session, request, recipient, purpose=purpose, at=at, payload=payload
        )
        told.append(recipient.address)
    return told
