"""The composition root: one object that wires settings to the parts that use them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gateway.clock import Clock
from gateway.render import Renderer
from gateway.runner import Wakeup
from gateway.settings.config import Config
from gateway.store.audit import AuditLog
from gateway.store.audit_mac import EntryMacs
from gateway.store.db import Database
from gateway.store.pool import Pool
from gateway.tokens import ReplyTokens, load_or_create_keys

T = TypeVar("T")


@dataclass
class Services:
    config: Config
    db: Database
    tokens: ReplyTokens
    audit: AuditLog
    clock: Clock
    renderer: Renderer
    # Set when new outbox or inbound work is committed, so idle workers wake at once.
    outbox_ready: Wakeup = field(default_factory=Wakeup)
    inbound_ready: Wakeup = field(default_factory=Wakeup)
    # In-process state that every interface must share (rate limits, the token-failure
    # recorder), one instance each, built on first use by ``shared``.
    _shared: dict[Callable[[Services], Any], Any] = field(default_factory=dict, repr=False)

    def shared(self, build: Callable[[Services], T]) -> T:
        """The one instance ``build`` makes for these services."""
        if build not in self._shared:
            self._shared[build] = build(self)
        found: T = self._shared[build]
        return found

    def close(self) -> None:
        self.db.dispose()


# PostgreSQL connections a process keeps open between bursts, per role it runs: what its
# loops use at once when work trickles in (the worker's outbox, inbound and sequencer; the
# listeners' commits). A burst opens more, as many as the threads that use the database
# at once (``Pool``), and closes them as they come back.
KEPT_PER_ROLE = {"http": 2, "smtp": 1, "worker": 3}
ALL_ROLES = ("http", "smtp", "worker")


def pool_for(roles: tuple[str, ...]) -> Pool:
    """The connection pool of a process running ``roles`` (none: a command)."""
    kept = max(1, sum(KEPT_PER_ROLE.get(role, 0) for role in roles))
    return Pool(kept, name="hfa " + (",".join(roles) or "cli"))


def build_services(
    config: Config,
    *,
    clock: Clock | None = None,
    migrate: bool = True,
    roles: tuple[str, ...] = ALL_ROLES,
) -> Services:
    config.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(config.database_url, pool=pool_for(roles))
    if migrate:
        db.ensure_schema()
    keys = load_or_create_keys(config.secret_keys, config.data_dir)
    return Services(
        config=config,
        db=db,
        tokens=ReplyTokens(keys),
        audit=AuditLog(config.data_dir / "audit.jsonl", EntryMacs(keys)),
        clock=clock or Clock(),
        renderer=Renderer(),
    )
