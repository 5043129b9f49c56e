"""The audit log as ops use it: tail, anchor, verify, and tampering caught at the first bad entry."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bench.audit import generate
from gateway.cli import main
from gateway.config import Config
from gateway.contract import iso
from gateway.services import Services, build_services
from gateway.store import audit, audit_check
from tests.budget import cpu_budget
from tests.conftest import (
    POSTGRES_URL,
    _create_postgres_database,
    _drop_postgres_database,
    make_config,
)

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


def fill(services: Services, count: int = ENTRIES) -> None:
    """Real appends, one transaction each, so the mirror is written as in production."""
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


def verify_cli(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["audit", "verify", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def sql(services: Services, statement: str, **params: Any) -> None:
    with services.db.engine.begin() as conn:
        conn.execute(text(statement), params)


def row(services: Services, seq: int) -> dict[str, Any]:
    with services.db.engine.connect() as conn:
        found = conn.execute(text("SELECT * FROM audit WHERE seq = :s"), {"s": seq}).mappings()
        return dict(found.one())


def test_an_untouched_log_verifies_with_its_mirror_and_anchor(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    code, report = verify_cli(capsys)
    assert code == 0, report
    assert report["entries"] == ENTRIES and report["mirror_lines"] == ENTRIES
    assert report["problems"] == []

    assert main(["audit", "anchor"]) == 0
    anchor = capsys.readouterr().out.strip()
    seq, _, digest = anchor.partition(":")
    assert int(seq) == ENTRIES and len(digest) == 64

    fill(services, 3)  # the log grows; it still extends the anchor
    code, report = verify_cli(capsys, "--anchor", anchor)
    assert code == 0 and report["entries"] == ENTRIES + 3

    code, report = verify_cli(capsys, "--anchor", f"{seq}:{'0' * 64}")
    assert code == 1
    assert report["problems"][0]["seq"] == ENTRIES
    assert report["problems"][0]["kind"] == "rewritten"


def test_an_anchor_catches_a_chain_rewritten_from_scratch(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    main(["audit", "anchor"])
    anchor = capsys.readouterr().out.strip()
    # Rebuild the whole chain with one entry changed, every hash recomputed: only the anchor
    # (kept elsewhere) can tell.
    sql(services, "DELETE FROM audit")
    sql(services, "DELETE FROM audit_head")
    (services.config.data_dir / "audit.jsonl").unlink()
    with services.db.transaction() as session:
        generate(session, ENTRIES, start=START)
    code, report = verify_cli(capsys, "--anchor", anchor)
    assert code == 1
    assert report["problems"][0]["kind"] == "rewritten"


def _swap(services: Services, a: int, b: int) -> None:
    ra, rb = row(services, a), row(services, b)
    cols = ["at", "event", "reference", "actor", "details", "prev_hash", "hash"]
    sets = ", ".join(f"{c} = :{c}" for c in cols)
    for target, source in ((a, rb), (b, ra)):
        values = {c: source[c] for c in cols}
        if not isinstance(values["details"], str):
            values["details"] = json.dumps(values["details"])
        statement = f"UPDATE audit SET {sets} WHERE seq = :seq"
        if services.db.is_sqlite:
            sql(services, statement, seq=target, **values)
        else:
            sql(
                services,
                statement.replace(":details", "CAST(:details AS JSON)"),
                seq=target,
                **values,
            )


def _insert_forged_after_head(services: Services) -> None:
    head = row(services, ENTRIES)
    at = START + timedelta(hours=1)
    details = {"forged": True}
    digest = audit.entry_hash(
        ENTRIES + 1, iso(at), "reply.recorded", None, "x@y", details, head["hash"]
    )
    cast = "CAST(:d AS JSON)" if not services.db.is_sqlite else ":d"
    sql(
        services,
        "INSERT INTO audit (seq, at, event, reference, actor, details, prev_hash, hash) "
        f"VALUES (:s, :at, 'reply.recorded', NULL, 'x@y', {cast}, :p, :h)",
        s=ENTRIES + 1,
        at=at if not services.db.is_sqlite else at.strftime("%Y-%m-%d %H:%M:%S.%f"),
        d=json.dumps(details),
        p=head["hash"],
        h=digest,
    )


@pytest.mark.parametrize(
    ("tamper", "first_bad", "kinds"),
    [
        ("edit", 5, {"altered"}),
        ("delete", 5, {"removed"}),
        ("insert", ENTRIES + 1, {"inserted"}),
        ("swap", 5, {"altered"}),
        ("edit_prev_hash", 7, {"altered"}),
        ("delete_last", ENTRIES, {"removed"}),
    ],
)
def test_tampering_with_the_database_names_the_first_bad_entry(
    services: Services,
    cli_env: Config,
    capsys: pytest.CaptureFixture[str],
    tamper: str,
    first_bad: int,
    kinds: set[str],
) -> None:
    fill(services)
    if tamper == "edit":
        sql(services, "UPDATE audit SET actor = 'mallory' WHERE seq = 5")
        sql(services, "UPDATE audit SET actor = 'mallory' WHERE seq = 9")
    elif tamper == "delete":
        sql(services, "DELETE FROM audit WHERE seq IN (5, 8)")
    elif tamper == "insert":
        _insert_forged_after_head(services)
    elif tamper == "swap":
        _swap(services, 5, 6)
    elif tamper == "edit_prev_hash":
        sql(services, "UPDATE audit SET prev_hash = :h WHERE seq = 7", h="1" * 64)
    elif tamper == "delete_last":
        sql(services, "DELETE FROM audit WHERE seq = :s", s=ENTRIES)
    code, report = verify_cli(capsys, "--no-mirror")
    assert code == 1, report
    problem = report["problems"][0]
    assert problem["source"] == "database"
    assert problem["seq"] == first_bad, problem
    assert problem["kind"] in kinds, problem
    capsys.readouterr()
    assert main(["audit", "verify", "--no-mirror"]) == 1
    assert f"entry {first_bad}" in capsys.readouterr().out
    # With the mirror: the mirror is judged only as far as the database could be read.
    code, report = verify_cli(capsys)
    assert code == 1 and report["problems"][0] == problem
    for extra in report["problems"][1:]:
        assert extra["source"] == "mirror" and extra["seq"] <= first_bad, extra


def test_a_forged_entry_inserted_mid_chain_is_named_by_the_mirror(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    # Shift entries 5.. up by one and forge a well-formed entry 5 chained to entry 4.
    for seq in range(ENTRIES, 4, -1):
        sql(services, "UPDATE audit SET seq = :n WHERE seq = :o", n=seq + 1, o=seq)
    sql(services, "UPDATE audit_head SET seq = :s", s=ENTRIES + 1)
    four = row(services, 4)
    at = START + timedelta(minutes=4, seconds=30)
    digest = audit.entry_hash(5, iso(at), "reply.recorded", None, "x@y", {}, four["hash"])
    cast = "CAST('{}' AS JSON)" if not services.db.is_sqlite else "'{}'"
    sql(
        services,
        "INSERT INTO audit (seq, at, event, reference, actor, details, prev_hash, hash) "
        f"VALUES (5, :at, 'reply.recorded', NULL, 'x@y', {cast}, :p, :h)",
        at=at if not services.db.is_sqlite else at.strftime("%Y-%m-%d %H:%M:%S.%f"),
        p=four["hash"],
        h=digest,
    )
    code, report = verify_cli(capsys)
    assert code == 1
    by_source = {p["source"]: p for p in report["problems"]}
    assert by_source["database"]["seq"] == 6  # the first entry whose hash no longer holds
    assert by_source["mirror"]["seq"] == 5 and by_source["mirror"]["line"] == 5


def _rewrite_lines(path: Path, change: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(change(lines)), encoding="utf-8")


def _edit_line(lines: list[str]) -> list[str]:
    entry = json.loads(lines[4])
    entry["details"]["relay"] = "550 rejected"
    lines[4] = json.dumps(entry) + "\n"
    return lines


def _forged_line(lines: list[str]) -> list[str]:
    entry = json.loads(lines[4]) | {"seq": 99, "actor": "mallory"}
    return [*lines[:4], json.dumps(entry) + "\n", *lines[4:]]


@pytest.mark.parametrize(
    ("change", "seq", "line", "kind"),
    [
        (_edit_line, 5, 5, "altered"),
        (lambda ls: ls[:4] + ls[5:], 5, 5, "removed"),
        (_forged_line, 99, 5, "inserted"),
        (lambda ls: [*ls[:4], ls[5], ls[4], *ls[6:]], 5, 5, "reordered"),
        (lambda ls: [*ls, ls[2]], 3, ENTRIES + 1, "inserted"),
        (lambda ls: [*ls[:6], "not json\n", *ls[6:]], None, 7, "altered"),
    ],
    ids=["edit", "delete", "insert", "swap", "duplicate", "garbage"],
)
def test_tampering_with_the_mirror_names_the_first_bad_line(
    services: Services,
    cli_env: Config,
    capsys: pytest.CaptureFixture[str],
    change: Any,
    seq: int | None,
    line: int | None,
    kind: str,
) -> None:
    fill(services)
    _rewrite_lines(services.config.data_dir / "audit.jsonl", change)
    code, report = verify_cli(capsys)
    assert code == 1, report
    [problem] = report["problems"]  # the database itself is intact
    assert (problem["source"], problem["seq"], problem["kind"]) == ("mirror", seq, kind), problem
    if line is not None:
        assert problem["line"] == line


def test_tail_shows_readable_lines_and_filters(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(services)
    capsys.readouterr()
    assert main(["audit", "tail", "-n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[-1].startswith("2026-11-30 08:12:00Z") and "reply.recorded" in lines[-1]
    assert "HFA-00001" in lines[-1] and "counsel@lawfirm.example" in lines[-1]
    assert "relay=250 OK" in lines[-1]

    assert main(["audit", "tail", "--reference", "hfa-00002", "--json", "-n", "100"]) == 0
    entries = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert entries and {e["reference"] for e in entries} == {"HFA-00002"}
    assert set(entries[0]) == {
        "seq", "at", "event", "reference", "actor", "details", "prev_hash", "hash"
    }  # fmt: skip

    assert main(["audit", "tail", "--event", "email.*", "--json", "-n", "100"]) == 0
    events = {json.loads(x)["event"] for x in capsys.readouterr().out.splitlines()}
    assert events == {"email.sent"}

    assert main(["audit", "tail", "--since", "2026-11-30T08:10:00Z", "--json"]) == 0
    seqs = [json.loads(x)["seq"] for x in capsys.readouterr().out.splitlines()]
    assert seqs == [10, 11, 12]

    assert main(["audit", "tail", "--since", "yesterday-ish"]) == 2
    assert "--since" in capsys.readouterr().err


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
        fill(services, 2)  # this process appends; the follower reads them from the database
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
    for argv in (["audit", "verify"], ["audit", "tail"], ["requests", "list"], ["outbox", "list"]):
        assert main(argv) == 2
        assert "no database at" in capsys.readouterr().err
    assert not (empty / "gateway.db").exists()


@pytest.mark.postgres
def test_reading_commands_name_an_unreachable_postgresql_database(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    if not POSTGRES_URL:
        pytest.skip("HFA_TEST_POSTGRES_URL is not set")
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HFA_DATA_DIR", str(tmp_path))
    url = POSTGRES_URL.rpartition("/")[0].replace("postgres@", "postgres:hunter2-secret@")
    monkeypatch.setenv("HFA_DATABASE_URL", f"{url}/hfa_no_such_database")
    assert main(["audit", "tail"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the database at" in err and "hfa_no_such_database" in err
    assert "hunter2-secret" not in err


def test_verify_streams_a_generated_log(tmp_path: Path) -> None:
    """A small version of the million-entry measurement (see bench/audit_verify.py)."""
    from gateway.services import build_services

    services = build_services(make_config(tmp_path))
    try:
        mirror = services.config.data_dir / "audit.jsonl"
        with services.db.transaction() as session:
            generate(session, 5_000, start=START, mirror=mirror)
        with cpu_budget(30.0), services.db.reading() as session:
            verdict = audit_check.verify(session, mirror=mirror)
        assert verdict.problems == [] and verdict.entries == 5_000
        assert verdict.mirror_lines == 5_000
        fill(services, 1)  # real appends continue the generated chain
        with services.db.reading() as session:
            assert audit_check.verify(session, mirror=mirror).problems == []
    finally:
        services.close()


def test_a_mirror_that_lags_behind_is_completed_not_reported_as_tampering(
    services: Services, cli_env: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    # A process killed between its commit and its mirror line leaves the mirror short.
    fill(services)
    _rewrite_lines(services.config.data_dir / "audit.jsonl", lambda ls: ls[:-2])
    code, report = verify_cli(capsys)
    assert code == 0, report
    assert report["mirror_lines"] == ENTRIES
    assert len((services.config.data_dir / "audit.jsonl").read_text().splitlines()) == ENTRIES


def test_the_next_write_fills_a_gap_left_by_a_process_that_died(services: Services) -> None:
    fill(services, 3)
    mirror_path = services.config.data_dir / "audit.jsonl"
    # Entry 4 is committed by a process that died before writing its line.
    quiet = audit.AuditLog(None)
    with services.db.transaction() as session:
        quiet.append(session, "gateway.started", at=services.clock.now())
    fill(services, 1)
    seqs = [json.loads(line)["seq"] for line in mirror_path.read_text().splitlines()]
    assert seqs == [1, 2, 3, 4, 5]


def test_a_torn_last_line_is_cut_and_written_again(services: Services) -> None:
    fill(services, 3)
    mirror_path = services.config.data_dir / "audit.jsonl"
    text_now = mirror_path.read_text()
    mirror_path.write_text(text_now[: len(text_now) - 20])  # a crash mid-write
    fill(services, 1)
    lines = mirror_path.read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 2, 3, 4]


@pytest.mark.postgres
def test_concurrent_first_writes_on_a_fresh_postgres_database_all_commit(tmp_path: Path) -> None:
    # Each first writer used to insert the chain's head row: the losers got an
    # IntegrityError (a 503, or 'hfa serve' exiting at start).
    url = _create_postgres_database()
    try:
        services = [
            build_services(make_config(tmp_path / str(n), database_url=url)) for n in range(5)
        ]
        barrier = threading.Barrier(5)
        errors: list[BaseException] = []

        def first_write(s: Services) -> None:
            barrier.wait()
            try:
                with s.db.transaction() as session:
                    s.audit.append(session, "gateway.started", at=s.clock.now())
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=first_write, args=(s,)) for s in services]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == []
        with services[0].db.reading() as session:
            assert audit_check.head(session)[0] == 5
        for s in services:
            s.close()
    finally:
        _drop_postgres_database(url)
