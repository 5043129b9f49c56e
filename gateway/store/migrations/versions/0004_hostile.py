"""Replies deduplicated per request, not per Message-ID alone.

One message sent to two reply addresses is one answer on each request: the
unique index that stops a reply being recorded twice on a request is now per
(request, Message-ID). (The audit head row that concurrent first writes raced
to create is made by 0002_operations.)

Revision ID: 0004_hostile
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_hostile"
down_revision = "0002_operations"
branch_labels = None
depends_on = None


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
