"""The one watcher per process: waiters cost no task, a commit wakes exactly its waiters."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway import contract
from gateway.intake import filing, lookup, waiting
from gateway.services import Services


def file(services: Services) -> dict[str, Any]:
    with services.db.transaction() as session:
        filed = filing.file_request(
            services, session, {"category": "legal_review", "request": "Clause 4?"}
        )
        return filed.result


def status(services: Services, filed: dict[str, Any]) -> dict[str, Any]:
    with services.db.read_only_rows() as conn:
        return lookup.check_status(conn, filed["reference"], filed["access_token"])


def add(services: Services, filed: dict[str, Any], text: str) -> None:
    with services.db.transaction() as session:
        filing.add_to_request(
            services,
            session,
            {
                "reference": filed["reference"],
                "access_token": filed["access_token"],
                "message": text,
            },
        )


async def test_a_commit_wakes_the_waiters_of_its_request_and_no_other(services: Services) -> None:
    watcher = waiting.Waiting(services, check_seconds=0.05)
    one, other = file(services), file(services)
    marks = {f["reference"]: waiting.mark_of(status(services, f)) for f in (one, other)}

    def waiter(filed: dict[str, Any]) -> asyncio.Task[waiting.Mark | None]:
        number = contract.number_from_reference(filed["reference"])
        assert number is not None
        before = marks[filed["reference"]]
        return asyncio.create_task(
            watcher.until(number, lambda m: m.answer_turns != before.answer_turns, 30)
        )

    tasks_before = len(asyncio.all_tasks())
    woken = [waiter(one) for _ in range(150)]
    asleep = [waiter(other) for _ in range(150)]
    await asyncio.sleep(0.2)
    # The 300 waiting calls are the test's own tasks; the waiting adds one watcher.
    assert len(asyncio.all_tasks()) == tasks_before + 300 + 1
    assert watcher.waiting == 300
    add(services, one, "More facts.")
    done, _ = await asyncio.wait(woken, timeout=2)
    assert len(done) == 150
    mark = woken[0].result()
    assert mark is not None and mark.answer_turns == marks[one["reference"]].answer_turns + 1
    assert not any(t.done() for t in asleep)
    watcher.close()
    assert await asyncio.gather(*asleep) == [None] * 150
    assert watcher.waiting == 0
    # A closed watcher answers at once: the server is stopping.
    number = contract.number_from_reference(one["reference"])
    assert number is not None
    assert await asyncio.wait_for(watcher.until(number, lambda m: True, 30), 1) is None


async def test_the_watcher_stops_when_nobody_waits(services: Services) -> None:
    watcher = waiting.Waiting(services, check_seconds=0.05)
    filed = file(services)
    number = contract.number_from_reference(filed["reference"])
    assert number is not None
    assert await watcher.until(number, lambda m: False, 0.1) is None
    await asyncio.sleep(0.2)
    assert watcher._watcher is not None and watcher._watcher.done()


def test_wait_seconds_is_bounded() -> None:
    assert waiting.wait_seconds(None, 60) is None
    assert waiting.wait_seconds("5", 60) == 5
    assert waiting.wait_seconds("3600", 60) == 60
