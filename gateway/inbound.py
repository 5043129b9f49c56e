"""The inbound worker: parse -> match -> verify -> understand -> record.

Each stored message gets exactly one outcome, written in the same
transaction as whatever it adds to a thread:

    recorded           a human turn was added (and the status moved)
    duplicate          the same message (Message-ID, or bytes) was processed before
    auto_reply         an out-of-office or other automatic reply: a system turn only
    bounce             a delivery failure: the outbound email is marked failed
    loop               our own mail came back
    unverified_sender  From is not the lawyer the token was issued to: held for ops
    no_thread          no reply token and no reference to our mail
    unparseable        the bytes could not be read as an email
    failed             processing crashed repeatedly; kept for ``hfa inbound reprocess``

Authorisation (who sent it, how many From headers) is read with the
standard library's strict parser; mail-parser is used for bodies and
attachments, where its leniency helps.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from gateway.compose import LOOP_HEADER
from gateway.contract import iso
from gateway.db import in_savepoint
from gateway.mailparse import ParsedMail, Unparseable, attachment_bytes, parse
from gateway.models import Attachment, InboundMessage, OutboxItem, Recipient, Request
from gateway.replies import (
    AutomaticKind,
    DecisionKind,
    ReplyError,
    detect_automatic,
    extract_reply,
    find_bounced_message_ids,
    read_decision,
)
from gateway.sender import SenderCheck, from_address, verify_sender
from gateway.services import Services
from gateway.submit import enqueue_email
from gateway.thread import add_turn, change_status
from gateway.workers import run_until_stopped

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=120)
MAX_ATTEMPTS = 3
MAX_ATTACHMENTS = 20
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
BATCH = 32

# decision -> (turn kind, new status)
DECISION_EFFECT: dict[DecisionKind | None, tuple[str, str]] = {
    None: ("reply", "answered"),
    DecisionKind.APPROVAL: ("approval", "answered"),
    DecisionKind.REJECTION: ("rejection", "answered"),
    DecisionKind.DECLINE: ("decline", "declined"),
    DecisionKind.QUESTION: ("question", "reviewed"),
    DecisionKind.CLOSE: ("close", "closed"),
}


@dataclass
class Outcome:
    name: str
    detail: str = ""
    request: Request | None = None
    recipient: Recipient | None = None
    turn_id: int | None = None


class InboundProcessor:
    """Decides the outcome of one stored message and records it."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def process(self, session: Session, row: InboundMessage) -> Outcome:
        services = self.services
        config = services.config
        if self._is_duplicate(session, row):
            return Outcome("duplicate", "the same message was processed before")
        try:
            mail = parse(row.raw)
        except Unparseable as exc:
            return Outcome("unparseable", str(exc))
        if mail.headers.get(LOOP_HEADER.lower(), "").strip().lower() == config.reply_domain:
            return Outcome("loop", "our own mail came back")

        recipient = self._match(session, row, mail)
        automatic = detect_automatic(mail.headers, mail.subject, mail.headers.get("content-type"))
        if automatic is AutomaticKind.BOUNCE or (
            recipient is None and row.mail_from in ("", "<>") and automatic is not None
        ):
            return self._bounce(session, row)
        if recipient is None:
            return Outcome("no_thread", "no valid reply token and no reference to our mail")
        request = session.get(Request, recipient.request_id)
        assert request is not None
        now = services.clock.now()
        if automatic is AutomaticKind.AUTO_REPLY:
            turn = add_turn(
                session,
                request,
                author="system",
                kind="auto_reply",
                at=now,
                body=f"Auto-reply from the lawyer ({recipient.address}): {mail.subject}"[:500],
                data={"from": recipient.address, "inbound_id": row.id},
            )
            session.flush()
            return Outcome("auto_reply", mail.subject[:200], request, recipient, turn.id)

        check = verify_sender(mail.message, recipient.address, config.trusted_authserv_id)
        if not check.ok:
            return Outcome("unverified_sender", check.reason, request, recipient)
        return self._record_reply(session, row, mail, request, recipient, check, now)

    def _is_duplicate(self, session: Session, row: InboundMessage) -> bool:
        same = (
            InboundMessage.message_id == row.message_id
            if row.message_id
            else InboundMessage.sha256 == row.sha256
        )
        earlier = session.scalars(
            select(InboundMessage.id)
            .where(same, InboundMessage.id < row.id, InboundMessage.state == "done")
            .where(InboundMessage.outcome.not_in(("unparseable", "failed")))
            .limit(1)
        ).first()
        return earlier is not None

    def _match(self, session: Session, row: InboundMessage, mail: ParsedMail) -> Recipient | None:
        tokens = self.services.tokens
        domain = self.services.config.reply_domain
        candidates = [tokens.token_from_address(a, domain) for a in row.rcpt_to]
        # A mangled reply address still matches through the Message-ID we sent.
        for header in ("in-reply-to", "references"):
            candidates.extend(tokens.tokens_in_message_ids(mail.headers.get(header, "")))
        for token in candidates:
            if token is None:
                continue
            verified = tokens.verify(token)
            if verified is not None:
                recipient = session.get(Recipient, verified.recipient_id)
                if recipient is not None:
                    return recipient
        return None

    def _bounce(self, session: Session, row: InboundMessage) -> Outcome:
        services = self.services
        now = services.clock.now()
        ids = find_bounced_message_ids(row.raw)
        items = (
            list(session.scalars(select(OutboxItem).where(OutboxItem.message_id.in_(ids))))
            if ids
            else []
        )
        if not items:
            return Outcome("bounce", "delivery failure for a message we cannot identify")
        item = items[0]
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

    def _record_reply(
        self,
        session: Session,
        row: InboundMessage,
        mail: ParsedMail,
        request: Request,
        recipient: Recipient,
        check: SenderCheck,
        now: datetime,
        accepted_by: str | None = None,
    ) -> Outcome:
        services = self.services
        try:
            reply = extract_reply(mail.text_plain, mail.text_html)
        except ReplyError as exc:
            return Outcome("unparseable", f"reply text could not be read: {exc}")
        decision = read_decision(reply.new_text, mail.subject)
        kind, new_status = DECISION_EFFECT[decision.kind]
        if decision.ambiguous:
            # Conflicting decision words: recorded as read, never as an answer either way.
            new_status = "reviewed"
        attachments = self._store_attachments(session, row, mail)
        data: dict[str, Any] = {
            "from": check.address,
            "role": recipient.role,
            "message_id": row.message_id,
            "subject": mail.subject[:300],
            "decision": decision.kind.value if decision.kind else None,
            "decision_words": decision.trigger,
            "decision_unclear": decision.ambiguous,
            "elided": reply.elided,
            "new_text_confident": reply.confident,
            "attachments": attachments,
            "inbound_id": row.id,
        }
        if accepted_by is not None:
            # Held for ops (e.g. the lawyer's second address) and accepted by this person.
            data["accepted_by"] = accepted_by
        turn = add_turn(
            session,
            request,
            author="human",
            kind=kind,
            at=now,
            body=reply.new_text,
            data=data,
        )
        if request.first_human_reply_at is None:
            request.first_human_reply_at = now
        if request.status == "closed":
            # A late answer on a closed thread is kept; it does not reopen it.
            pass
        else:
            old_status = request.status
            if change_status(
                session, request, new_status, at=now, reason=f"{kind} from {check.address}"
            ):
                services.audit.append(
                    session,
                    "request.status_changed",
                    at=now,
                    actor=check.address,
                    reference=request.reference,
                    details={"from": old_status, "to": new_status, "reason": kind},
                )
        session.flush()
        services.audit.append(
            session,
            "reply.recorded",
            at=now,
            actor=check.address,
            reference=request.reference,
            details={
                "inbound_id": row.id,
                "kind": kind,
                "decision": data["decision"],
                "status": request.status,
                "attachments": len(attachments),
            },
        )
        if services.config.receipts:
            enqueue_email(
                services,
                session,
                request,
                recipient,
                purpose="receipt",
                at=now,
                payload={
                    "kind_label": kind.replace("_", " "),
                    "decision": data["decision"],
                    "body": reply.new_text,
                    "recorded_at": iso(now),
                    "status": request.status,
                },
            )
        from gateway import push

        push.enqueue_for_turn(services, session, request, turn)
        detail = kind
        skipped = sum(1 for a in attachments if a.get("stored") is False)
        if skipped:
            detail += (
                f"; {skipped} attachment(s) over the limits ({MAX_ATTACHMENTS} files, "
                f"{MAX_ATTACHMENT_BYTES // 1048576} MB each) kept only in the raw message"
            )
        return Outcome("recorded", detail, request, recipient, turn.id)

    def _store_attachments(
        self, session: Session, row: InboundMessage, mail: ParsedMail
    ) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = []
        for index, att in enumerate(mail.attachments):
            content = attachment_bytes(att)
            meta = {
                "name": str(att.get("filename") or f"attachment-{index + 1}")[:255],
                "type": str(att.get("mail_content_type") or "application/octet-stream")[:255],
                "size": len(content),
                "sha256": hashlib.sha256(content).hexdigest(),
            }
            if index >= MAX_ATTACHMENTS or len(content) > MAX_ATTACHMENT_BYTES:
                # Still in the raw message; listed without a separate stored copy.
                meta["stored"] = False
                listed.append(meta)
                continue
            session.add(
                Attachment(
                    inbound_id=row.id,
                    filename=meta["name"],
                    content_type=meta["type"],
                    size=meta["size"],
                    sha256=meta["sha256"],
                    content=content,
                )
            )
            listed.append(meta)
        return listed


