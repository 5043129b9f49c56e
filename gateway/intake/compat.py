"""What the compatibility APIs (HumanLayer, A2H) share: calls kept under the caller's id.

A compat call is an ordinary request, filed with ``filing.file_request``
(so it is mailed, recorded and audited like any other), plus a row that
maps the caller's id (``call_id``, ``metadata.uid``) to it and keeps the
caller's object to echo back. The answer is read from the thread each time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from gateway.contract import APPROVAL_KINDS, HUMAN_ANSWER_KINDS, iso
from gateway.errors import Conflict, FieldProblem, InvalidRequest, NotFound, StorageError
from gateway.intake import filing
from gateway.outbound import outbox
from gateway.services import Services
from gateway.store.models import CompatCall, Recipient, Request, Turn
from gateway.store.policy_models import RequestPolicy
from gateway.store.thread import add_turn, load_turns
from gateway.store.votes import decided

MAX_ID = 255
# Human turns that answer, and those that give a yes or no.
REFUSAL_KINDS = ("rejection", "decline", "close")


@dataclass(frozen=True)
class Answer:
    """The first human answer on a thread, as the compat APIs need it."""

    text: str
    kind: str
    at: datetime
    approved: bool | None
    conditions: tuple[str, ...] = ()
    # The agent's choice the lawyer picked (a multiple choice), exactly as the agent gave it.
    choice: str | None = None


@dataclass(frozen=True)
class Loaded:
    document: dict[str, Any]
    request: Request
    answer: Answer | None
    decision: Answer | None


def require_id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID:
        raise InvalidRequest(
            f"{field} must be a string of 1 to {MAX_ID} characters",
            [FieldProblem(field, f"a string of 1 to {MAX_ID} characters")],
        )
    return value


def check_lawyer(services: Services, category: str, address: Any, field: str) -> None:
    """Agents never choose recipients: a named address must be a configured lawyer."""
    lawyers = services.config.lawyers_for(category)
    if not isinstance(address, str) or address.strip().lower() not in {a.lower() for a in lawyers}:
        raise InvalidRequest(
            f"{field} must be one of the lawyers configured for {category} "
            f"({', '.join(lawyers)}); the gateway does not send to other addresses",
            [FieldProblem(field, f"one of: {', '.join(lawyers)}")],
        )


def file_call(
    services: Services,
    *,
    protocol: str,
    external_id: str,
    arguments: dict[str, Any],
    document: dict[str, Any],
    api_key_name: str | None,
) -> bool:
    """File the request for a compat call once, in a write transaction of its own; True if
    this call filed it, False for a repeat of the same id (the first call stands).

    Two calls with one id at the same moment (on PostgreSQL both look for it before
    either has it) end with one insert failing the unique id. Run again, the loser finds
    the winner's call: its own key's (a repeat) or another key's (not found), never a
    "try again" for a call that is on record.
    """

    def attempt() -> bool:
        with services.db.transaction() as session:
            if _find(session, protocol, external_id, api_key_name) is not None:
                return False
            if _taken(session, protocol, external_id):
                # Another key's id: answered as a GET of an unknown id answers.
                what = protocol.replace("_", " ")
                raise NotFound(f"no {what} with id {external_id[:MAX_ID]!r}")
            filed = filing.file_request(services, session, arguments, api_key_name=api_key_name)
            session.add(
                CompatCall(
                    protocol=protocol,
                    external_id=external_id,
                    request_id=int(filed.result["reference"].split("-")[1]),
                    api_key_name=api_key_name,
                    document=document,
                    created_at=services.clock.now(),
                )
            )
            session.flush()
            return True

    try:
        return attempt()
    except StorageError as error:
        if not isinstance(error.__cause__, IntegrityError):
            raise
        return attempt()


def _taken(session: Session, protocol: str, external_id: str) -> bool:
    if "\x00" in external_id:
        return False
    return (
        session.scalars(
            select(CompatCall.id).where(
                CompatCall.protocol == protocol, CompatCall.external_id == external_id
            )
        ).first()
        is not None
    )


def _find(
    session: Session, protocol: str, external_id: str, api_key_name: str | None
) -> CompatCall | None:
    if "\x00" in external_id:
        # No stored id holds a NUL (refused when filed), and PostgreSQL cannot even look.
        return None
    call = session.scalars(
        select(CompatCall).where(
            CompatCall.protocol == protocol, CompatCall.external_id == external_id
        )
    ).first()
    if call is not None and call.api_key_name is not None and call.api_key_name != api_key_name:
        # Another key's call: the same answer as an unknown id.
        return None
    return call


def escalate(
    services: Services,
    session: Session,
    *,
    protocol: str,
    external_id: str,
    api_key_name: str | None,
    message: str,
) -> None:
    """Remind the lawyers of a call, with the agent's message, in the same mail thread."""
    call = _find(session, protocol, external_id, api_key_name)
    request = session.get(Request, call.request_id) if call is not None else None
    if call is None or request is None:
        raise NotFound(f"no {protocol.replace('_', ' ')} with id {external_id[:MAX_ID]!r}")
    if request.status in ("closed", "declined"):
        raise Conflict(
            f"{request.reference} is {request.status}; file a new call instead",
            [FieldProblem("call_id", "a call whose request is still open")],
        )
    now = services.clock.now()
    add_turn(
        session,
        request,
        author="sender",
        kind="message",
        at=now,
        body=message,
        data={"escalation": True, "via": protocol},
    )
    for recipient in session.scalars(select(Recipient).where(Recipient.request_id == request.id)):
        outbox.enqueue_lawyer_email(
            services,
            session,
            request,
            recipient,
            purpose="follow_up",
            at=now,
            payload={"message": message, "recorded_at": iso(now)},
        )
    services.audit.append(
        session,
        "request.follow_up_recorded",
        at=now,
        actor=f"agent:{api_key_name}" if api_key_name else "agent",
        reference=request.reference,
        details={"chars": len(message), "escalation": True},
    )


