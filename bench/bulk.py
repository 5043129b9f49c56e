"""A fast bulk loader: a SQLite database with many valid requests and turns.

The scale path needs a million requests and five million turns. Going
through the ORM would take an hour, so rows are generated as tuples and
written with raw ``sqlite3`` ``executemany`` in large transactions, with the
journal off while loading (the file is thrown away if the load fails). Rows
are what the gateway itself writes: hashed access tokens and read
capabilities, one lawyer recipient and one delivered outbox email per
request, turns numbered from 1 per thread.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gateway import policy as rules
from gateway.store.db import Database

CHUNK = 50_000
TOKEN_PREFIX = "hfat_bulk"  # noqa: S105 (a prefix of generated test tokens)
LAWYER = "counsel@lawfirm.example"
REQUEST_TEXT = (
    "Please review clause 7 (limitation of liability) of the attached supplier agreement "
    "before the agent signs it on behalf of the operator."
)


@dataclass(frozen=True)
class Loaded:
    """What the loader wrote; ``special`` is a request with ``special_turns`` turns."""

    requests: int
    turns: int
    special: int
    special_turns: int
    seed: str

    def access_token(self, request_id: int) -> str:
        return f"{TOKEN_PREFIX}_{self.seed}_{request_id}"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _when() -> str:
    # SQLAlchemy's SQLite DATETIME text format, without the zone (UTC by convention).
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class _Table:
    """Column order of one table, with filler values for columns the loader does not know."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.name = name
        columns = conn.execute(f"PRAGMA table_info({name})").fetchall()
        self.columns = [c[1] for c in columns]
        self.fixed: dict[str, Any] = {}
        for _cid, col, ctype, notnull, default, pk in columns:
            if notnull and default is None and not pk:
                self.fixed[col] = 0 if "INT" in str(ctype).upper() else ""
            else:
                self.fixed[col] = None
        # Table and column names come from the schema itself, never from input.
        self.sql = (
            f"INSERT INTO {name} ({', '.join(self.columns)}) "  # noqa: S608
            f"VALUES ({', '.join('?' for _ in self.columns)})"
        )

    def template(
        self, values: dict[str, Any], varying: tuple[str, ...]
    ) -> tuple[list[Any], list[int]]:
        """A row to copy, and where the ``varying`` columns sit in it (fast path for many rows)."""
        given = {**dict.fromkeys(varying), **values}
        base = [given[c] if c in given else self.fixed[c] for c in self.columns]
        return base, [self.columns.index(c) for c in varying]


def _request_rows(
    table: _Table, first: int, last: int, seed: str, at: str
) -> Iterator[tuple[Any, ...]]:
    row, (r_id, r_token, r_cap) = table.template(
        {
            "category": "legal_review",
            "urgency": "routine",
            "status": "recorded",
            "fields": json.dumps({"category": "legal_review", "request": REQUEST_TEXT}),
            "received_at": at,
            "updated_at": at,
            "reminders_sent": 0,
            "deadline_noticed": 0,
            "escalated": 0,
        },
        ("id", "access_token_hash", "read_capability_hash"),
    )
    for i in range(first, last):
        row[r_id] = i
        row[r_token] = _sha(f"{TOKEN_PREFIX}_{seed}_{i}")
        row[r_cap] = _sha(f"hfar_bulk_{seed}_{i}")
        yield tuple(row)


def _policy_rows(table: _Table, first: int, last: int, at: str) -> Iterator[tuple[Any, ...]]:
    """Each request's approval policy as filing writes it: the default, any of its lawyers."""
    policy = rules.any_of([LAWYER])
    row, (p_id,) = table.template(
        {
            "rule": json.dumps(rules.to_json(policy) | {"default": True}),
            "outcome": rules.PENDING,
            "state": json.dumps(rules.as_object(policy, rules.evaluate(policy, []))),
            "delegates": "{}",
            "decided_at": None,
            "step_due_at": None,
            "updated_at": at,
        },
        ("request_id",),
    )
    for i in range(first, last):
        row[p_id] = i
        yield tuple(row)


