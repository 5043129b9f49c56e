"""The size of a process's PostgreSQL connection pool, from the roles it runs.

SQLAlchemy's pool keeps ``pool_size`` connections open while idle and opens up to
``max_overflow`` more for a burst, closing each as it comes back. What a process keeps
idle is what its roles use at once when work trickles in; what a burst may open is as
before (``MOST`` in all), so no burst waits for a connection that it did not wait for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# The threads that use the database at once in one process: asyncio.to_thread's default
# executor (its size, as Python computes it), plus the sequencer's and the group commit's own.
BUSY_THREADS = min(32, (os.cpu_count() or 1) + 4) + 2
# Connections one process may hold at once: the pool's earlier 10 + 10, or more threads.
MOST = max(20, BUSY_THREADS)


@dataclass(frozen=True)
class Pool:
    """A PostgreSQL connection pool: ``kept`` stay open while idle, a burst opens more up
    to ``MOST`` in all. ``name`` is the process's application_name in pg_stat_activity."""

    kept: int = 1
    name: str = "hfa cli"

    @property
    def overflow(self) -> int:
        return MOST - self.kept
