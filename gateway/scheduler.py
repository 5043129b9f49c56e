"""Periodic jobs: reminders, escalation and deadlines, run once across processes.

Everything a job needs is on the request row (``reminders_sent``,
``next_reminder_at``, ``escalated``, ``deadline_noticed``), so schedules
survive restarts. Each step is claimed with a guarded UPDATE (``... WHERE
reminders_sent = n``): when several gateway processes look at the same
request, exactly one UPDATE matches and only that process sends. The
``schedules`` row makes the scan itself happen once per interval.

A reminder goes to every recipient of the request (under a policy with votes
in, to those still awaited), in the same mail thread, while it is ``recorded``
or ``reviewed`` and no human has written; never while a reply waits out its
correction window. It is a ``system`` turn and an audit event. After ``HFA_ESCALATE_AFTER`` unanswered
reminders the request also goes to the category's ``HFA_ESCALATION``
addresses, as new recipients whose replies count as the lawyers' would. A
deadline that passes without an answer is a ``system`` turn, pushed to the
agent's reply_to; the request stays open unless ``HFA_DEADLINE_CLOSES=1``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

from sqlalchemy import CursorResult, and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from gateway.contract import AWAITING_ANSWER, iso
from gateway.errors import StorageError
from gateway.inbound import pending
from gateway.inbound.approvals import expire, expire_overdue_steps
from gateway.outbound import outbox, push
from gateway.outbound.closing import Push, Tell, close_request
from gateway.outbound.tell import tell_thread
from gateway.runner import Runner
from gateway.services import Services
from gateway.store.models import Recipient, Request, Schedule
from gateway.store.thread import add_turn
from gateway.store.votes import awaited, votes_awaited, waiting_for

log = logging.getLogger(__name__)

SCAN = "reminders_and_deadlines"


@dataclass
class Ran:
    reminders: int = 0
    escalations: int = 0
    deadlines: int = 0


def _claimed(session: Session, statement: Any) -> bool:
    """Run a guarded UPDATE; True when this process won the row."""
    result = cast(CursorResult[Any], session.execute(statement))
    return result.rowcount == 1


def _remind(services: Services, request_id: int, now: datetime) -> Ran:
    ran = Ran()
    config = services.config
    with services.db.transaction() as session:
        request = session.get(Request, request_id)
        if request is None or request.status not in AWAITING_ANSWER:
            return ran
        awaiting = awaited(session, request_id)
        if request.first_human_reply_at is not None and awaiting is None:
            return ran
        if pending.answer_in_hand(services, session, request, now):
            # An answer waits out its window, or is in and unread: nobody is chased.
            return ran
        interval = config.reminders.get(request.urgency)
        if interval is None:
            return ran
        due = request.next_reminder_at or request.received_at + timedelta(seconds=interval)
        sent = request.reminders_sent
        if due > now or sent >= config.lawyer.reminder_cap:
            return ran
        claim = (
            update(Request)
            .where(Request.id == request_id, Request.reminders_sent == sent)
            .values(reminders_sent=sent + 1, next_reminder_at=now + backoff(interval, sent + 1))
            .execution_options(synchronize_session=False)
        )
        if not _claimed(session, claim):
            return ran
        session.refresh(request)
        # Listed before escalating: new escalation contacts get the escalation, not a reminder.
        recipients = list(
            session.scalars(
                select(Recipient).where(Recipient.request_id == request.id).order_by(Recipient.id)
            )
        )
        # Under an approval policy with votes in, only those not yet answered are reminded.
        recipients = [r for r in recipients if awaiting is None or r.address in awaiting]
        if (
            config.escalate_after > 0
            and sent >= config.escalate_after
            and not request.escalated
            and _escalate(services, session, request, now)
        ):
            ran.escalations += 1
        number = sent + 1
        for recipient in recipients:
            outbox.enqueue_lawyer_email(
                services,
                session,
                request,
                recipient,
                purpose="reminder",
                at=now,
                payload={
                    "reminder_number": number,
                    "sent_at": iso(now),
                    "last_reminder": number >= config.lawyer.reminder_cap,
                },
            )
        addresses = [r.address for r in recipients]
        add_turn(
            session,
            request,
            author="system",
            kind="reminder_sent",
            at=now,
            body=f"Reminder {number} sent to {', '.join(addresses)}: no answer since the "
            f"request was filed ({iso(request.received_at)}).",
            data={"reminder": number, "to": addresses},
        )
        services.audit.append(
            session,
            "request.reminder_sent",
            at=now,
            reference=request.reference,
            details={"reminder": number, "urgency": request.urgency, "to": addresses},
        )
        ran.reminders += 1
    return ran


def backoff(interval: float, sent: int) -> timedelta:
    """The wait after reminder ``sent``: doubling each time, at most a day (or the interval)."""
    longest = max(interval, 86400.0)
    return timedelta(seconds=min(interval * 2 ** max(sent - 1, 0), longest))


def _escalate(services: Services, session: Session, request: Request, now: datetime) -> bool:
    """Send the request to the escalation contacts. The lawyers still awaited hear of it
    in the reminder sent with it ("It was also sent to ..."), never in a second email
    of the same second; those whose answer is in are not asked again."""
    addresses = services.config.escalation_for(request.category)
    if not addresses:
        return False
    claim = (
        update(Request)
        .where(Request.id == request.id, Request.escalated == 0)
        .values(escalated=1)
        .execution_options(synchronize_session=False)
    )
    if not _claimed(session, claim):
        return False
    existing = {
        a.lower()
        for a in session.scalars(
            select(Recipient.address).where(Recipient.request_id == request.id)
        )
    }
    lawyers = ", ".join(sorted(existing))
    # Under an approval policy, who of them has not answered yet.
    waiting = ", ".join(waiting_for(session, request.id))
    added = []
    for address in addresses:
        if address.lower() in existing:
            continue
        recipient = Recipient(
            request_id=request.id, address=address, role="escalation", created_at=now
        )
        session.add(recipient)
        session.flush()
        outbox.enqueue_lawyer_email(
            services,
            session,
            request,
            recipient,
            purpose="escalation",
            at=now,
            payload={
                "reminders": request.reminders_sent - 1,
                "lawyers": lawyers,
                "waiting_for": waiting,
                "sent_at": iso(now),
            },
        )
        added.append(address)
    add_turn(
        session,
        request,
        author="system",
        kind="escalated",
        at=now,
        body=f"Escalated to {', '.join(added) or 'no new address'} after "
        f"{request.reminders_sent - 1} unanswered reminder(s)."
        + (f" No answer yet from: {waiting}." if waiting else ""),
        data={"to": added, "not_answered": waiting.split(", ") if waiting else []},
    )
    services.audit.append(
        session,
        "request.escalated",
        at=now,
        reference=request.reference,
        details={"to": added, "after_reminders": request.reminders_sent - 1},
    )
    return True


def _deadline(services: Services, request_id: int, now: datetime) -> bool:
    with services.db.transaction() as session:
        claim = (
            update(Request)
            .where(
                Request.id == request_id,
                Request.deadline_noticed == 0,
                Request.status.in_(AWAITING_ANSWER),
                Request.deadline_at <= now,
            )
            .values(deadline_noticed=1)
            .execution_options(synchronize_session=False)
        )
        if not _claimed(session, claim):
            return False
        request = session.get(Request, request_id)
        assert request is not None
        session.refresh(request)
        closes = services.config.deadline_closes
        deadline_text = str(request.fields.get("deadline", ""))
        waiting = waiting_for(session, request.id)
        turn = add_turn(
            session,
            request,
            author="system",
            kind="deadline_passed",
            at=now,
            body=f"The deadline ({deadline_text}) passed without an answer; the request "
            + ("is closed." if closes else "stays open and can still be answered.")
            + (f" No answer yet from: {', '.join(waiting)}." if waiting else ""),
            data={
                "deadline": deadline_text,
                "deadline_at": iso(request.deadline_at or now),
                "not_answered": waiting,
            },
        )
        session.flush()
        services.audit.append(
            session,
            "request.deadline_passed",
            at=now,
            reference=request.reference,
            details={"deadline": deadline_text, "closes": closes},
        )
        if closes:
            expired = expire(services, session, request, now, "the deadline passed")
            close_request(
                services,
                session,
                request,
                at=now,
                reason="deadline passed without an answer",
                audit_reason="deadline passed",
                tell=Tell("deadline_passed", {"closes": True}),
                push=Push(turn, expired.as_object() if expired is not None else None),
            )
        else:
            # The lawyers hear it too, not only the agent.
            tell_thread(services, session, request, "deadline_passed", {"closes": False}, at=now)
            push.enqueue_for_turn(services, session, request, turn)
    return True


def run_due(services: Services) -> Ran:
    """Send what is due now: reminders (and escalations) and deadline notices."""
    now = services.clock.now()
    # Only requests whose reminder is due are visited: a scan costs nothing per waiting request.
    due = [
        and_(
            Request.urgency == urgency,
            or_(
                Request.next_reminder_at <= now,
                and_(
                    Request.next_reminder_at.is_(None),
                    Request.received_at <= now - timedelta(seconds=interval),
                ),
            ),
        )
        for urgency, interval in services.config.reminders.items()
        if interval is not None
    ]
    with services.db.read_only() as session:
        waiting = (
            list(
                session.scalars(
                    select(Request.id)
                    .where(
                        Request.status.in_(AWAITING_ANSWER),
                        or_(Request.first_human_reply_at.is_(None), votes_awaited()),
                        Request.reminders_sent < services.config.lawyer.reminder_cap,
                        or_(*due),
                    )
                    .order_by(Request.id)
                )
            )
            if due
            else []
        )
        overdue = list(
            session.scalars(
                select(Request.id)
                .where(
                    Request.status.in_(AWAITING_ANSWER),
                    Request.deadline_noticed == 0,
                    Request.deadline_at <= now,
                )
                .order_by(Request.id)
            )
        )
    total = Ran()
    # Deadlines first: a request whose deadline notice goes out now gets no reminder in
    # the same scan (the notice says it is still open), so no two emails arrive together.
    noticed = set()
    for request_id in overdue:
        try:
            if _deadline(services, request_id, now):
                total.deadlines += 1
                noticed.add(request_id)
        except StorageError:
            log.exception("deadline notice for request %s failed; retried next scan", request_id)
    # One transaction per request, so one bad row never holds back the rest.
    for request_id in (r for r in waiting if r not in noticed):
        try:
            ran = _remind(services, request_id, now)
        except StorageError:
            log.exception("reminder for request %s failed; retried next scan", request_id)
            continue
        total.reminders += ran.reminders
        total.escalations += ran.escalations
    # Steps of an approval policy that ran out of their own time.
    total.deadlines += expire_overdue_steps(services, now)
    return total


def claim_scan(services: Services, now: datetime) -> bool:
    """True for the one process that runs this interval's scan."""
    interval = timedelta(seconds=services.config.scheduler_seconds)
    with services.db.transaction() as session:
        claim = (
            update(Schedule)
            .where(Schedule.name == SCAN, Schedule.next_run_at <= now)
            .values(next_run_at=now + interval)
            .execution_options(synchronize_session=False)
        )
        if _claimed(session, claim):
            return True
        if session.get(Schedule, SCAN) is not None:
            return False
    try:
        with services.db.transaction() as session:
            session.add(Schedule(name=SCAN, next_run_at=now + interval))
        return True
    except StorageError as exc:
        if isinstance(exc.__cause__, IntegrityError):
            return False  # another process created the row first
        raise


def tick(services: Services) -> Ran | None:
    if not claim_scan(services, services.clock.now()):
        return None
    return run_due(services)


async def _scan(services: Services) -> None:
    ran = await services.db.run(tick, services)
    if ran is not None and (ran.reminders or ran.escalations or ran.deadlines):
        services.outbox_ready.set()


def start(services: Services, stop: asyncio.Event) -> list[asyncio.Task[None]]:
    """Start the periodic jobs; returns their tasks."""
    # A scan every HFA_SCHEDULER_SECONDS, after a failed one too.
    scans = Runner(
        "scheduler scan failed; retrying",
        services.config.scheduler_seconds,
        iteration=partial(_scan, services),
        logger=log,
    )
    # Correction windows end by the clock, to the second: their own short poll.
    return [asyncio.create_task(scans.run(stop)), pending.start(services, stop)]
