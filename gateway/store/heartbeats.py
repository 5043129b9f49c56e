"""Which processes run which roles, and when each was last seen.

Every ``hfa serve`` process writes one row when it starts and refreshes it
every ``HFA_HEARTBEAT_SECONDS``; it marks it stopped when it stops. A role
has a live process when some row naming it was seen within
``HFA_READY_ROLE_SECONDS``: ``/readyz`` and ``hfa health`` read that.

The row also carries fingerprints of the process's reply-token keys and
webhook secrets (a keyed hash, never the keys). A process that starts while
another is live checks that each can verify the other's reply tokens and
that they sign webhooks with a secret in common; if not, it refuses to
start, because every reply address it issued would be refused by the others.
"""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gateway.errors import KeyMismatch
from gateway.store.liveness import ROLES as ROLES
from gateway.store.liveness import RoleHealth, process_exists, roles_health_of
from gateway.store.liveness import is_live as is_live
from gateway.store.models import Heartbeat


def fingerprint(secret: str | bytes, purpose: str) -> str:
    """A short, keyed, one-way name for a secret: equal secrets, equal fingerprints."""
    raw = secret.encode() if isinstance(secret, str) else secret
    return hashlib.sha256(f"hfa.fingerprint.{purpose}:".encode() + raw).hexdigest()[:16]


@dataclass(frozen=True)
class ProcessKeys:
    """Fingerprints of what a process signs and verifies with."""

    reply_signing: str
    reply_verifying: tuple[str, ...]
    webhook: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "reply_signing": self.reply_signing,
            "reply_verifying": list(self.reply_verifying),
            "webhook": list(self.webhook),
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> ProcessKeys:
        return cls(
            str(value.get("reply_signing", "")),
            tuple(str(v) for v in value.get("reply_verifying", [])),
            tuple(str(v) for v in value.get("webhook", [])),
        )


def process_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(4).hex()}"


def _describe(row: Heartbeat) -> str:
    return f"the {row.roles} process on {row.host} (pid {row.pid})"


def check_keys(mine: ProcessKeys, live: list[Heartbeat]) -> None:
    """Raise KeyMismatch, in one sentence, if ``mine`` cannot work with a live process."""
    for row in live:
        theirs = ProcessKeys.from_json(row.keys)
        if theirs.reply_signing and (
            theirs.reply_signing not in mine.reply_verifying
            or mine.reply_signing not in theirs.reply_verifying
        ):
            raise KeyMismatch(
                f"this process's reply-token keys cannot verify the reply addresses issued by "
                f"{_describe(row)} (or it cannot verify this one's): give every role the same "
                "HFA_SECRET_KEYS (and HFA_WEBHOOK_SECRET), then start it again"
            )
        if theirs.webhook and mine.webhook and not set(theirs.webhook) & set(mine.webhook):
            raise KeyMismatch(
                f"this process signs webhooks with no secret in common with {_describe(row)}: "
                "give every role the same HFA_WEBHOOK_SECRET (and HFA_SECRET_KEYS), "
                "then start it again"
            )


def live_rows(session: Session, now: datetime, within: float) -> list[Heartbeat]:
    since = now - timedelta(seconds=within)
    query = (
        select(Heartbeat)
        .where(Heartbeat.seen_at >= since, Heartbeat.stopped_at.is_(None))
        .order_by(Heartbeat.id)
    )
    # A process killed without a word on this host holds no one back.
    return [r for r in session.scalars(query) if process_exists(r.host, r.pid) is not False]


def register(
    session: Session,
    *,
    name: str,
    roles: tuple[str, ...],
    version: str,
    keys: ProcessKeys,
    now: datetime,
    within: float,
) -> None:
    """Check this process's keys against the live ones, then write its row."""
    check_keys(keys, live_rows(session, now, within))
    session.add(
        Heartbeat(
            process=name,
            roles=",".join(roles),
            host=socket.gethostname(),
            pid=os.getpid(),
            version=version,
            started_at=now,
            seen_at=now,
            stopped_at=None,
            keys=keys.as_json(),
        )
    )


def beat(session: Session, name: str, now: datetime, *, stopped: bool = False) -> None:
    values: dict[str, Any] = {"seen_at": now}
    if stopped:
        values["stopped_at"] = now
    session.execute(update(Heartbeat).where(Heartbeat.process == name).values(**values))


def forget_older_than(session: Session, before: datetime) -> None:
    """Rows of processes not seen since ``before`` are history nobody reads."""
    session.execute(
        Heartbeat.__table__.delete().where(Heartbeat.seen_at < before)  # type: ignore[attr-defined]
    )


def roles_health(
    session: Session, now: datetime, within: float, *, here_only: bool = False
) -> list[RoleHealth]:
    """For each role: how many live processes run it, and when one was last seen."""
    rows = list(session.scalars(select(Heartbeat).order_by(Heartbeat.id)))
    return roles_health_of(rows, now, within, here_only=here_only)


def all_rows(session: Session) -> list[Heartbeat]:
    return list(session.scalars(select(Heartbeat).order_by(Heartbeat.id)))
