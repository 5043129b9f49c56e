"""Only entries the gateway's own transactions wrote are signed into the audit log.

Rows are written to the ``audit`` table as someone with the database (and not the
gateway's secret keys) would: with no MAC, a MAC of another key, a genuine row
copied, a genuine pending row edited. The sequencer refuses each (never a leaf),
reports it in the log itself (``audit.entry_refused``) and ``verify`` names it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select, update

from gateway.errors import StorageError
from gateway.services import Services, build_services
from gateway.store.audit_mac import EntryMacs
from gateway.store.models import AuditEntry
from tests import auditkit
from tests.conftest import make_config

AT = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
FORGED = {
    "at": AT,
    "event": "reply.recorded",
    "reference": "HFA-00001",
    "actor": "lawyer@firm.test",
    "details": {"kind": "approval", "decision": "approval"},
}


@pytest.fixture
def gateway(tmp_path: Path, database_url: str) -> Iterator[Services]:
    services = build_services(make_config(tmp_path, database_url=database_url))
    yield services
    services.close()


def genuine(services: Services, count: int = 2) -> None:
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "test.entry", at=AT, details={"i": i})


def insert_row(services: Services, **values: object) -> int:
    with services.db.transaction() as session:
        seq = session.execute(insert(AuditEntry).values(**values).returning(AuditEntry.seq))
        return int(seq.scalar_one())


def state(services: Services, seq: int) -> tuple[int | None, str | None]:
    with services.db.read_only() as session:
        row = session.get(AuditEntry, seq)
        assert row is not None
        return row.leaf_index, row.refused


def refusals(services: Services) -> list[dict[str, object]]:
    with services.db.read_only() as session:
        rows = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.event == "audit.entry_refused", AuditEntry.leaf_index.is_not(None))
            .order_by(AuditEntry.seq)
        )
        return [dict(row.details) for row in rows]


def forged_mac(services: Services) -> str:
    other = EntryMacs(("someone-else-key-0123456789abcdef",))
    return other.sign(AT, "reply.recorded", "HFA-00001", "lawyer@firm.test", FORGED["details"])


@pytest.mark.parametrize("mac", ["none", "garbage", "another key"])
def test_a_row_not_written_by_the_gateway_is_refused_and_reported(
    gateway: Services, mac: str
) -> None:
    genuine(gateway)
    values = dict(FORGED)
    if mac == "garbage":
        values["mac"] = "0123456789abcdef:" + "0" * 64
    elif mac == "another key":
        values["mac"] = forged_mac(gateway)
    seq = insert_row(gateway, **values)
    genuine(gateway)

    verdict = auditkit.verify(gateway)
    leaf, refused = state(gateway, seq)
    assert leaf is None and refused is not None and "no valid MAC" in refused
    # The genuine entries around it are in the tree; the forged one is not.
    assert verdict.leaves >= 4
    [report] = refusals(gateway)
    assert report["seq"] == seq and report["event"] == "reply.recorded"
    assert report["actor"] == "lawyer@firm.test"
    # verify names it: someone wrote to the audit table.
    [problem] = verdict.problems
    assert problem.kind == "inserted" and str(seq) in problem.where


def test_a_genuine_pending_entry_edited_before_integration_is_refused(gateway: Services) -> None:
    with gateway.db.transaction() as session:
        seq = gateway.audit.append(
            session, "reply.recorded", at=AT, actor="lawyer@firm.test", details={"kind": "reply"}
        )
    with gateway.db.transaction() as session:
        session.execute(
            update(AuditEntry).where(AuditEntry.seq == seq).values(details={"kind": "approval"})
        )
    auditkit.verify(gateway)
    assert state(gateway, seq)[0] is None
    assert [r["seq"] for r in refusals(gateway)] == [seq]


def test_a_genuine_row_copied_into_a_new_one_cannot_be_inserted(gateway: Services) -> None:
    genuine(gateway, 1)
    with gateway.db.read_only() as session:
        row = session.scalars(select(AuditEntry).where(AuditEntry.event == "test.entry")).one()
        copy = {
            "at": row.at,
            "event": row.event,
            "reference": row.reference,
            "actor": row.actor,
            "details": row.details,
            "mac": row.mac,
        }
    with pytest.raises(StorageError):
        insert_row(gateway, **copy)


def test_entries_of_the_gateway_are_integrated_and_verify_says_ok(gateway: Services) -> None:
    genuine(gateway, 5)
    verdict = auditkit.verify(gateway)
    assert verdict.problems == [] and verdict.pending == 0 and verdict.leaves == 5
    assert refusals(gateway) == []


def test_two_entries_of_the_same_content_are_both_kept(gateway: Services) -> None:
    """The nonce keeps two genuine entries written alike apart (the MAC column is unique)."""
    with gateway.db.transaction() as session:
        for _ in range(2):
            gateway.audit.append(session, "test.same", at=AT, details={"same": True})
    assert auditkit.verify(gateway).leaves == 2
