"""Recording a message's outcome: a human turn, a bounce, an auto-reply, the row's outcome.

Each stored message gets exactly one outcome, written in the same transaction as
whatever it adds to a thread (see ``worker`` for the list).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from gateway.contract import AWAITING_ANSWER, LATE_REPLY_NOTICE, iso
from gateway.inbound import crossed, pending
from gateway.inbound.approvals import Counted
from gateway.inbound.attachments import recorded_detail, store_attachments
from gateway.inbound.effect import ask_of, put_into_effect, status_after, tell_and_push
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.reply import Answer, Reply
from gateway.inbound.sender import SenderCheck
from gateway.inbound.sender_policy import refusal
from gateway.outbound import outbox
from gateway.replies import (
    DecisionKind,
    Reading,
    ReplyError,
    ReplyText,
    TextReading,
    extract_reply,
    plain_language,
    read_reply,
    read_text,
    with_choice,
)
from gateway.services import Services
from gateway.store.models import (
    InboundMessage,
    Recipient,
    Request,
)
from gateway.store.recording import set_outcome
from gateway.store.thread import add_turn, store_request

# A reply with no new text (a greeting, thanks, a signature): kept, never an answer.
NO_ANSWER_KIND = "no_answer"


@dataclass
class Outcome:
    name: str
    detail: str = ""
    request: Request | None = None
    recipient: Recipient | None = None
    turn_id: int | None = None


def record_auto_reply(session: Session, reply: Reply) -> Outcome:
    """An out-of-office or other automatic reply: a system turn, never an answer."""
    address, subject = reply.recipient.address, reply.mail.subject
    turn = add_turn(
        session,
        reply.request,
        author="system",
        kind="auto_reply",
        at=reply.now,
        body=f"Auto-reply from the lawyer ({address}): {subject}"[:500],
        data={"from": address, "inbound_id": reply.row.id},
    )
    session.flush()
    return Outcome("auto_reply", subject[:200], reply.request, reply.recipient, turn.id)


def reply_of(mail: ParsedMail) -> ReplyText:
    """The new text of the reply: worked out already (off the event loop), or now."""
    if isinstance(mail.reply, ReplyText):
        return mail.reply
    if isinstance(mail.reply, ReplyError):
        raise mail.reply
    return extract_reply(mail.text_plain, mail.text_html)


def record_reply(
    services: Services, session: Session, reply: Reply, accepted_by: str | None = None
) -> Outcome:
    """The human's answer: a turn with its reading, the status moved, a receipt, a push.

    The reading (``replies.read_reply``) is the only thing that says what the reply
    decides: the turn's kind, the status, the hold, the receipt and the push all follow
    it as it is. ``reply.check``: its sender, proven.
    """
    row, mail, request, now = reply.row, reply.mail, reply.request, reply.now
    check = reply.sender
    try:
        text = reply_of(mail)
        reading = reading_of(mail, text, request)
    except ReplyError as exc:
        return Outcome("unparseable", f"reply text could not be read: {exc}")
    # Held or challenged, the reply is described to the lawyer by this same reading.
    mail.reading = reading
    # The sender policy, now that what the reply decides is known: held, not recorded.
    if refused := _policy_refuses(services, check, reading, (mail.subject, request.reference)):
        return Outcome("unverified_sender", refused)
    kind: str = reading.kind
    new_status, body = status_after(reading, request), reading.said
    attachments = store_attachments(session, row, mail)
    link = pending.untouched_link(reading, mail.subject, body, request.reference)
    data = _turn_data(reply, text, reading, attachments)
    data |= pending.source_of(reading, link)
    if accepted_by is not None:
        # Held for ops (e.g. the lawyer's second address) and accepted by this person.
        data["accepted_by"] = accepted_by
    late = request.status == "closed"
    if late:
        # A late answer on a closed thread is kept, marked, and does not reopen it.
        data["late"] = True
    replaced: list[dict[str, Any]] = []
    if kind == NO_ANSWER_KIND:
        # Nothing new was said: no status moves, no reminder stops, nobody stands down.
        data[NO_ANSWER_KIND] = True
        due = None
    else:
        replaced = pending.settle_earlier(services, session, request, reply.recipient, row, now)
        due = pending.due_at(services, reading, link, late=late, now=now)
        data, kind, due = pending.unless_superseded(
            session, reply.recipient, row, (data, kind, due)
        )
    if due is not None:
        data = pending.held_data(data, kind, new_status, due)
        kind = pending.PENDING_KIND
    turn = add_turn(session, request, author="human", kind=kind, at=now, body=body, data=data)
    answer = reply.answer(turn)
    counted = _hold_or_put_into_effect(services, session, answer, (new_status, due), check.address)
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
            "conditions": len(data.get("conditions", [])),
            "late": late,
            "in_effect": kind not in (pending.PENDING_KIND, NO_ANSWER_KIND),
        },
    )
    _tell_everyone(services, session, answer, replaced, counted)
    detail = recorded_detail(kind, attachments)
    if mail.truncated:
        detail += "; truncated: " + "; ".join(mail.truncated)
    return Outcome("recorded", detail, request, reply.recipient, turn.id)


def _policy_refuses(
    services: Services, check: SenderCheck, reading: Reading, subject_reference: tuple[str, str]
) -> str:
    """Why the sender policy holds this reply (``sender_policy.refusal``), or "".

    ``subject_reference``: the reply's subject and its request's reference. An answer
    link naming another request decides neither: it is held and the lawyer asked.
    """
    if check.strength == "vouched":
        # An operator accepted it, or the lawyer confirmed it.
        return ""
    if crossed_link := crossed.other_request(reading, *subject_reference):
        return crossed_link
    # Thanks or a greeting moves nothing, so it is read as a question is.
    if reading.kind == NO_ANSWER_KIND:
        kind: DecisionKind | None = DecisionKind.QUESTION
    else:
        kind = DecisionKind(reading.decision) if reading.decision else None
    return refusal(services.config, check, None if reading.unclear else kind)


def reading_of(mail: ParsedMail, reply: ReplyText, request: Request) -> Reading:
    """The one reading of the reply, with the agent's choice it picks (if it offered any)."""
    has_attachments = bool(mail.attachments)
    reading = read_reply(text_of(mail, reply), ask_of(request), has_attachments=has_attachments)
    return with_choice(reading, request.fields, mail.subject, request.reference)


