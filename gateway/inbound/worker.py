"""The inbound worker: parse -> match -> verify -> understand -> record.

Each stored message gets exactly one outcome, written in the same
transaction as whatever it adds to a thread:

    recorded           a human turn was added (and the status moved)
    duplicate          the same message (Message-ID, or bytes) was processed before
    auto_reply         an out-of-office or other automatic reply: a system turn only
    bounce             a delivery failure: the outbound email is marked failed
    delivery_report    a report that is no failure (RFC 3464 Action delayed, delivered,
                       relayed, expanded): a delay is told to the thread, the email stays
    loop               our own mail came back
    unverified_sender  From is not the lawyer the token was issued to, or not proven as
                       the sender policy asks: held for ops, and the lawyer is challenged
    confirmed          the lawyer's CONFIRM to a challenge: the held reply is recorded
    unconfirmed        a message to a challenge address that confirms nothing
    no_thread          no reply token and no reference to our mail
    unparseable        the bytes could not be read as an email
    failed             processing crashed repeatedly; kept for ``hfa inbound reprocess``

A held message (unverified_sender, no_thread, unparseable) is never held in
silence: ``held`` tells its sender and, when it belongs to a request, the thread.

Authorisation (who sent it, how many From headers) is read with the
standard library's strict parser; mail-parser is used for bodies and
attachments, where its leniency helps.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from sqlalchemy.orm import Session

from gateway.errors import Unparseable
from gateway.inbound import held
from gateway.inbound.absence import approver_away
from gateway.inbound.ahead import Ahead, Known, Read, ahead_of, chunk_rows, read_ahead, read_rows
from gateway.inbound.assurance import prefetch, proven_sender
from gateway.inbound.attachments import write_large_attachments
from gateway.inbound.challenge import confirmed_inbound, take_confirm
from gateway.inbound.claims import claim_pending, lease_for, load_raw
from gateway.inbound.delegation import take_delegation
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.match import (
    EarlierCopies,
    lock_requests,
    match_recipient,
    preload_threads,
)
from gateway.inbound.reading import MailReader, Parsed, parse_stored
from gateway.inbound.record import (
    Outcome,
    finish,
    record_auto_reply,
    record_reply,
)
from gateway.inbound.reply import Reply
from gateway.inbound.reports import keep_headers_only, record_bounce
from gateway.replies import AutomaticKind, DeliveryReport
from gateway.runner import Runner, paused_after_failure
from gateway.services import Services
from gateway.store import blobs
from gateway.store.db import in_savepoint
from gateway.store.models import InboundMessage, Recipient, Request
from gateway.store.queue import kept_leased

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
# Messages recorded per write transaction: few enough that the write lock is never held
# long (the listeners in the other process commit replies between chunks).
WRITE_CHUNK = 8


def process(
    services: Services,
    session: Session,
    row: InboundMessage,
    parsed: Parsed | None = None,
    ahead: Ahead | None = None,
) -> Outcome:
    """Decide the outcome of one stored message and record it (``parsed``: its bytes read
    already, outside the transaction; ``ahead``: what they say, read from them there)."""
    earlier = EarlierCopies(session, row)
    if earlier.duplicate():
        return Outcome("duplicate", "the same message was processed before")
    mail = parsed if parsed is not None else parse_stored(blobs.raw_of(session, row))
    if isinstance(mail, Unparseable):
        outcome = Outcome("unparseable", str(mail))
        if _to_bounce_address_only(services, row):
            outcome.detail += "; " + keep_headers_only(services, session, row, "unreadable")
        return held.tell(services, session, row, outcome, automatic=False, their_message_id=None)
    if isinstance(mail, Exception):
        # A bug in parsing: this message is undone and retried, like any crash.
        raise mail
    if ahead is None:
        ahead = read_ahead(services, mail)
    if ahead.own_loop:
        return Outcome("loop", "our own mail came back")

    held_id = confirmed_inbound(services, row)
    if held_id is not None:
        # A CONFIRM to the challenge of a held reply (``challenge``): never itself an answer.
        return take_confirm(services, session, row, mail, held_id)
    recipient = match_recipient(services, session, row, mail, ahead.cited)
    automatic = ahead.automatic
    bounce_address_only = _to_bounce_address_only(services, row)
    if automatic is AutomaticKind.BOUNCE or (
        recipient is None and row.mail_from in ("", "<>") and automatic is not None
    ):
        report = mail.report if isinstance(mail.report, DeliveryReport) else None
        return record_bounce(services, session, row, report, at_bounce_address=bounce_address_only)
    outcome = _answer(services, session, row, mail, recipient, automatic, earlier)
    if outcome.name == "no_thread" and bounce_address_only:
        # Storage at the bounce address is bounded: what cites none of our emails is
        # kept as its headers only.
        outcome.detail += "; " + keep_headers_only(services, session, row, "no email of ours")
    # A held message is never held in silence: its sender and the thread are told.
    return held.tell(
        services,
        session,
        row,
        outcome,
        automatic=automatic is not None,
        their_message_id=ahead.their_message_id,
        mail=mail,
    )


def _answer(
    services: Services,
    session: Session,
    row: InboundMessage,
    mail: ParsedMail,
    recipient: Recipient | None,
    automatic: AutomaticKind | None,
    earlier: EarlierCopies,
) -> Outcome:
    """The outcome of a message that is not a bounce: recorded, or why it is held."""
    config = services.config
    if recipient is None:
        return Outcome("no_thread", "no valid reply token and no reference to our mail")
    if automatic is None and _to_bounce_address_only(services, row):
        # The reply token is checked at RCPT; the Message-IDs a message cites are not
        # proof of who may answer, so mail to the bounce address is never an answer.
        return Outcome("no_thread", "sent to the bounce address, which never takes answers")
    if earlier.duplicate_for(recipient.request_id):
        return Outcome("duplicate", "the same message was processed before for this request")
    request = session.get(Request, recipient.request_id)
    assert request is not None
    # The one value every later step takes: what the message is, which request it
    # answers, for whom, and when; who sent it once that is proven.
    reply = Reply(row, mail, request, recipient, services.clock.now())
    if automatic is AutomaticKind.AUTO_REPLY:
        outcome = record_auto_reply(session, reply)
        # An approver who is away: their delegate is asked, or the others are told.
        away = approver_away(services, session, reply)
        return Outcome(
            outcome.name,
            "; ".join(filter(None, (outcome.detail, away))),
            request,
            recipient,
            outcome.turn_id,
        )

    # How well the sender is proven (the policy is applied once the decision is read).
    reply.check = proven_sender(config, session, reply)
    if not reply.check.ok:
        return Outcome("unverified_sender", reply.check.reason, request, recipient)
    # A DELEGATE link's reply hands the request on (gateway.inbound.delegation).
    delegated = take_delegation(services, session, reply)
    if delegated is not None:
        return delegated
    outcome = record_reply(services, session, reply)
    if outcome.request is None:
        # The reply's text could not be read: held, and the thread is told.
        return Outcome(outcome.name, outcome.detail, request, recipient)
    return outcome


def _to_bounce_address_only(services: Services, row: InboundMessage) -> bool:
    bounce = services.config.mail_from.lower()
    return all(address.strip().strip("<>").lower() == bounce for address in row.rcpt_to)


def process_one(services: Services, inbound_id: int) -> str:
    """Process one stored message; returns its outcome."""
    return process_batch(services, [inbound_id])[0]


def _parse_all(services: Services, ids: list[int]) -> dict[int, Parsed]:
    """Read and parse the messages before the write transaction: parsing is the slow part,
    and the write lock (on SQLite, one for every process) is not held meanwhile."""
    with services.db.read_only() as session:
        raws = blobs.raws(session, ids)
    return {inbound_id: parse_stored(raw) for inbound_id, raw in raws.items()}


def process_batch(
    services: Services, ids: list[int], already_read: Mapping[int, Parsed] | None = None
) -> list[str]:
    """Process stored messages, WRITE_CHUNK to a transaction (one commit each).

    A message whose processing raises is undone alone and retried later (up to
    MAX_ATTEMPTS, then kept as ``failed``); the others are recorded. Each chunk
    is parsed first and then written, so the write lock is held for a few
    messages' worth of writes at a time. ``already_read``: what
    :func:`parse_stored` gave, run off the event loop.
    """
    outcomes: dict[int, str] = {}
    crashed: list[int] = []
    for start in range(0, len(ids), WRITE_CHUNK):
        chunk = ids[start : start + WRITE_CHUNK]
        unread = [i for i in chunk if not already_read or i not in already_read]
        parsed = {**(already_read or {}), **(_parse_all(services, unread) if unread else {})}
        # DNS (DKIM keys, DMARC) before the transaction, never while holding the write lock.
        prefetch(services.config, [parsed[i] for i in chunk if i in parsed])
        for mail in parsed.values():
            if isinstance(mail, ParsedMail):
                write_large_attachments(services, mail)
        reads = {i: (parsed.get(i), ahead_of(services, parsed.get(i))) for i in chunk}
        known = read_rows(services, chunk)
        try:
            # Whole: a savepoint per message costs two statements and a flush each,
            # spent only on a chunk that needs them.
            with services.db.transaction() as session:
                outcomes.update(_record_chunk(services, session, chunk, reads, known))
        except Exception:
            # Nothing of the chunk was kept; written again with each message in its own
            # savepoint, so the one that raises is undone alone.
            with services.db.transaction() as session:
                done, failed = _record_chunk_apart(services, session, chunk, reads)
            outcomes.update(done)
            crashed += failed
    for inbound_id in crashed:
        outcomes[inbound_id] = _after_crash(services, inbound_id)
    return [outcomes[i] for i in ids]


def _record(services: Services, session: Session, row: InboundMessage | None, read: Read) -> str:
    assert row is not None
    outcome = process(services, session, row, *read)
    finish(services, session, row, outcome)
    return outcome.name


def _record_chunk(
    services: Services,
    session: Session,
    chunk: list[int],
    reads: Mapping[int, Read],
    known: Known,
) -> dict[int, str]:
    rows, recipients = known
    for loaded in (*rows.values(), *recipients):
        # Taken into this session as they were read: no statement.
        session.add(loaded)
    _requests = lock_requests(session, {r.request_id for r in recipients})
    return {i: _record(services, session, rows.get(i), reads[i]) for i in chunk}


def _record_chunk_apart(
    services: Services, session: Session, chunk: list[int], reads: Mapping[int, Read]
) -> tuple[dict[int, str], list[int]]:
    """Each message in its own savepoint: the outcomes, and the messages that raised."""
    rows = chunk_rows(session, chunk)
    _threads = preload_threads(services, session, rows.values())
    done: dict[int, str] = {}
    crashed: list[int] = []
    for inbound_id in chunk:
        row, read = rows.get(inbound_id), reads[inbound_id]

        def work(session: Session, row: InboundMessage | None = row, read: Read = read) -> str:
            return _record(services, session, row, read)

        try:
            done[inbound_id] = in_savepoint(session, work)
        except Exception:
            log.exception("inbound %s: processing failed", inbound_id)
            crashed.append(inbound_id)
            # Rows written by compiled statements (a request's status, a message's
            # outcome) were undone without the session knowing: read again when used.
            session.expire_all()
    return done, crashed


def _after_crash(services: Services, inbound_id: int) -> str:
    with services.db.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
        assert row is not None
        if row.attempts >= MAX_ATTEMPTS:
            finish(services, session, row, Outcome("failed", "processing failed repeatedly"))
            return "failed"
        row.lease_until = None
    return "retry"


def sweep_orphans(services: Services) -> int:
    """Remove the chunks of large values whose owner was never recorded (a crash)."""
    with services.db.transaction() as session:
        removed = blobs.sweep(session, services.clock.now())
    if removed:
        log.info("removed %d chunks of large values that no message owns", removed)
    return removed


class InboundWorker:
    def __init__(self, services: Services) -> None:
        self.services = services
        # Messages are read (parsed, understood) in a process of their own: one at a
        # time, beside this one's write transactions (``gateway.inbound.reading``).
        self.reader = MailReader()
        # Chunks of large values that no row owns (a write cut short) are removed hourly.
        self._next_sweep = services.clock.now()

    async def run_once(self) -> int:
        services = self.services
        if services.clock.now() >= self._next_sweep:
            await asyncio.to_thread(sweep_orphans, services)
            self._next_sweep = services.clock.now() + blobs.ORPHAN_AGE
        ids = await services.db.run(claim_pending, services)
        if ids:
            lease = lease_for(services)
            async with kept_leased(services.db, services.clock.now, InboundMessage, ids, lease):
                raws = await services.db.run(load_raw, services, ids)
                reads = self.reader.read_each(raws)
                for start in range(0, len(ids), WRITE_CHUNK):
                    # Recorded while the reading process reads the next chunk.
                    chunk = ids[start : start + WRITE_CHUNK]
                    already_read = {i: await reads[i] for i in chunk if i in reads}
                    # In a thread, on SQLite too: while it waits for the write lock (which
                    # the listeners' commits hold) the loop goes on delivering mail.
                    await asyncio.to_thread(process_batch, services, chunk, already_read)
        return len(ids)

    async def run_forever(self, stop: asyncio.Event) -> None:
        poll = self.services.config.worker_poll_seconds
        runner = Runner(
            "inbound worker iteration failed; retrying",
            poll,
            iteration=self.run_once,
            wakeup=self.services.inbound_ready,
            failure_pause=paused_after_failure(poll),
        )
        try:
            await runner.run(stop)
        finally:
            self.reader.close()
