"""GET /audit/checkpoint: the audit log's newest signed checkpoint, for witnesses.

The body is the C2SP signed note itself (text/plain), so a witness or an
auditor fetches it, checks it with the key ``hfa audit key`` prints, and keeps
it (or cosigns it). It discloses no entry: only the log's size and root.
"""

from __future__ import annotations

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from gateway.http.errors import error_response
from gateway.services import Services
from gateway.store.models import AuditCheckpoint

NOTE_TYPE = "text/plain; charset=utf-8"


def _newest(services: Services) -> str | None:
    with services.db.reading() as session:
        return session.scalar(
            select(AuditCheckpoint.note).order_by(AuditCheckpoint.tree_size.desc()).limit(1)
        )


async def checkpoint(request: Request) -> Response:
    services: Services = request.app.state.services
    note = await services.db.run(_newest, services)
    if note is None:
        return error_response(
            404,
            "no_checkpoint",
            "the audit log has no checkpoint yet: its sequencer signs one "
            "within seconds of the first entry",
        )
    # Always the newest: a cached copy would hide entries from the witness.
    return PlainTextResponse(note, media_type=NOTE_TYPE, headers={"Cache-Control": "no-store"})


ROUTES = [Route("/audit/checkpoint", checkpoint, methods=["GET"])]
