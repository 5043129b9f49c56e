"""The audit log becomes a transparency log: entries of their own, a Merkle tree, checkpoints.

Entries are no longer chained through a head row that every writer locked: each
transaction inserts its own, numbered by the database (``seq`` becomes an
identity on PostgreSQL; on SQLite it is the rowid already), and a sequencer gives
each committed entry its ``leaf_index`` and ``leaf_hash``. ``xid`` records the
writing transaction on PostgreSQL (filled by the column's default, so writers pay
no round trip for it). Signed checkpoints go to ``audit_checkpoints``.

The chain of the previous release is checked once, here, against its head row:
an upgrade never launders a chain that no longer verifies. Its entries then
become the tree's first leaves, in chain order, their old ``prev_hash`` and
``hash`` inside their leaves; the head row is dropped.

Revision ID: 0006_tlog
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from gateway.contract import iso
from gateway.errors import StorageError

revision = "0006_tlog"
down_revision = "0005_window"
branch_labels = None
depends_on = None

_GENESIS = "0" * 64
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_BATCH = 2000


def _at_text(value: Any) -> str:
    if isinstance(value, datetime):
        return iso(value if value.tzinfo else value.replace(tzinfo=UTC))
    return iso(datetime.fromisoformat(str(value)).replace(tzinfo=UTC))


def _details(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _check_chain_and_leaves(conn: sa.engine.Connection) -> list[dict[str, Any]]:
    """Recompute the old chain against its head; the leaves its entries become."""
    head = conn.execute(sa.text("SELECT seq, hash FROM audit_head WHERE id = 1")).first()
    head_seq, head_hash = (head[0], head[1]) if head is not None else (0, _GENESIS)
    rows = conn.execute(
        sa.text(
            "SELECT seq, at, event, reference, actor, details, prev_hash, hash "
            "FROM audit ORDER BY seq"
        )
    )
    prev, expected = _GENESIS, 1
    leaves: list[dict[str, Any]] = []
    for seq, at, event, reference, actor, details, prev_hash, digest in rows:
        body = {
            "seq": seq,
            "at": _at_text(at),
            "event": event,
            "reference": reference,
            "actor": actor,
            "details": _details(details),
            "prev_hash": prev_hash,
        }
        if (
            seq != expected
            or prev_hash != prev
            or hashlib.sha256(_CANONICAL.encode(body).encode()).hexdigest() != digest
        ):
            raise StorageError(
                f"the audit chain does not verify at entry {expected}: not upgraded. Run "
                "'hfa audit verify' with the previous release and restore a backup"
            )
        # The leaf is the entry as the old chain hashed it, with that hash.
        leaf = _CANONICAL.encode({**body, "hash": digest}).encode()
        leaves.append(
            {
                "s": seq,
                "i": seq - 1,
                "h": hashlib.sha256(b"\x00" + leaf).hexdigest(),
            }
        )
        prev, expected = digest, seq + 1
    if (head_seq, head_hash) != (expected - 1, prev):
        raise StorageError(
            f"the audit chain ends at entry {expected - 1} but its head names entry "
            f"{head_seq}: not upgraded. Run 'hfa audit verify' with the previous release"
        )
    return leaves


def upgrade() -> None:
    conn = op.get_bind()
    leaves = _check_chain_and_leaves(conn)
    postgres = conn.dialect.name == "postgresql"
    with op.batch_alter_table("audit") as batch:
        batch.alter_column("prev_hash", existing_type=sa.String(64), nullable=True)
        batch.alter_column("hash", existing_type=sa.String(64), nullable=True)
        batch.add_column(
            sa.Column(
                "xid",
                sa.BigInteger(),
                nullable=True,
                server_default=sa.text("(pg_current_xact_id()::text::bigint)")
                if postgres
                else None,
            )
        )
        batch.add_column(sa.Column("leaf_index", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("leaf_hash", sa.String(64), nullable=True))
        batch.create_unique_constraint("uq_audit_leaf_index", ["leaf_index"])
    if postgres:
        # Writers no longer number entries themselves: the database does.
        start = len(leaves) + 1
        op.execute(f"CREATE SEQUENCE audit_seq_seq START WITH {start} OWNED BY audit.seq")
        op.execute("ALTER TABLE audit ALTER COLUMN seq SET DEFAULT nextval('audit_seq_seq')")
    op.create_index(
        "ix_audit_pending",
        "audit",
        ["seq"],
        sqlite_where=sa.text("leaf_index IS NULL"),
        postgresql_where=sa.text("leaf_index IS NULL"),
    )
    update = sa.text("UPDATE audit SET leaf_index = :i, leaf_hash = :h WHERE seq = :s")
    for start in range(0, len(leaves), _BATCH):
        conn.execute(update, leaves[start : start + _BATCH])
    op.create_table(
        "audit_checkpoints",
        sa.Column("tree_size", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("root_hash", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("edge", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("tree_size"),
    )
    op.drop_table("audit_head")


def downgrade() -> None:
    raise RuntimeError(
        "0006_tlog cannot be undone: entries written since have no chain hashes. "
        "Restore the backup taken before 'hfa db upgrade'"
    )
