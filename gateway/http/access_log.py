"""One log line per HTTP request: method, path without the query, status, duration, client.

Logger ``gateway.access`` (HFA_ACCESS_LOG=0 leaves it out of the app). The path of a
read capability (``/v1/threads/...``, ``/v1/links/...``) is a secret: it is logged as
``/v1/threads/[capability]``. The query string, which may carry anything, never is.
With ``--log-format json`` the same facts are fields: ``method``, ``path``, ``status``,
``duration_ms``, ``client``.
"""

from __future__ import annotations

import logging
import re
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("gateway.access")

_CAPABILITY = re.compile(r"^(/v1/(?:threads|links)/)[^/]+")


def shown_path(path: str) -> str:
    """The path as logged: a capability in it replaced by its name."""
    if path.startswith(("/v1/threads/", "/v1/links/")):
        return _CAPABILITY.sub(r"\1[capability]", path)
    return path


class AccessLog:
    """ASGI middleware: logs each request once it is answered (or has failed: 500)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            _line(scope, status or 500, (time.perf_counter() - started) * 1000)


def _line(scope: Scope, status: int, ms: float) -> None:
    client = scope.get("client")
    who = client[0] if client else "unknown"
    path = shown_path(scope["path"])
    method = scope["method"]
    log.info(
        "%s %s %s %.1f ms %s",
        method,
        path,
        status,
        ms,
        who,
        extra={
            "fields": {
                "method": method,
                "path": path,
                "status": status,
                "duration_ms": round(ms, 3),
                "client": who,
            }
        },
    )
