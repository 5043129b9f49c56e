"""The correction window: decisions read from typed text wait before they take effect.

``pending_readings`` holds one row per held decision: which turn, whose, when
it is due, and (once) how it was settled.

Revision ID: 0005_window
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_window"
down_revision = "0004_hostile"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "pending_readings",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("request_id", _ID, sa.ForeignKey("requests.id"), nullable=False),
        sa.Column("recipient_id", _ID, sa.ForeignKey("recipients.id"), nullable=False),
        sa.Column("turn_id", _ID, sa.ForeignKey("turns.id"), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=True),
    )
    op.create_index("ix_pending_readings_request_id", "pending_readings", ["request_id"])
    op.create_index("ix_pending_readings_due", "pending_readings", ["settled_at", "due_at"])


def downgrade() -> None:
    op.drop_index("ix_pending_readings_due", table_name="pending_readings")
    op.drop_index("ix_pending_readings_request_id", table_name="pending_readings")
    op.drop_table("pending_readings")
