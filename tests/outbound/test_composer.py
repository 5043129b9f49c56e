"""The composer process: a backlog's emails written beside the worker's loop, the same emails."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from sqlalchemy import select

from gateway.outbound import composer as composer_module
from gateway.outbound.compose import load_threads
from gateway.outbound.composer import BACKLOG, Composer, Job, compose_bytes
from gateway.outbound.lawyer_mail import _job, letterhead
from gateway.outbound.outbox import OutboxWorker, email_deliverer
from gateway.services import Services
from gateway.store.models import OutboxItem
from tests.lawyer_mails import every_kind
from tests.outbound.test_pipeline import Relay, file_many, states

ROOT = Path(__file__).resolve().parents[2]


def _jobs(services: Services) -> list[Job]:
    with services.db.reading() as session:
        items = list(session.scalars(select(OutboxItem).where(OutboxItem.channel == "email")))
        threads = load_threads(session, items)
    return [_job(services, item, threads[item.id]) for item in items]


def _parsed(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=default_policy)
    assert isinstance(message, EmailMessage)
    return message


def _as_read(raw: bytes) -> tuple[list[tuple[str, str]], list[str]]:
    """An email's headers and decoded parts: what a reader sees (the MIME boundary aside)."""
    message = _parsed(raw)
    headers = [(k, str(v)) for k, v in message.items() if k != "Content-Type"]
    parts = [str(part.get_content()) for part in message.iter_parts()]
    return headers, parts


def test_every_kind_of_email_composed_in_the_child_reads_as_the_workers_own(
    services: Services,
) -> None:
    # Every kind, twice, so the later emails carry their thread headers.
    for _ in range(2):
        every_kind(services)
    jobs = _jobs(services)
    assert len(jobs) >= BACKLOG
    composer = Composer(services.renderer.directory)
    try:
        composing = composer.submit(jobs, letterhead(services))
        assert set(composing) == {job.item.id for job in jobs}
        for job in jobs:
            child = composing[job.item.id].result(timeout=60)
            here = compose_bytes(job, letterhead(services), services.renderer)
            assert _as_read(child) == _as_read(here), job.item.purpose
    finally:
        composer.close()


def test_a_trickle_starts_no_process(services: Services) -> None:
    file_many(services, BACKLOG - 1)
    composer = Composer(services.renderer.directory)
    assert composer.submit(_jobs(services), letterhead(services)) == {}
    assert composer._pool is None


async def test_a_backlog_drains_through_the_child_and_every_email_is_sent(
    services: Services,
) -> None:
    file_many(services, 3 * BACKLOG)
    relay = Relay()
    composer = Composer(services.renderer.directory)
    worker = OutboxWorker(services, {"email": email_deliverer(relay, composer)})
    try:
        assert await worker.run_once() == 3 * BACKLOG
        assert composer._pool is not None, "the backlog was composed on the loop"
    finally:
        composer.close()
    assert states(services) == {"sent": 3 * BACKLOG}
    asks = sorted(str(_parsed(raw).get_body(("plain",))) for raw in relay.sent)
    assert len(asks) == 3 * BACKLOG
    assert all(f"| Ask {n}." in "".join(asks) for n in range(3 * BACKLOG))


async def test_emails_the_child_did_not_return_are_composed_by_the_worker(
    services: Services, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # The child is killed as soon as the batch is handed to it: nothing comes back.
    file_many(services, BACKLOG)
    relay = Relay()
    composer = Composer(services.renderer.directory)
    submit = composer.submit

    def killed_at_once(jobs: list[Job], head: composer_module.Letterhead) -> object:
        composing = submit(jobs, head)
        assert composer._pool is not None
        for child in composer._pool._processes.values():
            child.kill()
        return composing

    monkeypatch.setattr(composer, "submit", killed_at_once)
    worker = OutboxWorker(services, {"email": email_deliverer(relay, composer)})
    assert await worker.run_once() == BACKLOG
    assert states(services) == {"sent": BACKLOG}
    assert len(relay.sent) == BACKLOG
    assert caplog.text.count("composed by the worker instead") == BACKLOG
    # The next backlog has a child again, and every email of it comes back from there.
    monkeypatch.setattr(composer, "submit", submit)
    file_many(services, BACKLOG)
    try:
        assert await worker.run_once() == BACKLOG
        assert composer._pool is not None, "the second backlog was composed on the loop"
    finally:
        composer.close()
    assert len(relay.sent) == 2 * BACKLOG and states(services) == {"sent": 2 * BACKLOG}
    assert caplog.text.count("composed by the worker instead") == BACKLOG
    assert "composer process is unavailable" not in caplog.text


async def test_the_child_ends_once_idle(
    services: Services, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(composer_module, "IDLE_SECONDS", 1.0)
    file_many(services, BACKLOG)
    composer = Composer(services.renderer.directory)
    pools: list[ProcessPoolExecutor] = []
    start = composer._started

    def recorded() -> ProcessPoolExecutor:
        pool = start()
        pools.append(pool)
        return pool

    monkeypatch.setattr(composer, "_started", recorded)
    relay = Relay()
    worker = OutboxWorker(services, {"email": email_deliverer(relay, composer)})
    try:
        assert await worker.run_once() == BACKLOG
        assert pools, "the backlog was composed on the loop"
        children = list(pools[0]._processes.values())
        assert children
        deadline = time.monotonic() + 20
        while composer._pool is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert composer._pool is None
        for child in children:
            child.join(timeout=10)
            assert not child.is_alive()
    finally:
        composer.close()
    # Nothing was cut short: the child was idle only once every email had come back.
    assert len(relay.sent) == BACKLOG and states(services) == {"sent": BACKLOG}
    assert "composed by the worker instead" not in caplog.text


# A worker that starts the composer with a backlog, prints the child's pid, then waits.
_WORKER = """
import time
from multiprocessing import resource_tracker
from gateway.outbound.composer import Composer
from gateway.render import templates_dir
pool = Composer(templates_dir())._started()
pool.submit(time.sleep, 0).result(timeout=60)
# The child, and the tracker of its semaphores that multiprocessing starts beside it.
print(*[p.pid for p in pool._processes.values()], resource_tracker._resource_tracker._pid, flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie waits for init to reap it: it is gone as a process that runs.
    stat = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}").exists() else ""
    return bool(stat) and stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_child_ends_when_its_worker_is_killed() -> None:
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert worker.stdout is not None
        started = [int(pid) for pid in worker.stdout.readline().split()]
        assert len(started) == 2 and all(_alive(pid) for pid in started)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in started if _alive(pid)], "outlived the worker"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
