"""A bundle outlives a rewrite of the database; the rewritten log fails against its checkpoint.

A gateway runs on loopback (HTTP in, SMTP out to a relay and in from the lawyer);
the operator exports a thread with ``hfa evidence export``. Then the database is
rewritten the way someone holding the log's key would do it: the lawyer's
recorded decision changed in its audit entry, and the whole tree re-integrated
and re-signed, so the log agrees with itself again. The bundle still verifies,
offline; the log no longer contains the bundle's checkpoint.
"""

from __future__ import annotations

import asyncio
import hashlib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from gateway.evidence import report
from gateway.store.models import AuditCheckpoint, AuditEntry
from tests import auditkit
from tests.clienv import hfa, use_settings
from tests.conftest import Running
from tests.evidence.kit import all_sent, answered


def forge_the_decision(running: Running, reference: str) -> None:
    """Rewrite the recorded decision, then re-integrate and re-sign the whole tree."""
    # Nothing left for the gateway's sequencer first: a batch it is integrating while the
    # tree is rewritten would take its leaf numbers from the tree before the rewrite (on
    # PostgreSQL its UPDATE waits for the rewrite's, then goes on), and the forger's own
    # log would not agree with itself. A forger rewrites a log that is at rest.
    auditkit.settle(running.services)
    with running.services.db.transaction() as session:
        entry = (
            session.query(AuditEntry).filter_by(reference=reference, event="reply.recorded").one()
        )
        forged: dict[str, Any] = dict(entry.details) | {"decision": "rejection"}
        # A forger who holds the gateway's keys: the entry's MAC made again, so the
        # sequencer takes it (without them, it would refuse it: test_audit_authorship).
        macs = running.services.audit.macs
        mac = macs.sign(entry.at, entry.event, entry.reference, entry.actor, forged)
        session.execute(
            update(AuditEntry).where(AuditEntry.seq == entry.seq).values(details=forged, mac=mac)
        )
        session.execute(update(AuditEntry).values(leaf_index=None, leaf_hash=None))
        session.query(AuditCheckpoint).delete()
    auditkit.settle(running.services)


async def test_a_bundle_verifies_after_the_database_is_rewritten_and_the_log_fails_its_checkpoint(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filed = await answered(running, "May we settle with Initech for 40k?", "Approved.\n\nDana")
    await all_sent(running)
    reference = filed["reference"]
    bundle = tmp_path / f"{reference}.zip"
    use_settings(monkeypatch, running.services.config.raw)

    code, out = await asyncio.to_thread(
        hfa, capsys, "evidence", "export", reference, "-o", str(bundle)
    )
    assert code == 0, out
    assert "audit entries with their proofs" in out
    # The log says who exported which bundle.
    with running.services.db.read_only() as session:
        (exported,) = session.query(AuditEntry).filter_by(event="evidence.exported").all()
    with zipfile.ZipFile(bundle) as archive:
        manifest = archive.read("manifest.json")
    assert exported.reference == reference and exported.actor.startswith("ops:")
    assert exported.details["manifest_sha256"] == hashlib.sha256(manifest).hexdigest()
    if report.chromium() is not None:
        with zipfile.ZipFile(bundle) as archive:
            assert archive.read("report.pdf").startswith(b"%PDF-")
    code, out = await asyncio.to_thread(
        hfa, capsys, "audit", "verify", "--no-mirror", "--checkpoint", str(bundle)
    )
    assert code == 0, out

    await asyncio.to_thread(forge_the_decision, running, reference)
    # The forger's log agrees with itself: checked alone, it passes.
    code, out = await asyncio.to_thread(hfa, capsys, "audit", "verify", "--no-mirror")
    assert code == 0, out
    # Against the checkpoint the bundle carries, it fails.
    code, out = await asyncio.to_thread(
        hfa, capsys, "audit", "verify", "--no-mirror", "--checkpoint", str(bundle)
    )
    assert code == 1, out
    assert "FAILED saved checkpoint" in out, out
    # The bundle is whole on its own: it needs nothing of the database.
    code, out = await asyncio.to_thread(hfa, capsys, "evidence", "verify", str(bundle))
    assert code == 0, out
    assert f"OK: the evidence of {reference} is whole" in out


async def test_export_of_an_unknown_thread_says_so(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_settings(monkeypatch, running.services.config.raw)
    out_file = tmp_path / "x.zip"
    code, out = await asyncio.to_thread(
        hfa, capsys, "evidence", "export", "HFA-99999", "-o", str(out_file)
    )
    assert code == 3 and "no request HFA-99999" in out and not out_file.exists()
    code, out = await asyncio.to_thread(
        hfa, capsys, "evidence", "export", "nonsense", "-o", str(out_file)
    )
    assert code == 3 and "HFA-00042" in out
    code, out = await asyncio.to_thread(
        hfa, capsys, "evidence", "verify", str(tmp_path / "none.zip")
    )
    assert code == 1 and "not a readable bundle" in out and "Traceback" not in out
