"""A2H v1.0 (Twilio's Agent2Human) intents over the record.

- AUTHORIZE files a ``human_confirmation`` request whose proposed action is the
  rendered body; COLLECT a ``legal_review`` question (its components listed);
  ESCALATE an ``operator_escalation``. Each opens an interaction (a row in
  ``a2h_interactions``) idempotent on ``message_id`` per API key: a replayed
  ``message_id`` returns the same interaction, marked ``duplicate``.
- INFORM and RESULT are recorded as the agent's turns on the interaction they
  name (``interaction_id``, or ``responds_to`` the intent's ``message_id``),
  once per ``message_id``; the lawyers are told, as for ``add_to_request``.
- The state is read from the thread: ``WAITING_INPUT`` until the lawyer's answer
  takes effect (for AUTHORIZE, a decision), then ``ANSWERED`` with a RESPONSE the
  gateway signs (``intake.jws``); ``CANCELLED`` once withdrawn (``/v1/cancel``);
  ``EXPIRED`` once ``ttl_sec`` has passed with no answer.
- The evidence factor is ``email_link.v1``: the answer came by email to the
  signed reply address (or from its answer link), from the lawyer's mailbox.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.clock import iso
from gateway.errors import Conflict, FieldProblem, InvalidRequest, NotFound
from gateway.intake import compat, filing, following, lookup
from gateway.intake.jws import Signer
from gateway.services import Services
from gateway.store.a2h_models import A2hInteraction
from gateway.store.models import Request
from gateway.store.thread import load_turns

VERSION = "1.0"
PROTOCOL = "a2h_v1"
FACTOR = "email_link.v1"
FILED = {"AUTHORIZE": "human_confirmation", "COLLECT": "legal_review", "ESCALATE": "operator_escalation"}  # fmt: skip
RECORDED = ("INFORM", "RESULT")
TTL_RANGE = (30, 86400)
# Lawyers answer by email: an intent without ttl_sec waits a day, the longest allowed.
DEFAULT_TTL = 86400
TERMINAL = ("ANSWERED", "EXPIRED", "CANCELLED")
_NAMESPACE = uuid.UUID("6f1d7a52-0c7e-4a43-9d59-2d0b8c6e1a48")


def _problem(field: str, expected: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: expected {expected}", [FieldProblem(field, expected)])


def _text(body: dict[str, Any], field: str, most: int = 256) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value.strip() or len(value) > most:
        raise _problem(field, f"a string of 1 to {most} characters")
    return value


def _rendered(body: dict[str, Any]) -> str:
    channel = body.get("channel")
    holders: list[dict[str, Any]] = [body, channel if isinstance(channel, dict) else {}]
    for holder in holders:
        render = holder.get("render")
        if isinstance(render, dict) and isinstance(render.get("body"), str) and render["body"]:
            return str(render["body"])
    raise _problem("render.body", "the text to show the human (1 to 4096 characters)")


def ttl_of(body: dict[str, Any]) -> int:
    ttl = body.get("ttl_sec", DEFAULT_TTL)
    low, high = TTL_RANGE
    if not isinstance(ttl, int) or isinstance(ttl, bool) or not low <= ttl <= high:
        raise _problem("ttl_sec", f"a whole number of seconds from {low} to {high}")
    return ttl


def check_envelope(body: dict[str, Any]) -> str:
    """The intent type, once the envelope is one this gateway speaks."""
    kind = body.get("type")
    if kind not in (*FILED, *RECORDED):
        raise _problem("type", "one of " + ", ".join((*FILED, *RECORDED)))
    if str(body.get("a2h_min_version", VERSION)) > VERSION:
        raise _problem("a2h_min_version", f"at most {VERSION}")
    if body.get("profile") is not None:
        raise _problem("profile", "absent: this gateway supports no profiles")
    for field in ("message_id", "agent_id", "principal_id"):
        _text(body, field)
    return str(kind)


def check_callback(body: dict[str, Any], allow_http: bool) -> None:
    """``callback``: an HTTPS URL and the agent's secret (HTTP only where private
    addresses are allowed, as for every webhook: development and tests)."""
    callback = body.get("callback")
    if callback is None:
        return
    url = callback.get("url") if isinstance(callback, dict) else None
    secret = callback.get("secret") if isinstance(callback, dict) else None
    if not isinstance(url, str) or not isinstance(secret, str) or not secret.strip():
        raise _problem("callback", "an object with a url and a secret")
    scheme = urlsplit(url).scheme
    if scheme != "https" and not (allow_http and scheme == "http"):
        raise _problem("callback.url", "an https:// URL")


def check_timestamp(body: dict[str, Any], now: datetime, tolerance: int = 300) -> None:
    """``created_at``, when given, within five minutes of now (replay protection)."""
    given = body.get("created_at")
    if given is None:
        return
    try:
        moment = datetime.fromisoformat(str(given).replace("Z", "+00:00"))
        off = abs((moment - now).total_seconds())
    except (ValueError, TypeError):
        raise _problem("created_at", "an ISO 8601 date-time with its offset") from None
    if off > tolerance:
        raise _problem("created_at", f"a time within {tolerance} seconds of now")


def _collect_text(body: dict[str, Any]) -> str:
    lines = []
    for component in body.get("components") or []:
        if not isinstance(component, dict) or not isinstance(component.get("name"), str):
            raise _problem("components", "a list of objects with a name")
        label = component.get("label") or component["name"]
        options = [o.get("label") or o.get("value") for o in component.get("options") or []]
        shown = f" (one of: {', '.join(str(o) for o in options)})" if options else ""
        lines.append(f"- {label}{shown}")
    return "\n\nPlease answer:\n" + "\n".join(lines) if lines else ""


def choice_options(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(value, label) of each option of a COLLECT whose one component offers options."""
    components = [c for c in body.get("components") or [] if isinstance(c, dict)]
    if len(components) != 1 or not isinstance(components[0].get("options"), list):
        return []
    out = []
    for option in components[0]["options"]:
        value = option.get("value", option.get("label")) if isinstance(option, dict) else None
        label = option.get("label", value) if isinstance(option, dict) else None
        if not isinstance(value, str) or not isinstance(label, str):
            raise _problem("components.options", "objects with a value and a label")
        out.append((value, label))
    return out


