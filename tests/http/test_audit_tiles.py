"""The audit log served as C2SP tlog-tiles over real HTTP, read as a tile client reads it.

The client trusts only the verifier key: it checks the checkpoint's signature, rebuilds
the tree from the tiles, checks each entry of the bundles against its leaf, and proves an
entry's inclusion and an older checkpoint's consistency from tile hashes alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest

from gateway.settings.config import Config
from gateway.store import checkpoint as notes
from gateway.store import merkle
from tests import auditkit
from tests.conftest import Running, SmtpSink, start_running, stop_running

TOKEN = "audit-reader-0123456789"
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
READER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def served(config: Config, sink: SmtpSink) -> AsyncIterator[Running]:
    running = await start_running(config.with_overrides(audit_read_token=TOKEN), sink)
    yield running
    await stop_running(running)


def _mth(leaves: list[bytes]) -> bytes:
    """RFC 6962's MTH, written out by the client rather than taken from the gateway."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + _mth(leaves[:k]) + _mth(leaves[k:])).digest()


def _split(data: bytes) -> list[bytes]:
    return [data[i : i + 32] for i in range(0, len(data), 32)]


def _entries(bundle: bytes) -> list[bytes]:
    found, offset = [], 0
    while offset < len(bundle):
        length = int.from_bytes(bundle[offset : offset + 2], "big")
        found.append(bundle[offset + 2 : offset + 2 + length])
        offset += 2 + length
    assert offset == len(bundle)
    return found


def _path(n: int, width: int) -> str:
    return f"{n:03d}" + (f".p/{width}" if width < 256 else "")


async def _get(http: httpx.AsyncClient, path: str, **kwargs: object) -> httpx.Response:
    response = await http.get(path, **kwargs)  # type: ignore[arg-type]
    assert response.status_code == 200, (path, response.status_code, response.text)
    return response


async def _leaves(http: httpx.AsyncClient, size: int) -> list[bytes]:
    """Every leaf hash of a tree of ``size``, from its level-0 tiles, full then partial."""
    leaves: list[bytes] = []
    for n in range((size + 255) // 256):
        width = min(256, size - n * 256)
        response = await _get(http, f"/audit/tile/0/{_path(n, width)}")
        assert len(response.content) == 32 * width
        assert response.headers["content-type"] == "application/octet-stream"
        assert response.headers["cache-control"] == "max-age=31536000, immutable"
        leaves += _split(response.content)
    return leaves


async def _checkpoint(http: httpx.AsyncClient, vkey: str) -> notes.Checkpoint:
    response = await _get(http, "/audit/checkpoint")
    assert response.headers["cache-control"] == "no-store"
    return notes.verify(response.text, [notes.parse_verifier_key(vkey)])


async def _grow(running: Running, count: int) -> None:
    services = running.services
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "test.entry", at=NOW, details={"i": i})
    auditkit.settle(services)


async def test_a_tile_client_rebuilds_the_tree_and_proves_entries(served: Running) -> None:
    http = served.http
    await _grow(served, 300)
    vkey = (await _get(http, "/audit/key")).text.splitlines()[0]
    old = await _checkpoint(http, vkey)
    assert old.size >= 300
    await _grow(served, 70)
    new = await _checkpoint(http, vkey)
    leaves = await _leaves(http, new.size)
    assert _mth(leaves) == new.root
    assert _mth(leaves[: old.size]) == old.root
    # Level 1: a hash per full level-0 tile (partial, as the tree has fewer than 65536).
    level1 = _split((await _get(http, f"/audit/tile/1/{_path(0, new.size // 256)}")).content)
    assert level1 == [_mth(leaves[i * 256 : i * 256 + 256]) for i in range(new.size // 256)]
    # Entry bundles: each entry hashes to its leaf.
    for n in range((new.size + 255) // 256):
        width = min(256, new.size - n * 256)
        bundle = await _get(http, f"/audit/tile/entries/{_path(n, width)}", headers=READER)
        assert bundle.headers["content-encoding"] == "gzip"  # httpx asked for it
        hashed = [hashlib.sha256(b"\x00" + e).digest() for e in _entries(bundle.content)]
        assert hashed == leaves[n * 256 : n * 256 + width]
    # An inclusion proof from the tiles' hashes leads to the signed root.
    index = 257
    path = merkle.inclusion_proof(index, leaves)
    assert merkle.root_from_inclusion(index, new.size, leaves[index], path) == new.root
    # So does a consistency proof from the older checkpoint to the newer one.
    proof = merkle.consistency_proof(old.size, leaves)
    assert merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
    assert not merkle.verify_consistency(old.size, new.size, old.root, leaves[0], proof)


async def test_tiles_past_the_checkpoint_and_misspelt_paths_are_not_found(served: Running) -> None:
    http = served.http
    await _grow(served, 3)
    size = (await _get(http, "/audit/checkpoint")).text.split("\n")[1]
    for path in (
        "/audit/tile/0/000",  # full: the tree is smaller
        f"/audit/tile/0/000.p/{int(size) + 1}",
        "/audit/tile/1/000.p/1",
        "/audit/tile/0/0",
        "/audit/tile/0/x000/000",
        "/audit/tile/entries/000.p/0",
    ):
        response = await http.get(path, headers=READER)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "no_such_tile"
        assert "max-age" not in response.headers.get("cache-control", "")


async def test_entries_need_the_read_token_unless_the_operator_opens_them(
    served: Running,
) -> None:
    http = served.http
    await _grow(served, 3)
    size = int((await _get(http, "/audit/checkpoint")).text.split("\n")[1])
    bundle = f"/audit/tile/entries/000.p/{size}"
    refused = await http.get(bundle)
    assert refused.status_code == 401
    assert "HFA_AUDIT_READ_TOKEN" in refused.json()["error"]["message"]
    wrong = await http.get(bundle, headers={"Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401
    assert (await http.get(f"/audit/tile/0/000.p/{size}")).status_code == 200
    config = served.services.config
    served.services.config = config.with_overrides(audit_public="all")
    assert (await http.get(bundle)).status_code == 200
    served.services.config = config.with_overrides(audit_public="none")
    for path in ("/audit/checkpoint", "/audit/key", f"/audit/tile/0/000.p/{size}", bundle):
        assert (await http.get(path)).status_code == 401, path
        assert (await http.get(path, headers=READER)).status_code == 200, path


async def test_a_tile_read_again_comes_from_memory_with_the_same_answer(served: Running) -> None:
    http = served.http
    await _grow(served, 3)
    size = int((await _get(http, "/audit/checkpoint")).text.split("\n")[1])
    plain = {"Accept-Encoding": "identity"}
    for path, headers in (
        (f"/audit/tile/0/000.p/{size}", plain),
        (f"/audit/tile/entries/000.p/{size}", READER | plain),
    ):
        first, again = (
            await _get(http, path, headers=headers),
            await _get(http, path, headers=headers),
        )
        assert first.content == again.content and len(again.content) > 0
        for name in ("content-type", "cache-control", "content-length"):
            assert first.headers[name] == again.headers[name], name
    # Kept or not, entries are still refused without the token, and misspelt paths are 404.
    refused = await http.get(f"/audit/tile/entries/000.p/{size}", headers=plain)
    assert refused.status_code == 401
    assert (await http.get("/audit/tile/0/00", headers=plain)).status_code == 404
