"""The reference servers each hot path is measured against, run as their own processes.

- ``http``: a bare ASGI endpoint returning a constant, on the same uvicorn
  stack and settings as the gateway's HTTP API: the most any Python HTTP
  server can do on one core here.
- ``smtp``: an aiosmtpd sink that accepts every message (the inbound limit),
  and the local relay the gateway's outbox delivers to. It counts what it
  received in a small file the harness polls, and keeps a few messages so
  the raw-aiosmtplib sender can replay exactly what the gateway sent.

Run: ``python -m bench.reference http|smtp --port N [--state FILE]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import uvicorn
from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

CONSTANT = b'{"status":"ok"}'
KEEP_MESSAGES = 64


async def bare_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the body (as the gateway must) and answers a constant."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    more = True
    while more:
        message = await receive()
        more = bool(message.get("more_body"))
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": CONSTANT})


class CountingSink:
    """Accepts everything; counts messages and keeps the first few raw."""

    def __init__(self, state: Path | None, keep: Path | None) -> None:
        self.state, self.keep = state, keep
        self.count = 0
        self.last_at = 0.0

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        self.count += 1
        self.last_at = time.time()
        if self.keep is not None and self.count <= KEEP_MESSAGES:
            (self.keep / f"{self.count:04d}.eml").write_bytes(envelope.original_content or b"")
        return "250 2.0.0 OK"

    async def report(self, stop: asyncio.Event) -> None:
        # A counter file written when it changes; the harness polls it.
        written = -1
        while not stop.is_set():
            if self.state is not None and self.count != written:
                written = self.count
                tmp = self.state.with_suffix(".tmp")
                tmp.write_text(json.dumps({"count": self.count, "last_at": self.last_at}))
                os.replace(tmp, self.state)
            await asyncio.sleep(0.02)


async def _serve_http(port: int, ready: Path | None) -> None:
    server = uvicorn.Server(
        uvicorn.Config(
            bare_app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
            access_log=False,
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    if ready is not None:
        ready.write_text("ready")
    await task


async def _serve_smtp(port: int, state: Path | None, keep: Path | None, ready: Path | None) -> None:
    loop = asyncio.get_running_loop()
    handler = CountingSink(state, keep)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    server = await loop.create_server(
        lambda: SMTP(
            handler,
            hostname="relay.bench",
            data_size_limit=64 * 1024 * 1024,
            enable_SMTPUTF8=True,
            decode_data=False,
            loop=loop,
        ),
        host="127.0.0.1",
        port=port,
        backlog=1024,
    )
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    reporter = asyncio.create_task(handler.report(stop))
    if ready is not None:
        ready.write_text("ready")
    await stop.wait()
    server.close()
    await reporter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kind", choices=("http", "smtp"))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state", type=Path, help="counter file (smtp)")
    parser.add_argument("--keep", type=Path, help="directory for the first messages (smtp)")
    parser.add_argument("--ready", type=Path, help="file written once listening")
    args = parser.parse_args()
    if args.kind == "http":
        asyncio.run(_serve_http(args.port, args.ready))
    else:
        asyncio.run(_serve_smtp(args.port, args.state, args.keep, args.ready))


if __name__ == "__main__":
    main()
