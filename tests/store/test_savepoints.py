"""One failed write of a group commit is undone alone, ORM objects included."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.errors import InvalidRequest, StorageError
from gateway.intake import filing
from gateway.services import Services, build_services
from gateway.store.models import ApiKey, Request
from tests.conftest import make_config


def _file(services: Services) -> int:
    async def go() -> int:
        def work(session: Session) -> int:
            filed = filing.file_request(
                services, session, {"category": "legal_review", "request": "x"}
            )
            return int(filed.result["reference"].removeprefix("HFA-"))

        return await services.db.write(work)

    return asyncio.run(go())


def test_an_orm_change_of_a_failed_write_is_gone_for_the_next_write(tmp_path: Path) -> None:
    services = build_services(make_config(tmp_path))
    number = _file(services)
    seen: list[str] = []

    def change_then_fail(session: Session) -> None:
        request = session.get(Request, number)
        assert request is not None
        request.status = "closed"
        session.add(ApiKey(name="k1", key_hash="h1", created_at=datetime.now(UTC)))
        session.flush()
        raise InvalidRequest("refused after changing rows", [])

    def read(session: Session) -> None:
        request = session.get(Request, number)
        assert request is not None
        seen.append(request.status)
        seen.append(str(session.scalar(select(ApiKey.name))))

    async def batch() -> list[Any]:
        return list(
            await asyncio.gather(
                services.db.write(change_then_fail), services.db.write(read), return_exceptions=True
            )
        )

    try:
        failed, read_ok = asyncio.run(batch())
        assert isinstance(failed, InvalidRequest) and read_ok is None
        assert seen == ["recorded", "None"]
        with services.db.read_only() as session:
            assert session.scalar(select(Request.status).where(Request.id == number)) == (
                "recorded"
            )
            assert session.scalar(select(ApiKey.name)) is None
    finally:
        services.close()


def test_a_write_whose_flush_fails_gets_the_error_and_the_others_still_commit(
    tmp_path: Path,
) -> None:
    services = build_services(make_config(tmp_path))
    _file(services)

    def duplicate_key(session: Session) -> None:
        # Both rows are flushed together: the unique name fails the ORM's flush, which
        # ends the whole transaction, not just this write's savepoint.
        now = datetime.now(UTC)
        session.add_all(
            [
                ApiKey(name="same", key_hash="a", created_at=now),
                ApiKey(name="same", key_hash="b", created_at=now),
            ]
        )

    def filer(session: Session) -> str:
        filed = filing.file_request(services, session, {"category": "legal_review", "request": "y"})
        reference: str = filed.result["reference"]
        return reference

    async def batch() -> list[Any]:
        return list(
            await asyncio.gather(
                services.db.write(filer),
                services.db.write(duplicate_key),
                services.db.write(filer),
                return_exceptions=True,
            )
        )

    try:
        first, broken, second = asyncio.run(batch())
        assert isinstance(broken, StorageError)
        assert {first, second} == {"HFA-00002", "HFA-00003"}
        with services.db.read_only() as session:
            assert session.scalar(select(ApiKey.name)) is None
            assert len(list(session.scalars(select(Request.id)))) == 3
    finally:
        services.close()
