"""A request as the ops commands show it: one summary for the list, the thread and the export."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from gateway import contract
from gateway.cli.terminal import escape as shown
from gateway.outbound.targets import shown_target


# Typing Protocols list the properties they read: alike in shape to store.liveness's
# Beating, each the fields of its own row.
class Request(Protocol):
    """A request as both the ORM's row and ``store.listing``'s carry it."""

    @property
    def id(self) -> int: ...
    @property
    def reference(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def urgency(self) -> str: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def reply_to(self) -> str | None: ...
    @property
    def deadline_at(self) -> datetime | None: ...
    @property
    def api_key_name(self) -> str | None: ...
    @property
    def received_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def first_human_reply_at(self) -> datetime | None: ...
    @property
    def reminders_sent(self) -> int: ...
    @property
    def escalated(self) -> int: ...


def gist(request: Request, chars: int = 60) -> str:
    text = " ".join(shown(request.fields.get("request", "")).split())
    return text if len(text) <= chars else text[: chars - 1] + "…"


def summary(request: Request) -> dict[str, Any]:
    return {
        "reference": request.reference,
        "status": request.status,
        "category": request.category,
        "urgency": request.urgency,
        "received_at": contract.iso(request.received_at),
        "updated_at": contract.iso(request.updated_at),
        "deadline": request.fields.get("deadline"),
        "deadline_at": contract.iso(request.deadline_at) if request.deadline_at else None,
        "agent_name": request.fields.get("agent_name"),
        "api_key_name": request.api_key_name,
        "reply_to": shown_target(request.reply_to) if request.reply_to else None,
        "reminders_sent": request.reminders_sent,
        "escalated": bool(request.escalated),
        "first_human_reply_at": (
            contract.iso(request.first_human_reply_at) if request.first_human_reply_at else None
        ),
        "request": request.fields.get("request"),
    }
