"""A2H v1.0 interactions: a handle per intent, idempotent on its message_id.

Revision ID: 0012_a2h_v1
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_a2h_v1"
down_revision = "0011_mcp_tasks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "a2h_interactions",
        sa.Column("interaction_id", sa.String(36), primary_key=True),
        sa.Column("idempotency", sa.String(64), nullable=False, unique=True),
        sa.Column("message_id", sa.String(256), nullable=False),
        sa.Column("api_key_name", sa.String(128), nullable=True),
        sa.Column(
            "request_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("requests.id"),
            nullable=False,
        ),
        sa.Column("intent", sa.String(16), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("ttl_sec", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("callback_url", sa.Text(), nullable=True),
        sa.Column("callback_secret", sa.Text(), nullable=True),
        sa.Column("callback_queued_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_a2h_interactions_request_id", "a2h_interactions", ["request_id"])
    op.create_index(
        "ix_a2h_interactions_callback_queued_at", "a2h_interactions", ["callback_queued_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_a2h_interactions_callback_queued_at", table_name="a2h_interactions")
    op.drop_index("ix_a2h_interactions_request_id", table_name="a2h_interactions")
    op.drop_table("a2h_interactions")