def answer_text(body: str, kind: str, conditions: tuple[str, ...]) -> str:
    """The human's text; an approval with conditions says so first, so it cannot be
    taken for a bare approval by a caller that reads only ``approved``."""
    text = body.strip() or kind.replace("_", " ")
    if not conditions:
        return text
    listed = "\n".join(f"{n}. {c}" for n, c in enumerate(conditions, 1))
    return (
        f"APPROVED WITH CONDITIONS - proceed only within them:\n{listed}\n\n"
        f"The lawyer's reply:\n{text}"
    )


def _first_answer(turns: list[Turn], kinds: tuple[str, ...]) -> Answer | None:
    for turn in turns:
        # A reply after the request was closed answers nothing (the turn says ``late``).
        if turn.author == "human" and turn.kind in kinds and not turn.data.get("late"):
            approved = (
                True
                if turn.kind in APPROVAL_KINDS
                else False
                if turn.kind in REFUSAL_KINDS
                else None
            )
            conditions = tuple(str(c) for c in turn.data.get("conditions") or ())
            choice = turn.data.get("choice")
            return Answer(
                text=answer_text(turn.body, turn.kind, conditions),
                kind=turn.kind,
                at=turn.at,
                approved=approved,
                conditions=conditions,
                choice=choice if isinstance(choice, str) else None,
            )
    return None


def load_call(
    services: Services, protocol: str, external_id: str, api_key_name: str | None
) -> Loaded:
    with services.db.read_only() as session:
        call = _find(session, protocol, external_id, api_key_name)
        request = session.get(Request, call.request_id) if call is not None else None
        if call is None or request is None:
            raise NotFound(f"no {protocol.replace('_', ' ')} with id {external_id[:MAX_ID]!r}")
        turns = load_turns(session, request.id)
        session.expunge(request)
        return Loaded(
            document=dict(call.document),
            request=request,
            answer=_first_answer(turns, HUMAN_ANSWER_KINDS),
            decision=_outcome(session, request, turns),
        )


def _outcome(session: Session, request: Request, turns: list[Turn]) -> Answer | None:
    """The policy's outcome, not the first vote: approved once enough approvals came,
    refused once it was rejected; a decline or close still refuses a call."""
    if session.get(RequestPolicy, request.id) is None:
        # Filed before approval policies: the first yes or no, as it always was.
        return _first_answer(turns, (*APPROVAL_KINDS, *REFUSAL_KINDS))
    reached = decided(session, request.id)
    refusal = _first_answer(turns, ("decline", "close"))
    if reached is None or reached.evaluation.outcome == "expired":
        return refusal
    turn = next((t for t in turns if t.id == reached.turn_id), None)
    if refusal is not None and (turn is None or refusal.at < turn.at):
        return refusal
    approved = reached.evaluation.outcome.startswith("approved")
    conditions = reached.evaluation.conditions
    body = turn.body if turn is not None else ""
    if len(reached.policy.approvers) > 1 and turn is not None:
        summary = next(
            (t.body for t in turns if t.kind == "policy_outcome" and t.seq > turn.seq), ""
        )
        body = f"{summary}\n\n{body}".strip()
    return Answer(
        text=answer_text(body, turn.kind if turn else "decision", conditions),
        kind=(turn.kind if turn else "approval" if approved else "rejection"),
        at=reached.at,
        approved=approved,
        conditions=conditions,
    )
