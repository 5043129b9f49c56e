"""Prometheus metrics, computed from the database on each scrape.

The database is the record shared by every gateway process, so counting
there gives one consistent answer whichever process is scraped, and nothing
is lost on restart. The counts use indexed columns or small grouped scans.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Result, func, select
from sqlalchemy.orm import Session

from gateway.store import state, witness_report
from gateway.store.models import AuditCheckpoint, InboundMessage, OutboxItem, Request, Turn

# Seconds from filing to the first human reply: a minute up to a week.
REPLY_BUCKETS = (60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class _Text:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str) -> None:
        self.lines.append(f"# HELP {name} {help_text}")
        self.lines.append(f"# TYPE {name} {kind}")

    def sample(self, name: str, value: float, **labels: str) -> None:
        label_text = ",".join(f'{k}="{_escape(str(v))}"' for k, v in sorted(labels.items()))
        number = repr(float(value)) if isinstance(value, float) else str(value)
        self.lines.append(f"{name}{{{label_text}}} {number}" if labels else f"{name} {number}")

    def grouped(
        self,
        name: str,
        kind: str,
        help_text: str,
        label: str | tuple[str, ...],
        rows: Iterable[Any],
    ) -> None:
        self.family(name, kind, help_text)
        names = (label,) if isinstance(label, str) else label
        for *keys, count in rows:
            self.sample(
                name, count, **{n: str(k or "none") for n, k in zip(names, keys, strict=True)}
            )


def render(session: Session, now: datetime) -> str:
    out = _Text()
    out.grouped(
        "hfa_requests_filed_total",
        "counter",
        "Requests filed, by category and urgency.",
        ("category", "urgency"),
        session.execute(
            select(Request.category, Request.urgency, func.count()).group_by(
                Request.category, Request.urgency
            )
        ),
    )
    out.grouped(
        "hfa_requests",
        "gauge",
        "Requests by current status.",
        "status",
        session.execute(select(Request.status, func.count()).group_by(Request.status)),
    )
    out.grouped(
        "hfa_replies_recorded_total",
        "counter",
        "Human turns recorded, by kind (reply, approval, conditional_approval, rejection, "
        "question, decline, close).",
        "kind",
        session.execute(
            select(Turn.kind, func.count()).where(Turn.author == "human").group_by(Turn.kind)
        ),
    )
    out.grouped(
        "hfa_inbound_messages_total",
        "counter",
        "Inbound messages by outcome (none: not processed yet).",
        "outcome",
        session.execute(
            select(InboundMessage.outcome, func.count()).group_by(InboundMessage.outcome)
        ),
    )
    _outbox_metrics(out, session, now)
    _first_reply_histogram(out, session)
    size = session.scalar(select(func.max(AuditCheckpoint.tree_size)))
    out.family("hfa_audit_entries", "gauge", "Entries in the audit log's newest signed checkpoint.")
    out.sample("hfa_audit_entries", int(size or 0))
    _witness_metrics(out, session)
    return "\n".join(out.lines) + "\n"


def _witness_metrics(out: _Text, session: Session) -> None:
    newest = session.scalar(select(func.max(AuditCheckpoint.tree_size)))
    known = state.get(session, witness_report.WITNESSES)
    reports = witness_report.reports_of(known, int(newest or 0))
    if not reports:
        return
    out.family("hfa_audit_witness_lag", "gauge", "Entries the witness has not cosigned yet.")
    for r in reports:
        out.sample("hfa_audit_witness_lag", r.lag, witness=r.name)
    out.family("hfa_audit_witness_failing", "gauge", "1 when the witness's last answer failed.")
    for r in reports:
        out.sample("hfa_audit_witness_failing", 1 if r.error else 0, witness=r.name)


def _outbox_metrics(out: _Text, session: Session, now: datetime) -> None:
    out.grouped(
        "hfa_outbox_pending",
        "gauge",
        "Deliveries waiting in the outbox, by channel.",
        "channel",
        _by_channel(session, OutboxItem.state == "pending"),
    )
    oldest = session.scalar(
        select(func.min(OutboxItem.created_at)).where(OutboxItem.state == "pending")
    )
    out.family(
        "hfa_outbox_oldest_pending_age_seconds",
        "gauge",
        "Age of the oldest undelivered outbox item (0 when empty).",
    )
    age = max(0.0, (now - _aware(oldest)).total_seconds()) if oldest is not None else 0.0
    out.sample("hfa_outbox_oldest_pending_age_seconds", round(age, 3))
    out.grouped(
        "hfa_outbox_delayed",
        "gauge",
        "Deliveries not yet made whose last attempt failed (still retried), by channel.",
        "channel",
        _by_channel(session, OutboxItem.state == "pending", OutboxItem.last_error.is_not(None)),
    )
    out.grouped(
        "hfa_outbox_dead",
        "gauge",
        "Deliveries given up and not retried since ('hfa outbox retry'), by channel.",
        "channel",
        _by_channel(session, OutboxItem.state == "dead"),
    )
    out.grouped(
        "hfa_delivery_failures_total",
        "counter",
        "Deliveries that gave up (failed permanently, exhausted retries or bounced), by channel.",
        "channel",
        _by_channel(session, OutboxItem.state == "dead"),
    )
    out.family("hfa_webhook_failures_total", "counter", "Webhook deliveries that gave up.")
    out.sample(
        "hfa_webhook_failures_total",
        session.scalar(
            select(func.count()).where(OutboxItem.channel == "webhook", OutboxItem.state == "dead")
        )
        or 0,
    )


def _by_channel(session: Session, *where: ColumnElement[bool]) -> Result[Any]:
    """How many outbox items meet ``where``, per channel."""
    return session.execute(
        select(OutboxItem.channel, func.count()).where(*where).group_by(OutboxItem.channel)
    )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _first_reply_histogram(out: _Text, session: Session) -> None:
    name = "hfa_first_human_reply_seconds"
    out.family(name, "histogram", "Time from filing a request to the first human reply.")
    counts = [0] * len(REPLY_BUCKETS)
    total, n = 0.0, 0
    rows = session.execute(
        select(Request.received_at, Request.first_human_reply_at).where(
            Request.first_human_reply_at.is_not(None)
        )
    )
    for received, replied in rows:
        if replied is None:
            continue
        seconds = max(0.0, (replied - received).total_seconds())
        total += seconds
        n += 1
        for i, bound in enumerate(REPLY_BUCKETS):
            if seconds <= bound:
                counts[i] += 1
    for bound, count in zip(REPLY_BUCKETS, counts, strict=True):
        out.sample(f"{name}_bucket", count, le=str(bound))
    out.sample(f"{name}_bucket", n, le="+Inf")
    out.sample(f"{name}_sum", round(total, 3))
    out.sample(f"{name}_count", n)
