"""What 2,000 agents waiting on long-polls cost one gateway process.

``PYTHONPATH=$PWD python -m bench.waiting [--waiters 2000] [--wait 120] [--events]``

Starts ``python -m gateway serve --role http`` (SQLite, a fresh data directory,
loopback, the per-client connection caps lifted as in every benchmark), files
one request per waiter, then holds ``GET /v1/requests/{reference}?wait=`` open
on every one at once over raw sockets, and reads from ``/proc``:

- the process's resident memory and open file descriptors before and while all
  wait (the difference per waiter);
- its CPU time over ``--idle`` seconds while all wait and nothing changes (the
  one watcher looking at the change marker);
- how long after an agent adds a message its own long-poll answers, for a sample
  of waiters while all the others still wait (median and worst).

With ``--events`` each waiter holds the thread's event stream
(``GET /v1/requests/{reference}/events``) instead, and the wake is the new
turn's event arriving.

Every connection is closed and the gateway stopped at the end. This is a
measurement, not a test: it prints the figures, it asserts only that every
long-poll was still waiting when measured and answered once woken.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench import procs

SAMPLE = 50


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    # utime and stime, fields 14 and 15 of stat (11 and 12 after the command).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def file_all(base: str, count: int) -> list[dict[str, Any]]:
    filed: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for start in range(0, count, 50):
            answers = await asyncio.gather(
                *(
                    client.post(
                        "/v1/requests",
                        json={"category": "legal_review", "request": f"Waiting agent {i}."},
                    )
                    for i in range(start, min(count, start + 50))
                )
            )
            for answer in answers:
                answer.raise_for_status()
                filed.append(answer.json())
    return filed


class Poll:
    """One long-poll over a raw socket: the request is written, the answer read later."""

    def __init__(self, filed: dict[str, Any]) -> None:
        self.filed = filed
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.events = False

    async def open(self, port: int, wait: float, events: bool = False) -> None:
        self.events = events
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        reference = self.filed["reference"]
        path = (
            f"/v1/requests/{reference}/events"
            if events
            else f"/v1/requests/{reference}?wait={wait:g}"
        )
        self.writer.write(
            (
                f"GET {path} HTTP/1.1\r\n"
                f"Host: 127.0.0.1\r\nAuthorization: Bearer {self.filed['access_token']}\r\n\r\n"
            ).encode()
        )
        await self.writer.drain()
        if events:
            # The stream opens with the thread so far: read up to its status event.
            await self.reader.readuntil(b"event: status")
            await self.reader.readuntil(b"\n\n")

    def answered(self) -> bool:
        """Whether anything but chunk framing arrived since the wait began."""
        assert self.reader is not None
        buffered = bytes(self.reader._buffer)  # type: ignore[attr-defined]
        if self.events:
            return b"event: turn" in buffered or self.reader.at_eof()
        return len(buffered) > 0 or self.reader.at_eof()

    async def answer(self) -> int:
        assert self.reader is not None
        status = await self.reader.readline()
        return int(status.split()[1])

    async def event(self) -> bool:
        assert self.reader is not None
        await self.reader.readuntil(b"event: turn")
        return True

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def add_message(base: str, filed: dict[str, Any]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        response = await client.post(
            f"/v1/requests/{filed['reference']}/messages",
            json={"message": "One more fact."},
            headers={"Authorization": f"Bearer {filed['access_token']}"},
        )
        response.raise_for_status()


async def wake_latency(base: str, poll: Poll, events: bool) -> float:
    started = time.monotonic()
    await add_message(base, poll.filed)
    if events:
        assert await poll.event()
    else:
        assert await poll.answer() == 200
    return time.monotonic() - started


async def measure(child: procs.Child, port: int, args: argparse.Namespace) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    filed = await file_all(base, args.waiters)
    await asyncio.sleep(args.settle)
    rss_before, fds_before = child.rss_mb(), open_fds(child.pid)
    polls = [Poll(f) for f in filed]
    for start in range(0, len(polls), 100):
        await asyncio.gather(
            *(p.open(port, args.wait, args.events) for p in polls[start : start + 100])
        )
    await asyncio.sleep(args.settle)
    rss_waiting, fds_waiting = child.rss_mb(), open_fds(child.pid)
    early = sum(p.answered() for p in polls)
    cpu_start = cpu_seconds(child.pid)
    await asyncio.sleep(args.idle)
    idle_cpu = cpu_seconds(child.pid) - cpu_start
    still = sum(not p.answered() for p in polls)
    latencies = [await wake_latency(base, p, args.events) for p in polls[:SAMPLE]]
    for p in polls:
        p.close()
    return {
        "kind": "event streams" if args.events else "long-polls",
        "waiters": args.waiters,
        "answered_early": early,
        "still_waiting_after_idle": still,
        "rss_mb_before": round(rss_before, 1),
        "rss_mb_waiting": round(rss_waiting, 1),
        "rss_kb_per_waiter": round((rss_waiting - rss_before) * 1024 / args.waiters, 1),
        "fds_before": fds_before,
        "fds_waiting": fds_waiting,
        "fds_per_waiter": round((fds_waiting - fds_before) / args.waiters, 3),
        "idle_seconds": args.idle,
        "cpu_seconds_while_all_wait": round(idle_cpu, 3),
        "cpu_share_while_all_wait": round(idle_cpu / args.idle, 4),
        "wake_sample": len(latencies),
        "wake_ms_median": round(statistics.median(latencies) * 1000, 1),
        "wake_ms_max": round(max(latencies) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiters", type=int, default=2000)
    parser.add_argument("--wait", type=float, default=120.0)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--events", action="store_true", help="hold event streams instead")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.waiters * 2 + 200
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, needed), hard))
    with tempfile.TemporaryDirectory(prefix="hfa-bench-waiting-") as tmp:
        data = Path(tmp)
        with procs.gateway(
            data,
            roles=("http",),
            wait_max_seconds=str(args.wait),
            events_max_seconds=str(args.wait),
        ) as (
            child,
            ports,
        ):
            figures = asyncio.run(measure(child, ports.http, args))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
