"""Approval policies: each request's resolved policy and its vote log.

``request_policies`` holds the rule a request was filed under, its outcome and
the ``policy`` object agents read; its row is locked by every vote. ``votes`` is
append-only: one row per approval or rejection (a changed answer is a new row).

Revision ID: 0008_policies
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_policies"
down_revision = "0007_inbox"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "request_policies",
        sa.Column("request_id", _ID, sa.ForeignKey("requests.id"), primary_key=True),
        sa.Column("rule", sa.JSON(), nullable=False),
        sa.Column("outcome", sa.String(32), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("delegates", sa.JSON(), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("step_due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_request_policies_step_due_at", "request_policies", ["step_due_at"])
    op.create_table(
        "votes",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("request_id", _ID, sa.ForeignKey("requests.id"), nullable=False),
        sa.Column("person", sa.String(320), nullable=False),
        sa.Column("voter", sa.String(320), nullable=False),
        sa.Column("decision", sa.String(16), nullable=False),
        sa.Column("conditions", sa.JSON(), nullable=False),
        sa.Column("turn_id", _ID, sa.ForeignKey("turns.id"), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_votes_request", "votes", ["request_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_votes_request", table_name="votes")
    op.drop_table("votes")
    op.drop_index("ix_request_policies_step_due_at", table_name="request_policies")
    op.drop_table("request_policies")
