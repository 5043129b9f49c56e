"""Named facts about the whole gateway that outlive its processes (one row each)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from gateway.store.models import GatewayState

# Whether filing needs an API key even with none live: {"closed": bool}.
ACCESS = "access"


def get(session: Session, name: str) -> dict[str, Any] | None:
    row = session.get(GatewayState, name)
    return dict(row.value) if row is not None else None


def put(session: Session, name: str, value: dict[str, Any], now: datetime) -> None:
    """Set ``name`` in the caller's (write) transaction."""
    row = session.get(GatewayState, name)
    if row is None:
        session.add(GatewayState(name=name, value=value, updated_at=now))
    else:
        row.value, row.updated_at = value, now
