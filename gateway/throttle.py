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
