"""Endpoints for ops: /readyz and /metrics, and the audit of rejected access tokens.

/healthz (in app.py) says the process is up; /readyz says it can do its
work: the database answers (and, on SQLite, its file is still there), the
SMTP listener of this process is bound, and the outbox is not stuck.
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import metrics
from gateway.contract import number_from_reference, reference_for
from gateway.errors import StorageError
from gateway.models import OutboxItem
from gateway.rejections import rejections_for
from gateway.services import Services

PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Paths where a wrong access token or capability answers 404.
_TOKEN_PATHS = re.compile(r"^/v1/(?:requests/([^/]+)(?:/messages)?|threads/[^/]+)$")


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def _database_check(services: Services) -> str:
    """ "ok", or what is wrong."""
    db = services.db
    if db.is_sqlite:
        path = db.url.removeprefix("sqlite:///")
        if path and path != ":memory:" and not Path(path).is_file():
            # Open connections keep working on a deleted file; everything written is lost.
            return f"database file {path} is missing"
    try:
        db.ping()
    except StorageError as exc:
        return str(exc)
    return "ok"


def _outbox_check(services: Services) -> str:
    now = services.clock.now()
    with services.db.reading() as session:
        oldest = session.scalar(
            select(func.min(OutboxItem.created_at)).where(OutboxItem.state == "pending")
        )
    if oldest is None:
        return "ok"
    age = (now - oldest).total_seconds()
    limit = services.config.ready_outbox_seconds
    if age > limit:
        return f"stuck: the oldest pending item is {age:.0f}s old (limit {limit:.0f}s)"
    return "ok"


async def readyz(request: Request) -> JSONResponse:
    services = _services(request)
    checks: dict[str, str] = {}
    checks["database"] = await services.db.run(_database_check, services)
    smtp_bound = getattr(request.app.state, "smtp_bound", None)
    bound = smtp_bound() if callable(smtp_bound) else None
    checks["smtp"] = "not run by this process" if bound is None else "ok" if bound else "not bound"
    if checks["database"] == "ok":
        try:
            checks["outbox"] = await services.db.run(_outbox_check, services)
        except StorageError as exc:
            checks["outbox"] = str(exc)
    else:
        checks["outbox"] = "unknown (database unavailable)"
    ready = all(v == "ok" or v.startswith("not run") for v in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks},
        status_code=200 if ready else 503,
    )


async def metrics_endpoint(request: Request) -> PlainTextResponse:
    services = _services(request)

    def work() -> str:
        with services.db.reading() as session:
            return metrics.render(session, services.clock.now())

    try:
        text = await services.db.run(work)
    except StorageError:
        return PlainTextResponse("# database unavailable\n", status_code=503)
    return PlainTextResponse(text, media_type=PROMETHEUS_TYPE)


ROUTES = [
    Route("/readyz", readyz, methods=["GET"]),
    Route("/metrics", metrics_endpoint, methods=["GET"]),
]


class TokenFailureAudit:
    """Audits 404s on access-token paths (see gateway.rejections)."""

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.rejections = rejections_for(services)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _TOKEN_PATHS.match(scope["path"]) if scope["type"] == "http" else None
        if match is None:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        number = number_from_reference(match.group(1) or "")
        reference = reference_for(number) if number is not None and number < 10**9 else None

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 404:
                await self.rejections.note(f"http:{address}", reference, scope["method"])
            await send(message)

        await self.app(scope, receive, watch)
