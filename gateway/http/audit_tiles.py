"""GET /audit/tile/...: the audit tree as C2SP tlog-tiles, and who may read which part of /audit.

``tile/<L>/<N>[.p/<W>]`` serves hash tiles, ``tile/entries/<N>[.p/<W>]`` entry
bundles (gzip when the client takes it). A tile exists once the newest checkpoint
covers it; its bytes never change after that, so it is served with a year's
``Cache-Control: immutable`` (the checkpoint itself is never cached).

``HFA_AUDIT_PUBLIC`` says what needs no credential: ``tiles`` (the default: the
checkpoint, the key and the hash tiles, which disclose hashes and the log's size
only), ``all`` (the entry bundles too: the entries name lawyers' addresses, client
addresses and references), or ``none``. What is not public needs
``Authorization: Bearer <one of HFA_AUDIT_READ_TOKEN>``.
"""

from __future__ import annotations

import gzip
import hmac
from collections.abc import Mapping

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gateway.errors import ConfigError
from gateway.http.errors import error_response
from gateway.services import Services
from gateway.store import tiles
from gateway.store.models import AuditCheckpoint

PUBLIC_CHOICES = ("tiles", "all", "none")
IMMUTABLE = "max-age=31536000, immutable"
OCTETS = "application/octet-stream"


def public_of(raw: Mapping[str, str]) -> str:
    value = raw.get("audit_public", "").strip().lower() or "tiles"
    if value not in PUBLIC_CHOICES:
        raise ConfigError(f"HFA_AUDIT_PUBLIC: expected tiles, all or none, got {value!r}")
    return value


def read_tokens(raw: Mapping[str, str]) -> list[bytes]:
    return [t.strip().encode() for t in raw.get("audit_read_token", "").split(",") if t.strip()]


def denied(request: Request, part: str) -> Response | None:
    """None when the caller may read ``part`` (checkpoint, tiles or entries); else a 401."""
    raw = request.app.state.services.config.raw
    public = public_of(raw)
    if public == "all" or (public == "tiles" and part != "entries"):
        return None
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    offered = given.strip().encode()
    # Every token is compared, in constant time: how many match tells nothing.
    matched = [hmac.compare_digest(offered, token) for token in read_tokens(raw)]
    if scheme.lower() == "bearer" and offered and any(matched):
        return None
    what = "the audit log's entries" if part == "entries" else "the audit log"
    return error_response(
        401,
        "audit_read_token_required",
        f"{what} need a read token here (HFA_AUDIT_PUBLIC={public}): send "
        "'Authorization: Bearer <HFA_AUDIT_READ_TOKEN>'",
        [{"field": "Authorization", "message": "Bearer and one of HFA_AUDIT_READ_TOKEN"}],
        headers={"WWW-Authenticate": 'Bearer realm="audit"'},
    )


def _cache(request: Request) -> tiles.TileCache:
    """This app's tiles: they never change once the tree reaches them."""
    state = request.app.state
    cache: tiles.TileCache | None = getattr(state, "audit_tile_cache", None)
    if cache is None:
        cache = state.audit_tile_cache = tiles.TileCache()
    return cache


def _read(services: Services, address: tiles.TileAddress, cache: tiles.TileCache) -> bytes:
    with services.db.reading() as session:
        size = int(session.scalar(select(func.max(AuditCheckpoint.tree_size))) or 0)
        if address.end() > size:
            raise tiles.NoSuchTile(
                f"{address.path()} is beyond the newest checkpoint (size {size}): "
                "fetch the checkpoint first"
            )
        return tiles.read_tile(session, address, cache)


async def tile(request: Request) -> Response:
    rest: str = request.path_params["rest"]
    try:
        address = tiles.parse_path(rest)
    except tiles.NoSuchTile as exc:
        return error_response(404, "no_such_tile", f"tile/{rest}: {exc}")
    refused = denied(request, "entries" if address.level is None else "tiles")
    if refused is not None:
        return refused
    services: Services = request.app.state.services
    # A tile read before is served without the database: it cannot have changed.
    cache = _cache(request)
    data = cache.get(address)
    if data is None:
        try:
            data = await services.db.run(_read, services, address, cache)
        except tiles.NoSuchTile as exc:
            return error_response(404, "no_such_tile", str(exc))
        except tiles.EntryTooLong as exc:
            return error_response(501, "entry_too_long", str(exc))
    headers = {"Cache-Control": IMMUTABLE}
    if address.level is None:
        headers["Vary"] = "Accept-Encoding"
        if "gzip" in request.headers.get("accept-encoding", "").lower():
            headers["Content-Encoding"] = "gzip"
            data = gzip.compress(data, compresslevel=6, mtime=0)
    return Response(data, media_type=OCTETS, headers=headers)


ROUTES = [Route("/audit/tile/{rest:path}", tile, methods=["GET"])]