def finish(services: Services, session: Session, row: InboundMessage, outcome: Outcome) -> None:
    now = services.clock.now()
    row.state = "done"
    row.outcome = outcome.name
    row.outcome_detail = outcome.detail[:2000]
    row.processed_at = now
    row.lease_until = None
    if outcome.request is not None:
        row.request_id = outcome.request.id
    if outcome.recipient is not None:
        row.recipient_id = outcome.recipient.id
    row.turn_id = outcome.turn_id
    services.audit.append(
        session,
        "inbound.processed",
        at=now,
        actor=f"smtp:{row.peer}",
        reference=outcome.request.reference if outcome.request else None,
        details={"inbound_id": row.id, "outcome": outcome.name, "detail": outcome.detail[:300]},
    )


def process_one(services: Services, inbound_id: int) -> str:
    """Process one stored message; returns its outcome."""
    return process_batch(services, [inbound_id])[0]


def process_batch(services: Services, ids: list[int]) -> list[str]:
    """Process stored messages in one transaction (one commit), each in its own savepoint.

    A message whose processing raises is undone alone and retried later (up to
    MAX_ATTEMPTS, then kept as ``failed``); the others are recorded.
    """
    processor = InboundProcessor(services)
    outcomes: dict[int, str] = {}
    crashed: list[int] = []

    def one(inbound_id: int) -> Callable[[Session], str]:
        def work(session: Session) -> str:
            row = session.get(InboundMessage, inbound_id)
            assert row is not None
            outcome = processor.process(session, row)
            finish(services, session, row, outcome)
            return outcome.name

        return work

    with services.db.transaction() as session:
        for inbound_id in ids:
            try:
                outcomes[inbound_id] = in_savepoint(session, one(inbound_id))
            except Exception:
                log.exception("inbound %s: processing failed", inbound_id)
                crashed.append(inbound_id)
    for inbound_id in crashed:
        outcomes[inbound_id] = _after_crash(services, inbound_id)
    return [outcomes[i] for i in ids]


