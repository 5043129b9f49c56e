"""The correction window: a decision read from typed text waits before the agent hears of it.

A lawyer who sees in the receipt that their words were read wrongly can still
correct them: until ``HFA_CORRECTION_WINDOW`` has passed, the reply is on the
record as a ``human/pending_decision`` turn (what was read under
``pending.read_as``, with ``decision`` empty), the status does not move, nothing is pushed and the
other lawyers are not told, so every agent interface still reads "waiting".
An answer link tapped with nothing typed under it is the structured channel
and acts at once.

When the window ends, the decision takes effect as a new human turn of its
own kind (an ``approval``, a ``rejection``...) that names the pending turn it
comes from; the status moves and the push goes out, once. A new answer from
the same lawyer inside the window replaces the pending reading instead: a
``system/reading_replaced`` turn says so, and the held decision never takes
effect. Nothing is edited: both readings stay on the record.

"Inside the window" is judged by when the new answer was received (its
durable ``received_at``, written before the listener's 250), never by when the
worker reads it: a worker stalled or restarted after a crash reads late, and
the lawyer who corrected in time must still win. So a window does not end
while a reply to this lawyer's address received before its end is unread; the
job that ends windows waits for the worker to read it (``store.arrivals``
orders the two). And an answer received before one already recorded from the
same lawyer (read late, after a crash) is kept but never takes effect: the
later one is their last word.

Each pending reading is a ``pending_readings`` row, settled exactly once by a
guarded UPDATE in the same transaction as what it settles, so a restart loses
none and two workers never both act on one.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.errors import StorageError
from gateway.inbound.effect import put_into_effect, tell_and_push
from gateway.inbound.late_replies import answer_in_hand as answer_in_hand
from gateway.inbound.late_replies import received_of, request_free, unread_in_window
from gateway.inbound.late_replies import unless_superseded as unless_superseded
from gateway.inbound.reply import Answer
from gateway.options import MAX_CHOICES
from gateway.outbound.quickreply import QUICK_REPLIES, QuickReply, quick_subject, untouched_choice
from gateway.replies import Reading
from gateway.runner import Runner
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient, Request, Turn
from gateway.store.reading_models import PendingReading
from gateway.store.recording import add_pending_reading, unsettled_readings
from gateway.store.thread import add_turn

log = logging.getLogger(__name__)

PENDING_KIND = "pending_decision"
REPLACED_KIND = "reading_replaced"
TOOK_EFFECT = "took_effect"
REPLACED = "replaced"
# How many due readings one pass settles; the rest wait for the next pass.
BATCH = 50

# What each answer link's keyword decides, as a reading names it.
_LINK_DECIDES = {
    "approve": "approval",
    "approve_with_conditions": "approval",
    "reject": "rejection",
    "question": "question",
    "decline": "decline",
    "acknowledge": "acknowledgement",
}


def untouched_link(reading: Reading, subject: str, text: str, reference: str) -> QuickReply | None:
    """The answer link this reply is, when it was sent with nothing typed under it.

    ``text`` is what the lawyer said (the link's unanswered prompt left out). The
    subject must be the link's own (keyword and this request's reference), the text
    nothing but the keyword line, and the reading the one the link stands for;
    anything else is typed text and waits out the window.
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    tap = untouched_choice(subject, lines, reference, MAX_CHOICES) if reading.choice else None
    if tap is not None:
        # A choice button sent as it opened: the structured channel, in effect at once.
        return tap
    if not reading.decides or reading.read_from != "quick_reply":
        return None
    wanted = " ".join(subject.split()).casefold()
    for link in QUICK_REPLIES:
        if quick_subject(link.keyword, reference).casefold() != wanted:
            continue
        if lines == [link.keyword] and _LINK_DECIDES[link.key] == reading.decision:
            return link
    return None


def source_of(reading: Reading, link: QuickReply | None) -> dict[str, Any]:
    """``read_from``, ``because`` and ``answer`` for the turn: where the reading came from."""
    out: dict[str, Any] = {"read_from": reading.read_from, "because": reading.because}
    if reading.answer is not None:
        out["answer"] = reading.answer
    if reading.language is not None:
        # The language the reply was read in: the lawyer's emails follow it.
        out["language"] = reading.language
    return out


