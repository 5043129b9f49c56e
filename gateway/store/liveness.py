"""Which processes are live: the heartbeat rows judged by age and, on this host, by PID.

Read without SQLAlchemy (``store.direct``): ``hfa health`` is a container's health
check every 30 s, and the ORM alone costs it more than the rest of the command.
``heartbeats`` writes the rows and judges them with the same rules.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from gateway.store import direct
from gateway.store.direct import utc, utc_or_none

ROLES = ("http", "smtp", "worker")
_SELECT_BEATS = (
    "SELECT roles, host, pid, version, started_at, seen_at, stopped_at FROM heartbeats ORDER BY id"
)


class Beating(Protocol):
    """What the rules read of a heartbeat row (the ORM's, or one read here)."""

    @property
    def roles(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def pid(self) -> int: ...
    @property
    def seen_at(self) -> datetime: ...
    @property
    def stopped_at(self) -> datetime | None: ...


@dataclass(frozen=True)
class Beat:
    """One heartbeat row, as read here."""

    roles: str
    host: str
    pid: int
    version: str
    started_at: datetime
    seen_at: datetime
    stopped_at: datetime | None


@dataclass(frozen=True)
class RoleHealth:
    role: str
    live: int
    last_seen: datetime | None


def process_exists(host: str, pid: int) -> bool | None:
    """Whether process ``pid`` runs, when it would run on this host; None: cannot tell here."""
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def is_live(row: Beating, since: datetime) -> bool:
    """Seen recently, not stopped, and, on this host, its process still there.

    A SIGKILLed process writes no stopped mark; its row would look live until the
    heartbeat ages out. On the host it ran on, its PID says at once that it is gone.
    """
    if row.stopped_at is not None or row.seen_at < since:
        return False
    return process_exists(row.host, row.pid) is not False


def roles_health_of(
    rows: Sequence[Beating], now: datetime, within: float, *, here_only: bool = False
) -> list[RoleHealth]:
    """For each role: how many live processes run it, and when one was last seen.

    ``here_only``: only the processes of this host (a container's own health check).
    """
    if here_only:
        rows = [r for r in rows if r.host == socket.gethostname()]
    since = now - timedelta(seconds=within)
    out: list[RoleHealth] = []
    for role in ROLES:
        having = [r for r in rows if role in r.roles.split(",")]
        live = [r for r in having if is_live(r, since)]
        last = max((r.seen_at for r in having), default=None)
        out.append(RoleHealth(role, len(live), last))
    return out


def _beat(row: Sequence[Any]) -> Beat:
    roles, host, pid, version, started, seen, stopped = row
    return Beat(
        str(roles), str(host), int(pid), str(version), utc(started), utc(seen), utc_or_none(stopped)
    )


def read_failed_outbox(url: str, data_dir: Path) -> int:
    """How many emails and webhook calls gave up (``dead``): each one a lawyer, an agent or
    a sender was never told something, until an operator retries or answers it."""
    rows = direct.read(url, data_dir, "SELECT count(*) FROM outbox WHERE state = 'dead'")
    return int(rows[0][0]) if rows else 0


def read_beats(url: str, data_dir: Path) -> list[Beat]:
    """Every heartbeat row of the gateway at ``url``; ConfigError, in one sentence, where
    there is no gateway database or it cannot be reached. Never creates anything."""
    return [_beat(r) for r in direct.read(url, data_dir, _SELECT_BEATS)]