def _after_crash(services: Services, inbound_id: int) -> str:
    with services.db.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
        assert row is not None
        if row.attempts >= MAX_ATTEMPTS:
            finish(services, session, row, Outcome("failed", "processing failed repeatedly"))
            return "failed"
        row.lease_until = None
    return "retry"


class NotHeld(Exception):
    """The message is not one ops can accept or reprocess; the text says why."""


def record_held(services: Services, inbound_id: int, by: str) -> Outcome:
    """Record a held message (unverified_sender) as the human's answer: an ops decision."""
    with services.db.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            raise LookupError(f"no inbound message {inbound_id}")
        if row.outcome != "unverified_sender" or row.request_id is None:
            raise NotHeld(
                f"inbound message {inbound_id} is {row.outcome or row.state}; only a held "
                "message (outcome unverified_sender) can be accepted"
            )
        request = session.get(Request, row.request_id)
        recipient = session.get(Recipient, row.recipient_id)
        assert request is not None and recipient is not None
        mail = parse(row.raw)
        sender = from_address(mail.message)[0] or row.mail_from
        check = SenderCheck(True, sender, f"accepted by {by}")
        held_because = row.outcome_detail or ""
        now = services.clock.now()
        outcome = InboundProcessor(services)._record_reply(
            session, row, mail, request, recipient, check, now, accepted_by=by
        )
        services.audit.append(
            session,
            "inbound.accepted",
            at=now,
            actor=f"ops:{by}",
            reference=request.reference,
            details={"inbound_id": row.id, "from": sender, "held_because": held_because[:300]},
        )
        finish(services, session, row, outcome)
        return outcome


