"""What agents do: file a request, add to it, read it back. One transaction each.

Filing writes the request, its first turn, one recipient and one outbox
email per lawyer, and the audit entry together, so a request that was
acknowledged is always one whose email will be sent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract, options
from gateway.errors import Conflict, FieldProblem, InvalidRequest
from gateway.intake.following import NOTICE_ADDED as NOTICE_ADDED
from gateway.intake.following import NOTICE_WITHDRAWN as NOTICE_WITHDRAWN
from gateway.intake.following import add_to_authorized
from gateway.intake.lookup import authorize
from gateway.outbound import outbox
from gateway.services import Services
from gateway.store.models import Recipient, Request
from gateway.store.prepared import connection_of, prepared_insert
from gateway.store.thread import first_turn
from gateway.store.votes import open_policy
from gateway.tokens import hash_secret, new_secret

# The contract's own fields; anything else an agent sends is an extra property, kept too.
KNOWN_FIELDS = contract.request_fields()

# Rows are inserted by prepared statements, not ORM objects: this is the hottest write
# path, and SQLAlchemy's execution and bookkeeping cost more than the inserts themselves.
_REQUEST_ROW = (
    "category",
    "urgency",
    "status",
    "fields",
    "reply_to",
    "deadline_at",
    "access_token_hash",
    "read_capability_hash",
    "idempotency_key",
    "idempotency_fingerprint",
    "api_key_name",
    "received_at",
    "updated_at",
    "first_human_reply_at",
    "reminders_sent",
    "deadline_noticed",
    "escalated",
)
_INSERT_REQUEST = prepared_insert(Request, _REQUEST_ROW)
_INSERT_RECIPIENT = prepared_insert(Recipient, ("request_id", "address", "role", "created_at"))

NOTICE_FILED = (
    "Recorded. A human lawyer will read this at human speed (hours or days). This is not "
    "approval, legal advice or authorisation to proceed. Keep the reference and access_token: "
    "they are not shown again and are the only way to read the answer."
)
NOTICE_REPLAYED = (
    "This Idempotency-Key was already used with the same request: this is that request. "
    "The access_token and thread_url were shown only in the first response and are not "
    "shown again."
)


def fingerprint(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def parse_deadline(value: str | None) -> datetime | None:
    """An ISO date or date-time becomes a moment; free text is kept but not scheduled."""
    if not value:
        return None
    text = value.strip()
    if len(text) == 10:
        # A bare date (which fromisoformat would read as midnight) means the end of that day.
        try:
            return datetime.combine(date.fromisoformat(text), time(23, 59, 59), tzinfo=UTC)
        except ValueError:
            return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            # A bare date means the end of that day, UTC.
            moment = datetime.combine(date.fromisoformat(text), time(23, 59, 59))
        except ValueError:
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class Filed:
    result: dict[str, Any]
    created: bool


def _replay(
    services: Services, session: Session, idempotency_key: str, digest: str
) -> Filed | None:
    """The request filed earlier with this Idempotency-Key, if any (same body only)."""
    config = services.config
    existing = session.scalars(
        select(Request).where(Request.idempotency_key == idempotency_key)
    ).first()
    if existing is not None:
        if existing.idempotency_fingerprint != digest:
            raise Conflict(
                "this Idempotency-Key was already used with a different body; "
                "use a new key for a new request",
                [FieldProblem("Idempotency-Key", "reuse only with the identical body")],
            )
        replayed = _filed_result(
            config.public_url,
            existing.id,
            existing.category,
            existing.received_at,
            existing.reply_to,
            "",
            "",
            replay=True,
        )
        return Filed(replayed, False)
    return None


def file_request(
    services: Services,
    session: Session,
    arguments: dict[str, Any],
    *,
    idempotency_key: str | None = None,
    api_key_name: str | None = None,
) -> Filed:
    """File a request. ``arguments`` read by the HTTP body reader are a
    ``contract.StorableObject``, whose values are not checked again."""
    config = services.config
    contract.validate_input(contract.REQUEST_TOOL, arguments, max_chars=config.max_field_chars)
    # The answer's shape (an extra property): a multiple choice's choices are checked here.
    options.check(arguments.get("options"))
    # Only a keyed filing is compared with an earlier one.
    digest = fingerprint(arguments) if idempotency_key is not None else None
    if idempotency_key is not None and digest is not None:
        replayed = _replay(services, session, idempotency_key, digest)
        if replayed is not None:
            return replayed
    approval = config.lawyer.approval
    policy = approval.policy_for(arguments["category"], config.lawyers_for(arguments["category"]))
    if policy is None:
        raise InvalidRequest(
            f"no lawyer is configured for category {arguments['category']!r}",
            [FieldProblem("category", "a category with a configured lawyer (HFA_LAWYERS)")],
        )
    now = services.clock.now()
    access_token = new_secret("hfat_")
    capability = new_secret("hfar_")
    urgency = arguments.get("urgency", "routine")
    reply_to = arguments.get("reply_to") or None
    row = _request_row(arguments, now, access_token, capability, api_key_name)
    row["idempotency_key"], row["idempotency_fingerprint"] = idempotency_key, digest
    number = _INSERT_REQUEST.insert_id(connection_of(session), row)
    reference = contract.reference_for(number)
    # Every other field, extra properties included, is kept on the first turn.
    first_turn(
        session,
        number,
        at=now,
        body=arguments["request"],
        data={k: v for k, v in arguments.items() if k != "request"},
    )
    extra = extra_approvers(services, arguments.get("approvers"))
    policy = policy.with_extra_approvers(extra)
    # Later steps' approvers are asked when the step before them is met.
    lawyers = policy.steps[0].members
    default = not extra and not approval.has_policy(arguments["category"])
    open_policy(session, number, policy, now, default=default)
    services.audit.append(
        session,
        "request.recorded",
        at=now,
        actor=f"agent:{api_key_name}" if api_key_name else "agent",
        reference=reference,
        details={
            "category": arguments["category"],
            "urgency": urgency,
            "agent_name": arguments.get("agent_name"),
            "api_key_name": api_key_name,
            "recipients": list(lawyers),
            # A webhook URL's query may carry the receiver's own secret.
            "reply_to": outbox.shown_target(reply_to) if reply_to else None,
        },
    )
    # After request.recorded: the log tells the request before the emails it caused.
    _queue_request_emails(services, session, number, reference, lawyers, now)
    filed = _filed_result(
        config.public_url, number, arguments["category"], now, reply_to, access_token, capability
    )
    return Filed(filed, True)


MAX_EXTRA_APPROVERS = 10


def extra_approvers(services: Services, value: Any) -> tuple[str, ...]:
    """The agent's ``approvers``: more people who must approve, each one the gateway
    already knows (a lawyer, an approver or an escalation contact), never a stranger."""
    if value is None:
        return ()
    listed = value.split(",") if isinstance(value, str) else value
    if not isinstance(listed, list) or not all(isinstance(a, str) for a in listed):
        raise InvalidRequest(
            "approvers must be a list of email addresses",
            [FieldProblem("approvers", 'a list of addresses, e.g. ["gc@firm.test"]')],
        )
    addresses = tuple(dict.fromkeys(a.strip().lower() for a in listed if a.strip()))
    config = services.config
    escalation = {a.lower() for addresses in config.escalation.values() for a in addresses}
    known = config.all_lawyers() | config.lawyer.approval.approvers() | escalation
    strangers = [a for a in addresses if a not in known]
    if strangers or len(addresses) > MAX_EXTRA_APPROVERS:
        raise InvalidRequest(
            "approvers may name only people configured as lawyers or approvers",
            [
                FieldProblem(
                    "approvers",
                    f"at most {MAX_EXTRA_APPROVERS} addresses from HFA_LAWYERS, HFA_POLICIES "
                    f"or HFA_ESCALATION; unknown: {', '.join(strangers)[:200] or 'none'}",
                )
            ],
        )
    return addresses


def _request_row(
    arguments: dict[str, Any],
    now: datetime,
    access_token: str,
    capability: str,
    api_key_name: str | None,
) -> dict[str, Any]:
    """The requests row of a new filing: every column, secrets as their hashes only."""
    return {
        "category": arguments["category"],
        "urgency": arguments.get("urgency", "routine"),
        "status": "recorded",
        "fields": arguments,
        "reply_to": arguments.get("reply_to") or None,
        "deadline_at": parse_deadline(arguments.get("deadline")),
        "access_token_hash": hash_secret(access_token),
        "read_capability_hash": hash_secret(capability),
        "idempotency_key": None,
        "idempotency_fingerprint": None,
        "api_key_name": api_key_name,
        "received_at": now,
        "updated_at": now,
        "first_human_reply_at": None,
        "reminders_sent": 0,
        "deadline_noticed": 0,
        "escalated": 0,
    }


def _queue_request_emails(
    services: Services,
    session: Session,
    number: int,
    reference: str,
    lawyers: tuple[str, ...],
    now: datetime,
) -> None:
    """A recipient row per lawyer, and the request email to each."""
    conn = connection_of(session)
    config = services.config
    for address in lawyers:
        recipient_id = _INSERT_RECIPIENT.insert_id(
            conn, {"request_id": number, "address": address, "role": "lawyer", "created_at": now}
        )
        outbox.enqueue(
            services,
            session,
            channel="email",
            purpose="request",
            request_id=number,
            reference=reference,
            recipient_id=recipient_id,
            target=address,
            message_id=services.tokens.message_id(recipient_id, config.reply_domain),
            payload={},
            at=now,
        )


def _filed_result(
    public_url: str,
    number: int,
    category: str,
    received_at: datetime,
    reply_to: str | None,
    access_token: str,
    capability: str,
    *,
    replay: bool = False,
) -> dict[str, Any]:
    return {
        "reference": contract.reference_for(number),
        "access_token": access_token,
        "thread_url": f"{public_url}/v1/threads/{capability}" if capability else "",
        "status": "recorded",
        "category": category,
        "received_at": contract.iso(received_at),
        "human_has_reviewed": False,
        "reply_expected_via": reply_to,
        "notice": NOTICE_REPLAYED if replay else NOTICE_FILED,
    }


def add_to_request(
    services: Services, session: Session, arguments: dict[str, Any]
) -> dict[str, Any]:
    config = services.config
    contract.validate_input(contract.ADD_TOOL, arguments, max_chars=config.max_field_chars)
    withdraw = arguments.get("withdraw", False)
    if not isinstance(withdraw, bool):
        raise InvalidRequest(
            "withdraw must be true or false",
            [FieldProblem("withdraw", f"expected a boolean, got {type(withdraw).__name__}")],
        )
    request = authorize(session, arguments["reference"], arguments["access_token"])
    return add_to_authorized(services, session, request, arguments, withdraw=withdraw)