def due_at(
    services: Services,
    reading: Reading,
    link: QuickReply | None,
    *,
    late: bool,
    now: datetime,
) -> datetime | None:
    """When a reading of typed text takes effect; None when it acts at once or decides
    nothing. Every decision read from typed text waits out the window."""
    window = services.config.lawyer.correction_window_seconds
    # A choice picked in typed words waits too; a reply that picks nothing acts at once.
    if window <= 0 or late or link is not None or not (reading.decides or reading.choice):
        return None
    return now + timedelta(seconds=window)


def held_data(data: dict[str, Any], kind: str, status: str, due: datetime) -> dict[str, Any]:
    """The turn data of a held reading: the decision kept apart, under ``pending``."""
    held = dict(data)
    held["pending"] = {
        "read_as": data["decision"],
        "kind": kind,
        "status": status,
        "takes_effect_at": iso(due),
    }
    if "choice" in held:
        # Not a pick in effect either, until the window ends.
        held["pending"]["choice"] = held.pop("choice")
    # No reader of the thread may take a held reading for a decision in effect.
    held["decision"] = None
    held["notice"] = (
        f"Not in effect: what was read from this reply takes effect at {iso(due)} unless the "
        "lawyer corrects it before then. Until then the request is still waiting; do not act "
        "on this reply."
    )
    return held


def hold(
    services: Services,
    session: Session,
    request: Request,
    recipient: Recipient,
    turn: Turn,
    due: datetime,
) -> None:
    add_pending_reading(session, request.id, recipient.id, turn.id, due)
    services.audit.append(
        session,
        "reply.pending",
        at=turn.at,
        actor=str(turn.data.get("from", "")),
        reference=request.reference,
        details={"turn": turn.seq, "takes_effect_at": iso(due), **_reading(turn)},
    )


def settle_earlier(
    services: Services,
    session: Session,
    request: Request,
    recipient: Recipient,
    row: InboundMessage,
    now: datetime,
) -> list[dict[str, Any]]:
    """Settle this lawyer's held readings before their new answer is recorded.

    ``row``: the new answer as stored; its ``received_at`` counts, not ``now`` (when it is
    read).
    A reading whose window had ended by then takes effect first (the new answer is
    then a correction after the fact, a turn of its own), unless another reply of
    the lawyer's received in its window is still unread (that one settles it when
    read); one whose window was still open is replaced. Returns what was
    replaced, for the receipt.
    """
    replaced, received = [], row.received_at
    for pending_id, turn_id, due in unsettled_readings(session, request.id, recipient.id):
        if received_of(session, turn_id) > received:
            # Held from a later reply (this one was read late): the later one stands.
            continue
        if due <= received:
            if not unread_in_window(services, session, pending_id):
                take_effect(services, session, pending_id, now)
        elif _claim(session, pending_id, REPLACED, now):
            replaced.append(_replace(services, session, request, turn_id, now))
    return replaced


def _replace(
    services: Services, session: Session, request: Request, turn_id: int, now: datetime
) -> dict[str, Any]:
    turn = session.get(Turn, turn_id)
    assert turn is not None
    reading = _reading(turn)
    label = str(reading["read_as"] or "reply").upper()
    add_turn(
        session,
        request,
        author="system",
        kind=REPLACED_KIND,
        at=now,
        body=f"The reading of the reply of {iso(turn.at)} from {turn.data.get('from')} "
        f"({label}, not yet in effect) was replaced by their new answer; it never took "
        "effect.",
        data={"replaced_turn": turn.seq, "from": turn.data.get("from"), **reading},
    )
    services.audit.append(
        session,
        "reply.pending_replaced",
        at=now,
        actor=str(turn.data.get("from", "")),
        reference=request.reference,
        details={"turn": turn.seq, **reading},
    )
    return {"decision": reading["read_as"], "at": turn.at}


