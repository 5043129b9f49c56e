"""Upgrade in place: a database of the last release keeps verifying after ``hfa db upgrade``.

The previous release chained its entries (each hash over the entry and the one
before) under a head row. Migration 0005 checks that chain once, then makes its
entries the tree's first leaves; audit.jsonl lines it wrote stay valid.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import create_engine, insert, text

from gateway.cli import main
from gateway.contract import iso
from gateway.errors import StorageError
from gateway.services import build_services
from gateway.settings.config import Config
from gateway.store import checkpoint as notes
from gateway.store import merkle, schema, signing
from gateway.store.db import Database
from gateway.store.models import AuditEntry
from tests import auditkit
from tests.conftest import make_config

START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
GENESIS = "0" * 64
OLD_ENTRIES = 5


def _old_hash(entry: dict[str, Any]) -> str:
    """The previous release's entry hash: canonical JSON of the entry and prev_hash."""
    body = {
        k: entry[k] for k in ("seq", "at", "event", "reference", "actor", "details", "prev_hash")
    }
    return hashlib.sha256(
        json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()


def _last_release_database(config: Config, *, tamper: bool = False) -> None:
    """Schema 0004, a chain of five entries with its head row, and its mirror."""
    engine = create_engine(config.database_url)
    cfg, _ = schema._script()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004_hostile")
        prev, lines = GENESIS, []
        for seq in range(1, OLD_ENTRIES + 1):
            at = START + timedelta(minutes=seq)
            entry: dict[str, Any] = {
                "seq": seq,
                "at": iso(at),
                "event": "request.recorded",
                "reference": f"HFA-{seq:05d}",
                "actor": "agent:bot",
                "details": {"n": seq, "note": "ümlaut"},
                "prev_hash": prev,
            }
            entry["hash"] = _old_hash(entry)
            conn.execute(insert(AuditEntry).values({**entry, "at": at}))
            lines.append(json.dumps(entry, ensure_ascii=False) + "\n")
            prev = entry["hash"]
        conn.execute(
            text("UPDATE audit_head SET seq = :s, hash = :h WHERE id = 1"),
            {"s": OLD_ENTRIES, "h": prev},
        )
        if tamper:
            conn.execute(text("UPDATE audit SET actor = 'mallory' WHERE seq = 3"))
    engine.dispose()
    config.data_dir.mkdir(parents=True, exist_ok=True)
    (config.data_dir / "audit.jsonl").write_text("".join(lines), encoding="utf-8")


@pytest.fixture
def old_config(tmp_path: Path, database_url: str) -> Config:
    config = make_config(tmp_path / "var", database_url=database_url)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    return config


def test_the_old_chain_becomes_the_first_leaves_and_keeps_verifying(
    old_config: Config, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _last_release_database(old_config)
    db = Database(old_config.database_url)
    try:
        db.migrate()
    finally:
        db.dispose()
    services = build_services(old_config)
    try:
        for n in range(3):
            with services.db.transaction() as session:
                services.audit.append(
                    session, "reply.recorded", at=services.clock.now(), details={"n": n}
                )
        verdict = auditkit.verify(services)
        assert verdict.problems == [], verdict.problems
        assert verdict.leaves == OLD_ENTRIES + 3 and verdict.mirror_lines == OLD_ENTRIES + 3
        with services.db.read_only() as session:
            old = session.get(AuditEntry, 2)
            assert old is not None and old.leaf_index == 1 and old.hash is not None
            newest = session.get(AuditEntry, OLD_ENTRIES + 1)
            assert newest is not None and newest.leaf_index == OLD_ENTRIES
        # An old entry is proved like any other, its chain hashes inside its leaf.
        for name, value in old_config.raw.items():
            monkeypatch.setenv(f"HFA_{name.upper()}", value)
        capsys.readouterr()
        assert main(["audit", "proof", "2"]) == 0
        proof = json.loads(capsys.readouterr().out)
        keys = signing.load_keys(old_config.raw, old_config.data_dir).publics()
        checkpoint = notes.verify(proof["checkpoint"], keys)
        assert '"prev_hash"' in proof["leaf_data"]
        path = [base64.b64decode(h) for h in proof["inclusion_path"]]
        leaf = merkle.leaf_hash(proof["leaf_data"].encode())
        assert merkle.root_from_inclusion(1, checkpoint.size, leaf, path) == checkpoint.root
    finally:
        services.close()


def test_an_old_chain_that_does_not_verify_is_not_upgraded(old_config: Config) -> None:
    _last_release_database(old_config, tamper=True)
    db = Database(old_config.database_url)
    try:
        with pytest.raises(StorageError, match="does not verify at entry 3"):
            db.migrate()
        assert schema.current_revision(db.engine) == "0004_hostile"
    finally:
        db.dispose()
