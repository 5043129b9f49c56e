"""Endpoints for ops: /readyz and /metrics, and the audit of rejected access tokens.

/healthz (in app.py) says the process is up; /readyz says it can do its
work: the database answers (and, on SQLite, its file is still there), the
SMTP listener of this process is bound, the outbox is not stuck, and some
process of each other role (a worker, an SMTP listener) has sent a heartbeat
within HFA_READY_ROLE_SECONDS. It also reports how many deliveries are
delayed (pending after a failed attempt) and dead, which need no restart
but may need ops.
"""

from __future__ import annotations

import hmac
import ipaddress
from pathlib import Path

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from gateway.errors import StorageError
from gateway.http.errors import error_response
from gateway.services import Services
from gateway.settings.guard import in_networks
from gateway.store import heartbeats, metrics
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


def _outbox_check(services: Services) -> tuple[dict[str, str], dict[str, int]]:
    """The outbox and role checks, and the deliveries that need a look."""
    now = services.clock.now()
    config = services.config
    with services.db.read_only() as session:
        oldest = session.scalar(
            select(func.min(OutboxItem.created_at)).where(OutboxItem.state == "pending")
        )
        counts = {
            "delayed": session.scalar(
                select(func.count()).where(
                    OutboxItem.state == "pending", OutboxItem.last_error.is_not(None)
                )
            )
            or 0,
            "dead": session.scalar(select(func.count()).where(OutboxItem.state == "dead")) or 0,
        }
        roles = {
            r.role: r for r in heartbeats.roles_health(session, now, config.ready_role_seconds)
        }
    checks: dict[str, str] = {"outbox": "ok"}
    if oldest is not None:
        age = (now - oldest).total_seconds()
        limit = config.ready_outbox_seconds
        if age > limit:
            checks["outbox"] = (
                f"stuck: the oldest pending item is {age:.0f}s old (limit {limit:.0f}s)"
            )
    for role, label in (("worker", "workers"), ("smtp", "smtp_listeners")):
        if roles[role].live:
            checks[label] = "ok"
        else:
            checks[label] = (
                f"no live {role} process seen in the last {config.ready_role_seconds:.0f}s"
            )
    return checks, counts


async def readyz(request: Request) -> JSONResponse:
    services = _services(request)
    checks: dict[str, str] = {}
    checks["database"] = await services.db.run(_database_check, services)
    smtp_bound = getattr(request.app.state, "smtp_bound", None)
    bound = smtp_bound() if callable(smtp_bound) else None
    checks["smtp"] = "not run by this process" if bound is None else "ok" if bound else "not bound"
    deliveries: dict[str, int] | None = None
    if checks["database"] == "ok":
        try:
            more, deliveries = await services.db.run(_outbox_check, services)
            checks.update(more)
        except StorageError as exc:
            checks["outbox"] = str(exc)
    else:
        checks["outbox"] = "unknown (database unavailable)"
    ready = all(v == "ok" or v.startswith("not run") for v in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks, "deliveries": deliveries},
        status_code=200 if ready else 503,
    )


def metrics_refusal(request: Request, token: str) -> JSONResponse | None:
    """Why this caller may not read /metrics, or None.

    With HFA_METRICS_TOKEN: the token as a bearer, compared in constant time. Without
    it: a caller on this machine's loopback that came through no proxy, so the agents'
    port (or a proxy in front of it) never serves it to the outside.
    """
    if token:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            return None
        return _refused(
            401, "unauthorized", "/metrics needs 'Authorization: Bearer <HFA_METRICS_TOKEN>'"
        )
    client = request.client.host if request.client else ""
    forwarded = any(h in request.headers for h in _FORWARDING)
    if not forwarded and in_networks(client, _LOOPBACK):
        return None
    return _refused(
        403,
        "forbidden",
        "/metrics answers only this machine's loopback when HFA_METRICS_TOKEN is not set",
    )


_FORWARDING = ("x-forwarded-for", "forwarded", "x-real-ip")


# This machine's loopback (an IPv4-mapped IPv6 address counts as its IPv4 one).
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def _refused(status: int, code: str, message: str) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return error_response(status, code, message, headers=headers)


async def metrics_endpoint(request: Request) -> PlainTextResponse | JSONResponse:
    services = _services(request)
    refusal = metrics_refusal(request, services.config.listeners.metrics_token)
    if refusal is not None:
        return refusal

    def work() -> str:
        with services.db.read_only() as session:
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
