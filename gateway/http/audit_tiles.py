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
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import ConfigError, EntryTooLong, NoSuchTile
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


def allowed(raw: Mapping[str, str], authorization: str, part: str) -> bool:
    """Whether a caller with this Authorization header may read ``part`` (checkpoint,
    tiles or entries)."""
    public = public_of(raw)
    if public == "all" or (public == "tiles" and part != "entries"):
        return True
    scheme, _, given = authorization.partition(" ")
    offered = given.strip().encode()
    # Every token is compared, in constant time: how many match tells nothing.
    matched = [hmac.compare_digest(offered, token) for token in read_tokens(raw)]
    return scheme.lower() == "bearer" and bool(offered) and any(matched)


def denied(request: Request, part: str) -> Response | None:
    """None when the caller may read ``part``; else a 401 that says what to send."""
    raw = request.app.state.services.config.raw
    if allowed(raw, request.headers.get("authorization", ""), part):
        return None
    what = "the audit log's entries" if part == "entries" else "the audit log"
    return error_response(
        401,
        "audit_read_token_required",
        f"{what} need a read token here (HFA_AUDIT_PUBLIC={public_of(raw)}): send "
        "'Authorization: Bearer <HFA_AUDIT_READ_TOKEN>'",
        [{"field": "Authorization", "message": "Bearer and one of HFA_AUDIT_READ_TOKEN"}],
        headers={"WWW-Authenticate": 'Bearer realm="audit"'},
    )


def _cache(request: Request) -> tiles.TileCache:
    """This app's tiles (``build_app`` makes the cache): they never change once read."""
    cache: tiles.TileCache = request.app.state.audit_tile_cache
    return cache


def _read(services: Services, address: tiles.TileAddress, cache: tiles.TileCache) -> bytes:
    with services.db.read_only() as session:
        size = int(session.scalar(select(func.max(AuditCheckpoint.tree_size))) or 0)
        if address.end() > size:
            raise NoSuchTile(
                f"{address.path()} is beyond the newest checkpoint (size {size}): "
                "fetch the checkpoint first"
            )
        return tiles.read_tile(session, address, cache)


async def tile(request: Request) -> Response:
    rest: str = request.path_params["rest"]
    try:
        address = tiles.parse_path(rest)
    except NoSuchTile as exc:
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
        except NoSuchTile as exc:
            return error_response(404, "no_such_tile", str(exc))
        except EntryTooLong as exc:
            return error_response(501, "entry_too_long", str(exc))
    headers = {"Cache-Control": IMMUTABLE}
    if address.level is None:
        headers["Vary"] = "Accept-Encoding"
        if "gzip" in request.headers.get("accept-encoding", "").lower():
            headers["Content-Encoding"] = "gzip"
            data = gzip.compress(data, compresslevel=6, mtime=0)
    return Response(data, media_type=OCTETS, headers=headers)


ROUTES = [Route("/audit/tile/{rest:path}", tile, methods=["GET"])]


_PREFIX = "/audit/tile/"


class KeptTiles:
    """A tile read before, answered before the rest of the app: the access checks, the
    router and a thread for the database are for tiles not read yet. A gzip-asking
    reader of an entry bundle, and any caller this would refuse, goes on to the route."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and scope["path"].startswith(_PREFIX)
            and await self._kept(scope, send)
        ):
            return
        await self.app(scope, receive, send)

    async def _kept(self, scope: Scope, send: Send) -> bool:
        state = scope["app"].state
        try:
            address = tiles.parse_path(scope["path"][len(_PREFIX) :])
        except NoSuchTile:
            return False
        data = state.audit_tile_cache.get(address)
        if data is None:
            return False
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        part = "entries" if address.level is None else "tiles"
        if not allowed(state.services.config.raw, headers.get("authorization", ""), part):
            return False
        if part == "entries" and "gzip" in headers.get("accept-encoding", "").lower():
            return False
        head = [
            (b"content-type", OCTETS.encode()),
            (b"content-length", str(len(data)).encode()),
            (b"cache-control", IMMUTABLE.encode()),
        ]
        if part == "entries":
            head.append((b"vary", b"Accept-Encoding"))
        await send({"type": "http.response.start", "status": 200, "headers": head})
        await send({"type": "http.response.body", "body": data})
        return True
