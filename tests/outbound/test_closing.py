"""Closing a request: one function, the same steps in the order each way of closing has."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from gateway.intake.filing import file_request
from gateway.outbound.closing import Push, Tell, close_request
from gateway.services import Services
from gateway.store.models import AuditEntry, Request


def _filed(services: Services) -> int:
    with services.db.transaction() as session:
        filed = file_request(
            services,
            session,
            {"category": "legal_review", "request": "Sign?", "reply_to": "agent@example.com"},
        )
    return int(filed.result["reference"].split("-")[1])


def _entries(services: Services, after: int) -> list[tuple[str, Any]]:
    """Each audit entry past ``after``: its event, and what was queued or changed."""
    with services.db.read_only() as session:
        rows = session.scalars(
            select(AuditEntry).where(AuditEntry.seq > after).order_by(AuditEntry.seq)
        ).all()
        return [(e.event, e.details.get("purpose") or e.details.get("to")) for e in rows]


def _last_entry(services: Services) -> int:
    with services.db.read_only() as session:
        ids = session.scalars(select(AuditEntry.seq).order_by(AuditEntry.seq.desc())).first()
        return ids or 0


def _close(services: Services, number: int, **how: Any) -> list[tuple[str, Any]]:
    before = _last_entry(services)
    with services.db.transaction() as session:
        request = session.get(Request, number)
        assert request is not None
        turn = close_request(services, session, request, at=services.clock.now(), **how)
        assert turn is not None and turn.data == {"from_status": "recorded", "to_status": "closed"}
    return _entries(services, before)


def test_an_operators_close_is_audited_first_and_pushed_before_the_lawyers_mail(
    services: Services,
) -> None:
    entries = _close(
        services,
        _filed(services),
        reason="closed by alice: Duplicate",
        actor="ops:alice",
        audit_reason="Duplicate",
        decision="Duplicate",
        tell=Tell("closed", {"by": "ops:alice", "reason": "Duplicate"}),
        push=Push(ahead_of_mail=True),
    )
    assert entries == [
        ("request.closed", None),
        ("request.status_changed", "closed"),
        ("push_email.queued", "push"),
        ("email.queued", "closed"),
    ]


def test_an_expired_policy_tells_the_lawyers_before_the_push(services: Services) -> None:
    entries = _close(
        services,
        _filed(services),
        reason="the approval policy expired",
        audit_reason="policy expired",
        tell=Tell("deadline_passed", {"closes": True}),
        push=Push(),
    )
    assert entries == [
        ("request.status_changed", "closed"),
        ("email.queued", "deadline_passed"),
        ("push_email.queued", "push"),
    ]


def test_a_withdrawal_tells_the_lawyers_and_pushes_nothing(services: Services) -> None:
    entries = _close(
        services,
        _filed(services),
        reason="withdrawn by the agent",
        actor="agent",
        tell=Tell("withdrawal", {"message": "", "recorded_at": "T"}),
    )
    assert entries == [("request.status_changed", "closed"), ("email.queued", "withdrawal")]
