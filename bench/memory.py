"""Path 7: memory at rest, with many idle SMTP clients, and a 25 MB message under load.

The gateway runs whole (``hfa serve``, every role in one process), as a
newcomer would run it. Idle SMTP connections have said EHLO and wait; the
aiosmtpd sink gets the same number for comparison. The large message is a
real reply to a real token, sent while submits run; its effect is the
submit p99 beside the p99 of the same load without it.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import mail, procs
from bench.drive import Driver
from bench.loadgen import dot_stuffed, smtp_send
from bench.report import Figure
from gateway.tokens import ReplyTokens

SETTLE = 0.5


@dataclass
class MemoryFigures:
    idle: Figure
    idle_smtp: Figure
    large_message: Figure


async def _hold_idle(port: int, count: int) -> list[asyncio.StreamWriter]:
    writers: list[asyncio.StreamWriter] = []

    async def one() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writers.append(writer)
        await reader.readline()
        writer.write(b"EHLO idle.bench\r\n")
        while (await reader.readline())[3:4] != b" ":
            pass

    # Opened in waves, so the listener's backlog is never the limit being measured.
    for start in range(0, count, 100):
        await asyncio.gather(*(one() for _ in range(min(100, count - start))))
    return writers


async def _rss_with_idle(child: procs.Child, port: int, count: int) -> float:
    before = child.rss_mb()
    writers = await _hold_idle(port, count)
    try:
        await asyncio.sleep(SETTLE)
        return child.rss_mb() - before
    finally:
        for writer in writers:
            writer.close()
        for writer in writers:
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def memory(driver: Driver, work: Path, bare_idle_mb: float) -> MemoryFigures:
    plan = driver.plan
    data_dir = work / "memory"
    body = mail.submit_json()
    tokens = ReplyTokens((procs.SECRET_KEY,))
    with (
        procs.reference("smtp", work) as (sink, sink_port),
        procs.gateway(data_dir, relay_port=sink_port, name="memory") as (gw, ports),
    ):
        await asyncio.sleep(SETTLE)
        # hfa serve forks its worker process: its private memory counts too.
        idle = gw.total_rss_mb()
        gw_delta = await _rss_with_idle(gw, ports.smtp, plan.idle_connections)
        sink_delta = await _rss_with_idle(sink, sink_port, plan.idle_connections)
        # A request to reply to, so the large message carries a real token.
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports.http}") as client:
            (await client.post("/v1/requests", json=mail.SUBMIT_BODY)).raise_for_status()
        address = tokens.reply_address(1, procs.REPLY_DOMAIN)
        payload = dot_stuffed(mail.large_reply(address, plan.large_message_bytes))
        # Long enough for the message to arrive and be processed within the window.
        window = plan.large_window_seconds
        calm = await driver.http(ports.http, "POST", "/v1/requests", body=body, seconds=window)

        async def large() -> float:
            await asyncio.sleep(min(0.3, plan.seconds / 4))
            return await smtp_send(ports.smtp, procs.LAWYER, address, payload)

        busy, took = await asyncio.gather(
            driver.http(ports.http, "POST", "/v1/requests", body=body, seconds=window),
            large(),
        )
        peak = gw.peak_rss_mb()
    _calm_p50, calm_p99 = calm.percentiles()
    busy_p50, busy_p99 = busy.percentiles()
    return MemoryFigures(
        idle=Figure(idle, bare_idle_mb, None, None, idle),
        idle_smtp=Figure(
            gw_delta,
            sink_delta,
            None,
            None,
            idle + gw_delta,
            f"{plan.idle_connections} connections",
        ),
        large_message=Figure(
            busy_p99 or 0.0,
            calm_p99 or 0.0,
            busy_p50,
            busy_p99,
            peak,
            f"{plan.large_message_bytes / 1e6:.0f} MB accepted in {took:.2f}s",
        ),
    )
