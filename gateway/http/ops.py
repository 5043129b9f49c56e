"""Endpoints for ops: /readyz and /metrics, and the audit of rejected access tokens.

/healthz (in app.py) says the process is up; /readyz says it can do its
work: the database answers (and, on SQLite, its file is still there), the
SMTP listener of this process is bound, and the outbox is not stuck.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from gateway.errors import StorageError
from gateway.services import Services
from gateway.store import metrics
from gateway.store.models import OutboxItem

PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8"


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
