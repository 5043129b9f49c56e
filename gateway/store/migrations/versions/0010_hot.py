"""Large values kept apart: the chunks of large messages and attachments (``store.blobs``).

A message or attachment over 256 KB is written in chunks, each committed alone,
before the short transaction that records its row; the row keeps no bytes
(``size`` > 0, ``raw``/``content`` empty) and the chunks are found by its SHA-256.

Revision ID: 0010_hot
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_hot"
down_revision = "0009_evidence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "blob_chunks",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("written_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_blob_chunks_written_at", "blob_chunks", ["written_at"])
    # The sweep asks, per chunk, whether an attachment owns it.
    op.create_index("ix_attachments_sha256", "attachments", ["sha256"])


def downgrade() -> None:
    # The bytes go back into their rows first: the release before keeps them there.
    conn = op.get_bind()
    # Table and column names are the two fixed pairs below, never input.
    for table, column in (("inbound", "raw"), ("attachments", "content")):
        owners = conn.execute(
            sa.text(f"SELECT id, sha256 FROM {table} WHERE size > 0 AND length({column}) = 0")  # noqa: S608
        ).all()
        for owner_id, digest in owners:
            pieces = conn.execute(
                sa.text("SELECT content FROM blob_chunks WHERE sha256 = :d ORDER BY seq"),
                {"d": digest},
            ).scalars()
            conn.execute(
                sa.text(f"UPDATE {table} SET {column} = :v WHERE id = :i"),  # noqa: S608
                {"v": b"".join(pieces), "i": owner_id},
            )
    op.drop_index("ix_attachments_sha256", table_name="attachments")
    op.drop_index("ix_blob_chunks_written_at", table_name="blob_chunks")
    op.drop_table("blob_chunks")
