"""A lawyer hands a request to a colleague: the DELEGATE link, and what it may not do.

An approver who cannot answer taps DELEGATE (a ``mailto:`` to their own reply
address, subject ``DELEGATE [HFA-00001]``) and types the colleague's address
under the prompt. The colleague gets the request, told that they answer in the
delegator's place; their vote counts for the delegator, once (``store.votes``:
a delegate's vote is the approver's, and a later one replaces it until the
outcome). The delegator is told, in their language, and is not reminded again.

Refused, in one sentence to the delegator (nothing else changes): an address
the gateway does not know as a lawyer, the delegator themselves or another
approver of the request (one person would count twice), a delegate delegating
again or a colleague who already answers for someone (a loop), a vote already
cast, or a request already decided or closed. Handing a vote away needs the
sender proven as strongly as a decision does.
"""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.inbound.approvals import ask_recipient
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.record import Outcome, reply_of
from gateway.inbound.reply import Reply
from gateway.inbound.sender_policy import refusal
from gateway.outbound import outbox
from gateway.replies import DecisionKind, ReplyError
from gateway.services import Services
from gateway.store.models import Recipient, Request
from gateway.store.thread import add_turn
from gateway.store.votes import add_delegate, standing

KEYWORD = "DELEGATE"
_SUBJECT = re.compile(
    r"^\s*(?:(?:re|aw|antw|sv|r|rif|fwd?|wg|tr)\s*:\s*)*DELEGATE\s+\[([^\]]+)\]\s*$", re.I
)
_ADDRESS = re.compile(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def is_delegation(mail: ParsedMail, reference: str) -> bool:
    """The DELEGATE link's own subject, for this request."""
    found = _SUBJECT.match(mail.subject or "")
    return found is not None and found.group(1).strip().upper() == reference.upper()


def _named(mail: ParsedMail, delegator: str) -> list[str]:
    """The addresses typed in the reply's new text, the delegator's own left out."""
    try:
        text = reply_of(mail).new_text
    except ReplyError:
        return []
    found = [a.lower().rstrip(".") for a in _ADDRESS.findall(text)]
    return list(dict.fromkeys(a for a in found if a != delegator))


def _why_not(
    services: Services, session: Session, request: Request, person: str, to: list[str], at: datetime
) -> tuple[str, dict[str, str]]:
    """(reason key, its values) when the delegation is refused; ("", {}) when it may go."""
    if len(to) != 1:
        return ("no_address" if not to else "several", {})
    delegate = to[0]
    state = standing(session, request.id, at)
    if request.status == "closed" or state.evaluation.decided:
        return "decided", {}
    if person in state.delegates:
        return "loop_self", {"who": state.delegates[person]}
    if delegate in state.delegates:
        return "loop_other", {"to": delegate, "who": state.delegates[delegate]}
    voted = {v.person for v in (*state.evaluation.approvals, *state.evaluation.rejections)}
    if person in voted:
        return "voted", {}
    if delegate in state.policy.approvers:
        return "approver", {"to": delegate}
    config = services.config
    known = config.all_lawyers() | {a.lower() for a in config.escalation_for(request.category)}
    known |= config.lawyer.approval.approvers()
    if delegate not in known:
        return "unknown", {"to": delegate}
    on_thread = set(
        session.scalars(select(Recipient.address).where(Recipient.request_id == request.id))
    )
    if delegate in on_thread:
        return "approver", {"to": delegate}
    return "", {}


def take_delegation(services: Services, session: Session, reply: Reply) -> Outcome | None:
    """A DELEGATE reply handed on (or refused, and the lawyer told why); None when the
    message is no delegation, and is read as a reply like any other."""
    mail, request, recipient, now = reply.mail, reply.request, reply.recipient, reply.now
    if not is_delegation(mail, request.reference):
        return None
    refused = refusal(services.config, reply.sender, DecisionKind.APPROVAL)
    if refused:
        return Outcome("unverified_sender", refused)
    person = recipient.address.lower()
    to = _named(mail, person)
    reason, values = _why_not(services, session, request, person, to, now)
    if reason:
        _tell(services, session, request, recipient, now, {"refused": reason, **values})
        return Outcome("recorded", f"delegation refused: {reason}", request, recipient)
    delegate = to[0]
    add_delegate(session, request.id, delegate, person, now)
    ask_recipient(
        services,
        session,
        request,
        delegate,
        "delegate",
        now,
        {"delegate_for": person, "handed": True},
    )
    turn = add_turn(
        session,
        request,
        author="system",
        kind="delegated",
        at=now,
        body=f"{person} handed the request to {delegate}, whose answer counts for {person}, once.",
        data={
            "who": person,
            "delegate": delegate,
            "message_id": str(mail.headers.get("message-id", ""))[:300],
            "by": "link",
        },
    )
    services.audit.append(
        session,
        "request.delegated",
        at=now,
        actor=reply.sender.address,
        reference=request.reference,
        details={"who": person, "delegate": delegate, "inbound_id": reply.row.id},
    )
    _tell(services, session, request, recipient, now, {"to": delegate})
    return Outcome("recorded", f"delegated to {delegate}", request, recipient, turn.id)


def _tell(
    services: Services,
    session: Session,
    request: Request,
    recipient: Recipient,
    now: datetime,
    payload: dict[str, object],
) -> None:
    """The delegator hears what became of it, in their language (``outbound.change_notices``)."""
    outbox.enqueue_lawyer_email(
        services, session, request, recipient, purpose="delegation", at=now, payload=payload
    )
