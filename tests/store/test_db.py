"""Group commit: concurrent writes share one commit, and each keeps its own outcome.

Submits and inbound messages that arrive together are committed together
(one fsync for many) on SQLite. A write that fails is undone alone; the
others commit, the audit chain and its mirror hold exactly what committed,
and every caller hears back only after the commit that holds its write.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from gateway.errors import InvalidRequest
from gateway.intake import filing
from gateway.services import Services, build_services
from gateway.store.models import AuditEntry, Request
from tests import auditkit
from tests.conftest import make_config


def _filer(services: Services, text: str) -> Any:
    def work(session: Session) -> str:
        filed = filing.file_request(
            services, session, {"category": "legal_review", "request": text}
        )
        reference: str = filed.result["reference"]
        return reference

    return work


def _failing(services: Services) -> Any:
    def work(session: Session) -> str:
        # Writes rows, then fails: everything it wrote must be undone, and only that.
        filing.file_request(services, session, {"category": "legal_review", "request": "x"})
        raise InvalidRequest("rejected after writing", [])

    return work


async def test_concurrent_writes_share_a_commit_and_fail_alone(tmp_path: Path) -> None:
    services = build_services(make_config(tmp_path))
    commits: list[int] = []
    event.listen(services.db.engine, "commit", lambda conn: commits.append(1))
    try:
        jobs = [_filer(services, f"question {i}") for i in range(10)]
        jobs.insert(4, _failing(services))
        results = await asyncio.gather(
            *(services.db.write(job) for job in jobs), return_exceptions=True
        )
        assert isinstance(results[4], InvalidRequest)
        references = [r for r in results if isinstance(r, str)]
        assert references == [f"HFA-{n:05d}" for n in range(1, 11)]
        # Eleven writes, far fewer commits (one per batch).
        assert 1 <= len(commits) <= 2

        verdict = auditkit.verify(services)
        assert not verdict.problems, verdict.problems
        with services.db.read_only() as session:
            assert session.scalar(select(func.count()).select_from(Request)) == 10
            events = session.scalars(select(AuditEntry.reference).order_by(AuditEntry.seq))
            assert sorted(set(events), key=str) == references
    finally:
        services.close()


async def test_a_write_returns_only_once_committed(tmp_path: Path) -> None:
    services = build_services(make_config(tmp_path))
    other = build_services(make_config(tmp_path), migrate=False)
    try:
        references = await asyncio.gather(
            *(services.db.write(_filer(services, f"q{i}")) for i in range(5))
        )
        # Another connection (as another process would) already sees every one of them.
        with other.db.read_only() as session:
            for reference in references:
                number = int(reference.removeprefix("HFA-"))
                assert session.get(Request, number) is not None
    finally:
        other.close()
        services.close()


async def test_a_heavy_write_commits_alone_off_the_loop(tmp_path: Path) -> None:
    import threading

    services = build_services(make_config(tmp_path))
    commits: list[int] = []
    event.listen(services.db.engine, "commit", lambda conn: commits.append(1))
    where: dict[str, str] = {}

    def heavy(session: Session) -> str:
        where["heavy"] = threading.current_thread().name
        return str(_filer(services, "with a scanned contract")(session))

    def light(session: Session) -> str:
        where["light"] = threading.current_thread().name
        return str(_filer(services, "a short one")(session))

    try:
        results = await asyncio.gather(
            services.db.write(heavy, heavy=True),
            *(services.db.write(light) for _ in range(3)),
        )
        assert sorted(results) == [f"HFA-{n:05d}" for n in range(1, 5)]
        # Megabytes are inserted and fsynced in a thread: the loop serves on meanwhile.
        assert where["heavy"] != threading.main_thread().name
        # Its own transaction: the light writes shared one without it.
        assert len(commits) == 2
        assert not auditkit.verify(services).problems
    finally:
        services.close()


def test_the_savepoints_of_a_group_commit_are_journaled_in_memory(tmp_path: Path) -> None:
    # Each write of a batch runs in a savepoint; with its undo journal in a temporary
    # file, every statement in it cost about twice what it does outside one.
    services = build_services(make_config(tmp_path))
    try:
        with services.db.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA temp_store").scalar() == 2  # MEMORY
    finally:
        services.close()


async def test_each_committed_entry_is_logged_once_and_nothing_undone_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    services = build_services(make_config(tmp_path))
    caplog.set_level(logging.INFO, logger="gateway.audit")
    try:
        jobs = [_filer(services, f"q{i}") for i in range(4)]
        jobs.insert(2, _failing(services))
        results = await asyncio.gather(
            *(services.db.write(job) for job in jobs), return_exceptions=True
        )
        references = [r for r in results if isinstance(r, str)]
        with pytest.raises(RuntimeError), services.db.transaction() as session:
            services.audit.append(session, "test.rolled_back", at=services.clock.now())
            raise RuntimeError("rolled back")
        logged = [r.getMessage() for r in caplog.records if r.name == "gateway.audit"]
        recorded = sorted(m.split()[1] for m in logged if m.startswith("request.recorded"))
        # The undone write's entry and the rolled-back one never reach the log; the
        # savepoints released along the way log nothing twice.
        assert recorded == sorted(references) and len(references) == 4
        assert not any("rolled_back" in m for m in logged)
    finally:
        services.close()
