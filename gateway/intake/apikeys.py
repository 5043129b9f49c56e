"""Agent API keys: who may file requests.

Keys come from ``HFA_API_KEYS`` (``name:key,...``) and from ``hfa keys
create`` (stored as SHA-256 hashes in ``api_keys``; the key is shown once).
While no key has ever existed the gateway is open: anyone who can reach it may
file, and ``hfa serve`` says so when it starts. Once one has, it stays closed
when the last is revoked, until ``hfa keys open`` (audited) opens it again.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from gateway.errors import Conflict, FieldProblem, InvalidRequest, NotFound
from gateway.services import Services
from gateway.store import state
from gateway.store.models import ApiKey, GatewayState
from gateway.store.prepared import Prepared
from gateway.tokens import hash_secret, new_secret

KEY_PREFIX = "hfak_"
MAX_NAME = 128
# A key's client or matter, as shown to the lawyer.
MAX_PARTY = 200
# How long the live keys read from the database are trusted: a key revoked (or created)
# by ``hfa keys`` in another process takes effect within this many seconds.
KEY_CACHE_SECONDS = 0.5


@dataclass(frozen=True)
class KeyInfo:
    name: str
    source: str  # "env" or "stored"
    created_at: datetime | None
    revoked_at: datetime | None
    client: str | None = None
    matter: str | None = None


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
    key_cache(services).forget()


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


_KEYS = ApiKey.__table__.c
_STATE = GatewayState.__table__.c
# The snapshot's two reads, one statement each: they ran twice a second, on the event
# loop, through the ORM (milliseconds each time, a stall for every call waiting).
_LIVE_KEYS = Prepared(select(_KEYS.key_hash, _KEYS.name).where(_KEYS.revoked_at.is_(None)))
_ACCESS = Prepared(
    select(_STATE.value).where(_STATE.name == bindparam("name")), results=(_STATE.value.type,)
)


class KeyCache:
    """The live stored keys, read at most once per ``ttl`` seconds, and the check of a key.

    Every filing asks whether keys are required and whose key was presented;
    answering from a snapshot spares a read transaction per filing, and the short
    lifetime keeps a revocation effective within a second in every process.
    """

    def __init__(
        self,
        services: Services,
        ttl: float = KEY_CACHE_SECONDS,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.services = services
        self.ttl = ttl
        self._now = now
        self._lock = threading.Lock()
        self._required = False
        self._stored: dict[str, str] = {}
        self._read_at: float | None = None

    def _snapshot(self) -> tuple[bool, dict[str, str]]:
        with self._lock:
            if self._read_at is not None and self._now() - self._read_at < self.ttl:
                return self._required, self._stored
        read_at = self._now()
        with self.services.db.read_only_rows() as conn:
            # The keys first, then the access state: a key created in between comes with
            # "closed", so no order of commits makes this snapshot open to anyone.
            stored = {key_hash: name for key_hash, name in _LIVE_KEYS.all(conn, {})}
            required = bool(self.services.config.api_keys or stored)
            if not required:
                access = _ACCESS.first(conn, {"name": state.ACCESS})
                required = bool(access is not None and (access[0] or {}).get("closed"))
        with self._lock:
            self._required, self._stored, self._read_at = required, stored, read_at
        return required, stored

    def forget(self) -> None:
        """Read the keys again on the next check (after a change made in this process)."""
        with self._lock:
            self._read_at = None

    def check(self, presented: str | None) -> tuple[bool, str | None]:
        """(keys are required, the name of the presented live key or None)."""
        required, stored = self._snapshot()
        if presented is None:
            return required, None
        digest = hash_secret(presented)
        found: str | None = None
        for name, key in self.services.config.api_keys:
            # Every configured key is compared, so the time does not tell which one matched.
            if hmac.compare_digest(hash_secret(key), digest):
                found = name
        # Stored keys are looked up by the SHA-256 of a 256-bit random key, as the
        # database index did before: the digest gives nothing away.
        return required, found if found is not None else stored.get(digest)


def key_cache(services: Services) -> KeyCache:
    """The one key cache of these services."""
    return services.shared(KeyCache)


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or not all(c.isalnum() or c in "-_." for c in name):
        raise InvalidRequest(
            f"key name {name!r} is not valid",
            [FieldProblem("name", f"1 to {MAX_NAME} letters, digits, '-', '_' or '.'")],
        )
    return name


def _check_party(field: str, value: str | None) -> str | None:
    """A key's client or matter: one line of readable text, or None when not given."""
    if value is None or not value.strip():
        return None
    text = " ".join(value.split())
    if len(text) > MAX_PARTY or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
        raise InvalidRequest(
            f"{field} {value!r} is not valid",
            [
                FieldProblem(
                    field, f"1 to {MAX_PARTY} characters of one line, no control characters"
                )
            ],
        )
    return text


def create_key(
    services: Services,
    session: Session,
    name: str,
    *,
    client: str | None = None,
    matter: str | None = None,
) -> str:
    """Store a new key's hash under ``name``; returns the key (shown once).

    ``client`` and ``matter`` say for whom the key's agent works; every request filed
    with the key is shown to the lawyer as being for them.
    """
    name = _check_name(name)
    client, matter = _check_party("client", client), _check_party("matter", matter)
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
    session.add(
        ApiKey(
            name=name,
            key_hash=hash_secret(key),
            created_at=now,
            revoked_at=None,
            client=client,
            matter=matter,
        )
    )
    note_keys_exist(services, session)
    details = {"name": name} | {k: v for k, v in (("client", client), ("matter", matter)) if v}
    services.audit.append(session, "api_key.created", at=now, actor="ops", details=details)
    key_cache(services).forget()
    return key


def revoke_key(services: Services, session: Session, name: str) -> None:
    row = session.scalars(select(ApiKey).where(ApiKey.name == name)).first()
    if row is None or row.revoked_at is not None:
        raise NotFound(f"no live stored key named {name!r} (keys from HFA_API_KEYS are not stored)")
    now = services.clock.now()
    row.revoked_at = now
    services.audit.append(session, "api_key.revoked", at=now, actor="ops", details={"name": name})
    key_cache(services).forget()


def list_keys(services: Services, session: Session) -> list[KeyInfo]:
    listed = [KeyInfo(name, "env", None, None) for name, _ in services.config.api_keys]
    for row in session.scalars(select(ApiKey).order_by(ApiKey.id)):
        listed.append(
            KeyInfo(row.name, "stored", row.created_at, row.revoked_at, row.client, row.matter)
        )
    return listed
