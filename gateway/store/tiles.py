"""The audit tree as C2SP ``tlog-tiles``: hash tiles and entry bundles, read from the store.

A tile at level L, index N, holds 256 consecutive hashes (a partial tile, ``.p/W``,
the first W of them): at level 0 the leaf hashes of leaves N*256 to N*256+255, at
level L the Merkle tree hash of each full tile of level L-1 below it, i.e. of
256**L leaves each. An entry bundle holds the entries of one level-0 tile, each the
bytes its leaf hashes (the entry's canonical JSON) behind a big-endian uint16 length.

Nothing past the newest checkpoint is served, and a tile's content never changes once
the tree reaches it, so full tiles (and each partial width) are cached as they are
read. Paths are parsed strictly: one spelling per tile, as the specification writes it
(``x001/x234/067``), anything else is no tile.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.errors import EntryTooLong, NoSuchTile
from gateway.store import merkle
from gateway.store.audit import fields_of, leaf_data
from gateway.store.models import AuditEntry

WIDTH = 256
MAX_LEVEL = 63
MAX_ENTRY_BYTES = 0xFFFF
CACHED_TILES = 2048


@dataclass(frozen=True)
class TileAddress:
    """``level`` None for an entry bundle; ``width`` 256 for a full tile."""

    level: int | None
    index: int
    width: int = WIDTH

    @property
    def full(self) -> bool:
        return self.width == WIDTH

    def path(self) -> str:
        """``tile/<L>/<N>[.p/<W>]`` or ``tile/entries/<N>[.p/<W>]``, as C2SP spells it."""
        return tile_path(self.level, self.index, self.width)

    def end(self) -> int:
        """How many leaves the tree needs to hold this tile."""
        per_hash: int = WIDTH ** (self.level or 0)
        return (self.index * WIDTH + self.width) * per_hash


def encode_index(index: int) -> str:
    """``1234067`` -> ``x001/x234/067``: 3-digit groups, all but the last prefixed with x."""
    groups = [f"{index % 1000:03d}"]
    index //= 1000
    while index:
        groups.append(f"x{index % 1000:03d}")
        index //= 1000
    return "/".join(reversed(groups))


def tile_path(level: int | None, index: int, width: int = WIDTH) -> str:
    head = "entries" if level is None else str(level)
    tail = "" if width == WIDTH else f".p/{width}"
    return f"tile/{head}/{encode_index(index)}{tail}"


def _canonical_number(text: str, low: int, high: int) -> int | None:
    if not text.isascii() or not text.isdigit() or (len(text) > 1 and text[0] == "0"):
        return None
    value = int(text)
    return value if low <= value <= high else None


def parse_path(rest: str) -> TileAddress:
    """The tile named by a path after ``tile/``; NoSuchTile for any other spelling."""
    parts = rest.split("/")
    width = WIDTH
    if len(parts) >= 3 and parts[-2].endswith(".p"):
        parsed = _canonical_number(parts[-1], 1, WIDTH - 1)
        if parsed is None:
            raise NoSuchTile("a partial tile's width is 1 to 255, written without leading zeros")
        width = parsed
        parts = [*parts[:-2], parts[-2][:-2]]
    if len(parts) < 2:
        raise NoSuchTile("expected tile/<level>/<index> or tile/entries/<index>")
    head, groups = parts[0], parts[1:]
    level = None if head == "entries" else _canonical_number(head, 0, MAX_LEVEL)
    if level is None and head != "entries":
        raise NoSuchTile("the level is a number from 0 to 63, or 'entries'")
    digits = [g[1:] for g in groups[:-1] if g.startswith("x")] + [groups[-1]]
    if (
        len(digits) != len(groups)
        or len(groups) > 7
        or any(len(d) != 3 or not d.isascii() or not d.isdigit() for d in digits)
    ):
        raise NoSuchTile("the index is written in 3-digit groups, all but the last after an x")
    index = int("".join(digits))
    if encode_index(index) != "/".join(groups):
        raise NoSuchTile("the index has leading zero groups")
    return TileAddress(level, index, width)


class TileCache:
    """Tiles by address, least recently used first out; shared by the threads that read."""

    def __init__(self, size: int = CACHED_TILES) -> None:
        self.size = size
        self._tiles: OrderedDict[TileAddress, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, address: TileAddress) -> bytes | None:
        with self._lock:
            found = self._tiles.get(address)
            if found is not None:
                self._tiles.move_to_end(address)
            return found

    def put(self, address: TileAddress, data: bytes) -> None:
        with self._lock:
            self._tiles[address] = data
            self._tiles.move_to_end(address)
            while len(self._tiles) > self.size:
                self._tiles.popitem(last=False)


def _leaf_hashes(session: Session, start: int, count: int) -> list[bytes]:
    rows = session.scalars(
        select(AuditEntry.leaf_hash)
        .where(AuditEntry.leaf_index >= start, AuditEntry.leaf_index < start + count)
        .order_by(AuditEntry.leaf_index)
    ).all()
    if len(rows) != count or any(h is None for h in rows):
        raise NoSuchTile(f"leaves {start}..{start + count - 1} are not all in the tree")
    return [bytes.fromhex(h) for h in rows if h is not None]


def _hashes(session: Session, address: TileAddress, cache: TileCache) -> list[bytes]:
    level = address.level or 0
    if level == 0:
        return _leaf_hashes(session, address.index * WIDTH, address.width)
    if level == 1:
        # One read of the leaves below, folded eight levels up: a hash per 256 leaves.
        nodes = _leaf_hashes(session, address.index * WIDTH * WIDTH, address.width * WIDTH)
        for _ in range(WIDTH.bit_length() - 1):
            nodes = merkle.level_above(nodes)
        return nodes
    below = [TileAddress(level - 1, address.index * WIDTH + i, WIDTH) for i in range(address.width)]
    return [merkle.root_of(_split(read_tile(session, b, cache))) for b in below]


def _split(data: bytes) -> list[bytes]:
    size = merkle.HASH_SIZE
    return [data[i : i + size] for i in range(0, len(data), size)]


def read_tile(session: Session, address: TileAddress, cache: TileCache) -> bytes:
    """A hash tile's bytes (or an entry bundle's, for level None): the caller has checked
    that the tree reaches it (``address.end() <= tree size``)."""
    cached = cache.get(address)
    if cached is not None:
        return cached
    if address.level is None:
        data = _bundle(session, address)
    else:
        data = b"".join(_hashes(session, address, cache))
    cache.put(address, data)
    return data


def _bundle(session: Session, address: TileAddress) -> bytes:
    start = address.index * WIDTH
    entries = session.scalars(
        select(AuditEntry)
        .where(AuditEntry.leaf_index >= start, AuditEntry.leaf_index < start + address.width)
        .order_by(AuditEntry.leaf_index)
    ).all()
    if len(entries) != address.width:
        raise NoSuchTile(f"leaves {start}..{start + address.width - 1} are not all in the tree")
    out = bytearray()
    for entry in entries:
        data = leaf_data(fields_of(entry))
        if len(data) > MAX_ENTRY_BYTES:
            raise EntryTooLong(
                f"entry {entry.seq} (leaf {entry.leaf_index}) is {len(data)} bytes, more than "
                "an entry bundle's 65535: read it with 'hfa audit proof'"
            )
        out += len(data).to_bytes(2, "big") + data
    return bytes(out)
