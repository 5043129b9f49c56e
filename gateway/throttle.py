"""One throttle for audited refusals: at most one entry per client per interval.

A scan of guessed references or reply addresses must not flood the audit log, and
must not grow memory either: clients are kept in least-recently-seen order and the
oldest is forgotten past ``max_clients``. When a client is let through again, it is
told how many of its refusals went unrecorded meanwhile.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class Throttle:
    def __init__(
        self,
        interval: float,
        *,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.max_clients = max_clients
        self._clock = clock
        # client -> (when last let through, refusals held back since)
        self._seen: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def let_through(self, client: str) -> int | None:
        """None while ``client`` is throttled; else how many were held back before this one."""
        now = self._clock()
        last, held = self._seen.pop(client, (-1e18, 0))
        if now - last < self.interval:
            self._seen[client] = (last, held + 1)
            return None
        self._seen[client] = (now, 0)
        while len(self._seen) > self.max_clients:
            self._seen.popitem(last=False)
        return held

    def __len__(self) -> int:
        return len(self._seen)


class ConnectionGuard:
    """Counts open connections per client and in all; refuses past either cap.

    Only clients with an open connection are tracked, so memory is bounded by
    the cap itself.
    """

    def __init__(self, total: int, per_client: int) -> None:
        self.total = max(total, 1)
        self.per_client = max(per_client, 1)
        self.open = 0
        self._by_client: dict[str, int] = {}

    def admit(self, client: str) -> bool:
        if self.open >= self.total or self._by_client.get(client, 0) >= self.per_client:
            return False
        self.open += 1
        self._by_client[client] = self._by_client.get(client, 0) + 1
        return True

    def release(self, client: str) -> None:
        self.open -= 1
        left = self._by_client.get(client, 1) - 1
        if left > 0:
            self._by_client[client] = left
        else:
            self._by_client.pop(client, None)

    @property
    def stressed(self) -> bool:
        """More than half the connections in use: time to shorten timeouts, as MTAs do."""
        return self.open * 2 > self.total


class WindowCounter:
    """At most ``limit`` events per client in each ``interval`` (a fixed window).

    Clients are kept in least-recently-seen order; past ``max_clients`` the oldest
    is forgotten, so memory stays bounded whatever the number of clients.
    """

    def __init__(
        self,
        limit: int,
        interval: float,
        *,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = max(limit, 1)
        self.interval = interval
        self.max_clients = max_clients
        self._clock = clock
        self._windows: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def allow(self, client: str) -> bool:
        """Count one event for ``client``; False when it is over the limit."""
        now = self._clock()
        start, count = self._windows.pop(client, (now, 0))
        if now - start >= self.interval:
            start, count = now, 0
        allowed = count < self.limit
        self._windows[client] = (start, count + 1 if allowed else count)
        while len(self._windows) > self.max_clients:
            self._windows.popitem(last=False)
        return allowed
