"""The right to erasure against an append-only log, on a running gateway (SQLite and PostgreSQL).

A request is filed over HTTP, the lawyer answers over SMTP with a large attachment (kept
apart in chunks), the operator closes it and exports its evidence bundle. Then
``hfa requests erase``: every text of it is gone from the database (its rows, its freed
space, its write-ahead log), from audit.jsonl and from a backup made afterwards, while
``hfa audit verify`` passes, the bundle made before still verifies against the log, and
the thread says what was erased, when, by whom and why.
"""

from __future__ import annotations

import asyncio
import gzip
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from gateway.store.audit import ERASURE_EVENT, is_erased_entry
from gateway.store.models import AuditEntry
from tests import auditkit
from tests.clienv import hfa, use_settings
from tests.conftest import Running
from tests.evidence.kit import all_sent
from tests.mailkit import reply_to, send

ASK = "May we settle the quokka-settlement-4417 dispute with Initech?"
CONTEXT = "The client wallaby-context-9921 wants it closed this quarter."
ANSWER = "Approved, subject to numbat-condition-5530 being signed first."
ATTACHED = "dingo-attachment-8812 signed scan line\n" * 9000  # over 256 KB: kept apart
FILENAME = "echidna-filename-6107.txt"
SECRETS = (
    "quokka-settlement-4417",
    "wallaby-context-9921",
    "numbat-condition-5530",
    "dingo-attachment-8812",
    "echidna-filename-6107",
    "kookaburra-reason-3391",
    "platypus-agent-2270",
)
# Texts the audit log itself carried: a close reason naming the matter, the agent's name.
CLOSED_BECAUSE = "the kookaburra-reason-3391 matter ended"


def _found(blob: bytes) -> set[str]:
    """The secrets ``blob`` holds, as text or as PostgreSQL's hex of a bytea."""
    lowered = blob.lower()
    return {s for s in SECRETS if s.encode() in blob or s.encode().hex().encode() in lowered}


def _database_bytes(running: Running, tmp_path: Path) -> bytes:
    """Everything the database holds: SQLite's files as they are on disk (freed pages and
    the write-ahead log included), or every row of every PostgreSQL table as text."""
    url = running.services.config.database_url
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        return b"".join(
            p.read_bytes() for p in (path, path.with_name(path.name + "-wal")) if p.exists()
        )
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            chunks: list[bytes] = []
            for table in inspect(conn).get_table_names():
                rows = conn.execute(text(f'SELECT t::text FROM "{table}" t'))
                chunks.extend(row[0].encode() for row in rows)
    finally:
        engine.dispose()
    return b"\n".join(chunks)


def _backup_bytes(backup: Path) -> bytes:
    out = b""
    for path in sorted(backup.iterdir()):
        if path.name == "gateway.pgdump":
            # The custom format is compressed: read back as the SQL a restore would run.
            out += subprocess.run(
                ["pg_restore", "-f", "-", str(path)], capture_output=True, check=True, timeout=60
            ).stdout
        else:
            out += path.read_bytes()
    return out


def _rotate(mirror: Path) -> tuple[Path, Path]:
    """audit.jsonl renamed to audit.jsonl.1 (the writer starts a new file from where it had
    reached), and a compressed copy of it as an older generation, audit.jsonl.2.gz."""
    rotated = mirror.with_name(mirror.name + ".1")
    mirror.rename(rotated)
    compressed = mirror.with_name(mirror.name + ".2.gz")
    compressed.write_bytes(gzip.compress(rotated.read_bytes()))
    return rotated, compressed


async def _answered_with_attachment(running: Running) -> dict[str, str]:
    filed = await running.file(request=ASK, context=CONTEXT, agent_name="platypus-agent-2270")
    emails = await running.sink.wait_for(1)
    reply = reply_to(emails[0], ANSWER)
    reply.add_attachment(ATTACHED, subtype="plain", filename=FILENAME)
    await send(reply, running.smtp_port)
    await running.wait_status(filed, lambda s: s["human_has_replied"])
    return filed


