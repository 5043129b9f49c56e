"""Read-only thread links minted for pushes (``/v1/links/{capability}``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse
from starlette.routing import Route

from gateway.errors import NotFound
from gateway.intake.lookup import status_of
from gateway.services import Services
from gateway.store.models import ReadLink, Request
from gateway.tokens import hash_secret


async def read_link(http: HttpRequest) -> JSONResponse:
    services: Services = http.app.state.services
    capability = http.path_params["capability"]

    def work() -> dict[str, Any]:
        with services.db.read_only() as session:
            link = session.scalars(
                select(ReadLink).where(ReadLink.capability_hash == hash_secret(capability))
            ).first()
            request = session.get(Request, link.request_id) if link is not None else None
            if request is None:
                raise NotFound("no thread at this address")
            return status_of(session, request)

    return JSONResponse(await services.db.run(work))


ROUTES = [Route("/v1/links/{capability}", read_link, methods=["GET"])]
