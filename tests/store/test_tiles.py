"""Tile paths as C2SP tlog-tiles spells them, and tile contents at every level."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from gateway.errors import NoSuchTile
from gateway.services import Services
from gateway.store import signing, tiles
from gateway.store.models import AuditEntry
from gateway.store.sequencer import Sequencer

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("rest", "level", "index", "width"),
    [
        ("0/000", 0, 0, 256),
        ("0/001", 0, 1, 256),
        ("1/x001/x234/067", 1, 1234067, 256),
        ("2/x001/000.p/17", 2, 1000, 17),
        ("entries/005.p/255", None, 5, 255),
        ("entries/x999/999", None, 999999, 256),
        ("63/000.p/1", 63, 0, 1),
    ],
)
def test_a_tile_path_names_one_tile(rest: str, level: int | None, index: int, width: int) -> None:
    address = tiles.parse_path(rest)
    assert address == tiles.TileAddress(level, index, width)
    assert address.path() == f"tile/{rest}"


@pytest.mark.parametrize(
    "rest",
    [
        "0/5",  # not three digits
        "0/0005",
        "0/x000/005",  # a leading zero group
        "0/001/002",  # a group before the last without its x
        "0/x001",  # the last group with an x
        "00/000",  # a level with a leading zero
        "64/000",  # above the highest level
        "-1/000",
        "0/000.p/0",  # widths are 1 to 255
        "0/000.p/256",
        "0/000.p/07",
        "0/000.p/",
        "blob/000",
        "0",
        "0/",
        "0/٠٠٠",  # digits, but not ASCII ones
        "entries/000.p/1/extra",
    ],
)
def test_any_other_spelling_names_no_tile(rest: str) -> None:
    with pytest.raises(NoSuchTile):
        tiles.parse_path(rest)


def _mth(leaves: list[bytes]) -> bytes:
    """RFC 6962's MTH, written out here rather than taken from the module under test."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + _mth(leaves[:k]) + _mth(leaves[k:])).digest()


def _log_of(services: Services, count: int) -> list[bytes]:
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "test.entry", at=NOW, details={"i": i})
    sequencer = Sequencer(
        services.db,
        signing.load_keys(services.config.raw, services.config.data_dir),
        None,
        macs=services.audit.macs,
    )
    try:
        assert sequencer.lead()
        sequencer.step(NOW)
    finally:
        sequencer.let_go()
    with services.db.read_only() as session:
        rows = session.query(AuditEntry.leaf_hash).order_by(AuditEntry.leaf_index).all()
    return [bytes.fromhex(h or "") for (h,) in rows]


def test_each_level_holds_the_tree_hashes_of_the_tiles_below(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tiles of 4 hashes instead of 256: every level is reached with 100 leaves.
    monkeypatch.setattr(tiles, "WIDTH", 4)
    leaves = _log_of(services, 100)
    cache = tiles.TileCache()
    with services.db.read_only() as session:

        def hashes(level: int | None, index: int, width: int) -> list[bytes]:
            data = tiles.read_tile(session, tiles.TileAddress(level, index, width), cache)
            return [data[i : i + 32] for i in range(0, len(data), 32)]

        assert hashes(0, 3, 4) == leaves[12:16]
        assert hashes(0, 24, 4) == leaves[96:100]
        assert hashes(1, 0, 4) == [_mth(leaves[i * 4 : i * 4 + 4]) for i in range(4)]
        assert hashes(1, 6, 1) == [_mth(leaves[96:100])]
        # Level 2 hashes 16 leaves each, level 3 64: the levels above 1 fold the tiles below.
        assert hashes(2, 0, 4) == [_mth(leaves[i * 16 : i * 16 + 16]) for i in range(4)]
        assert hashes(2, 1, 2) == [_mth(leaves[64:80]), _mth(leaves[80:96])]
        assert hashes(3, 0, 1) == [_mth(leaves[0:64])]
        bundle = tiles.read_tile(session, tiles.TileAddress(None, 2, 3), cache)
    entries, offset = [], 0
    while offset < len(bundle):
        length = int.from_bytes(bundle[offset : offset + 2], "big")
        entries.append(bundle[offset + 2 : offset + 2 + length])
        offset += 2 + length
    assert [hashlib.sha256(b"\x00" + e).digest() for e in entries] == leaves[8:11]
