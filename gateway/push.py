"""Answers pushed to the agent's reply_to channel (email or signed webhook).

``enqueue_for_turn`` is called in the same transaction that records a human
turn or a closing status, so a push is queued exactly when the record is.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from gateway.models import Request, Turn
from gateway.outbox import Deliverer
from gateway.services import Services


def enqueue_for_turn(services: Services, session: Session, request: Request, turn: Turn) -> None:
    """Queue delivery of ``turn`` to the request's reply_to channel, if it has one."""
    return None


def deliverers(services: Services) -> dict[str, Deliverer]:
    """Outbox deliverers for the push channels other than email."""
    return {}
