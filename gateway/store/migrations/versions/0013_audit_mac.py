"""Audit entries carry the MAC of the transaction that wrote them; refused ones say why.

Revision ID: 0013_audit_mac
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_audit_mac"
down_revision = "0012_a2h_v1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN on both databases (nullable, no default): no table rewrite.
    op.add_column("audit", sa.Column("mac", sa.String(96), nullable=True))
    op.add_column("audit", sa.Column("refused", sa.String(300), nullable=True))
    op.create_index("uq_audit_mac", "audit", ["mac"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_audit_mac", table_name="audit")
    op.drop_column("audit", "refused")
    op.drop_column("audit", "mac")
