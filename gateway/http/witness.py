"""The witness role's HTTP API (``hfa witness``): C2SP tlog-witness on its own listener.

``POST /add-checkpoint`` takes a log's new checkpoint with a consistency proof and answers
with the witness's cosignature (``gateway.store.witness`` says when it refuses);
``GET /<hex SHA-256 of an origin>/checkpoint`` serves the last checkpoint it cosigned for
that log, with the log's signature and its own.
"""

from __future__ import annotations

import hashlib
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from gateway.store.witness import Witness

MAX_BODY = 64 * 1024


async def add_checkpoint(request: Request) -> Response:
    witness: Witness = request.app.state.witness
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return PlainTextResponse(f"a request body is at most {MAX_BODY} bytes\n", 413)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return PlainTextResponse("the body is not UTF-8\n", 400)
    answer = witness.add_checkpoint(text, int(time.time()))
    return PlainTextResponse(answer.body, answer.status, media_type=answer.content_type)


async def latest(request: Request) -> Response:
    witness: Witness = request.app.state.witness
    wanted = request.path_params["origin_hash"]
    for origin in witness.logs:
        if hashlib.sha256(origin.encode()).hexdigest() == wanted:
            note = witness.latest(origin)
            if note is not None:
                return PlainTextResponse(note, headers={"Cache-Control": "no-store"})
    return PlainTextResponse("no checkpoint cosigned for that log\n", 404)


def witness_app(witness: Witness) -> Starlette:
    app = Starlette(
        routes=[
            Route("/add-checkpoint", add_checkpoint, methods=["POST"]),
            Route("/{origin_hash}/checkpoint", latest, methods=["GET"]),
        ]
    )
    app.state.witness = witness
    return app