REPROCESSABLE = ("unparseable", "failed", "no_thread", "unverified_sender", "loop")


def reprocess(services: Services, inbound_id: int, by: str) -> str:
    """Run a stored message through the worker again (after a fix or a new key)."""
    with services.db.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            raise LookupError(f"no inbound message {inbound_id}")
        if row.state == "done" and row.outcome not in REPROCESSABLE:
            raise NotHeld(
                f"inbound message {inbound_id} is {row.outcome}; only "
                f"{', '.join(REPROCESSABLE)} messages are reprocessed"
            )
        now = services.clock.now()
        services.audit.append(
            session,
            "inbound.reprocess_requested",
            at=now,
            actor=f"ops:{by}",
            details={"inbound_id": row.id, "previous_outcome": row.outcome},
        )
        # Leased to this process, so a running worker does not take it at the same time.
        row.state, row.attempts, row.lease_until = "pending", 1, now + LEASE
    return process_one(services, inbound_id)


def claim_pending(services: Services, limit: int = BATCH) -> list[int]:
    now = services.clock.now()
    with services.db.transaction() as session:
        query = (
            select(InboundMessage)
            .where(
                InboundMessage.state == "pending",
                or_(InboundMessage.lease_until.is_(None), InboundMessage.lease_until < now),
            )
            .order_by(InboundMessage.id)
            .limit(limit)
        )
        if not services.db.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        rows = list(session.scalars(query))
        for row in rows:
            row.lease_until = now + LEASE
            row.attempts += 1
        return [r.id for r in rows]


class InboundWorker:
    def __init__(self, services: Services) -> None:
        self.services = services

    async def run_once(self) -> int:
        services = self.services
        ids = await services.db.run(claim_pending, services)
        if ids:
            # One commit for the whole batch: under load, many replies share one fsync.
            await services.db.run(process_batch, services, ids)
        return len(ids)

    async def run_forever(self, stop: asyncio.Event) -> None:
        services = self.services
        await run_until_stopped(
            "inbound",
            self.run_once,
            services.inbound_ready,
            services.config.worker_poll_seconds,
            stop,
        )
