"""Large values kept apart from the rows that own them, written in short transactions.

SQLite has one write lock, and a row is rewritten whole by any UPDATE: a 25 MB
message stored in its inbound row held the lock for its insert, and again for
every later change of that row (the claim, the lease, the outcome), while every
filing waited. So a value over :data:`INLINE_BYTES` (a large message as
received, a large attachment) is written first, in chunks of :data:`CHUNK_BYTES`
each committed by a transaction of its own, keyed by its SHA-256; the row that
owns it is written after, by the short transaction that records it, with the
value left empty (``size`` > 0 and no bytes says where the bytes are).

Crash safety follows from the order: the owner's row is committed only after
every chunk is, so a kill at any point leaves either no owner (chunks without
one, removed by :func:`sweep` once older than :data:`ORPHAN_AGE`) or an owner
whose bytes are all there.

The chunks' commits are not flushed to disk one by one (SQLite's
``synchronous=NORMAL``, PostgreSQL's ``synchronous_commit=off``, for their own
transactions only): a flush per chunk held the write lock some 10 ms longer each,
50 times for a 25 MB message, while filings waited. Both databases' logs are
written in order, so the owner's commit, flushed as every commit is, flushes every
chunk written before it; a crash before it loses chunks that nothing owns yet. Writing a value again (the retry of a message whose
processing was cut short) finds its chunks by their key and marks them fresh, so
a retry never writes them twice and the sweep never takes a chunk being linked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Index, Integer, LargeBinary, String, delete, event, exists, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Mapped, Session, mapped_column
from sqlalchemy.pool import ConnectionPoolEntry

from gateway.store.models import Attachment, Base, InboundMessage

# Values up to this size stay in their row: writing them apart costs more than it saves.
INLINE_BYTES = 256 * 1024
# One transaction's worth: long enough to write few of them, short enough that a
# filing waiting for the write lock behind one waits about as long as behind another filing.
CHUNK_BYTES = 512 * 1024
# A chunk without an owner this old was left by a write that never finished.
ORPHAN_AGE = timedelta(hours=1)


class BlobChunk(Base):
    """One piece of a value kept apart, keyed by the value's SHA-256 and its place."""

    __tablename__ = "blob_chunks"
    __table_args__ = (Index("ix_blob_chunks_written_at", "written_at"),)

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    content: Mapped[bytes] = mapped_column(LargeBinary)
    written_at: Mapped[datetime]


def kept_apart(value: bytes) -> bool:
    """Whether a value of this size is written apart from its row."""
    return len(value) > INLINE_BYTES


def _upsert(dialect_name: str) -> Any:
    """INSERT of one chunk that, for a chunk already there, only marks it fresh."""
    if dialect_name == "postgresql":
        stmt: Any = postgresql.insert(BlobChunk)
    else:
        stmt = sqlite.insert(BlobChunk)
    return stmt.on_conflict_do_update(
        index_elements=["sha256", "seq"], set_={"written_at": stmt.excluded.written_at}
    )


_UPSERTS = {name: _upsert(name) for name in ("sqlite", "postgresql")}


def chunk_rows(value: bytes, digest: str, at: datetime) -> Iterator[dict[str, Any]]:
    # Views, not copies: a 25 MB value is not held twice while it is written.
    view = memoryview(value)
    for seq, start in enumerate(range(0, len(value), CHUNK_BYTES)):
        yield {
            "sha256": digest,
            "seq": seq,
            "content": view[start : start + CHUNK_BYTES],
            "written_at": at,
        }


# Set on a pooled SQLite connection whose synchronous setting this module relaxed.
_RELAXED = "hfa_blobs_unflushed"
# True while a chunk's transaction takes its connection from the pool.
_TAKING_UNFLUSHED: ContextVar[bool] = ContextVar("hfa_blobs_taking_unflushed", default=False)


