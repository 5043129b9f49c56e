"""The table of A2H v1.0 interactions (Twilio's Agent2Human protocol).

Kept apart from ``models`` (on the same declarative base), one concept per module.
An interaction is a handle on one request: its id, the intent that opened it,
the ``message_id`` it is idempotent on, and where its RESPONSE is pushed. Its
state is read from the request's thread, never stored twice.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from gateway.store.models import Base, Id


class A2hInteraction(Base):
    """One A2H interaction: the intent that opened it and its request."""

    __tablename__ = "a2h_interactions"

    interaction_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # sha256 of (API key name, message_id): one interaction per message per key.
    idempotency: Mapped[str] = mapped_column(String(64), unique=True)
    message_id: Mapped[str] = mapped_column(String(256))
    api_key_name: Mapped[str | None] = mapped_column(String(128))
    request_id: Mapped[int] = mapped_column(Id, ForeignKey("requests.id"), index=True)
    intent: Mapped[str] = mapped_column(String(16))
    # The intent as sent, without the callback's secret.
    document: Mapped[dict[str, Any]]
    ttl_sec: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime]
    callback_url: Mapped[str | None] = mapped_column(Text)
    # The agent's shared secret for the webhook's HMAC: needed in clear to sign with.
    callback_secret: Mapped[str | None] = mapped_column(Text)
    # When the RESPONSE webhook was queued (once, by whichever worker saw the answer).
    callback_queued_at: Mapped[datetime | None] = mapped_column(index=True)
