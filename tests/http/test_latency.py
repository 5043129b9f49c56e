"""The HTTP API answers without waiting on the client's delayed ACK.

A response goes out in two writes (head, then body). Without TCP_NODELAY
on the accepted socket, Nagle holds the body until the client acknowledges
the head, which a client delays by ~40 ms: every call would take 40 ms.
"""

from __future__ import annotations

import statistics
import time

from tests.conftest import Running


async def test_keep_alive_calls_answer_in_well_under_delayed_ack(running: Running) -> None:
    await running.http.get("/healthz")
    took = []
    for _ in range(20):
        started = time.perf_counter()
        response = await running.http.get("/healthz")
        took.append(time.perf_counter() - started)
        assert response.status_code == 200
    assert statistics.median(took) < 0.02, took
