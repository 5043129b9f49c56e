"""A thread's turns as server-sent events: ``GET /v1/requests/{reference}/events``.

For agents that keep a connection open instead of polling. With the access
token (``Authorization: Bearer``), the stream sends every turn of the thread in
order as an ``event: turn`` whose ``id`` is the number of turns sent so far, and
the status (``event: status``, with ``human_has_replied``) whenever it changes;
then it waits for the next turn. A client that reconnects with ``Last-Event-ID``
(browsers' EventSource does) gets only the turns after that one.

Waiting costs no task of its own: the handler is the connection's task, and it
waits on the process's one watcher (``intake.waiting``). A comment line goes out
every ``KEEPALIVE_SECONDS`` so that proxies keep the connection, and a client
that has gone is noticed then; the stream ends after ``HFA_EVENTS_MAX_SECONDS``
(the client reconnects) or when the server stops.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from gateway import contract
from gateway.errors import FieldProblem, InvalidRequest
from gateway.http.body import bearer_token
from gateway.http.connections import TRANSPORT
from gateway.intake import lookup, waiting
from gateway.services import Services

KEEPALIVE_SECONDS = 15.0
RETRY_MILLISECONDS = 2000
_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    # nginx and its kin would otherwise hold the events back in a buffer.
    (b"x-accel-buffering", b"no"),
]


def last_event_id(request: Request) -> int:
    """How many turns the client has: ``Last-Event-ID`` (or ``?after=``), else 0."""
    value = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise InvalidRequest(
            "Last-Event-ID must be the id of an event this stream sent",
            [FieldProblem("Last-Event-ID", f"a whole number of turns, got {value[:40]!r}")],
        )
    return int(value)


def turn_event(index: int, turn: dict[str, Any]) -> bytes:
    return b"id: %d\nevent: turn\ndata: %s\n\n" % (index, contract.dumps(turn))


def status_event(status: dict[str, Any]) -> bytes:
    shown = {
        "reference": status["reference"],
        "status": status["status"],
        "human_has_replied": status["human_has_replied"],
        "notice": status["notice"],
    }
    return b"event: status\ndata: %s\n\n" % contract.dumps(shown)


async def _read(services: Services, reference: str, token: str) -> dict[str, Any]:
    def work() -> dict[str, Any]:
        with services.db.read_only_rows() as conn:
            return lookup.check_status(conn, reference, token)

    return await services.db.run(work)


async def thread_events(scope: Scope, receive: Receive, send: Send) -> None:
    request = Request(scope, receive)
    services: Services = request.app.state.services
    token = bearer_token(request)
    reference = request.path_params["reference"]
    seen = last_event_id(request)
    # The token is checked before anything is sent: a refusal is an ordinary error answer.
    status = await _read(services, reference, token)
    number = contract.number_from_reference(reference)
    assert number is not None
    await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
    await _body(send, b"retry: %d\n\n" % RETRY_MILLISECONDS)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + services.config.events_max_seconds
    watcher = waiting.waiting_for(services)
    shown_status: str | None = None
    while True:
        turns = status["turns"]
        out = b"".join(turn_event(i + 1, t) for i, t in enumerate(turns) if i >= seen)
        seen = max(seen, len(turns))
        if status["status"] != shown_status:
            shown_status = status["status"]
            out += status_event(status)
        if out:
            await _body(send, out)
        left = deadline - loop.time()
        if left <= 0 or watcher.closed:
            break
        moved = await watcher.until(
            number, _moved_past(seen, shown_status), min(KEEPALIVE_SECONDS, left)
        )
        if moved is None:
            if _client_gone(scope):
                break
            if not watcher.closed and loop.time() < deadline:
                await _body(send, b": keep-alive\n\n")
            continue
        status = await _read(services, reference, token)
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _client_gone(scope: Scope) -> bool:
    """Whether the client closed the connection (seen at each keep-alive)."""
    is_closing = getattr(scope.get(TRANSPORT), "is_closing", None)
    return callable(is_closing) and bool(is_closing())


def _moved_past(turns: int, status: str | None) -> waiting.Changed:
    """A new turn, or another status, than the stream has sent."""
    return lambda mark: mark.turns > turns or mark.status != status


async def _body(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


class ThreadEvents:
    """The ASGI endpoint (a class, so that Starlette hands it the raw ASGI call)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await thread_events(scope, receive, send)


ROUTES = [Route("/v1/requests/{reference}/events", ThreadEvents(), methods=["GET"])]
