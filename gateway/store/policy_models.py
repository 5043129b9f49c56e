"""The tables of approval policies: each request's policy, and its vote log.

Kept apart from ``models`` (on the same declarative base), one concept per module.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from gateway.store.models import Base, Id


class RequestPolicy(Base):
    """A request's approval policy as filed, and where it stands; locked by every vote."""

    __tablename__ = "request_policies"

    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"), primary_key=True)
    rule: Mapped[dict[str, Any]]  # policy.to_json: steps, groups, counts, veto or wait
    outcome: Mapped[str] = mapped_column(String(32))
    state: Mapped[dict[str, Any]]  # the ``policy`` object agents read, as last evaluated
    delegates: Mapped[dict[str, Any]]  # {delegate: the approver they answer for}
    decided_at: Mapped[datetime | None]
    step_due_at: Mapped[datetime | None] = mapped_column(index=True)  # the step's ``within``
    updated_at: Mapped[datetime]


class Vote(Base):
    """One approval, rejection (or expiry) in the order counted; a change is a new row."""

    __tablename__ = "votes"
    __table_args__ = (Index("ix_votes_request", "request_id", "id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"))
    person: Mapped[str] = mapped_column(String(320))  # the approver it counts for
    voter: Mapped[str] = mapped_column(String(320))  # its From: an alias, or a delegate
    decision: Mapped[str] = mapped_column(String(16))  # approve | reject | expire
    conditions: Mapped[list[str]] = mapped_column(JSON)
    turn_id: Mapped[int | None] = mapped_column(ForeignKey("turns.id"))
    at: Mapped[datetime]
