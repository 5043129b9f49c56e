"""The requests as ``hfa requests list`` shows them, read without the ORM (``store.direct``).

The list is what an operator runs again and again; the ORM's start-up would be most
of its time. The row carries what the list shows, under the model's names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from gateway.contract import AWAITING_ANSWER, reference_for
from gateway.store import direct

_COLUMNS = (
    "id, status, category, urgency, fields, reply_to, deadline_at, api_key_name, "
    "received_at, updated_at, first_human_reply_at, reminders_sent, escalated"
)


@dataclass(frozen=True)
class RequestRow:
    """One request, with the names and types of ``models.Request``."""

    id: int
    status: str
    category: str
    urgency: str
    fields: dict[str, Any]
    reply_to: str | None
    deadline_at: datetime | None
    api_key_name: str | None
    received_at: datetime
    updated_at: datetime
    first_human_reply_at: datetime | None
    reminders_sent: int
    escalated: int

    @property
    def reference(self) -> str:
        return reference_for(self.id)


def _row(values: tuple[Any, ...]) -> RequestRow:
    (rid, status, category, urgency, fields, reply_to, deadline, key, received, updated) = values[
        :10
    ]
    first_reply, reminders, escalated = values[10:]
    return RequestRow(
        int(rid),
        str(status),
        str(category),
        str(urgency),
        direct.json_value(fields) or {},
        reply_to,
        direct.utc_or_none(deadline),
        key,
        direct.utc(received),
        direct.utc(updated),
        direct.utc_or_none(first_reply),
        int(reminders or 0),
        int(escalated or 0),
    )


def list_requests(
    url: str,
    data_dir: Path,
    *,
    status: str | None = None,
    category: str | None = None,
    overdue_at: datetime | None = None,
    limit: int = 0,
) -> list[RequestRow]:
    """The newest requests first, ``limit`` of them (0: all), filtered as asked."""
    where: list[str] = []
    params: list[Any] = []
    if status:
        where.append("status = ?")
        params.append(status)
    if category:
        where.append("category = ?")
        params.append(category)
    if overdue_at is not None:
        marks = ", ".join("?" for _ in AWAITING_ANSWER)
        where.append(f"status IN ({marks}) AND deadline_at < ?")
        params.extend([*AWAITING_ANSWER, direct.moment(overdue_at, url)])
    sql = f"SELECT {_COLUMNS} FROM requests"  # noqa: S608 (fixed text; values are parameters)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY id DESC"
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    return [_row(v) for v in direct.read(url, data_dir, sql, params)]