def arguments_for(services: Services, body: dict[str, Any], kind: str, now: datetime) -> dict[str, Any]:  # fmt: skip
    """The ``request_human_assistance`` arguments of an AUTHORIZE, COLLECT or ESCALATE."""
    text = _rendered(body)
    category = FILED[kind]
    request = text
    why = (body.get("explanation_bundle") or {}).get("why")
    if isinstance(why, str) and why.strip():
        request += f"\n\nWhy: {why}"
    # One component of options: a multiple choice, a button per option.
    labels = [label for _value, label in choice_options(body)] if kind == "COLLECT" else []
    if kind == "COLLECT":
        request += _collect_text(body)
    targets = (body.get("params") or {}).get("targets")
    if kind == "ESCALATE" and isinstance(targets, list):
        request += "\n\nWhere to: " + ", ".join(str(t) for t in targets)
    arguments: dict[str, Any] = {
        "category": category,
        "request": request,
        "agent_name": body["agent_id"],
        "deadline": iso(now + timedelta(seconds=ttl_of(body))),
        "a2h_type": kind,
        "a2h_message_id": body["message_id"],
        "a2h_principal_id": body["principal_id"],
    }
    if kind == "AUTHORIZE":
        arguments["proposed_action"] = text
    if labels:
        arguments["options"] = {"format": "multiple_choice", "choices": labels}
    channel = body.get("channel")
    address = channel.get("address") if isinstance(channel, dict) else None
    if isinstance(address, str) and address.lower().startswith("mailto:"):
        compat.check_lawyer(services, category, address[7:], "channel.address")
    return arguments


def idempotency(api_key_name: str | None, message_id: str) -> str:
    return hashlib.sha256(f"{api_key_name or ''}\x1f{message_id}".encode()).hexdigest()


