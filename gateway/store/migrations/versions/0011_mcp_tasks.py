"""MCP tasks: a handle per request filed by a client of the tasks extension.

Revision ID: 0011_mcp_tasks
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_mcp_tasks"
down_revision = "0010_hot"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_tasks",
        sa.Column("task_id", sa.String(64), primary_key=True),
        sa.Column(
            "request_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("requests.id"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ttl_ms", sa.BigInteger(), nullable=True),
        sa.Column("poll_interval_ms", sa.Integer(), nullable=False),
    )
    op.create_index("ix_mcp_tasks_request_id", "mcp_tasks", ["request_id"])


def downgrade() -> None:
    op.drop_index("ix_mcp_tasks_request_id", table_name="mcp_tasks")
    op.drop_table("mcp_tasks")
