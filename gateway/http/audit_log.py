"""GET /audit/checkpoint and /audit/key: the newest signed checkpoint, and the key to check it.

The checkpoint is the C2SP signed note itself (text/plain), so a witness or an
auditor fetches it, checks it with the key ``hfa audit key`` prints, and keeps
it (or cosigns it). It discloses no entry: only the log's size and root. The key
is the log's note verifier key (``name+id+key``), newest first, one a line, as the
sequencer last published it; compare it with the one the operator hands out.
"""

from __future__ import annotations

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from gateway.http.audit_tiles import ROUTES as TILE_ROUTES
from gateway.http.audit_tiles import denied
from gateway.http.errors import error_response
from gateway.outbound import witnesses
from gateway.services import Services
from gateway.store import audit_origin, state
from gateway.store.models import AuditCheckpoint

NOTE_TYPE = "text/plain; charset=utf-8"


def _newest(services: Services, witnessed: bool) -> str | None:
    """The newest checkpoint; where witnesses are configured, the newest one a quorum of
    them cosigned, with their cosignatures (the newest plain one until there is one)."""
    with services.db.read_only() as session:
        newest = session.scalar(
            select(AuditCheckpoint.note).order_by(AuditCheckpoint.tree_size.desc()).limit(1)
        )
        if witnessed:
            kept = state.get(session, witnesses.COSIGNED)
            if kept is not None:
                return str(kept["note"])
        return newest


async def checkpoint(request: Request) -> Response:
    refused = denied(request, "checkpoint")
    if refused is not None:
        return refused
    services: Services = request.app.state.services
    witnessed = bool(request.app.state.witness_policy.targets)
    note = await services.db.run(_newest, services, witnessed)
    if note is None:
        return error_response(
            404,
            "no_checkpoint",
            "the audit log has no checkpoint yet: its sequencer signs one "
            "within seconds of the first entry",
        )
    # Always the newest: a cached copy would hide entries from the witness.
    return PlainTextResponse(note, media_type=NOTE_TYPE, headers={"Cache-Control": "no-store"})


def _keys(services: Services) -> list[str]:
    with services.db.read_only() as session:
        return audit_origin.published_verifier_keys(session)


async def key(request: Request) -> Response:
    refused = denied(request, "checkpoint")
    if refused is not None:
        return refused
    services: Services = request.app.state.services
    keys = await services.db.run(_keys, services)
    if not keys:
        return error_response(
            404,
            "no_key",
            "the audit log has not published its key yet: its sequencer does when it "
            "signs its first checkpoint",
        )
    return PlainTextResponse(
        "\n".join(keys) + "\n", media_type=NOTE_TYPE, headers={"Cache-Control": "no-cache"}
    )


ROUTES = [
    Route("/audit/checkpoint", checkpoint, methods=["GET"]),
    Route("/audit/key", key, methods=["GET"]),
    *TILE_ROUTES,
]
