"""Agent API keys: who may file requests.

Keys come from ``HFA_API_KEYS`` (``name:key,...``) and from ``hfa keys
create`` (stored as SHA-256 hashes in ``api_keys``; the key is shown once).
While no key has ever existed the gateway is open: anyone who can reach it may
file, and ``hfa serve`` says so when it starts. Once one has, it stays closed
when the last is revoked, until ``hfa keys open`` (audited) opens it again.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.errors import Conflict, FieldProblem, InvalidRequest, NotFound
from gateway.services import Services
from gateway.store import state
from gateway.store.models import ApiKey
from gateway.tokens import hash_secret, new_secret

KEY_PREFIX = "hfak_"
MAX_NAME = 128


@dataclass(frozen=True)
class KeyInfo:
    name: str
    source: str  # "env" or "stored"
    created_at: datetime | None
    revoked_at: datetime | None


def live_keys(services: Services, session: Session) -> int:
    stored = session.scalar(
        select(func.count()).select_from(ApiKey).where(ApiKey.revoked_at.is_(None))
    )
    return len(services.config.api_keys) + (stored or 0)


def keys_required(services: Services, session: Session) -> bool:
    """True when any key is live, or ever was and ops have not opened the gateway since.

    Revoking the last key must not open the gateway to anyone: it stays closed
    until a new key is created or ``hfa keys open`` says, on the record, to open it.
    """
    if services.config.api_keys:
        return True
    live = session.scalars(select(ApiKey.id).where(ApiKey.revoked_at.is_(None)).limit(1))
    if live.first() is not None:
        return True
    access = state.get(session, state.ACCESS)
    return bool(access and access.get("closed"))


def note_keys_exist(services: Services, session: Session) -> None:
    """Remember that keys exist (configured or created): closed from now on."""
    access = state.get(session, state.ACCESS)
    if not (access and access.get("closed")):
        state.put(session, state.ACCESS, {"closed": True}, services.clock.now())


def open_gateway(services: Services, session: Session, by: str) -> None:
    """Let anyone file again (no live key): an ops decision, audited."""
    if live_keys(services, session):
        raise Conflict(
            "live API keys exist: revoke them first (or keep them; filing then needs one)",
            [FieldProblem("keys", "no live key")],
        )
    now = services.clock.now()
    state.put(session, state.ACCESS, {"closed": False}, now)
    services.audit.append(session, "api_key.gateway_opened", at=now, actor=f"ops:{by}")


def access_state(services: Services, session: Session) -> str:
    """One sentence on who may file now, for 'hfa keys revoke' and 'list'."""
    live = live_keys(services, session)
    if live:
        return f"{live} live key(s): filing needs one of them"
    if keys_required(services, session):
        return (
            "no live keys: the gateway stays CLOSED to filing until a key is created "
            "('hfa keys create NAME') or it is opened to anyone ('hfa keys open')"
        )
    return "no live keys: the gateway is OPEN, anyone who can reach it may file requests"


def identify(services: Services, session: Session, presented: str) -> str | None:
    """The name of the key ``presented``, or None if it is no live key."""
    digest = hash_secret(presented)
    found: str | None = None
    for name, key in services.config.api_keys:
        # Every configured key is compared, so the time does not tell which one matched.
        if hmac.compare_digest(hash_secret(key), digest):
            found = name
    if found is not None:
        return found
    row = session.scalars(
        select(ApiKey).where(ApiKey.key_hash == digest, ApiKey.revoked_at.is_(None))
    ).first()
    return row.name if row is not None else None


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or not all(c.isalnum() or c in "-_." for c in name):
        raise InvalidRequest(
            f"key name {name!r} is not valid",
            [FieldProblem("name", f"1 to {MAX_NAME} letters, digits, '-', '_' or '.'")],
        )
    return name


def create_key(services: Services, session: Session, name: str) -> str:
    """Store a new key's hash under ``name``; returns the key (shown once)."""
    name = _check_name(name)
    if (
        any(n == name for n, _ in services.config.api_keys)
        or session.scalars(select(ApiKey.id).where(ApiKey.name == name)).first()
    ):
        raise Conflict(
            f"a key named {name!r} already exists; choose another name",
            [FieldProblem("name", "a name not used before")],
        )
    key = new_secret(KEY_PREFIX)
    now = services.clock.now()
    session.add(ApiKey(name=name, key_hash=hash_secret(key), created_at=now, revoked_at=None))
    note_keys_exist(services, session)
    services.audit.append(session, "api_key.created", at=now, actor="ops", details={"name": name})
    return key


def revoke_key(services: Services, session: Session, name: str) -> None:
    row = session.scalars(select(ApiKey).where(ApiKey.name == name)).first()
    if row is None or row.revoked_at is not None:
        raise NotFound(f"no live stored key named {name!r} (keys from HFA_API_KEYS are not stored)")
    now = services.clock.now()
    row.revoked_at = now
    services.audit.append(session, "api_key.revoked", at=now, actor="ops", details={"name": name})


def list_keys(services: Services, session: Session) -> list[KeyInfo]:
    listed = [KeyInfo(name, "env", None, None) for name, _ in services.config.api_keys]
    for row in session.scalars(select(ApiKey).order_by(ApiKey.id)):
        listed.append(KeyInfo(row.name, "stored", row.created_at, row.revoked_at))
    return listed