def _turn_rows(
    table: _Table,
    first: int,
    last: int,
    per_request: int,
    special: int,
    special_turns: int,
    at: str,
) -> Iterator[tuple[Any, ...]]:
    common = {"author": "sender", "at": at}
    opening, (o_req, o_seq) = table.template(
        {
            **common,
            "kind": "request",
            "body": REQUEST_TEXT,
            "data": json.dumps({"category": "legal_review"}),
        },
        ("request_id", "seq"),
    )
    follow, (f_req, f_seq) = table.template(
        {**common, "kind": "message", "body": "One more detail for the reviewer.", "data": "{}"},
        ("request_id", "seq"),
    )
    for i in range(first, last):
        opening[o_req], opening[o_seq] = i, 1
        yield tuple(opening)
        follow[f_req] = i
        for seq in range(2, (special_turns if i == special else per_request) + 1):
            follow[f_seq] = seq
            yield tuple(follow)


def _recipient_rows(table: _Table, first: int, last: int, at: str) -> Iterator[tuple[Any, ...]]:
    row, (r_id, r_req) = table.template(
        {"address": LAWYER, "role": "lawyer", "created_at": at}, ("id", "request_id")
    )
    for i in range(first, last):
        row[r_id] = row[r_req] = i
        yield tuple(row)


def _outbox_rows(table: _Table, first: int, last: int, at: str) -> Iterator[tuple[Any, ...]]:
    row, (o_id, o_req, o_rcpt, o_mid) = table.template(
        {
            "channel": "email",
            "purpose": "request",
            "target": LAWYER,
            "payload": "{}",
            "state": "sent",
            "attempts": 1,
            "next_attempt_at": at,
            "created_at": at,
            "sent_at": at,
        },
        ("id", "request_id", "recipient_id", "message_id"),
    )
    for i in range(first, last):
        row[o_id] = row[o_req] = row[o_rcpt] = i
        row[o_mid] = f"<hfa.bulk.{i}@bench.localhost>"
        yield tuple(row)


def load(
    path: Path, *, requests: int, turns: int, special_turns: int = 10, seed: str = "s1"
) -> Loaded:
    """Create (migrate) the database at ``path`` and fill it; it must not hold requests yet."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(f"sqlite:///{path}")
    db.migrate()
    db.dispose()
    per_request = max(1, turns // max(1, requests))
    special = 1
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        # Only while loading: a failed load leaves a file that is deleted anyway.
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-262144")
        tables = {
            name: _Table(conn, name)
            for name in ("requests", "turns", "recipients", "outbox", "request_policies")
        }
        # Secondary indexes are built once at the end: sorting beats a million B-tree inserts.
        indexes = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
            "AND tbl_name IN ('requests', 'turns', 'recipients', 'outbox')"
        ).fetchall()
        for name, _sql in indexes:
            conn.execute(f"DROP INDEX {name}")
        at = _when()
        written_turns = 0
        for first in range(1, requests + 1, CHUNK):
            last = min(requests + 1, first + CHUNK)
            conn.execute("BEGIN")
            conn.executemany(
                tables["requests"].sql, _request_rows(tables["requests"], first, last, seed, at)
            )
            conn.executemany(
                tables["recipients"].sql, _recipient_rows(tables["recipients"], first, last, at)
            )
            conn.executemany(tables["outbox"].sql, _outbox_rows(tables["outbox"], first, last, at))
            policies = tables["request_policies"]
            conn.executemany(policies.sql, _policy_rows(policies, first, last, at))
            cursor = conn.executemany(
                tables["turns"].sql,
                _turn_rows(tables["turns"], first, last, per_request, special, special_turns, at),
            )
            written_turns += cursor.rowcount
            conn.execute("COMMIT")
        for _name, sql in indexes:
            conn.execute(sql)
        conn.execute("ANALYZE")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    return Loaded(requests, written_turns, special, special_turns, seed)
