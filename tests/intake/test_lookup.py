"""Status answers kept between commits (SQLite): read once, never older than the last commit."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from gateway import contract
from gateway.errors import NotFound
from gateway.intake import filing, lookup
from gateway.intake.lookup import StatusReads
from gateway.services import Services, build_services
from gateway.store.prepared import Arrivals, sqlite_reads
from tests.conftest import make_config


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    built = build_services(make_config(tmp_path))
    yield built
    built.close()


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The request numbers the status statement was run for."""
    ran: list[int] = []
    original = lookup._STATUS_ROWS.all

    def counted(conn: Any, params: dict[str, Any]) -> Any:
        ran.append(params["id"])
        return original(conn, params)

    monkeypatch.setattr(lookup._STATUS_ROWS, "all", counted)
    return ran


def _file(services: Services) -> dict[str, Any]:
    with services.db.transaction() as session:
        filed = filing.file_request(
            services, session, {"category": "legal_review", "request": "Clause 7?"}
        )
    return filed.result


def _reads(services: Services) -> StatusReads:
    reads = lookup.kept_status(services)
    assert reads is not None
    return reads


def test_a_second_read_before_any_commit_runs_no_statement(
    services: Services, queries: list[int]
) -> None:
    filed = _file(services)
    reads = _reads(services)
    first = reads.check_status(filed["reference"], filed["access_token"])
    again = reads.check_status(filed["reference"], filed["access_token"])
    assert again == first and first["turns"][0]["body"] == "Clause 7?"
    assert len(queries) == 1


def test_every_commit_is_seen_by_the_next_read(services: Services, queries: list[int]) -> None:
    filed = _file(services)
    reads = _reads(services)
    assert len(reads.check_status(filed["reference"], filed["access_token"])["turns"]) == 1
    with services.db.transaction() as session:
        filing.add_to_request(
            services,
            session,
            {
                "reference": filed["reference"],
                "access_token": filed["access_token"],
                "message": "One more point.",
            },
        )
    turns = reads.check_status(filed["reference"], filed["access_token"])["turns"]
    assert [t["body"] for t in turns] == ["Clause 7?", "One more point."]
    # Another process (hfa serve's worker) writes through a connection of its own.
    other = sqlite3.connect(services.config.data_dir / "gateway.db")
    with other:
        other.execute("UPDATE requests SET status = 'reviewed'")
    other.close()
    assert reads.check_status(filed["reference"], filed["access_token"])["status"] == "reviewed"
    assert len(queries) == 3


def test_a_kept_answer_still_needs_the_right_token(services: Services, queries: list[int]) -> None:
    filed = _file(services)
    reads = _reads(services)
    reads.check_status(filed["reference"], filed["access_token"])
    with pytest.raises(NotFound) as wrong:
        reads.check_status(filed["reference"], "hfat_wrong")
    # An unknown reference is kept too: read twice, it takes one statement, as a known one.
    for _ in range(2):
        with pytest.raises(NotFound) as unknown:
            reads.check_status("HFA-99999", filed["access_token"])
    assert str(wrong.value) == str(unknown.value)
    assert queries == [1, 99999]


def test_reads_go_on_after_the_engine_is_disposed(services: Services) -> None:
    filed = _file(services)
    reads = _reads(services)
    reads.check_status(filed["reference"], filed["access_token"])
    services.db.engine.dispose()
    assert reads.check_status(filed["reference"], filed["access_token"])["status"] == "recorded"


def test_answers_are_kept_only_for_a_sqlite_file() -> None:
    assert sqlite_reads(create_engine("sqlite://")) is None
    assert sqlite_reads(create_engine("postgresql+psycopg://u@127.0.0.1/db")) is None


def test_numbers_in_a_turn_are_read_exactly(services: Services) -> None:
    # The API refuses integers beyond 64 bits; a turn's data may still hold one (and NaN).
    filed = _file(services)
    big = 2**70
    other = sqlite3.connect(services.config.data_dir / "gateway.db")
    with other:
        other.execute(f'UPDATE turns SET data = \'{{"ledger": {big}, "ratio": 0.1}}\'')
    other.close()
    turn = _reads(services).check_status(filed["reference"], filed["access_token"])["turns"][0]
    assert turn["ledger"] == big and isinstance(turn["ledger"], int) and turn["ratio"] == 0.1


def test_a_kept_answer_is_rendered_once_and_sent_only_for_the_right_token(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    filed = _file(services)
    reads = _reads(services)
    rendered: list[object] = []
    original = contract.dumps

    def counted(value: object) -> bytes:
        rendered.append(value)
        return original(value)

    monkeypatch.setattr(contract, "dumps", counted)
    body = reads.status_body(filed["reference"], filed["access_token"])
    assert body is not None and body == reads.status_body(filed["reference"], filed["access_token"])
    assert body == original(reads.check_status(filed["reference"], filed["access_token"]))
    assert len(rendered) == 1
    assert reads.status_body(filed["reference"], "hfat_wrong") is None
    assert reads.status_body("HFA-99999", filed["access_token"]) is None
    assert reads.status_body("not-a-reference", filed["access_token"]) is None


def _commit_elsewhere(services: Services, status: str) -> None:
    other = sqlite3.connect(services.config.data_dir / "gateway.db")
    with other:
        other.execute("UPDATE requests SET status = ?", (status,))
    other.close()


def test_reads_that_arrived_before_the_last_count_take_its_answer(
    services: Services, queries: list[int]
) -> None:
    filed = _file(services)
    reads = _reads(services)
    arrivals = Arrivals()
    arrivals.note()

    def status(counted: Arrivals | None) -> Any:
        body = reads.status_body(filed["reference"], filed["access_token"], counted)
        assert body is not None
        return contract.loads(body)["status"]

    assert status(arrivals) == "recorded"
    _commit_elsewhere(services, "reviewed")
    # Nothing has arrived since the commit count was asked: the read being served
    # arrived before it, and before the commit.
    assert status(arrivals) == "recorded"
    # Bytes arrive (the next request): the count is asked again, and the commit seen.
    arrivals.note()
    assert status(arrivals) == "reviewed"
    _commit_elsewhere(services, "answered")
    # A read whose arrival was not counted (a caller in this process) always asks.
    assert status(None) == "answered"
    _commit_elsewhere(services, "closed")
    # Nor does a count of another server's arrivals stand for this one's.
    assert status(Arrivals()) == "closed"
    assert len(queries) == 4
