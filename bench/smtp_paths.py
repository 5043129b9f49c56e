"""Paths 3, 4 and 5: replies in over SMTP (accepted, then recorded), and mail out.

Replies go to real reply addresses (signed tokens of bulk-loaded
recipients), over a new connection per message as mail servers deliver
them. The same messages and connection pattern go to an aiosmtpd sink.
Outbound drains the outbox that the submit path filled into the sink, in windows
that alternate with raw aiosmtplib sending the same rendered messages over as many
connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiosmtplib

from bench import bulk, cpu, mail, procs
from bench.drive import Driver
from bench.loadgen import KeepAlive, Load, Mail, dot_stuffed, smtp_load
from bench.report import Figure
from gateway.outbound.transports import RELAY_CONNECTIONS
from gateway.tokens import ReplyTokens

SENDER = procs.LAWYER
WATCH_WIDTH = 8
# Between polls of a reply not visible yet (doubling up to the most): the resolution of
# the latency figure.
POLL_PAUSE = 0.005
MAX_POLL_PAUSE = 0.02
# The least time the recorded row watches for its replies to become visible.
MIN_WATCH_SECONDS = 60.0


def reply_mail(tokens: ReplyTokens, recipient_id: int) -> tuple[Mail, bytes]:
    address = tokens.reply_address(recipient_id, procs.REPLY_DOMAIN)
    raw = mail.reply(address, f"HFA-{recipient_id:05d}")
    return Mail(SENDER, address, dot_stuffed(raw)), raw


async def accepted(driver: Driver, work: Path, sink_port: int) -> tuple[Figure, Load]:
    """Until 250, with the listener alone (``--role smtp``); the sink gets the same."""
    plan = driver.plan
    tokens = ReplyTokens((procs.SECRET_KEY,))
    one, raw = reply_mail(tokens, 1)
    with procs.gateway(work / "accepted", roles=("smtp",), name="accepted") as (gw, ports):
        gw_load = await driver.smtp_same(ports.smtp, one, raw, plan.accepted_messages)
        peak = gw.peak_rss_mb()
    sink_load = await driver.smtp_same(sink_port, one, raw, plan.accepted_messages)
    p50, p99 = gw_load.percentiles()
    return Figure(gw_load.rate, sink_load.rate, p50, p99, peak, gw_load.tool), sink_load


class Visibility:
    """Watches threads over HTTP, oldest first, until each shows the human's turn.

    Replies are processed oldest first, so while the oldest is not visible yet only
    it is polled; once it is, those behind it are checked several at once. Polling
    every waiting thread would spend the CPU of the gateway it measures on answering
    "not yet". A reply seen late only because the one ahead of it was not visible
    yet counts from when it was seen: the figure can only err against the gateway.
    """

    def __init__(self, port: int, loaded: bulk.Loaded) -> None:
        self.connections = [KeepAlive(port) for _ in range(WATCH_WIDTH)]
        self.loaded = loaded
        self.accepted_at: dict[int, float] = {}
        self.visible_at: dict[int, float] = {}
        self.queue: deque[int] = deque()

    def on_accepted(self, request_id: int, at: float) -> None:
        self.accepted_at[request_id] = at
        self.queue.append(request_id)

    async def _visible(self, connection: KeepAlive, request_id: int) -> bool:
        status, body = await connection.get(
            f"/v1/requests/HFA-{request_id:05d}",
            {"Authorization": f"Bearer {self.loaded.access_token(request_id)}"},
        )
        if status != 200:
            raise RuntimeError(f"status of HFA-{request_id:05d} answered {status}")
        return any(t["author"] == "human" for t in json.loads(body)["turns"])

    async def _check(self, heads: list[int]) -> bool:
        """Poll ``heads`` at once; whether all of them were visible."""
        seen = await asyncio.gather(
            *(self._visible(c, i) for c, i in zip(self.connections, heads, strict=False))
        )
        now = time.perf_counter()
        for request_id, visible in zip(heads, seen, strict=True):
            if visible:
                self.visible_at[request_id] = now
                self.queue.remove(request_id)
        return all(seen)

    async def watch(self, expected: int, deadline: float) -> None:
        pause = POLL_PAUSE
        while len(self.visible_at) < expected and time.perf_counter() < deadline:
            if not self.queue or not await self._check([self.queue[0]]):
                # Longer while the oldest stays invisible (the gateway is busy recording
                # the ones before it), back to short once it is seen.
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_POLL_PAUSE)
            else:
                pause = POLL_PAUSE
                while self.queue and await self._check(list(self.queue)[:WATCH_WIDTH]):
                    pass

    def close(self) -> None:
        for connection in self.connections:
            connection.close()

    def latencies_ms(self) -> list[float]:
        return [(self.visible_at[i] - self.accepted_at[i]) * 1000 for i in self.visible_at]


async def _pass(
    port: int,
    http_port: int,
    loaded: bulk.Loaded,
    ids: range,
    sessions: int,
    interval: float,
    budget: float,
) -> tuple[float, Visibility]:
    tokens = ReplyTokens((procs.SECRET_KEY,))
    messages = [reply_mail(tokens, i)[0] for i in ids]
    watcher = Visibility(http_port, loaded)
    started = time.perf_counter()
    # Sending stops within the budget; the replies are watched for longer where the budget
    # is short, so that on a slow, busy machine they become visible too (the reading and
    # composing processes start with the first of them). The watch ends as soon as every
    # reply is visible: a fast machine waits no longer.
    deadline = started + max(budget, MIN_WATCH_SECONDS)
    watch = asyncio.create_task(watcher.watch(len(messages), deadline))
    try:
        await smtp_load(
            port,
            messages,
            connections=sessions,
            # Sending stops early enough for the last replies to become visible in time.
            seconds=budget * 0.6,
            on_accepted=lambda index, at: watcher.on_accepted(ids[index], at),
            interval=interval,
        )
        await watch
    finally:
        watcher.close()
    last = max(watcher.visible_at.values(), default=time.perf_counter())
    return last - started, watcher


async def recorded(driver: Driver, work: Path, sink_port: int, sink_rate: float) -> Figure:
    """Until the turn is readable over HTTP; then at half that rate, 250-to-visible latency."""
    plan = driver.plan
    total = plan.recorded_messages + plan.paced_messages
    data_dir = work / "recorded"
    loaded = bulk.load(data_dir / "gateway.db", requests=total, turns=total)
    budget = plan.seconds * 2 + 4
    with procs.gateway(data_dir, relay_port=sink_port, name="recorded") as (gw, ports):
        full = range(1, plan.recorded_messages + 1)
        with cpu.spent({gw.pid: "listeners"}, follow=gw.pid) as full_cpu:
            seconds, watcher = await _pass(
                ports.smtp, ports.http, loaded, full, plan.smtp_sessions, 0.0, budget
            )
        rate = len(watcher.visible_at) / seconds if seconds > 0 else 0.0
        paced = range(plan.recorded_messages + 1, total + 1)
        interval = 2.0 / rate if rate > 0 else 0.1
        _s, slow = await _pass(
            ports.smtp, ports.http, loaded, paced, plan.smtp_sessions, interval, budget
        )
        peak = gw.peak_rss_mb()
    probe = Load(len(slow.visible_at), 1.0, latencies_ms=slow.latencies_ms())
    p50, p99 = probe.percentiles()
    return Figure(
        rate,
        sink_rate,
        p50,
        p99,
        peak,
        "p50/p99: 250 to visible at half rate",
        full_cpu.per(len(watcher.visible_at)),
    )


async def outbound(driver: Driver, work: Path, data_dir: Path) -> Figure:
    """The outbox the submit path filled, drained by ``--role worker`` into the sink, in
    windows that alternate with raw aiosmtplib sending the same rendered messages to the
    same sink, the gateway's processes paused meanwhile (``procs.paused``).

    A shared host's speed drifts by more than this row's margin within a minute; the
    gateway and its limit, measured seconds apart in turn, see the same machine.
    """
    plan = driver.plan
    state, keep = work / "sink-state.json", work / "sink-kept"
    backlog = _audit_entries(data_dir / "gateway.db")
    spent = cpu.CpuSpent()
    delivered, gateway_seconds = 0, 0.0
    raw = _Sent(0, 0.0)
    with (
        procs.reference("smtp", work, state=state, keep=keep) as (sink, sink_port),
        procs.gateway(data_dir, roles=("worker",), relay_port=sink_port, name="outbound") as (
            gw,
            _p,
        ),
    ):
        # The submit path ran without a worker, so none of its audit entries is in the
        # tree yet; a deployment integrates them as they are filed. The windows open
        # once this worker's sequencer has caught up, and measure the steady drain
        # (each email's own entries are integrated within it).
        await _audit_caught_up(data_dir / "gateway.db", backlog)
        # And once the first email has reached the relay: the worker's composing process
        # starts with its first batch, which on a slow machine takes longer than a window.
        await _first_delivery(state)
        await asyncio.sleep(0.3)
        roles = {gw.pid: "worker", sink.pid: "relay"}
        kept: list[bytes] = []
        for _window in range(plan.outbound_windows):
            first, t0 = _count(state), time.perf_counter()
            with cpu.spent(roles, follow=gw.pid, load=False) as window_cpu:
                await asyncio.sleep(plan.outbound_seconds)
            last, t1 = _count(state), time.perf_counter()
            delivered, gateway_seconds = delivered + last - first, gateway_seconds + t1 - t0
            for role, seconds in window_cpu.seconds.items():
                spent.add(role, seconds)
            with procs.paused(gw.pid):
                # The messages the gateway wrote in its first window, as the sink kept them.
                kept = kept or [p.read_bytes() for p in sorted(keep.glob("*.eml"))]
                raw += await _raw_aiosmtplib(sink_port, kept, plan.outbound_seconds)
        peak = gw.peak_rss_mb()
    per_email = spent.per(delivered)
    # The worker's CPU per email: steadier than the rate on a shared machine.
    worker_ms = dict(per_email).get("worker", 0.0)
    note = (
        f"{RELAY_CONNECTIONS} connections, {plan.outbound_windows} windows each in turn; "
        f"worker CPU {worker_ms:.2f} ms per email"
    )
    gateway_rate = delivered / gateway_seconds if gateway_seconds else 0.0
    return Figure(gateway_rate, raw.rate, None, None, peak, note, per_email)


def _one(database: Path, query: str) -> int:
    """One number read from the gateway's SQLite file, opened read-only beside it."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
        return int(conn.execute(query).fetchone()[0])


