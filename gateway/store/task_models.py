"""The table of MCP tasks (the ``io.modelcontextprotocol/tasks`` extension).

Kept apart from ``models`` (on the same declarative base), one concept per module.
A task is a handle on one request, created in the transaction that files it; its
state is read from the request's thread, never stored twice.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from gateway.store.models import Base, Id


class McpTask(Base):
    """A task handle: its random id, the request it follows, and its timings."""

    __tablename__ = "mcp_tasks"

    task_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_id: Mapped[int] = mapped_column(Id, ForeignKey("requests.id"), index=True)
    created_at: Mapped[datetime]
    # None: kept without limit (the spec's null ttlMs).
    ttl_ms: Mapped[int | None] = mapped_column(BigInteger)
    poll_interval_ms: Mapped[int] = mapped_column(Integer)