def take_effect(
    services: Services,
    session: Session,
    pending_id: int,
    now: datetime,
    *,
    unless_taken: bool = False,
) -> bool:
    """The held decision becomes a turn in effect, once; False if it was settled already.

    ``unless_taken``: False too, at once, when another transaction is settling the row
    right now (PostgreSQL; the ending of windows by every worker): it waited for that
    whole transaction only to find the row settled. A correction never passes it: it
    must know whether the reading took effect.
    """
    if not _claim(session, pending_id, TOOK_EFFECT, now, unless_taken=unless_taken):
        return False
    row = session.get(PendingReading, pending_id)
    assert row is not None
    held = session.get(Turn, row.turn_id)
    request = session.get(Request, row.request_id)
    recipient = session.get(Recipient, row.recipient_id)
    assert held is not None and request is not None and recipient is not None
    pending = held.data["pending"]
    data = {k: v for k, v in held.data.items() if k not in ("pending", "notice")}
    data |= {"decision": pending["read_as"], "held_turn": held.seq, "read_at": iso(held.at)}
    if "choice" in pending:
        data["choice"] = pending["choice"]
    if request.status == "closed":
        data["late"] = True
    actor = str(data.get("from", ""))
    turn = add_turn(
        session, request, author="human", kind=pending["kind"], at=now, body=held.body, data=data
    )
    answer = Answer(request, recipient, turn, now)
    counted = put_into_effect(services, session, answer, pending["status"], actor=actor)
    session.flush()
    services.audit.append(
        session,
        "reply.took_effect",
        at=now,
        actor=actor,
        reference=request.reference,
        details={"turn": turn.seq, "held_turn": held.seq, "status": request.status},
    )
    tell_and_push(services, session, answer, counted)
    return True


def _claim(
    session: Session, pending_id: int, outcome: str, now: datetime, *, unless_taken: bool = False
) -> bool:
    """Settle the row if nobody has: True for the one transaction that does."""
    unsettled = (PendingReading.id == pending_id, PendingReading.settled_at.is_(None))
    row = PendingReading.id == pending_id
    if unless_taken and session.get_bind().dialect.name == "postgresql":
        free = select(PendingReading.id).where(*unsettled).with_for_update(skip_locked=True)
        row = PendingReading.id.in_(free.scalar_subquery())
    claim = (
        update(PendingReading)
        .where(row, PendingReading.settled_at.is_(None))
        .values(settled_at=now, outcome=outcome)
        .execution_options(synchronize_session=False)
    )
    result = cast(CursorResult[Any], session.execute(claim))
    return result.rowcount == 1


def _reading(turn: Turn) -> dict[str, Any]:
    pending = turn.data.get("pending") or {}
    # "read_as", never "decision": no reader of the thread may take it for one in effect.
    return {
        "read_as": pending.get("read_as"),
        "read_from": turn.data.get("read_from"),
        "because": turn.data.get("because"),
    }


def settle_due(services: Services) -> int:
    """Put every reading whose window has ended into effect; returns how many did.

    A reading waits (and is looked at again on the next pass) while a reply of the
    lawyer's received inside its window is unread.
    """
    now = services.clock.now()
    with services.db.read_only() as session:
        due = list(
            session.scalars(
                select(PendingReading.id)
                .where(PendingReading.settled_at.is_(None), PendingReading.due_at <= now)
                .order_by(PendingReading.due_at)
                .limit(BATCH)
            )
        )
    settled = 0
    # One transaction each, so one bad row never holds back the rest.
    for pending_id in due:
        try:
            with services.db.transaction() as session:
                # The request's row before the fence, in the order a worker takes them.
                if not request_free(session, pending_id):
                    continue
                if unread_in_window(services, session, pending_id):
                    continue
                settled += take_effect(services, session, pending_id, now, unless_taken=True)
        except StorageError:
            log.exception("pending reading %s did not take effect; retried", pending_id)
    return settled


def start(services: Services, stop: asyncio.Event) -> asyncio.Task[None]:
    """The job that ends correction windows: polled, since readings fall due by the clock."""
    # A window of minutes is kept to about a second, whatever the workers' own poll.
    poll = min(max(services.config.worker_poll_seconds, 0.25), 1.0)

    async def end_windows() -> int:
        settled = await services.db.run(settle_due, services)
        if settled:
            services.outbox_ready.set()
        return settled

    runner = Runner(
        "ending correction windows failed; retrying", poll, iteration=end_windows, logger=log
    )
    return asyncio.create_task(runner.run(stop))
