"""The integration-delay probe of ``bench.scale_out``, in a process of its own.

Commits an audit entry every 0.1 s and watches, every 50 ms, for its leaf, until
its standard input closes; then prints, as JSON, each entry's delay in seconds
(or ``null`` for one never integrated) and exits. An entry's integration delay is
the time from its commit returning to the first moment a reader finds it in the
tree (its batch committed): what a reader waits for its proof, overstated by at
most one watch interval. A process apart, so that the load generator's loop does
not delay the probe's own threads and inflate what it measures.

    python -m bench.integration_probe POSTGRES_URL SECRET_KEY   (the benchmark starts it)

Each entry carries the MAC the gateway's own entries carry (``store.audit_mac``), made
with the gateways' secret key: the sequencer refuses any other row.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from datetime import UTC, datetime

import psycopg

from gateway.store.audit_mac import EntryMacs

GRACE_SECONDS = 10.0


def main(db: str, secret_key: str) -> None:
    macs = EntryMacs((secret_key,))
    committed: dict[int, float] = {}
    integrated: dict[int, float] = {}
    stop = threading.Event()

    def write() -> None:
        with psycopg.connect(db, autocommit=True) as conn:
            while not stop.wait(0.1):
                at = datetime.now(UTC)
                mac = macs.sign(at, "bench.probe", None, "bench", {})
                row = conn.execute(
                    "INSERT INTO audit (at, event, actor, details, mac) "
                    "VALUES (%s, 'bench.probe', 'bench', '{}', %s) RETURNING seq",
                    (at, mac),
                ).fetchone()
                assert row is not None
                committed[int(row[0])] = time.monotonic()

    def watch() -> None:
        with psycopg.connect(db, autocommit=True) as conn:
            until: float | None = None
            while True:
                waiting = [seq for seq in list(committed) if seq not in integrated]
                if waiting:
                    rows = conn.execute(
                        "SELECT seq FROM audit WHERE leaf_index IS NOT NULL AND seq = ANY(%s)",
                        (waiting,),
                    ).fetchall()
                    seen = time.monotonic()
                    for (seq,) in rows:
                        integrated[int(seq)] = seen
                if stop.is_set():
                    until = until or time.monotonic() + GRACE_SECONDS
                    if not waiting or time.monotonic() > until:
                        return
                time.sleep(0.05)

    writer = threading.Thread(target=write, daemon=True)
    watcher = threading.Thread(target=watch, daemon=True)
    writer.start()
    watcher.start()
    sys.stdin.read()  # until the benchmark closes it
    stop.set()
    writer.join(5)
    watcher.join(GRACE_SECONDS + 5)
    delays = [integrated[s] - at if s in integrated else None for s, at in committed.items()]
    print(json.dumps(delays))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
