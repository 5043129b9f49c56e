"""Recording mail to the bounce address: delivery reports read by their Action (RFC
3464), and the storage that address may take.

Only ``Action: failed`` marks the email it names failed (``email_bounced`` on the
thread); ``delayed`` adds an ``email_delayed`` turn and leaves the email as it is;
``delivered``, ``relayed`` and ``expanded`` are audited, nothing more. Mail to the
bounce address that names no email we sent is kept as its headers only, and the
drop is audited: anyone may write to that address, so it must not fill the database.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.inbound.record import Outcome
from gateway.replies import DeliveryReport, read_delivery_report
from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import InboundMessage, OutboxItem, Request
from gateway.store.thread import add_turn

# What is kept of mail to the bounce address that cites no email we sent.
HEADERS_KEPT_BYTES = 64 * 1024


# What a delivery report's Action does to the email it is about (RFC 3464): only a
# failure is a bounce; a delay is told to the thread; a success is recorded, nothing more.
_DELAYED_BODY = (
    "Delivery of the {purpose} email to {target} is delayed; the mail system is still trying."
)


def record_bounce(
    services: Services,
    session: Session,
    row: InboundMessage,
    report: DeliveryReport | None = None,
    *,
    at_bounce_address: bool = False,
) -> Outcome:
    """A delivery report: the outbound email it names is marked failed only when the
    report says delivery to its recipient failed (``Action: failed``).

    ``report``: the message read as a report already (in the reading process).
    ``at_bounce_address``: sent to the bounce address only; a report there that names
    no email we sent is kept as its headers only (``keep_headers_only``).
    """
    now = services.clock.now()
    if report is None:
        report = read_delivery_report(blobs.raw_of(session, row))
    ids = report.message_ids
    items = (
        list(session.scalars(select(OutboxItem).where(OutboxItem.message_id.in_(ids))))
        if ids
        else []
    )
    if not items:
        detail = "delivery failure for a message we cannot identify"
        if at_bounce_address:
            detail += "; " + keep_headers_only(services, session, row, "cites no email we sent")
        return Outcome("bounce", detail)
    item = items[0]
    action = report.action_for(item.target)
    if action != "failed":
        return _record_delivery_report(services, session, row, item, action, now)
    item.state = "dead"
    item.last_error = f"bounced (inbound message {row.id})"
    request = session.get(Request, item.request_id) if item.request_id else None
    turn_id = None
    if request is not None:
        turn = add_turn(
            session,
            request,
            author="system",
            kind="email_bounced",
            at=now,
            body=f"The {item.purpose.replace('_', ' ')} email to {item.target} bounced; "
            "the lawyer did not receive it.",
            data={"outbox_id": item.id, "to": item.target, "inbound_id": row.id},
        )
        session.flush()
        turn_id = turn.id
    services.audit.append(
        session,
        "email.bounced",
        at=now,
        reference=request.reference if request else None,
        details={"outbox_id": item.id, "to": item.target, "inbound_id": row.id},
    )
    return Outcome("bounce", f"outbox item {item.id} marked failed", request, None, turn_id)


def _record_delivery_report(
    services: Services,
    session: Session,
    row: InboundMessage,
    item: OutboxItem,
    action: str,
    now: datetime,
) -> Outcome:
    """A report that is no failure: the email stays as it is. A delay is a ``system``
    turn on the thread (like a bounce's); a success is only audited."""
    request = session.get(Request, item.request_id) if item.request_id else None
    details = {"outbox_id": item.id, "to": item.target, "inbound_id": row.id, "action": action}
    turn_id = None
    if action == "delayed" and request is not None:
        turn = add_turn(
            session,
            request,
            author="system",
            kind="email_delayed",
            at=now,
            body=_DELAYED_BODY.format(purpose=item.purpose.replace("_", " "), target=item.target),
            data={"outbox_id": item.id, "to": item.target, "inbound_id": row.id},
        )
        session.flush()
        turn_id = turn.id
    services.audit.append(
        session,
        "email.delayed" if action == "delayed" else "email.delivery_reported",
        at=now,
        reference=request.reference if request else None,
        details=details,
    )
    return Outcome(
        "delivery_report", f"outbox item {item.id}: Action {action}", request, None, turn_id
    )


def keep_headers_only(services: Services, session: Session, row: InboundMessage, why: str) -> str:
    """Mail to the bounce address about nothing we sent: its body is dropped, its headers
    kept (who sent what, when) with a line saying so, and the drop audited. What it says,
    for the outcome."""
    raw = blobs.raw_of(session, row)
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end < 0 else end
    head = raw[: min(end if end >= 0 else len(raw), HEADERS_KEPT_BYTES)]
    dropped = len(raw) - len(head)
    if dropped <= 64:
        return f"{why}; kept whole"
    # Still a message (read again by ``hfa inbound reprocess``, to the same outcome).
    row.raw = head + f"\r\n\r\n[{dropped} bytes of body dropped: {why}]\r\n".encode()
    services.audit.append(
        session,
        "inbound.bounce_dropped",
        at=services.clock.now(),
        actor=f"smtp:{row.peer}",
        details={"inbound_id": row.id, "why": why, "size": row.size, "dropped_bytes": dropped},
    )
    return f"{why}; body dropped ({dropped} bytes), headers kept"
