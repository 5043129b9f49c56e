"""One JSON error shape for every HTTP error: {"error": {code, message, details}}.

Every error body the gateway answers with is built by :func:`error_response`: the
exception handlers', the access middleware's, and (as bytes, by :func:`closing_answer`)
the refusals written straight to the socket before any app sees the request. A2H v1.0's
endpoints answer in that protocol's own shape instead (``a2h_v1.py``).
"""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from gateway.errors import ApiError, StorageError

log = logging.getLogger(__name__)


def error_response(
    status: int,
    code: str,
    message: str,
    details: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details or []}}
    return JSONResponse(body, status_code=status, headers=headers)


def api_error_response(exc: ApiError) -> JSONResponse:
    """An agent's refused call: its status, code, message, field problems and headers."""
    details = [d.as_json() for d in exc.details]
    return error_response(exc.status, exc.code, exc.message, details, exc.headers)


def closing_answer(
    status: str, code: str, message: str, headers: dict[str, str] | None = None
) -> bytes:
    """``error_response`` as the bytes of an HTTP/1.1 answer that closes the connection,
    for a refusal written to the socket before any app sees the request; ``status`` is
    the status line's code and reason (``"408 Request Timeout"``)."""
    body = bytes(error_response(int(status.split()[0]), code, message).body)
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n"
    )
    return head.encode() + body


async def on_api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return api_error_response(exc)


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: "not_found", 405: "method_not_allowed"}
    message = {
        404: f"no such endpoint: {request.url.path}",
        405: f"{request.method} is not allowed on {request.url.path}",
    }.get(exc.status_code, str(exc.detail))
    return error_response(
        exc.status_code,
        codes.get(exc.status_code, "http_error"),
        message,
        headers=getattr(exc, "headers", None),
    )


async def on_storage_error(request: Request, exc: Exception) -> Response:
    log.error("storage error on %s %s: %s", request.method, request.url.path, exc)
    return error_response(
        503,
        "storage_unavailable",
        "the gateway cannot reach its database; try again shortly",
        headers={"Retry-After": "5"},
    )


async def on_client_disconnect(request: Request, exc: Exception) -> Response:
    # The client went away before its body arrived: nothing was done, nobody is left to
    # answer, and it is no fault of the gateway's (no traceback, not an error).
    client = request.client.host if request.client else "unknown"
    log.info("client %s disconnected during %s %s", client, request.method, request.url.path)
    return Response(status_code=499)


async def on_unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return error_response(500, "internal_error", "internal error; it has been logged")


EXCEPTION_HANDLERS = {
    ApiError: on_api_error,
    HTTPException: on_http_error,
    StorageError: on_storage_error,
    ClientDisconnect: on_client_disconnect,
    Exception: on_unexpected,
}