def text_of(mail: ParsedMail, reply: ReplyText) -> TextReading:
    """What the reply's text alone says: read in the reading process, or now."""
    read = mail.decision
    if isinstance(read, TextReading) and read.new_text == reply.new_text:
        return read
    return read_text(reply.new_text, mail.subject)


def _turn_data(
    reply: Reply, text: ReplyText, reading: Reading, attachments: list[dict[str, Any]]
) -> dict[str, Any]:
    """What the human turn carries besides its text: the reading, as it was read."""
    row, mail, check = reply.row, reply.mail, reply.sender
    data: dict[str, Any] = {
        "from": check.address,
        # What vouched for the sender: a trusted DMARC/DKIM pass, or the From address only.
        "authenticated_by": check.authenticated_by,
        "role": reply.recipient.role,
        "message_id": row.message_id,
        "subject": mail.subject[:300],
        "decision": reading.decision,
        "decision_words": reading.trigger,
        "decision_unclear": reading.unclear,
        "reading": reading.as_json(),
        "elided": text.elided,
        "new_text_confident": text.confident,
        "attachments": attachments,
        "inbound_id": row.id,
    }
    if reading.choice is not None:
        # The agent's choice the lawyer picked, exactly as the agent wrote it.
        data["choice"] = reading.choice
    if reading.conditions:
        # What the approval is subject to: the agent may act only within these.
        data["conditions"] = list(reading.conditions)
    if reading.cut:
        # Set aside as the lawyer's signature: kept, shown on the receipt, never read.
        data["signature"] = list(reading.cut)
    if mail.truncated:
        # The limits left part of the message unread; all of it is in the raw bytes.
        data["truncated"] = mail.truncated
    if reading.language is None and (language := plain_language(reading.said)):
        # No decision word named it: the text's own, so the receipt is in that language.
        data["language"] = language
    return data


