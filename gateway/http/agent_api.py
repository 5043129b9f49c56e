"""The agent API over HTTP: the three tools of the contract, plus thread_url."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gateway import contract
from gateway.errors import FieldProblem, InvalidRequest, StorageError
from gateway.http.body import bearer_token, read_json
from gateway.http.responses import FastJSONResponse
from gateway.intake import filing, lookup, waiting
from gateway.services import Services

MAX_IDEMPOTENCY_KEY = 255

Endpoint = Callable[[Request], Awaitable[Response]]


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    key = key.strip()
    if not key:
        # The OpenAPI document admits an empty header: it means no key, not an error.
        return None
    if len(key) > MAX_IDEMPOTENCY_KEY:
        raise InvalidRequest(
            f"Idempotency-Key must be at most {MAX_IDEMPOTENCY_KEY} characters",
            [FieldProblem("Idempotency-Key", f"at most {MAX_IDEMPOTENCY_KEY} characters")],
        )
    return key


async def file_request(request: Request) -> JSONResponse:
    services = _services(request)
    arguments = await read_json(request, services.config.max_request_bytes)
    key = _idempotency_key(request)
    api_key_name: str | None = getattr(request.state, "api_key_name", None)

    def work(session: Session) -> filing.Filed:
        return filing.file_request(
            services,
            session,
            arguments,
            idempotency_key=key,
            api_key_name=api_key_name,
        )

    # 201 only once the commit holding this request has returned (group commit).
    try:
        filed = await services.db.write(work)
    except StorageError:
        if key is None:
            raise
        # Two retries racing with one key: the loser finds the winner's row.
        filed = await services.db.write(work)
    return FastJSONResponse(filed.result, status_code=201 if filed.created else 200)


async def check_status(request: Request) -> Response:
    services = _services(request)
    token = bearer_token(request)
    reference = request.path_params["reference"]
    wait = waiting.wait_seconds(request.query_params.get("wait"), services.config.wait_max_seconds)
    if wait is not None:
        return await _long_poll(request, services, reference, token, wait)
    kept = lookup.kept_status(services)
    if kept is not None:
        # SQLite: a read on the loop, as Database.run does, answered from what was
        # read since the last commit when nothing has been committed since.
        try:
            body = kept.status_body(reference, token)
        except SQLAlchemyError as exc:
            raise StorageError(f"database error: {type(exc).__name__}") from exc
        if body is None:
            raise lookup.not_found()
        return Response(body, media_type=FastJSONResponse.media_type)

    def work() -> dict[str, Any]:
        with services.db.read_only_rows() as conn:
            return lookup.check_status(conn, reference, token)

    return FastJSONResponse(await services.db.run(work))


async def _read_status(services: Services, reference: str, token: str) -> dict[str, Any]:
    def work() -> dict[str, Any]:
        with services.db.read_only_rows() as conn:
            return lookup.check_status(conn, reference, token)

    return await services.db.run(work)


async def _long_poll(
    request: Request, services: Services, reference: str, token: str, wait: float
) -> Response:
    """The status once what an agent acts on has changed, or after ``wait`` seconds.

    The baseline is the mark named by ``If-None-Match`` (the ``ETag`` of an earlier
    answer) or else the status as this call finds it: an answer that differs from
    the baseline is sent at once. A decision held in its correction window does not
    count; it wakes the call when it takes effect.
    """
    status = await _read_status(services, reference, token)
    mark = waiting.mark_of(status)
    seen = request.headers.get("if-none-match")
    if wait > 0 and (seen is None or seen == mark.etag):
        number = contract.number_from_reference(reference)
        assert number is not None  # the status was read, so the reference is one
        moved = await waiting.waiting_for(services).until(
            number,
            lambda now: now.answer_turns != mark.answer_turns or now.status != mark.status,
            wait,
        )
        if moved is not None:
            status = await _read_status(services, reference, token)
    return FastJSONResponse(status, headers={"ETag": waiting.mark_of(status).etag})


async def add_message(request: Request) -> JSONResponse:
    services = _services(request)
    token = bearer_token(request)
    body = await read_json(request, services.config.max_request_bytes)
    arguments = {**body, "reference": request.path_params["reference"], "access_token": token}

    def work(session: Session) -> dict[str, Any]:
        return filing.add_to_request(services, session, arguments)

    return FastJSONResponse(await services.db.write(work), status_code=201)


async def read_thread(request: Request) -> JSONResponse:
    services = _services(request)
    capability = request.path_params["capability"]

    def work() -> dict[str, Any]:
        with services.db.read_only() as session:
            return lookup.read_thread(session, capability)

    return FastJSONResponse(await services.db.run(work))


ROUTES = [
    Route("/v1/requests", file_request, methods=["POST"]),
    Route("/v1/requests/{reference}", check_status, methods=["GET"]),
    Route("/v1/requests/{reference}/messages", add_message, methods=["POST"]),
    Route("/v1/threads/{capability}", read_thread, methods=["GET"]),
]
