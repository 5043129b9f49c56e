"""Each email as it was relayed: the bytes handed to the relay or the Maildir.

The outbox keeps a payload and composes (and DKIM-signs) the message at send
time; an evidence bundle needs the message byte for byte as it left, with its
signature. ``relayed`` holds those bytes once the delivery succeeded and
``relayed_sha256`` their hash (which the ``email.sent`` audit entry repeats).

Revision ID: 0009_evidence
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_evidence"
down_revision = "0008_policies"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("relayed", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("relayed_sha256", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("relayed_sha256")
        batch.drop_column("relayed")