def _audit_entries(database: Path) -> int:
    return _one(database, "SELECT COUNT(*) FROM audit")


async def _until(done: Callable[[], bool], timeout: float = 60.0) -> None:
    """Until ``done()`` (or ``timeout``, then go on), asking every 50 ms."""
    deadline = time.perf_counter() + timeout
    while not done() and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)


async def _audit_caught_up(database: Path, entries: int) -> None:
    """Until the newest checkpoint covers ``entries``."""
    query = "SELECT COALESCE(MAX(tree_size), 0) FROM audit_checkpoints"
    await _until(lambda: _one(database, query) >= entries)


async def _first_delivery(state: Path) -> None:
    """Until the sink has received a message."""
    await _until(lambda: _count(state) > 0)


def _count(state: Path) -> int:
    try:
        return int(json.loads(state.read_text())["count"])
    except (OSError, ValueError, KeyError):
        return 0


@dataclass(frozen=True)
class _Sent:
    """Messages raw aiosmtplib sent, and in how long."""

    messages: int
    seconds: float

    def __add__(self, other: _Sent) -> _Sent:
        return _Sent(self.messages + other.messages, self.seconds + other.seconds)

    @property
    def rate(self) -> float:
        return self.messages / self.seconds if self.seconds else 0.0


async def _raw_aiosmtplib(port: int, messages: list[bytes], seconds: float) -> _Sent:
    """aiosmtplib.send of the same messages, a new connection each, as many at a time as
    the gateway keeps open to its relay."""
    if not messages:
        return _Sent(0, 0.0)
    deadline = time.perf_counter() + seconds
    sent = 0

    async def sender() -> None:
        nonlocal sent
        while time.perf_counter() < deadline:
            raw = messages[sent % len(messages)]
            await aiosmtplib.send(
                raw,
                sender=f"gateway@{procs.REPLY_DOMAIN}",
                recipients=[procs.LAWYER],
                hostname="127.0.0.1",
                port=port,
                timeout=30,
            )
            sent += 1

    started = time.perf_counter()
    await asyncio.gather(*(sender() for _ in range(RELAY_CONNECTIONS)))
    return _Sent(sent, time.perf_counter() - started)