def _relax_flush(dbapi_connection: Any, entry: ConnectionPoolEntry, _proxy: Any) -> None:
    """A connection taken for a chunk's transaction: SQLite allows the setting only
    outside a transaction, so it is set here, before the transaction begins."""
    if not _TAKING_UNFLUSHED.get():
        return
    entry.info[_RELAXED] = True
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _restore_flush(dbapi_connection: Any, entry: ConnectionPoolEntry) -> None:
    """On its way back to the pool, a relaxed connection flushes its commits again,
    before any other transaction can take it; one that cannot is discarded."""
    if not entry.info.pop(_RELAXED, False) or dbapi_connection is None:
        return
    try:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()
    except Exception as exc:
        entry.invalidate(exc)


def _unflushed_connection(session: Session) -> Connection:
    """The session's connection, in a transaction whose commit is not flushed to disk
    (see the module docstring)."""
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    if engine.dialect.name == "postgresql":
        connection = session.connection()
        # Ends with the transaction, whatever its outcome.
        connection.exec_driver_sql("SET LOCAL synchronous_commit = off")
        return connection
    if not event.contains(engine, "checkout", _relax_flush):
        event.listen(engine, "checkout", _relax_flush)
        event.listen(engine, "checkin", _restore_flush)
    taking = _TAKING_UNFLUSHED.set(True)
    try:
        return session.connection()
    finally:
        _TAKING_UNFLUSHED.reset(taking)


def write_in(connection: Connection, value: bytes, digest: str, at: datetime) -> None:
    """Every chunk of ``value`` in the caller's transaction (a rare path: a message read
    again by hand, whose attachments were never written apart)."""
    statement = _UPSERTS[connection.dialect.name]
    for row in chunk_rows(value, digest, at):
        connection.execute(statement, row)


def write_apart(transaction: Callable[[], Any], value: bytes, digest: str, at: datetime) -> None:
    """Every chunk of ``value``, each committed by a transaction of its own.

    ``transaction``: the database's write transaction (``Database.transaction``).
    Returns once the last chunk is committed; only then may a row point at it.
    """
    for row in chunk_rows(value, digest, at):
        with transaction() as session:
            connection = _unflushed_connection(session)
            connection.execute(_UPSERTS[connection.dialect.name], row)


def read(session: Session, digest: str, size: int) -> bytes:
    """The value kept apart under ``digest``; it must be ``size`` bytes long."""
    pieces = session.scalars(
        select(BlobChunk.content).where(BlobChunk.sha256 == digest).order_by(BlobChunk.seq)
    ).all()
    value = b"".join(pieces)
    if len(value) != size:
        raise LookupError(f"stored value {digest[:12]}: {len(value)} of its {size} bytes found")
    return value


def raw_of(session: Session, row: InboundMessage) -> bytes:
    """A stored message's bytes as received, from its row or from where they were kept."""
    if row.raw or not row.size:
        return row.raw
    return read(session, row.sha256, row.size)


def raws(session: Session, ids: list[int]) -> dict[int, bytes]:
    """Messages' bytes as received, by inbound id (one query, plus one per large message)."""
    rows = session.execute(
        select(
            InboundMessage.id, InboundMessage.raw, InboundMessage.size, InboundMessage.sha256
        ).where(InboundMessage.id.in_(ids))
    )
    found: dict[int, bytes] = {}
    for inbound_id, raw, size, digest in rows:
        found[inbound_id] = raw if raw or not size else read(session, digest, size)
    return found


def sweep(session: Session, now: datetime) -> int:
    """Remove chunks that no row owns and that nobody wrote within :data:`ORPHAN_AGE`."""
    owned_by_message = exists().where(
        InboundMessage.sha256 == BlobChunk.sha256, func.length(InboundMessage.raw) == 0
    )
    owned_by_attachment = exists().where(
        Attachment.sha256 == BlobChunk.sha256, func.length(Attachment.content) == 0
    )
    result = session.execute(
        delete(BlobChunk)
        .where(BlobChunk.written_at < now - ORPHAN_AGE, ~owned_by_message, ~owned_by_attachment)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)
