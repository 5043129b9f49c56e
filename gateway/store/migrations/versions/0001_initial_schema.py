"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# 64-bit keys on PostgreSQL; SQLite's INTEGER PRIMARY KEY is its rowid.
_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # One function per table, in an order that satisfies every foreign key.
    _create_api_keys()
    _create_audit()
    _create_audit_head()
    _create_requests()
    _create_schedules()
    _create_compat_calls()
    _create_read_links()
    _create_recipients()
    _create_turns()
    _create_inbound()
    _create_outbox()
    _create_attachments()


def _create_api_keys() -> None:
    op.create_table(
        "api_keys",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
        sa.UniqueConstraint("name"),
    )


def _create_audit() -> None:
    op.create_table(
        "audit",
        sa.Column(
            "seq",
            _BIG_ID,
            autoincrement=False,
            nullable=False,
        ),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("reference", sa.String(length=32), nullable=True),
        sa.Column("actor", sa.String(length=320), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
    )
    op.create_index(op.f("ix_audit_event"), "audit", ["event"], unique=False)
    op.create_index(op.f("ix_audit_reference"), "audit", ["reference"], unique=False)


def _create_audit_head() -> None:
    op.create_table(
        "audit_head",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seq", _BIG_ID, nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def _create_requests() -> None:
    op.create_table(
        "requests",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("urgency", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("reply_to", sa.Text(), nullable=True),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("access_token_hash", sa.String(length=64), nullable=False),
        sa.Column("read_capability_hash", sa.String(length=64), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=True),
        sa.Column("idempotency_fingerprint", sa.String(length=64), nullable=True),
        sa.Column("api_key_name", sa.String(length=128), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_human_reply_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminders_sent", sa.Integer(), nullable=False),
        sa.Column("next_reminder_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_noticed", sa.Integer(), nullable=False),
        sa.Column("escalated", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
        sa.UniqueConstraint("read_capability_hash"),
    )
    op.create_index(
        op.f("ix_requests_next_reminder_at"), "requests", ["next_reminder_at"], unique=False
    )
    op.create_index(op.f("ix_requests_status"), "requests", ["status"], unique=False)


def _create_schedules() -> None:
    op.create_table(
        "schedules",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("next_run_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def _create_compat_calls() -> None:
    op.create_table(
        "compat_calls",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("protocol", sa.String(length=32), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=False),
        sa.Column("request_id", _BIG_ID, nullable=False),
        sa.Column("api_key_name", sa.String(length=128), nullable=True),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["requests.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("protocol", "external_id"),
    )
    op.create_index(
        op.f("ix_compat_calls_request_id"), "compat_calls", ["request_id"], unique=False
    )


def _create_read_links() -> None:
    op.create_table(
        "read_links",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("request_id", _BIG_ID, nullable=False),
        sa.Column("capability_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["requests.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("capability_hash"),
    )
    op.create_index(op.f("ix_read_links_request_id"), "read_links", ["request_id"], unique=False)


def _create_recipients() -> None:
    op.create_table(
        "recipients",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("request_id", _BIG_ID, nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["requests.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("request_id", "address"),
    )
    op.create_index(op.f("ix_recipients_request_id"), "recipients", ["request_id"], unique=False)


def _create_turns() -> None:
    op.create_table(
        "turns",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("request_id", _BIG_ID, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("author", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["requests.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("request_id", "seq"),
    )


def _create_inbound() -> None:
    op.create_table(
        "inbound",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("peer", sa.String(length=128), nullable=False),
        sa.Column("mail_from", sa.Text(), nullable=False),
        sa.Column("rcpt_to", sa.JSON(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=32), nullable=True),
        sa.Column("outcome_detail", sa.Text(), nullable=True),
        sa.Column("request_id", _BIG_ID, nullable=True),
        sa.Column("recipient_id", _BIG_ID, nullable=True),
        sa.Column("turn_id", _BIG_ID, nullable=True),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["recipient_id"],
            ["recipients.id"],
        ),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["requests.id"],
        ),
        sa.ForeignKeyConstraint(
            ["turn_id"],
            ["turns.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_inbound_message_id"), "inbound", ["message_id"], unique=False)
    op.create_index(op.f("ix_inbound_outcome"), "inbound", ["outcome"], unique=False)
    op.create_index("ix_inbound_pending", "inbound", ["state", "id"], unique=False)
    op.create_index(op.f("ix_inbound_request_id"), "inbound", ["request_id"], unique=False)
    op.create_index(op.f("ix_inbound_sha256"), "inbound", ["sha256"], unique=False)
    op.create_index(
        "uq_inbound_recorded_message_id",
        "inbound",
        ["message_id"],
        unique=True,
        sqlite_where=sa.text("outcome = 'recorded'"),
        postgresql_where=sa.text("outcome = 'recorded'"),
    )


def _create_outbox() -> None:
    op.create_table(
        "outbox",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("purpose", sa.String(length=32), nullable=False),
        sa.Column("request_id", _BIG_ID, nullable=True),
        sa.Column("recipient_id", _BIG_ID, nullable=True),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("message_id", sa.String(length=255), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["recipient_id"],
            ["recipients.id"],
        ),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["requests.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_outbox_due", "outbox", ["state", "next_attempt_at"], unique=False)
    op.create_index(op.f("ix_outbox_message_id"), "outbox", ["message_id"], unique=False)
    op.create_index(op.f("ix_outbox_request_id"), "outbox", ["request_id"], unique=False)


def _create_attachments() -> None:
    op.create_table(
        "attachments",
        sa.Column(
            "id",
            _BIG_ID,
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("inbound_id", _BIG_ID, nullable=False),
        sa.Column("filename", sa.Text(), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_attachments_inbound_id"), "attachments", ["inbound_id"], unique=False)

    # ### end Alembic commands ###


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    op.drop_index(op.f("ix_attachments_inbound_id"), table_name="attachments")
    op.drop_table("attachments")
    op.drop_index(op.f("ix_outbox_request_id"), table_name="outbox")
    op.drop_index(op.f("ix_outbox_message_id"), table_name="outbox")
    op.drop_index("ix_outbox_due", table_name="outbox")
    op.drop_table("outbox")
    op.drop_index(
        "uq_inbound_recorded_message_id",
        table_name="inbound",
        sqlite_where=sa.text("outcome = 'recorded'"),
        postgresql_where=sa.text("outcome = 'recorded'"),
    )
    op.drop_index(op.f("ix_inbound_sha256"), table_name="inbound")
    op.drop_index(op.f("ix_inbound_request_id"), table_name="inbound")
    op.drop_index("ix_inbound_pending", table_name="inbound")
    op.drop_index(op.f("ix_inbound_outcome"), table_name="inbound")
    op.drop_index(op.f("ix_inbound_message_id"), table_name="inbound")
    op.drop_table("inbound")
    op.drop_table("turns")
    op.drop_index(op.f("ix_recipients_request_id"), table_name="recipients")
    op.drop_table("recipients")
    op.drop_index(op.f("ix_read_links_request_id"), table_name="read_links")
    op.drop_table("read_links")
    op.drop_index(op.f("ix_compat_calls_request_id"), table_name="compat_calls")
    op.drop_table("compat_calls")
    op.drop_table("schedules")
    op.drop_index(op.f("ix_requests_status"), table_name="requests")
    op.drop_index(op.f("ix_requests_next_reminder_at"), table_name="requests")
    op.drop_table("requests")
    op.drop_table("audit_head")
    op.drop_index(op.f("ix_audit_reference"), table_name="audit")
    op.drop_index(op.f("ix_audit_event"), table_name="audit")
    op.drop_table("audit")
    op.drop_table("api_keys")
    # ### end Alembic commands ###