def find(session: Session, interaction_id: str, api_key_name: str | None) -> A2hInteraction:
    row = session.get(A2hInteraction, interaction_id) if len(interaction_id) <= 36 else None
    if row is None or (row.api_key_name is not None and row.api_key_name != api_key_name):
        raise NotFound(
            "no interaction with this id",
            [FieldProblem("interaction_id", "the id /v1/intent returned")],
        )
    return row


def replayed(session: Session, message_id: str, api_key_name: str | None) -> A2hInteraction | None:  # fmt: skip
    key = idempotency(api_key_name, message_id)
    return session.scalars(select(A2hInteraction).where(A2hInteraction.idempotency == key)).first()


def open_interaction(
    services: Services,
    session: Session,
    body: dict[str, Any],
    arguments: dict[str, Any],
    api_key_name: str | None,
) -> A2hInteraction:
    """The request and its interaction, in the caller's transaction."""
    filed = filing.file_request(services, session, arguments, api_key_name=api_key_name).result
    given = body.get("callback")
    callback: dict[str, Any] = given if isinstance(given, dict) else {}
    document = {k: v for k, v in body.items() if k not in ("callback", "signature")}
    row = A2hInteraction(
        interaction_id=str(uuid.uuid4()),
        idempotency=idempotency(api_key_name, body["message_id"]),
        message_id=body["message_id"],
        api_key_name=api_key_name,
        request_id=contract.number_from_reference(filed["reference"]),
        intent=body["type"],
        document=document,
        ttl_sec=ttl_of(body),
        created_at=services.clock.now(),
        callback_url=callback.get("url"),
        callback_secret=callback.get("secret"),
    )
    session.add(row)
    session.flush()
    return row


def record(
    services: Services, session: Session, body: dict[str, Any], api_key_name: str | None
) -> tuple[A2hInteraction, bool]:
    """An INFORM or RESULT as the agent's turn on its interaction; False if seen before."""
    named = body.get("interaction_id")
    if isinstance(named, str):
        row = find(session, named, api_key_name)
    elif isinstance(body.get("responds_to"), str):
        found = replayed(session, body["responds_to"], api_key_name)
        if found is None:
            raise _problem("responds_to", "the message_id of an intent sent here")
        row = found
    else:
        raise _problem("interaction_id", "the interaction this message belongs to")
    request = session.get(Request, row.request_id)
    assert request is not None
    turns = load_turns(session, request.id)
    if any(t.data.get("a2h_message_id") == body["message_id"] for t in turns):
        return row, False
    if request.status == "closed":
        raise Conflict("the interaction has ended", [FieldProblem("interaction_id", "open")])
    arguments = {
        "message": _rendered(body),
        "a2h_type": body["type"],
        "a2h_message_id": body["message_id"],
        **({"a2h_params": body["params"]} if isinstance(body.get("params"), dict) else {}),
    }
    following.add_to_authorized(services, session, request, arguments)
    return row, True


def cancel(services: Services, session: Session, row: A2hInteraction) -> None:
    request = session.get(Request, row.request_id)
    assert request is not None
    if request.status in ("answered", "declined", "closed"):
        raise Conflict(
            "Interaction already responded"
            if request.status != "closed"
            else "Interaction already ended",
            [FieldProblem("interaction_id", "an interaction waiting for its answer")],
        )
    arguments = {"message": "Cancelled by the agent (A2H /v1/cancel).", "withdraw": True}
    following.add_to_authorized(services, session, request, arguments, withdraw=True)


@dataclass(frozen=True)
class Seen:
    """What the state is read from: the request, its first answer and decision."""

    request: Request
    answer: compat.Answer | None
    decision: compat.Answer | None
    withdrawn: bool


def _expires(row: A2hInteraction) -> datetime:
    return row.created_at + timedelta(seconds=row.ttl_sec)


def _answer(row: A2hInteraction, loaded: Seen) -> compat.Answer | None:
    answer = loaded.decision if row.intent == "AUTHORIZE" else loaded.answer
    if answer is None or answer.kind == "question" or answer.at > _expires(row):
        return None
    return answer


