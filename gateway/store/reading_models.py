"""The table of decisions held for their correction window.

Kept apart from ``models`` (on the same declarative base), one concept per module.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from gateway.store.models import Base, Id


class PendingReading(Base):
    """A decision read from typed text, waiting out the correction window.

    The reply itself is a turn (kind ``pending_decision``) written when it
    arrived. This row is the job that puts it into effect at ``due_at``; it is
    settled exactly once, by a guarded UPDATE (``... WHERE settled_at IS NULL``):
    ``took_effect`` (a new turn carries the decision) or ``replaced`` (the same
    lawyer corrected it in time). Turns are never changed either way.
    """

    __tablename__ = "pending_readings"
    __table_args__ = (Index("ix_pending_readings_due", "settled_at", "due_at"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"), index=True)
    recipient_id: Mapped[int] = mapped_column(ForeignKey("recipients.id"))
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id"))
    due_at: Mapped[datetime]
    settled_at: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(String(16))  # took_effect | replaced
