"""Replies deduplicated per request; the audit head row exists before the first write.

- One message sent to two reply addresses is one answer on each request: the
  unique index that stops a reply being recorded twice is now per
  (request, Message-ID), not per Message-ID alone.
- The audit chain's head row is created here, once, so concurrent first
  writes on a fresh PostgreSQL database no longer race to insert it.

Revision ID: 0004_hostile
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_hostile"
down_revision = "0002_operations"
branch_labels = None
depends_on = None

GENESIS_HASH = "0" * 64


def upgrade() -> None:
    op.drop_index("uq_inbound_recorded_message_id", table_name="inbound")
    op.create_index(
        "uq_inbound_recorded_request_message_id",
        "inbound",
        ["request_id", "message_id"],
        unique=True,
        sqlite_where=sa.text("outcome = 'recorded'"),
        postgresql_where=sa.text("outcome = 'recorded'"),
    )
    op.execute(
        sa.text(
            "INSERT INTO audit_head (id, seq, hash) SELECT 1, 0, :genesis "
            "WHERE NOT EXISTS (SELECT 1 FROM audit_head WHERE id = 1) "
            "AND NOT EXISTS (SELECT 1 FROM audit)"
        ).bindparams(genesis=GENESIS_HASH)
    )


def downgrade() -> None:
    op.drop_index("uq_inbound_recorded_request_message_id", table_name="inbound")
    op.create_index(
        "uq_inbound_recorded_message_id",
        "inbound",
        ["message_id"],
        unique=True,
        sqlite_where=sa.text("outcome = 'recorded'"),
        postgresql_where=sa.text("outcome = 'recorded'"),
    )