def state_of(row: A2hInteraction, loaded: Seen, now: datetime) -> str:
    request = loaded.request
    if request.status == "closed" and loaded.withdrawn:
        return "CANCELLED"
    if _answer(row, loaded) is not None:
        return "ANSWERED"
    if request.status == "closed" or now > _expires(row):
        return "EXPIRED"
    return "WAITING_INPUT"


def response_of(
    row: A2hInteraction, loaded: Seen, thread: dict[str, Any], signer: Signer
) -> dict[str, Any] | None:
    """The signed RESPONSE, once the interaction is answered."""
    answer = _answer(row, loaded)
    if answer is None:
        return None
    data: dict[str, Any] = {"text": answer.text}
    if answer.conditions:
        data["conditions"] = list(answer.conditions)
    components = row.document.get("components") or []
    if row.intent == "COLLECT" and len(components) == 1 and isinstance(components[0], dict):
        data[str(components[0].get("name"))] = answer.text
        if answer.choice is not None:
            # The option picked, as its value (the label is what the lawyer saw).
            values = {label: value for value, label in choice_options(row.document)}
            data[str(components[0].get("name"))] = values.get(answer.choice, answer.choice)
            data["choice"] = answer.choice
    turn: dict[str, Any] = next(
        (t for t in thread["turns"] if t["author"] == "human" and t["kind"] == answer.kind), {}
    )
    message: dict[str, Any] = {
        "a2h_version": VERSION,
        "type": "RESPONSE",
        "message_id": str(uuid.uuid5(_NAMESPACE, f"{row.interaction_id}/response")),
        "responds_to": row.message_id,
        "interaction_id": row.interaction_id,
        "agent_id": row.document.get("agent_id"),
        "principal_id": row.document.get("principal_id"),
        "status": "ANSWERED",
        "decided_at": iso(answer.at),
        "created_at": iso(answer.at),
        "data": data,
        "evidence": {"factor": FACTOR, "proof": _proof(thread, turn)},
    }
    if row.intent == "AUTHORIZE":
        message["decision"] = "APPROVE" if answer.approved else "DECLINE"
    return signer.signed(message)


def _proof(thread: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any]:
    proof = {
        "reference": thread["reference"],
        "channel": f"mailto:{turn.get('from', '')}",
        "email_message_id": turn.get("message_id"),
        "read_from": turn.get("read_from"),
        "recorded_at": turn.get("at"),
    }
    return {k: v for k, v in proof.items() if v is not None}


def status_of(
    services: Services, session: Session, row: A2hInteraction, signer: Signer
) -> dict[str, Any]:
    """``/v1/status``: the interaction's state, and its RESPONSE once answered."""
    loaded = load(services, session, row)
    request = loaded.request
    thread = lookup.status_of(session, request)
    state = state_of(row, loaded, services.clock.now())
    out: dict[str, Any] = {
        "interaction_id": row.interaction_id,
        "state": state,
        "created_at": iso(row.created_at),
        "updated_at": max(t["at"] for t in thread["turns"]),
        "ttl_sec": row.ttl_sec,
        "reference": request.reference,
    }
    if state == "ANSWERED":
        out["response"] = response_of(row, loaded, thread, signer)
    elif state == "EXPIRED":
        out["error"] = {
            "code": "ERR.EXPIRED",
            "message": "Request expired before response received",
            "timestamp": iso(_expires(row)),
        }
    return out


def load(services: Services, session: Session, row: A2hInteraction) -> Seen:
    """What the compatibility layer reads of a request: its first answer and decision."""
    request = session.get(Request, row.request_id)
    assert request is not None
    turns = load_turns(session, request.id)
    answer = compat._first_answer(turns, contract.HUMAN_ANSWER_KINDS)
    decision = compat._outcome(session, request, turns)
    withdrawn = any(t.kind == "withdrawal" for t in turns)
    return Seen(request=request, answer=answer, decision=decision, withdrawn=withdrawn)
