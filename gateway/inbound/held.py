"""Nothing held in silence: a held message's sender is told, and so is the thread.

A message the worker holds (its sender is not the lawyer, it matches no
request, it cannot be read) gets:

- a short notice to its envelope sender (why it was not recorded, what to do),
  never with anything of the thread in it, under the rules below;
- when its sender is not proven to be the lawyer (``unverified_sender``), a challenge
  to the lawyer's registered address to CONFIRM it (``challenge``), which takes the
  place of the notice when that address is also the envelope sender;
- when it belongs to a request, a ``system`` turn on the thread ("a reply from
  another address is held for review", no content), pushed to the agent like
  any turn. ``hfa requests show`` lists the held messages with the command that
  accepts them.

Who gets a notice, and how often. A notice is an automatic response to a message
whose sender may be forged, so it must never become a way to mail strangers
(backscatter: thirty forged envelope senders on one thread get one notice, not
thirty), and a person who meant to answer must never be left in silence (a
partner's second held REJECT of the day gets its notice too). The two meet in
what a forger cannot fake cheaply: a reply whose envelope sender is its own From
address, that no check calls forged, and that carries a decision word is someone
answering, and is told each time within a daily cap; everything else shares
hourly and daily limits:

- never to a null sender, a machine (MAILER-DAEMON, postmaster, no-reply), a
  mailing list (``owner-*``, ``*-request``, ``*-owner``, ``*-bounces``), an
  automatic message (Auto-Submitted, Precedence, List-Id...), our own domain
  (RFC 3834 section 2), nor where the trusted server says the envelope sender
  failed SPF, DKIM or DMARC, nor for a message carrying a forged
  Authentication-Results: those senders are likely forged;
- a genuine reply that carried a decision word (its envelope sender is its
  From address and nothing says it is forged: a colleague who tapped REJECT)
  always gets its notice, within DECIDED_PER_ADDRESS_DAY a day to that address
  and DECIDED_PER_THREAD_DAY a day on its thread;
- any other held message gets one at most once an hour per address and per
  thread, OTHER_PER_ADDRESS_DAY a day per address, and OTHER_PER_DAY_ALL a day
  for all senders together.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.inbound import challenge
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.record import Outcome
from gateway.inbound.sender import FORGED_RESULTS, envelope_sender_fails
from gateway.outbound import held_notices, push
from gateway.replies import Reading
from gateway.services import Services
from gateway.store.models import InboundMessage
from gateway.store.thread import add_turn

HELD_OUTCOMES = ("unverified_sender", "no_thread", "unparseable")
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
DECIDED_PER_ADDRESS_DAY = 10
DECIDED_PER_THREAD_DAY = 10
OTHER_PER_ADDRESS_DAY = 3
OTHER_PER_DAY_ALL = 20
HELD_TURN = "held_reply"
# Senders that are machines: a notice to them is at best noise, at worst a loop.
_MACHINE_LOCAL_PARTS = frozenset(
    {
        "mailer-daemon",
        "postmaster",
        "noreply",
        "no-reply",
        "donotreply",
        "do-not-reply",
        "bounce",
        "bounces",
        "listserv",
        "majordomo",
        "mailman",
    }
)
# Mailing-list administrative senders (RFC 3834 section 2: never respond to them).
_LIST_PREFIXES = ("owner-",)
_LIST_SUFFIXES = ("-request", "-owner", "-bounces", "-bounce", "-admin")


@dataclass(frozen=True)
class Explanation:
    reason: str
    what_to_do: str
    turn_body: str


def explain(outcome: Outcome, sender: str = "") -> Explanation:
    """What the sender and the thread are told, by why the message was held.

    ``sender``: the held message's From address, when it could be read. The branches
    return alike on purpose: each is one held outcome's three sentences, kept beside
    the condition that picks it rather than in a table away from it.
    """
    detail = outcome.detail.lower()
    if outcome.name == "unverified_sender" and "is not the recipient" in detail:
        colleague = _colleague_of(outcome, sender)
        if colleague:
            return Explanation(
                f"it came from {sender}, and this request was sent to {colleague}: "
                "only an answer from the address a request was sent to is recorded.",
                f"ask {colleague} to answer it, or ask the gateway's operator to accept "
                "this message (and, if you answer for them regularly, to add your address "
                f"to {colleague}'s addresses). Forwarding the request to you does not change "
                "whose answer counts.",
                "A reply from a colleague of the lawyer is held for review; it is not on the "
                "record unless the lawyer confirms it or the operator accepts it.",
            )
        return Explanation(
            "it did not come from the address the request was sent to.",
            "if you are the lawyer the request was sent to, reply from that address, or ask "
            "the gateway's operator to accept this message. If you are not, nothing is needed.",
            "A reply from another address is held for review; it is not on the record "
            "unless the lawyer confirms it or the operator accepts it.",
        )
    if outcome.name == "unverified_sender" and detail.startswith("the answer link names"):
        return Explanation(
            outcome.detail[:200] + ": which request you meant is unknown, so it decides neither.",
            "reply CONFIRM to the confirmation email if you meant this request, or tap the "
            "answer link in the email of the request you meant.",
            "A reply is held for review: its answer link names another request. It is not on "
            "the record unless the lawyer confirms it or the operator accepts it.",
        )
    if outcome.name == "unverified_sender" and FORGED_RESULTS.lower() in detail:
        return Explanation(
            "it carries an authentication result that this gateway's mail server did not "
            "write, so its sender cannot be trusted.",
            "reply again from your usual mail program, or ask the gateway's operator to "
            "accept this message.",
            "A reply is held for review: it carries an authentication result the gateway's "
            "mail server did not write (possibly forged). It is not on the record unless "
            "the lawyer confirms it or the operator accepts it.",
        )
    if outcome.name == "unverified_sender":
        return Explanation(
            "its sender could not be verified (" + outcome.detail[:200].rstrip(".") + ").",
            "reply again from your usual mail program with a single From address, or ask "
            "the gateway's operator to accept this message.",
            "A reply is held for review: its sender could not be verified. It is not on "
            "the record unless the lawyer confirms it or the operator accepts it.",
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


def _colleague_of(outcome: Outcome, sender: str) -> str:
    """The address the request went to, when the sender writes from the same domain (a
    colleague at the firm may be told whose answer counts); else ""."""
    recipient = outcome.recipient.address.lower() if outcome.recipient is not None else ""
    same_domain = sender.rpartition("@")[2] == recipient.rpartition("@")[2]
    return recipient if sender and recipient and same_domain and sender != recipient else ""


def _is_list_or_machine(local: str) -> bool:
    return (
        local in _MACHINE_LOCAL_PARTS
        or local.startswith(_LIST_PREFIXES)
        or local.endswith(_LIST_SUFFIXES)
    )


def notice_address(row: InboundMessage, automatic: bool, own_domain: str) -> str | None:
    """Where a notice may go: the envelope sender, unless it is null, a machine, a list."""
    address = row.mail_from.strip().strip("<>").strip().lower()
    if automatic or not address or "@" not in address:
        return None
    local, _, domain = address.rpartition("@")
    if _is_list_or_machine(local) or domain == own_domain or domain.endswith("." + own_domain):
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
    mail: ParsedMail | None = None,
) -> Outcome:
    """Notice to the sender and a turn on the thread for a held ``outcome``; the outcome.

    ``mail``: the held message as read, when it could be (who wrote it, what it decided).
    """
    if outcome.name not in HELD_OUTCOMES:
        return outcome
    now = services.clock.now()
    sender = _from_address(mail)
    explanation = explain(outcome, sender)
    challenged = outcome.name == "unverified_sender" and challenge.send(
        services, session, row, outcome, mail
    )
    address = notice_address(row, automatic, services.config.reply_domain)
    if (
        challenged
        and outcome.recipient is not None
        and address == outcome.recipient.address.lower()
    ):
        # The lawyer's registered address was asked to confirm it: one email, not two.
        address = None
    if address is not None and _may_notify(services, session, outcome, mail, address, now):
        _notify_sender(services, session, row, outcome, explanation, now, address, their_message_id)
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


def _from_address(mail: ParsedMail | None) -> str:
    if mail is None or mail.sender is None:
        return ""
    return (mail.sender[0] or "").lower()


# The words that decide (a question or an acknowledgement does not).
_DECISIONS = frozenset({"approval", "rejection", "decline"})


def _carried_decision(mail: ParsedMail | None) -> bool:
    """The held reply reads as a decision: its one reading, when it was read against its
    request; otherwise what its text alone decides."""
    reading = getattr(mail, "reading", None)
    if isinstance(reading, Reading):
        return reading.decision in _DECISIONS
    text = getattr(mail, "decision", None)
    kind = getattr(getattr(text, "decision", None), "kind", None)
    return kind is not None and kind.value in _DECISIONS


def _may_notify(
    services: Services,
    session: Session,
    outcome: Outcome,
    mail: ParsedMail | None,
    address: str,
    now: datetime,
) -> bool:
    """The rules in this module's docstring, for a notice to ``address``."""
    trusted_id = services.config.trusted_authserv_id
    if FORGED_RESULTS.lower() in outcome.detail.lower():
        return False
    if mail is not None and envelope_sender_fails(mail.message, trusted_id, address):
        return False
    request_id = outcome.request.id if outcome.request is not None else None
    genuine = _from_address(mail) == address
    if genuine and _carried_decision(mail):
        # Never silence for a person who meant to answer: bounded per address and thread.
        if (
            held_notices.notices_since(session, now - DAY, address=address)
            >= DECIDED_PER_ADDRESS_DAY
        ):
            return False
        return request_id is None or (
            held_notices.notices_since(session, now - DAY, request_id=request_id)
            < DECIDED_PER_THREAD_DAY
        )
    if held_notices.notices_since(session, now - HOUR, address=address):
        return False
    if request_id is not None and held_notices.notices_since(
        session, now - HOUR, request_id=request_id
    ):
        return False
    if held_notices.notices_since(session, now - DAY, address=address) >= OTHER_PER_ADDRESS_DAY:
        return False
    return held_notices.notices_since(session, now - DAY) < OTHER_PER_DAY_ALL


def _notify_sender(
    services: Services,
    session: Session,
    row: InboundMessage,
    outcome: Outcome,
    explanation: Explanation,
    now: datetime,
    address: str,
    their_message_id: str | None,
) -> None:
    held_notices.enqueue_notice(
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
