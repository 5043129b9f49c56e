"""operations: heartbeats, gateway state, outbox retry period

Revision ID: 0002_operations
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_operations"
down_revision = "0001"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "heartbeats",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("process", sa.String(200), nullable=False, unique=True),
        sa.Column("roles", sa.String(64), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stopped_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("keys", sa.JSON(), nullable=False),
    )
    op.create_index("ix_heartbeats_seen_at", "heartbeats", ["seen_at"])
    op.create_table(
        "gateway_state",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("retry_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("delay_noticed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("revived_by", sa.String(320), nullable=True))
    # The chain's head exists from the start, so concurrent first writers never race
    # to insert it.
    op.execute(
        "INSERT INTO audit_head (id, seq, hash) SELECT 1, 0, '" + "0" * 64 + "' "
        "WHERE NOT EXISTS (SELECT 1 FROM audit_head)"
    )


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("revived_by")
        batch.drop_column("delay_noticed_at")
        batch.drop_column("retry_since")
    op.drop_table("gateway_state")
    op.drop_index("ix_heartbeats_seen_at", table_name="heartbeats")
    op.drop_table("heartbeats")
