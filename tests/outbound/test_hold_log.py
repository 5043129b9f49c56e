"""The note of holds: a restart releases a hold whose dot was never sent, and only that."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from gateway.intake.filing import file_request
from gateway.outbound import hold_log
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.models import OutboxItem
from tests.conftest import SmtpSink

UNTIL = datetime(2026, 12, 7, 12, 10, 0, 123456, tzinfo=UTC)


@pytest.fixture
def services(config: Config) -> Iterator[Services]:
    built = build_services(config)
    yield built
    built.close()


def held_rows(services: Services, count: int) -> list[int]:
    """``count`` pending email rows, each held until UNTIL as a send before its dot does."""
    with services.db.transaction() as session:
        for n in range(count):
            file_request(services, session, {"category": "legal_review", "request": f"{n}?"})
    with services.db.transaction() as session:
        session.execute(update(OutboxItem).values(lease_until=UNTIL))
        return list(session.scalars(select(OutboxItem.id).order_by(OutboxItem.id)))


def dead_pid() -> int:
    """The pid of a process that has ended."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


@contextlib.contextmanager
def locked(note: Path) -> Iterator[None]:
    """``note`` locked as its writer locks it while it lives."""
    fd = os.open(note, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def as_if_this_process_died(data_dir: Path) -> Path:
    """This process's note as a later start finds it once the process is gone: its lock
    let go, under a pid that has ended."""
    note = hold_log.for_process(data_dir)
    assert note._fd is not None
    os.close(note._fd)
    hold_log._logs.clear()
    return note.path.rename(note.path.with_name(f"{dead_pid()}.log"))


def leases(services: Services) -> dict[int, datetime | None]:
    with services.db.read_only() as session:
        rows = session.execute(select(OutboxItem.id, OutboxItem.lease_until))
        return {item_id: until for item_id, until in rows}


def test_a_dead_process_hold_without_its_dot_is_released_and_no_other(
    services: Services,
) -> None:
    unsent, sent, other_hold, live = held_rows(services, 4)
    folder = services.config.data_dir / hold_log.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    stamp = UNTIL.isoformat()
    (folder / f"{dead_pid()}.log").write_text(
        f"H {unsent} {stamp}\nH {sent} {stamp}\nD {sent}\n"
        f"H {other_hold} {(UNTIL - timedelta(seconds=1)).isoformat()}\nH 99"  # cut short
    )
    # A live process's note (it holds the note's lock) is left alone: it may be waiting
    # for its relay right now.
    live_note = folder / f"{os.getppid()}.log"
    live_note.write_text(f"H {live} {stamp}\n")
    with locked(live_note):
        assert hold_log.release_unsent(services.db, services.config.data_dir) == 1
    now = leases(services)
    # Released: the dot never went out, so the relay cannot have the message.
    assert now[unsent] is None
    # Kept: the dot went out (the relay may have it), the row carries another hold
    # (claimed again since), or its process still runs.
    assert now[sent] == UNTIL and now[live] == UNTIL
    assert now[other_hold] == UNTIL
    assert sorted(p.name for p in folder.iterdir()) == [f"{os.getppid()}.log"]


def test_a_dot_the_kernel_could_not_take_at_once_counts_once_it_did() -> None:
    stamp = UNTIL.isoformat()
    # Noted before the write, withdrawn when it stayed in the process's buffer.
    assert hold_log.unsent_holds(f"H 7 {stamp}\nD 7\nU 7\n") == {7: UNTIL}
    assert hold_log.unsent_holds(f"H 7 {stamp}\nD 7\nU 7\nD 7\n") == {}


def test_a_later_attempt_at_an_item_is_read_on_its_own() -> None:
    """An item tried twice by one process (its first dot went out and the relay failed to
    answer it; the failure was recorded and it was tried again): a kill before the second
    dot leaves a hold the relay cannot have had the message for, and it is released."""
    first, second = UNTIL.isoformat(), (UNTIL + timedelta(minutes=1)).isoformat()
    assert hold_log.unsent_holds(f"H 7 {first}\nD 7\nH 7 {second}\n") == {
        7: UNTIL + timedelta(minutes=1)
    }
    accepted_then_again = f"H 7 {first}\nD 7\nA 7\nH 7 {second}\n"
    assert hold_log.accepted_holds(accepted_then_again) == {}
    assert hold_log.unsent_holds(accepted_then_again) == {7: UNTIL + timedelta(minutes=1)}
    # Its second dot out: kept, as any dot out is.
    assert hold_log.unsent_holds(f"H 7 {first}\nD 7\nH 7 {second}\nD 7\n") == {}


def test_this_process_notes_its_holds_and_dots(tmp_path: Path) -> None:
    note = hold_log.for_process(tmp_path)
    assert hold_log.for_process(tmp_path) is note
    note.hold(7, UNTIL)
    note.hold(8, UNTIL)
    note.dot(8, "writing")
    note.hold(9, UNTIL)
    note.dot(9, "writing")
    note.dot(9, "in_buffer")
    note.done(7)
    note.done(8)
    assert hold_log.unsent_holds(note.path.read_text()) == {7: UNTIL, 9: UNTIL}
    assert oct(note.path.stat().st_mode & 0o777) == oct(0o600)


async def test_a_delivery_stopped_between_its_hold_and_its_dot_is_released_and_sent_once(
    services: Services, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hold committed, then the process stops dead before the dot (the turn of the
    loop a kill can land in): the relay has nothing, the row is held for the dot's wait,
    and the note says so; a start after it releases the row, and it goes out once."""
    from gateway.outbound import lawyer_mail
    from gateway.outbound.outbox import OutboxWorker, email_deliverer
    from gateway.outbound.transports import SmtpRelay

    with services.db.transaction() as session:
        file_request(services, session, {"category": "legal_review", "request": "Sign?"})
    held = asyncio.Event()
    hold = lawyer_mail._hold_until_the_dot_is_answered

    async def hold_then_stall(services: Services, item_id: int) -> None:
        await hold(services, item_id)
        held.set()
        await asyncio.Event().wait()  # as if the process had died here

    monkeypatch.setattr(lawyer_mail, "_hold_until_the_dot_is_answered", hold_then_stall)
    relay = SmtpRelay("127.0.0.1", sink.port)
    worker = OutboxWorker(services, {"email": email_deliverer(relay)})
    stalled = asyncio.create_task(worker.run_once())
    await asyncio.wait_for(held.wait(), timeout=10)
    stalled.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await stalled
    await relay.close()
    (row,) = leases(services).values()
    assert row is not None and row > datetime.now(UTC) + timedelta(minutes=5)
    assert sink.received == []
    # The note of that process, as a later start finds it (the process is gone).
    as_if_this_process_died(services.config.data_dir)
    assert hold_log.release_unsent(services.db, services.config.data_dir) == 1

    monkeypatch.setattr(lawyer_mail, "_hold_until_the_dot_is_answered", hold)
    relay = SmtpRelay("127.0.0.1", sink.port)
    try:
        assert await OutboxWorker(services, {"email": email_deliverer(relay)}).run_once() == 1
    finally:
        await relay.close()
    assert len(sink.received) == 1


def state_of(pid: int) -> str:
    """The process's state as the kernel shows it (Z: ended, not reaped)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_a_killed_process_not_yet_reaped_is_gone_for_its_holds(services: Services) -> None:
    """Killed with its group, a worker stays a zombie until its parent reaps it; its pid
    still answers a signal 0. Its holds are released all the same: its note's lock went
    with it."""
    (unsent,) = held_rows(services, 1)
    data_dir = services.config.data_dir
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, datetime, pathlib\n"
            "from gateway.outbound import hold_log\n"
            "note = hold_log.for_process(pathlib.Path(sys.argv[1]))\n"
            "note.hold(int(sys.argv[2]), datetime.datetime.fromisoformat(sys.argv[3]))\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
            str(data_dir),
            str(unsent),
            UNTIL.isoformat(),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "held\n"
        # While it lives, its hold stays.
        assert hold_log.release_unsent(services.db, data_dir) == 0
        os.kill(writer.pid, signal.SIGKILL)
        # Not reaped (no wait yet): the zombie's pid still looks alive.
        deadline = time.monotonic() + 10
        while state_of(writer.pid) != "Z":
            assert time.monotonic() < deadline, "the killed process did not end"
            time.sleep(0.01)
        os.kill(writer.pid, 0)
        assert hold_log.release_unsent(services.db, data_dir) == 1
        assert leases(services)[unsent] is None
    finally:
        writer.kill()
        writer.wait()


def held_by_a_dead_worker(services: Services) -> None:
    """One email held for the wait for its dot's answer (ten minutes from now), and the
    note its worker left when it died before that dot."""
    (unsent,) = held_rows(services, 1)
    until = datetime.now(UTC).replace(microsecond=123456) + timedelta(minutes=10)
    with services.db.transaction() as session:
        session.execute(update(OutboxItem).values(lease_until=until))
    folder = services.config.data_dir / hold_log.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{dead_pid()}.log").write_text(f"H {unsent} {until.isoformat()}\n")


@contextlib.asynccontextmanager
async def running_worker(services: Services, sink: SmtpSink) -> AsyncIterator[None]:
    """An outbox worker running (``run_forever``) against ``sink`` while the block runs."""
    from gateway.outbound.outbox import OutboxWorker, email_deliverer
    from gateway.outbound.transports import SmtpRelay

    relay = SmtpRelay("127.0.0.1", sink.port)
    stop = asyncio.Event()
    running = asyncio.create_task(
        OutboxWorker(services, {"email": email_deliverer(relay)}).run_forever(stop)
    )
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(running, timeout=10)
        await relay.close()


async def until_sent(sink: SmtpSink, why_not: Callable[[], str]) -> None:
    deadline = time.monotonic() + 10
    while not sink.received:
        assert time.monotonic() < deadline, why_not()
        await asyncio.sleep(0.05)


async def test_a_release_that_fails_at_the_start_is_tried_again(
    services: Services, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holds of a stopped process could not be released as the worker started (the
    database was briefly unreachable): they are released as soon as it can be done, not
    at the end of their holds, and the email goes out."""
    held_by_a_dead_worker(services)
    tries: list[int] = []
    release = hold_log.release_after_restart

    def unreachable_at_first(services: Services) -> int:
        tries.append(1)
        if len(tries) < 3:
            raise OSError("the database cannot be reached")
        return release(services)

    monkeypatch.setattr(hold_log, "release_after_restart", unreachable_at_first)
    monkeypatch.setattr(hold_log, "RELEASE_RETRY_SECONDS", (0.05, 0.1))
    async with running_worker(services, sink):
        await until_sent(sink, lambda: f"not sent; release tried {len(tries)} times")
    assert len(tries) >= 3 and len(sink.received) == 1


async def test_the_holds_of_a_worker_that_dies_beside_a_running_one_are_released(
    services: Services, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers on one host; one dies while the other runs on: the survivor finds the
    dead one's note within seconds and its email goes out, without waiting for a start."""
    monkeypatch.setattr(hold_log, "SWEEP_SECONDS", 0.1)
    async with running_worker(services, sink):
        await asyncio.sleep(0.3)  # started, nothing to release yet
        held_by_a_dead_worker(services)
        await until_sent(sink, lambda: "the dead worker's hold was never released")
    assert len(sink.received) == 1
