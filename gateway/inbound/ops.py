"""What ops do with a stored message: accept a held reply, or run it through again."""

from __future__ import annotations

from gateway.errors import NotHeld
from gateway.inbound.claims import lease_for
from gateway.inbound.mailparse import parse
from gateway.inbound.record import Outcome, finish, record_reply
from gateway.inbound.reply import Reply
from gateway.inbound.sender import SenderCheck, from_address
from gateway.inbound.worker import process_one
from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import InboundMessage, Recipient, Request


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
        mail = parse(blobs.raw_of(session, row))
        sender = from_address(mail.message)[0] or row.mail_from
        accepted = {"method": "ops", "accepted_by": by, "held_because": row.outcome_detail or ""}
        check = SenderCheck(True, sender, f"accepted by {by}", accepted, strength="vouched")
        held_because = row.outcome_detail or ""
        now = services.clock.now()
        reply = Reply(row, mail, request, recipient, now, check)
        outcome = record_reply(services, session, reply, accepted_by=by)
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
        row.state, row.attempts, row.lease_until = "pending", 1, now + lease_for(services)
    return process_one(services, inbound_id)
