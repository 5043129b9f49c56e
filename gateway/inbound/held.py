"""Nothing held in silence: a held message's sender is told, and so is the thread.

A message the worker holds (its sender is not the lawyer, it matches no
request, it cannot be read) gets:

- a short notice to its envelope sender (why it was not recorded, what to do),
  at most once per address per day, never to a null sender, an automatic reply
  or a bounce, and never with anything of the thread in it;
- when it belongs to a request, a ``system`` turn on the thread ("a reply from
  another address is held for review", no content), pushed to the agent like
  any turn. ``hfa requests show`` lists the held messages with the command that
  accepts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.inbound.record import Outcome
from gateway.outbound import notices, push
from gateway.services import Services
from gateway.store.models import InboundMessage
from gateway.store.thread import add_turn

HELD_OUTCOMES = ("unverified_sender", "no_thread", "unparseable")
NOTICE_INTERVAL = timedelta(days=1)
HELD_TURN = "held_reply"
# Senders that are machines: a notice to them is at best noise, at worst a loop.
_MACHINE_LOCAL_PARTS = frozenset(
    {"mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply", "do-not-reply", "bounce"}
)


@dataclass(frozen=True)
class Explanation:
    reason: str
    what_to_do: str
    turn_body: str


def explain(outcome: Outcome) -> Explanation:
    """What the sender and the thread are told, by why the message was held."""
    detail = outcome.detail.lower()
    if outcome.name == "unverified_sender" and "is not the recipient" in detail:
        return Explanation(
            "it did not come from the address the request was sent to.",
            "if you are the lawyer the request was sent to, reply from that address, or ask "
            "the gateway's operator to accept this message. If you are not, nothing is needed.",
            "A reply from another address is held for review; it is not on the record "
            "unless the operator accepts it.",
        )
    if outcome.name == "unverified_sender":
        return Explanation(
            "its sender could not be verified (" + outcome.detail[:200].rstrip(".") + ").",
            "reply again from your usual mail program with a single From address, or ask "
            "the gateway's operator to accept this message.",
            "A reply is held for review: its sender could not be verified. It is not on "
            "the record unless the operator accepts it.",
        )
    if outcome.name == "no_thread":
        return Explanation(
            "it does not answer a request this gateway knows: the reply address or the "
            "references of the original email were missing or no longer valid.",
            "answer with your mail program's Reply button on the original email, without "
            "changing the address it replies to.",
            "",
        )
    return Explanation(
        "it could not be read (" + outcome.detail[:200].rstrip(".") + ").",
        "send your answer again as an ordinary email (plain text or simple formatting), "
        "or ask the gateway's operator to look at this message.",
        "A reply is held for review: it could not be read. It is not on the record "
        "unless the operator accepts it.",
    )


def notice_address(row: InboundMessage, automatic: bool, own_domain: str) -> str | None:
    """Where a notice may go: the envelope sender, unless it is null or a machine."""
    address = row.mail_from.strip().strip("<>").strip().lower()
    if automatic or not address or "@" not in address:
        return None
    local, _, domain = address.rpartition("@")
    if local in _MACHINE_LOCAL_PARTS or domain == own_domain or domain.endswith("." + own_domain):
        return None
    return address


def tell(
    services: Services,
    session: Session,
    row: InboundMessage,
    outcome: Outcome,
    *,
    automatic: bool,
    their_message_id: str | None,
) -> Outcome:
    """Notice to the sender and a turn on the thread for a held ``outcome``; the outcome."""
    if outcome.name not in HELD_OUTCOMES:
        return outcome
    now = services.clock.now()
    explanation = explain(outcome)
    _notify_sender(services, session, row, outcome, explanation, now, automatic, their_message_id)
    request = outcome.request
    if request is None or not explanation.turn_body:
        return outcome
    turn = add_turn(
        session,
        request,
        author="system",
        kind=HELD_TURN,
        at=now,
        body=explanation.turn_body,
        data={"inbound_id": row.id, "held_because": outcome.name},
    )
    session.flush()
    push.enqueue_for_turn(services, session, request, turn)
    # The row's turn stays unset: it is the recorded answer, and this message is none
    # (the system turn names the message by ``inbound_id``).
    return outcome


def _notify_sender(
    services: Services,
    session: Session,
    row: InboundMessage,
    outcome: Outcome,
    explanation: Explanation,
    now: datetime,
    automatic: bool,
    their_message_id: str | None,
) -> None:
    address = notice_address(row, automatic, services.config.reply_domain)
    if address is None or notices.noticed_since(session, address, now - NOTICE_INTERVAL):
        return
    notices.enqueue_notice(
        services,
        session,
        to=address,
        at=now,
        request_id=outcome.request.id if outcome.request else None,
        reference=outcome.request.reference if outcome.request else None,
        payload={
            "reason": explanation.reason,
            "what_to_do": explanation.what_to_do,
            "received_at": iso(row.received_at),
            "their_message_id": (their_message_id or "")[:900],
            "inbound_id": row.id,
        },
    )