async def test_a_closed_request_erased_leaves_no_text_and_a_log_that_verifies(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filed = await _answered_with_attachment(running)
    reference = filed["reference"]
    use_settings(monkeypatch, running.services.config.raw)
    code, out = await asyncio.to_thread(
        hfa, capsys, "requests", "erase", reference, "--reason", "x"
    )
    assert code == 1 and "close it first" in out, out
    code, out = await asyncio.to_thread(
        hfa, capsys, "requests", "close", reference, "--reason", CLOSED_BECAUSE
    )
    assert code == 0, out
    await all_sent(running)
    await asyncio.to_thread(auditkit.settle, running.services)
    bundle = tmp_path / "before.zip"
    code, out = await asyncio.to_thread(
        hfa, capsys, "evidence", "export", reference, "-o", str(bundle), "--no-pdf"
    )
    assert code == 0, out
    # Before: the texts are there, where the search below looks (so it can fail).
    assert _found(_database_bytes(running, tmp_path)) == set(SECRETS)
    assert _found(auditkit.mirror_text(running.services).encode()) == {
        "kookaburra-reason-3391",
        "platypus-agent-2270",
    }
    # The mirror rotated as logrotate does: renamed, an older copy compressed.
    mirror = running.services.audit.mirror
    assert mirror is not None
    rotated, compressed = _rotate(mirror)
    assert _found(rotated.read_bytes()) == _found(gzip.decompress(compressed.read_bytes()))
    assert _found(rotated.read_bytes())

    reason = "erasure asked by the client (GDPR art. 17), ticket 881"
    code, out = await asyncio.to_thread(
        hfa, capsys, "requests", "erase", reference, "--reason", reason, "--by", "privacy-desk"
    )
    assert code == 0, out
    assert f"{reference} erased: " in out and "1 messages, 1 attachments" in out, out

    verdict = await asyncio.to_thread(auditkit.verify, running.services)
    assert not verdict.problems, verdict.problems
    assert verdict.erased
    code, out = await asyncio.to_thread(hfa, capsys, "audit", "verify")
    assert code == 0 and "OK" in out, out
    assert f"; {len(verdict.erased)} erased entries checked by their leaf hashes" in out
    # The bundle made before is whole, and the log still holds its checkpoint.
    code, out = await asyncio.to_thread(hfa, capsys, "evidence", "verify", str(bundle))
    assert code == 0 and f"OK: the evidence of {reference} is whole" in out, out
    code, out = await asyncio.to_thread(hfa, capsys, "audit", "verify", "--checkpoint", str(bundle))
    assert code == 0, out

    # Nowhere: the database, the mirror, a backup made after.
    assert _found(_database_bytes(running, tmp_path)) == set()
    assert _found(auditkit.mirror_text(running.services).encode()) == set()
    assert _found(rotated.read_bytes()) == set()
    assert _found(gzip.decompress(compressed.read_bytes())) == set()
    backup = tmp_path / "backup"
    code, out = await asyncio.to_thread(hfa, capsys, "backup", str(backup))
    assert code == 0, out
    assert _found(_backup_bytes(backup)) == set()

    # The log keeps hashes and references; the erasure entry names what it emptied.
    with running.services.db.read_only() as session:
        entries = session.query(AuditEntry).filter_by(reference=reference).all()
    (erased,) = [e for e in entries if e.event == ERASURE_EVENT]
    others = [e for e in entries if e.seq < erased.seq]
    assert others and all(is_erased_entry(e.details) for e in others)
    assert set(erased.details["entries"]) >= {e.seq for e in others}
    assert erased.details["reason"] == reason and erased.actor == "ops:privacy-desk"

    # The thread says what was erased, when and why; the agent reads it.
    status = await running.status(filed)
    last = status["turns"][-1]
    assert last["author"] == "system" and last["kind"] == "erased", last
    assert reason in last["body"] and "privacy-desk" in last["body"]
    assert all(s not in str(status) for s in SECRETS)
    # A new bundle would prove nothing that is left: refused, saying why.
    code, out = await asyncio.to_thread(
        hfa, capsys, "evidence", "export", reference, "-o", str(tmp_path / "after.zip")
    )
    assert code == 1 and "erased" in out, out
    # Run again: nothing more to erase, said plainly.
    code, out = await asyncio.to_thread(
        hfa, capsys, "requests", "erase", reference, "--reason", reason
    )
    assert code == 0 and "already erased" in out, out


async def test_an_entry_emptied_without_an_erasure_entry_fails_verify(
    running: Running,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filed = await running.file(request=ASK)
    await all_sent(running)
    await asyncio.to_thread(auditkit.settle, running.services)
    with running.services.db.transaction() as session:
        entry = session.query(AuditEntry).filter_by(reference=filed["reference"]).first()
        assert entry is not None
        entry.details = {"erased_sha256": "0" * 64}
    use_settings(monkeypatch, running.services.config.raw)
    code, out = await asyncio.to_thread(hfa, capsys, "audit", "verify", "--no-mirror")
    assert code == 1, out
    assert "no request.erased entry names it" in out, out
