"""API keys say for whom their agent works: a client and a matter per key.

``hfa keys create --client ... --matter ...`` stores them; the lawyer's
emails show them as set by the key, and an agent's own ``client`` or
``matter`` as its claim.

Revision ID: 0007_inbox
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_inbox"
down_revision = "0006_tlog"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("client", sa.Text(), nullable=True))
        batch.add_column(sa.Column("matter", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("matter")
        batch.drop_column("client")
