"""The audit log as ops use it: verify, proof, anchor, key, mirror, and every tampering named."""

from __future__ import annotations

import base64
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from bench.audit import generate
from gateway.cli import main
from gateway.cli.output import EXIT_NOT_FOUND
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store import audit_check, merkle, signing
from gateway.store import checkpoint as notes
from gateway.store.audit import fields_of, leaf_hash_hex
from gateway.store.models import AuditEntry
from tests import auditkit
from tests.conftest import make_config

START = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
ENTRIES = 12


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, config: Config) -> Config:
    """The CLI sees the same settings as the services under test."""
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    for name, value in config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    return config


def fill(services: Services, count: int = ENTRIES, *, batches: int = 3) -> None:
    """Real appends, one transaction each, integrated in ``batches`` sequencer batches."""
    per_batch = max(1, count // batches)
    for n in range(1, count + 1):
        with services.db.transaction() as session:
            services.audit.append(
                session,
                "email.sent" if n % 2 else "reply.recorded",
                at=START + timedelta(minutes=n),
                actor="system" if n % 2 else "counsel@lawfirm.example",
                reference=f"HFA-{n % 3 + 1:05d}",
                details={"n": n, "relay": "250 OK", "note": "ümlaut"},
            )
        if n % per_batch == 0:
            auditkit.settle(services)
    auditkit.settle(services)


def verify_cli(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["audit", "verify", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def sql(services: Services, statement: str, **params: Any) -> None:
    with services.db.engine.begin() as conn:
        conn.execute(text(statement), params)


def problem(report: dict[str, Any], source: str = "database") -> dict[str, Any]:
    found: list[dict[str, Any]] = [p for p in report["problems"] if p["source"] == source]
    assert found, report
    return found[0]


def _covers(where: str, leaf: int) -> bool:
    """Whether ``leaves A..B`` names a range holding ``leaf``."""
    first, _, last = where.removeprefix("leaves ").partition("..")
    return where.startswith("leaves ") and int(first) <= leaf <= int(last)


def snapshot(services: Services) -> tuple[bytes, list[Any]]:
    """The mirror's bytes and every audit row: what a verifier must leave as it found."""
    path = services.config.data_dir / "audit.jsonl"
    with services.db.engine.connect() as conn:
        rows = list(conn.execute(text("SELECT * FROM audit ORDER BY seq")))
        rows += list(conn.execute(text("SELECT * FROM audit_checkpoints ORDER BY tree_size")))
    return path.read_bytes(), rows


def test_an_untouched_log_verifies_and_the_verifier_writes_nothing(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    before = snapshot(services)
    code, report = verify_cli(capsys)
    assert code == 0, report
    assert report["leaves"] == report["tree_size"] == ENTRIES
    assert report["checkpoints"] >= 3 and report["mirror_lines"] == ENTRIES
    assert snapshot(services) == before


def test_a_saved_checkpoint_is_checked_by_a_consistency_proof(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fill(services, 6)
    saved = tmp_path / "checkpoint.txt"
    assert main(["audit", "anchor", "--out", str(saved)]) == 0
    fill(services, 6)  # the log grows after the checkpoint was saved
    code, report = verify_cli(capsys, "--checkpoint", str(saved))
    assert code == 0, report
    assert notes.parse(saved.read_text())[0].size == 6 and report["tree_size"] == 12


def test_a_log_rewritten_from_scratch_with_a_new_key_is_caught_by_a_saved_checkpoint(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fill(services, 6)
    saved = tmp_path / "checkpoint.txt"
    assert main(["audit", "anchor", "--out", str(saved)]) == 0
    capsys.readouterr()
    assert main(["audit", "key"]) == 0
    old_key = capsys.readouterr().out.strip()
    # The operator rewrites everything: every entry and checkpoint, under a new key.
    sql(services, "DELETE FROM audit_checkpoints")
    sql(services, "DELETE FROM audit")
    (services.config.data_dir / "audit.jsonl").unlink()
    (services.config.data_dir / signing.KEY_FILE).unlink()
    for n in range(6):
        with services.db.transaction() as session:
            services.audit.append(session, "email.sent", at=START, details={"n": n, "forged": 1})
    auditkit.settle(services)
    code, report = verify_cli(capsys)
    assert code == 0, report  # on its own, a consistent forgery
    code, report = verify_cli(capsys, "--checkpoint", str(saved))
    assert code == 1
    found = problem(report, "saved checkpoint")
    assert found["kind"] == "unsigned" and "not a key this log holds" in found["detail"]
    # With the key published earlier, the rewriting itself is named.
    code, report = verify_cli(capsys, "--checkpoint", str(saved), "--key", old_key)
    assert code == 1
    found = problem(report, "saved checkpoint")
    assert found["kind"] == "rewritten" and found["where"] == "checkpoint 6"


def test_an_edited_entry_is_named(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    sql(services, "UPDATE audit SET actor = 'mallory' WHERE seq = 5")
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report)
    assert found["where"] == "entry 5 (leaf 4)" and found["kind"] == "altered"


def test_an_entry_edited_with_its_leaf_hash_is_caught_by_its_checkpoint(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    with services.db.read_only() as session:
        entry = session.get(AuditEntry, 9)
        assert entry is not None
        digest = leaf_hash_hex({**fields_of(entry), "actor": "mallory"})
    sql(services, "UPDATE audit SET actor = 'mallory', leaf_hash = :h WHERE seq = 9", h=digest)
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report)
    # The batch that held it (its bounds depend on how the entries were batched).
    assert found["kind"] == "altered" and _covers(found["where"], 8)
    assert "checkpoint" in found["detail"]


def test_a_deleted_entry_is_named(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    sql(services, "DELETE FROM audit WHERE seq = 7")
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report)
    assert found["kind"] == "removed" and found["where"] == "leaf 6"


def test_the_last_entries_deleted_are_named(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    sql(services, "DELETE FROM audit WHERE seq >= 11")
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report)
    assert found["kind"] == "removed" and found["where"] == "leaves 10..11"


def test_reordered_entries_are_caught_in_their_batch(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    # Entries 2 and 3 swap places in the tree, each with its own leaf hash.
    sql(services, "UPDATE audit SET leaf_index = -1 WHERE seq = 2")
    sql(services, "UPDATE audit SET leaf_index = 1 WHERE seq = 3")
    sql(services, "UPDATE audit SET leaf_index = 2 WHERE seq = 2")
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report)
    assert _covers(found["where"], 1) and _covers(found["where"], 2)
    assert "reordered" in found["detail"]


def test_an_inserted_entry_is_named(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    # A forged entry given the next leaf, with its right leaf hash, but no checkpoint.
    with services.db.transaction() as session:
        services.audit.append(session, "reply.recorded", at=START, actor="mallory")
    with services.db.read_only() as session:
        forged = session.scalars(select(AuditEntry).where(AuditEntry.actor == "mallory")).one()
        digest = leaf_hash_hex(fields_of(forged))
    sql(
        services,
        "UPDATE audit SET leaf_index = 12, leaf_hash = :h WHERE actor = 'mallory'",
        h=digest,
    )
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report)
    assert found["kind"] == "inserted" and found["where"] == "leaves 12..12"


def test_an_altered_checkpoint_is_named(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    with services.db.engine.connect() as conn:
        size, note = conn.execute(
            text("SELECT tree_size, note FROM audit_checkpoints ORDER BY tree_size LIMIT 1")
        ).one()
    lines = note.split("\n")
    lines[1] = str(size - 1)  # the note now claims one entry fewer
    sql(
        services,
        "UPDATE audit_checkpoints SET note = :n WHERE tree_size = :s",
        n="\n".join(lines),
        s=size,
    )
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1
    found = problem(report, "checkpoint")
    assert found["where"] == f"checkpoint {size}" and "does not verify" in found["detail"]


def _rewrite_lines(path: Path, change: Callable[[list[str]], list[str]]) -> None:
    path.write_text("\n".join(change(path.read_text().splitlines())) + "\n")


@pytest.mark.parametrize(
    ("change", "where", "kind"),
    [
        (lambda ls: [*ls[:3], ls[3].replace("250 OK", "550"), *ls[4:]], "leaf 3", "altered"),
        (lambda ls: ls[:3] + ls[4:], "leaf 3", "removed"),
        (lambda ls: [*ls[:3], ls[4], ls[3], *ls[5:]], "leaf 3", "reordered"),
        (lambda ls: [*ls[:3], ls[3].replace("250 OK", "x"), *ls[3:]], "leaf 3", "altered"),
    ],
)
def test_tampering_with_the_mirror_names_the_line(
    services: Services,
    cli_env: Config,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[list[str]], list[str]],
    where: str,
    kind: str,
) -> None:
    fill(services)
    _rewrite_lines(services.config.data_dir / "audit.jsonl", change)
    code, report = verify_cli(capsys)
    assert code == 1
    found = problem(report, "mirror")
    assert found["where"] == where and found["kind"] == kind
    assert found["line"] == 4


def test_a_mirror_that_lags_is_reported_and_completed_only_when_asked(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    path = services.config.data_dir / "audit.jsonl"
    _rewrite_lines(path, lambda ls: ls[:-2])
    code, report = verify_cli(capsys)
    assert code == 0, report
    assert report["mirror_behind"] == 2
    assert len(path.read_text().splitlines()) == ENTRIES - 2  # verify wrote nothing
    assert main(["audit", "mirror"]) == 0
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["leaf_index"] for x in lines] == list(range(ENTRIES))


def test_the_next_batch_fills_a_gap_and_a_torn_line(services: Services) -> None:
    fill(services, 3, batches=1)
    path = services.config.data_dir / "audit.jsonl"
    path.write_text(path.read_text()[:-20])  # a crash mid-write
    fill(services, 2, batches=1)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["leaf_index"] for x in lines] == [0, 1, 2, 3, 4]
    assert auditkit.verify(services).problems == []


def test_a_proof_proves_one_entry_against_the_signed_checkpoint(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    capsys.readouterr()
    assert main(["audit", "key"]) == 0
    name, public = notes.parse_verifier_key(capsys.readouterr().out.strip())
    assert main(["audit", "proof", "7"]) == 0
    proof = json.loads(capsys.readouterr().out)
    # What an outsider does with it, holding the published key and nothing else.
    checkpoint = notes.verify(proof["checkpoint"], [(name, public)])
    leaf = merkle.leaf_hash(proof["leaf_data"].encode())
    path = [base64.b64decode(h) for h in proof["inclusion_path"]]
    assert len(path) <= 4
    root = merkle.root_from_inclusion(proof["leaf_index"], checkpoint.size, leaf, path)
    assert root == checkpoint.root and proof["entry"]["seq"] == 7
    assert main(["audit", "proof", "999"]) == EXIT_NOT_FOUND
    assert "no audit entry 999" in capsys.readouterr().err


def test_a_rotated_key_signs_and_the_old_checkpoints_still_verify(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services, 4, batches=1)
    capsys.readouterr()
    assert main(["audit", "key"]) == 0
    first = capsys.readouterr().out.strip()
    assert main(["audit", "key", "--rotate", "--all"]) == 0
    keys = capsys.readouterr().out.split()
    assert keys[0] != first and keys[1] == first
    fill(services, 4, batches=1)
    code, report = verify_cli(capsys)
    assert code == 0, report
    with services.db.engine.connect() as conn:
        newest = conn.execute(
            text("SELECT note FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1")
        ).scalar_one()
    notes.verify(str(newest), [notes.parse_verifier_key(keys[0])])


def test_tail_shows_readable_lines_with_their_leaf_and_filters(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    capsys.readouterr()
    assert main(["audit", "tail", "-n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[-1].startswith("2026-11-30 08:12:00Z") and "reply.recorded" in lines[-1]
    assert "@11" in lines[-1] and "HFA-00001" in lines[-1] and "relay=250 OK" in lines[-1]

    assert main(["audit", "tail", "--reference", "hfa-00002", "--json", "-n", "100"]) == 0
    entries = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert entries and {e["reference"] for e in entries} == {"HFA-00002"}
    assert set(entries[0]) == {"leaf_index", "seq", "at", "event", "reference", "actor", "details"}

    assert main(["audit", "tail", "--since", "2026-11-30T08:10:00Z", "--json"]) == 0
    seqs = [json.loads(x)["seq"] for x in capsys.readouterr().out.splitlines()]
    assert seqs == [10, 11, 12]
    assert main(["audit", "tail", "--since", "yesterday-ish"]) == 2


def test_tail_follow_prints_entries_written_by_another_process(
    services: Services, cli_env: Config
) -> None:
    fill(services, 2)
    follower = subprocess.Popen(
        [sys.executable, "-m", "gateway", "audit", "tail", "-f", "--json", "--interval", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert follower.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = follower.stdout

    def pump() -> None:
        for line in stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()

    def next_seq() -> int:
        seq: int = json.loads(lines.get(timeout=15))["seq"]
        return seq

    try:
        assert [next_seq(), next_seq()] == [1, 2]
        fill(services, 2)
        assert [next_seq(), next_seq()] == [3, 4]
    finally:
        follower.terminate()
        follower.wait(timeout=10)


def test_reading_commands_refuse_a_missing_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "nothing-here"
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HFA_DATA_DIR", str(empty))
    for argv in (["audit", "verify"], ["audit", "tail"], ["audit", "proof", "1"]):
        assert main(argv) == 2
        assert "no gateway database at" in capsys.readouterr().err
    assert not (empty / "gateway.db").exists()


def test_verify_streams_a_generated_log_and_real_batches_continue_it(tmp_path: Path) -> None:
    """A small version of the million-entry measurement (bench/audit.py)."""
    services = build_services(make_config(tmp_path))
    try:
        keys = signing.load_keys(services.config.raw, services.config.data_dir)
        mirror = services.config.data_dir / "audit.jsonl"
        with services.db.transaction() as session:
            generate(session, 5_000, start=START, mirror=mirror, keys=keys)
        with services.db.read_only() as session:
            verdict = audit_check.verify(session, keys.publics(), mirror=mirror)
        assert verdict.problems == [] and verdict.leaves == 5_000
        assert verdict.mirror_lines == 5_000
        fill(services, 2)
        assert auditkit.verify(services).problems == []
    finally:
        services.close()
