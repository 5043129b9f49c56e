"""A large value's chunks: committed without a flush each, on connections that flush again.

The owner's commit, flushed as every commit is, flushes the chunks written before it
(both databases write their log in order). What must never happen is a connection
that leaves a chunk's transaction still relaxed: the next filing or reply it serves
would be answered 201 or 250 before its commit is on disk.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from sqlalchemy.orm import Session

from gateway.services import Services
from gateway.store import blobs

VALUE = os.urandom(3 * blobs.CHUNK_BYTES + 1000)
DIGEST = hashlib.sha256(VALUE).hexdigest()


def _flush_setting(session: Session) -> str:
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        return str(connection.exec_driver_sql("SHOW synchronous_commit").scalar())
    # SQLite: 1 is NORMAL (no flush at a commit in WAL mode), 2 is FULL.
    return {1: "off", 2: "on"}.get(
        int(connection.exec_driver_sql("PRAGMA synchronous").scalar() or 0), "?"
    )


def test_chunks_commit_unflushed_and_every_connection_flushes_again(services: Services) -> None:
    seen: list[str] = []

    @contextmanager
    def noting() -> Iterator[Session]:
        with services.db.transaction() as session:
            yield session
            # After the chunk's insert, before its commit: how will it commit?
            seen.append(_flush_setting(session))

    blobs.write_apart(noting, VALUE, DIGEST, services.clock.now())
    assert seen == ["off"] * 4
    with services.db.read_only() as session:
        assert blobs.read(session, DIGEST, len(VALUE)) == VALUE
    # Every connection the pool holds, and any transaction after, flushes its commit.
    for _ in range(8):
        with services.db.transaction() as session:
            assert _flush_setting(session) == "on"
    held = [services.db.engine.raw_connection() for _ in range(3)]
    try:
        for raw in held:
            cursor = raw.cursor()
            if services.db.is_sqlite:
                cursor.execute("PRAGMA synchronous")
                assert cursor.fetchone() == (2,)
            else:
                cursor.execute("SHOW synchronous_commit")
                assert cursor.fetchone() == ("on",)
            cursor.close()
    finally:
        for raw in held:
            raw.close()


def test_a_chunk_that_fails_leaves_its_connection_flushing(services: Services) -> None:
    """A transaction that ends in an error gives its connection back as relaxed as it
    took it: the pool sets it right on the way back."""

    class Boom(Exception):
        pass

    @contextmanager
    def failing() -> Iterator[Session]:
        with services.db.transaction() as session:
            yield session
            raise Boom

    with suppress(Boom):
        blobs.write_apart(failing, VALUE, DIGEST, services.clock.now())
    for _ in range(5):
        with services.db.transaction() as session:
            assert _flush_setting(session) == "on"
