"""One way to drive load, whichever tool is installed, and the plan of a run."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from bench import loadgen, tools
from bench.loadgen import Load, Mail

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plan:
    """How long and how big each measurement is (the full run, or ``--quick``)."""

    seconds: float
    http_connections: int
    smtp_sessions: int
    accepted_messages: int
    recorded_messages: int
    paced_messages: int
    scale_requests: int
    scale_turns: int
    idle_connections: int
    large_message_bytes: int
    # Row 5: the gateway and raw aiosmtplib in turn, this many windows of this long each.
    outbound_windows: int
    outbound_seconds: float
    # The submit load around the large message: long enough for it to arrive and be read.
    large_window_seconds: float


FULL = Plan(
    seconds=5.0,
    http_connections=32,
    smtp_sessions=20,
    accepted_messages=100_000,
    recorded_messages=600,
    paced_messages=300,
    scale_requests=1_000_000,
    scale_turns=5_000_000,
    idle_connections=500,
    large_message_bytes=25_000_000,
    outbound_windows=4,
    outbound_seconds=2.0,
    large_window_seconds=4.0,
)
QUICK = Plan(
    seconds=1.0,
    http_connections=16,
    smtp_sessions=10,
    accepted_messages=100_000,
    recorded_messages=20,
    paced_messages=10,
    scale_requests=20_000,
    scale_turns=100_000,
    idle_connections=500,
    large_message_bytes=5_000_000,
    outbound_windows=1,
    outbound_seconds=1.0,
    large_window_seconds=2.0,
)


@dataclass
class Driver:
    """wrk and smtp-source when present, else the built-in asyncio generators."""

    plan: Plan
    use_wrk: bool
    use_smtp_source: bool

    @classmethod
    def detect(cls, plan: Plan, *, builtin_only: bool = False) -> Driver:
        wrk, source = tools.have_wrk(), tools.have_smtp_source()
        if builtin_only:
            wrk = source = False
        else:
            if not wrk:
                log.warning("wrk is not installed: HTTP load uses the built-in asyncio generator")
            if not source:
                log.warning(
                    "smtp-source (postfix) is not installed: SMTP load uses the built-in "
                    "asyncio generator"
                )
        return cls(plan, wrk, source)

    async def http(
        self,
        port: int,
        method: str,
        path: str,
        *,
        body: str = "",
        headers: dict[str, str] | None = None,
        seconds: float | None = None,
        connections: int | None = None,
    ) -> Load:
        duration = seconds if seconds is not None else self.plan.seconds
        clients = connections or self.plan.http_connections
        all_headers = dict(headers or {})
        if method == "POST":
            all_headers.setdefault("Content-Type", "application/json")
        if self.use_wrk:
            return await asyncio.to_thread(
                tools.wrk,
                f"http://127.0.0.1:{port}{path}",
                method=method,
                body=body,
                headers=all_headers,
                connections=clients,
                seconds=duration,
            )
        request = loadgen.http_request(method, path, body=body.encode(), headers=all_headers)
        return await loadgen.http_load(port, request, connections=clients, seconds=duration)

    async def smtp_same(self, port: int, mail: Mail, raw: bytes, count: int) -> Load:
        """Up to ``count`` copies of one message for the plan's seconds, a new connection
        each, as a mail server sends."""
        if self.use_smtp_source:
            return await asyncio.to_thread(
                tools.smtp_source,
                port,
                raw,
                sender=mail.sender,
                recipient=mail.recipient,
                count=count,
                sessions=self.plan.smtp_sessions,
                seconds=self.plan.seconds,
            )
        return await loadgen.smtp_load(
            port,
            [mail] * count,
            connections=self.plan.smtp_sessions,
            seconds=self.plan.seconds,
        )
