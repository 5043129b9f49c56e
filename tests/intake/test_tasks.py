"""MCP tasks over the record: the handle's timings, and which question is outstanding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from gateway.intake import filing, tasks
from gateway.services import Services


def handle(services: Services, **fields: Any) -> dict[str, Any]:
    with services.db.transaction() as session:
        filed = filing.file_request(
            services, session, {"category": "legal_review", "request": "Clause 4?"} | fields
        )
        return tasks.create_task(services, session, filed.result)


def test_the_poll_interval_follows_the_urgency_and_the_ttl_the_deadline(
    services: Services,
) -> None:
    assert handle(services, urgency="soon")["pollIntervalMs"] == 30_000
    assert handle(services, urgency="blocking")["pollIntervalMs"] == 5_000
    plain = handle(services)
    assert plain["pollIntervalMs"] == 300_000
    assert plain["ttlMs"] == 30 * 24 * 3600 * 1000
    deadline = datetime.now(UTC) + timedelta(days=3)
    # Kept until a day after the deadline, so the agent can read how it ended: the time
    # left, counted from a moment between these two readings.
    before = datetime.now(UTC)
    dated = handle(services, deadline=deadline.isoformat())
    after = datetime.now(UTC)
    ends = deadline + tasks.AFTER_DEADLINE
    left = [(ends - moment) / timedelta(milliseconds=1) for moment in (after, before)]
    assert left[0] - 1 <= dated["ttlMs"] <= left[1] + 1
    # Free text is kept on the request but sets no time: the default applies.
    assert handle(services, deadline="before the board meets")["ttlMs"] == plain["ttlMs"]
    assert plain["taskId"].startswith("task_") and len(plain["taskId"]) >= 37


def turn(author: str, kind: str, body: str = "") -> dict[str, Any]:
    return {"author": author, "kind": kind, "body": body, "at": "2026-12-07T10:00:00Z"}


def test_the_outstanding_question_is_the_last_one_not_answered_since() -> None:
    opening = turn("sender", "request")
    asked = turn("human", "question", "Which law?")
    answered = turn("sender", "message", "English law.")
    pending = turn("human", "pending_decision", "Approved.")
    assert tasks.outstanding_question([opening]) is None
    assert tasks.outstanding_question([opening, asked]) == ("question-2", asked)
    assert tasks.outstanding_question([opening, asked, answered]) is None
    again = turn("human", "question", "And the venue?")
    assert tasks.outstanding_question([opening, asked, answered, again]) == ("question-4", again)
    assert tasks.outstanding_question([opening, pending]) is None
