"""The one loop of every background worker: go on while there is work, snooze when there is
none, pause after a failure, and end between iterations on stop."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest

from gateway.runner import FAILURE_PAUSE, Runner, ThreadRunner, paused_after_failure


class Calls:
    """An iteration that answers from a script, records when it was called, and can fail."""

    def __init__(self, *answers: int | Exception) -> None:
        self.answers = list(answers)
        self.at: list[float] = []
        self.called = asyncio.Event()

    async def __call__(self) -> int:
        self.at.append(time.monotonic())
        self.called.set()
        answer = self.answers.pop(0) if self.answers else 0
        if isinstance(answer, Exception):
            raise answer
        return answer


async def until(condition: asyncio.Event, seconds: float = 2.0) -> None:
    await asyncio.wait_for(condition.wait(), seconds)


async def test_work_found_goes_on_at_once_and_nothing_found_snoozes_until_the_wakeup() -> None:
    calls, wakeup, stop = Calls(3, 2, 0, 0), asyncio.Event(), asyncio.Event()
    wakeup.set()  # set before the snooze: spent, it does not end the snooze at once
    task = asyncio.create_task(Runner("x", 30.0, iteration=calls, wakeup=wakeup).run(stop))
    while len(calls.at) < 3:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert len(calls.at) == 3
    wakeup.set()
    while len(calls.at) < 4:
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(task, 1)
    assert len(calls.at) == 4


async def test_without_a_wakeup_the_next_iteration_comes_at_the_poll() -> None:
    calls, stop = Calls(0, 0), asyncio.Event()
    task = asyncio.create_task(Runner("x", 0.1, iteration=calls).run(stop))
    while len(calls.at) < 2:
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(task, 1)
    assert calls.at[1] - calls.at[0] >= 0.09


async def test_a_failed_iteration_is_logged_and_paused_after_and_new_work_waits(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls, wakeup, stop = Calls(RuntimeError("database away"), 0), asyncio.Event(), asyncio.Event()
    logger = logging.getLogger("gateway.test_runner")
    runner = Runner(
        "the role failed; retrying",
        0.05,
        iteration=calls,
        wakeup=wakeup,
        failure_pause=0.3,
        logger=logger,
    )
    with caplog.at_level(logging.ERROR, logger="gateway.test_runner"):
        task = asyncio.create_task(runner.run(stop))
        await until(calls.called)
        await asyncio.sleep(0.05)
        # New work does not cut the pause short: the database is likely busy.
        wakeup.set()
        while len(calls.at) < 2:
            await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(task, 1)
    assert calls.at[1] - calls.at[0] >= 0.29
    [record] = [r for r in caplog.records if r.name == "gateway.test_runner"]
    assert record.getMessage() == "the role failed; retrying"
    assert record.levelno == logging.ERROR and record.exc_info is not None


async def test_a_failure_pause_no_longer_than_a_poll_is_an_idle_wait() -> None:
    calls, wakeup, stop = Calls(RuntimeError("busy"), 0), asyncio.Event(), asyncio.Event()
    runner = Runner("x", 30.0, iteration=calls, wakeup=wakeup, failure_pause=30.0)
    task = asyncio.create_task(runner.run(stop))
    await until(calls.called)
    wakeup.set()
    while len(calls.at) < 2:
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(task, 1)


def test_a_database_worker_pauses_at_least_failure_pause() -> None:
    assert paused_after_failure(0.5) == FAILURE_PAUSE
    assert paused_after_failure(5.0) == 5.0


async def test_stop_ends_a_pause_and_a_snooze_at_once() -> None:
    for answer in (RuntimeError("away"), 0):
        calls, stop = Calls(answer), asyncio.Event()
        task = asyncio.create_task(Runner("x", 30.0, iteration=calls, failure_pause=30.0).run(stop))
        await until(calls.called)
        stop.set()
        await asyncio.wait_for(task, 1)
        assert len(calls.at) == 1


async def test_stop_lets_the_iteration_under_way_finish_and_starts_no_other() -> None:
    stop, started, finished = asyncio.Event(), asyncio.Event(), []

    async def slow() -> int:
        started.set()
        await asyncio.sleep(0.1)
        finished.append(True)
        return 1  # more work waiting: only stop ends the loop

    task = asyncio.create_task(Runner("x", 30.0, iteration=slow).run(stop))
    await until(started)
    stop.set()
    await asyncio.wait_for(task, 1)
    assert finished == [True]


async def test_snooze_first_waits_one_poll_before_the_first_iteration() -> None:
    calls, stop = Calls(), asyncio.Event()
    began = time.monotonic()
    task = asyncio.create_task(Runner("x", 0.1, iteration=calls, snooze_first=True).run(stop))
    await until(calls.called)
    stop.set()
    await asyncio.wait_for(task, 1)
    assert calls.at[0] - began >= 0.09


class Scripted(ThreadRunner):
    thread_name = "hfa-test-runner"

    def __init__(self, *answers: int | Exception) -> None:
        super().__init__("thread role failed", 0.3, failure_pause=0.6)
        self.answers = list(answers)
        self.at: list[float] = []
        self.threads: set[str] = set()
        self.finished = False

    def _one_iteration(self) -> int:
        self.at.append(time.monotonic())
        self.threads.add(threading.current_thread().name)
        answer = self.answers.pop(0) if self.answers else 0
        if isinstance(answer, Exception):
            raise answer
        return answer

    def _finish(self) -> None:
        self.finished = True


async def test_the_thread_runner_loops_in_its_thread_pauses_after_a_failure_and_finishes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runner, stop = Scripted(RuntimeError("lock"), 2, 0, 0), asyncio.Event()
    with caplog.at_level(logging.ERROR, logger="gateway.runner"):
        task = asyncio.create_task(runner.run_in_thread(stop))
        while len(runner.at) < 4:
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(task, 3)
    assert runner.threads == {"hfa-test-runner"} and runner.finished
    assert runner.at[1] - runner.at[0] >= 0.59  # the failure pause
    assert runner.at[2] - runner.at[1] < 0.25  # work found: at once
    assert runner.at[3] - runner.at[2] >= 0.29  # nothing found: the poll
    assert [r.getMessage() for r in caplog.records] == ["thread role failed"]