def _hold_or_put_into_effect(
    services: Services,
    session: Session,
    answer: Answer,
    status_due: tuple[str, datetime | None],
    actor: str,
) -> Counted | None:
    """A typed reading waits out its window; anything else but a no-answer takes effect now.

    Returns how the turn counted under the approval policy, None when it has not (yet)
    taken effect: a held reading is a vote only once its window ends.
    """
    new_status, due = status_due
    turn = answer.turn
    if due is not None:
        pending.hold(services, session, answer.request, answer.recipient, turn, due)
        return None
    if turn.kind == NO_ANSWER_KIND or "superseded" in turn.data:
        return None
    return put_into_effect(services, session, answer, new_status, actor=actor)


def _tell_everyone(
    services: Services,
    session: Session,
    answer: Answer,
    replaced: list[dict[str, Any]],
    counted: Counted | None,
) -> None:
    """The lawyer's receipt at once; the thread's other humans and the agent only once
    the answer is in effect (a held reading tells them when its window ends).

    A reply that is only thanks or a greeting once the request is answered (a "Thanks!"
    to a receipt) is recorded and sets off nothing: no receipt, no notice, no push.
    """
    turn = answer.turn
    if turn.kind == NO_ANSWER_KIND and answer.request.status not in AWAITING_ANSWER:
        return
    if "superseded" in turn.data:
        # The later answer's receipt stands; this one changes nothing.
        return
    if services.config.receipts:
        _queue_receipt(services, session, answer, replaced, counted)
    if counted is not None:
        tell_and_push(services, session, answer, counted)


# Takes what _tell_everyone takes, as it is the first half of it: the receipt alone.
def _queue_receipt(
    services: Services,
    session: Session,
    answer: Answer,
    replaced: list[dict[str, Any]],
    counted: Counted | None,
) -> None:
    """Tell the lawyer what was recorded from their reply, in reply to that message."""
    request, turn, now = answer.request, answer.turn, answer.at
    data = turn.data
    outbox.enqueue_lawyer_email(
        services,
        session,
        request,
        answer.recipient,
        purpose="receipt",
        at=now,
        payload={
            "kind_label": turn.kind.replace("_", " "),
            "decision": data["decision"],
            "body": turn.body,
            "turn_seq": turn.seq,
            "reply_message_id": data.get("message_id"),
            "recorded_at": iso(now),
            "status": request.status,
            # Shown by the receipt templates: what the approval is subject to, and
            # whether the reply came after the request was closed.
            "conditions": data.get("conditions", []),
            "late": bool(data.get("late")),
            "late_note": LATE_REPLY_NOTICE if data.get("late") else "",
            # Held readings of this lawyer's that this reply replaced before they took effect.
            "replaced": [{"decision": r["decision"], "at": iso(r["at"])} for r in replaced],
            # "2 of 3 approvals needed; you are the first; ...": only for a vote in effect;
            # a held reading counts when its window ends.
            "tally": counted.tally() if counted is not None else "",
            "tally_parts": counted.tally_parts() if counted is not None else {},
        },
    )


def finish(services: Services, session: Session, row: InboundMessage, outcome: Outcome) -> None:
    """The message's outcome on its row, and its ``inbound.processed`` entry.

    The row and the request are written here by compiled statements, so the session
    is left with nothing to flush: the next message's first query flushes nothing.
    """
    now = services.clock.now()
    request, recipient = outcome.request, outcome.recipient
    set_outcome(
        session,
        row,
        {
            "state": "done",
            "outcome": outcome.name,
            "outcome_detail": outcome.detail[:2000],
            "processed_at": now,
            "lease_until": None,
            "request_id": request.id if request is not None else row.request_id,
            "recipient_id": recipient.id if recipient is not None else row.recipient_id,
            "turn_id": outcome.turn_id,
        },
    )
    if request is not None:
        store_request(session, request)
    services.audit.append(
        session,
        "inbound.processed",
        at=now,
        actor=f"smtp:{row.peer}",
        reference=outcome.request.reference if outcome.request else None,
        details={"inbound_id": row.id, "outcome": outcome.name, "detail": outcome.detail[:300]},
    )
