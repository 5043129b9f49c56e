"""One throttle for audited refusals: at most one entry per client per interval.

A scan of guessed references or reply addresses must not flood the audit log, and
must not grow memory either: clients are kept in least-recently-seen order and the
oldest is forgotten past ``max_clients``. When a client is let through again, it is
told how many of its refusals went unrecorded meanwhile.
"""

from __future__ import annotations

import logging
import math
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


# Past this share of the slots in use, only clients holding fewer than NEWCOMER_SHARE
# connections are admitted.
CROWDED = 0.8
NEWCOMER_SHARE = 2


class ConnectionGuard:
    """Counts open connections per client and in all, and admits them fairly.

    - Trusted relays (the MTA in front, HFA_TRUSTED_RELAYS) first take slots from a
      reserve of their own that no other client can use; past it they queue up like
      anyone else.
    - Everyone shares ``total`` slots, each client at most ``per_client`` of them. With
      ``fair`` (the SMTP listener: many senders, any of them may be hostile), once
      half the slots are taken, a client's allowance shrinks with what is left, and
      the last fifth goes only to clients that hold fewer than two: a few addresses
      holding as many connections as they can leave room for everyone else, so a
      client with no connection finds a slot (as Postfix's postscreen and anvil keep
      one client from starving the others).

    Only clients with an open connection are tracked, so memory is bounded by the
    caps themselves.
    """

    def __init__(
        self,
        total: int,
        per_client: int,
        *,
        trusted: Callable[[str], bool] | None = None,
        reserved: int = 0,
        fair: bool = False,
    ) -> None:
        self.total = max(total, 1)
        self.fair = fair
        self.per_client = max(per_client, 1)
        self.reserved = max(reserved, 0) if trusted is not None else 0
        self._trusted = trusted
        self.open = 0
        self.open_reserved = 0
        self._by_client: dict[str, int] = {}
        self._reserved_by_client: dict[str, int] = {}

    def allowance(self) -> int:
        """How many shared slots one client may hold now: ``per_client`` while half the
        slots are free, then fewer as they fill, down to NEWCOMER_SHARE at the last fifth."""
        half, crowded = self.total / 2, self.total * CROWDED
        if not self.fair or self.open <= half:
            return self.per_client
        left = max(crowded - self.open, 0) / (crowded - half)
        return max(min(NEWCOMER_SHARE, self.per_client), math.ceil(self.per_client * left))

    def is_trusted(self, client: str) -> bool:
        return self._trusted is not None and self._trusted(client)

    def admit(self, client: str) -> bool:
        if self.open_reserved < self.reserved and self.is_trusted(client):
            self.open_reserved += 1
            self._reserved_by_client[client] = self._reserved_by_client.get(client, 0) + 1
            return True
        held = self._by_client.get(client, 0)
        # Past CROWDED the allowance is NEWCOMER_SHARE: the last fifth of the slots is
        # kept for clients that hold (almost) none.
        if self.open >= self.total or held >= min(self.per_client, self.allowance()):
            return False
        self.open += 1
        self._by_client[client] = held + 1
        return True

    def release(self, client: str) -> None:
        # A shared slot first: the reserve stays with the relay, the shared slot goes
        # back to everyone.
        if client in self._by_client:
            self.open -= 1
            _drop_one(self._by_client, client)
        elif client in self._reserved_by_client:
            self.open_reserved -= 1
            _drop_one(self._reserved_by_client, client)

    def held_by(self, client: str) -> int:
        """The slots ``client`` holds, shared and reserved."""
        return self._by_client.get(client, 0) + self._reserved_by_client.get(client, 0)

    @property
    def stressed(self) -> bool:
        """More than half the connections in use: time to shorten timeouts, as MTAs do."""
        return self.open * 2 > self.total


def _drop_one(counts: dict[str, int], client: str) -> None:
    left = counts[client] - 1
    if left > 0:
        counts[client] = left
    else:
        del counts[client]


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


class RepeatFilter(logging.Filter):
    """Lets a repeated warning or error through once per ``interval``, with a count.

    A condition that fails on every accept or every connection (no descriptor left, a
    flood of refused clients) would otherwise write a line each time, tens of thousands
    a second. Records are alike when they come from the same logger and call site with
    the same message template; the next one let through says how many were held back.
    """

    def __init__(
        self,
        interval: float = 10.0,
        *,
        level: int = logging.WARNING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._throttle = Throttle(interval, max_clients=1000, clock=clock)
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < self.level:
            return True
        held_back = self._throttle.let_through(_kind_of(record))
        if held_back is None:
            return False
        if held_back:
            record.msg = f"{record.msg} [{held_back} more like this in the last interval]"
        return True


def _kind_of(record: logging.LogRecord) -> str:
    # asyncio's own messages are built before logging (no template): their first line is.
    template = str(record.msg).split("\n", 1)[0]
    return f"{record.name}:{record.pathname}:{record.lineno}:{template}"
