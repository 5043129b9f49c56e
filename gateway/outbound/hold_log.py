"""A worker's own note of the holds it writes, so that a restart releases what no relay has.

Before an email's final dot its outbox row is held past the wait for the dot's answer
(``lawyer_mail``): the relay may have the message from then on, and no worker sends it
again before the wait is over. A process killed between that hold's commit and the dot
(one turn of its event loop) leaves a hold on a message the relay never received,
which would reach the lawyer only when the hold ends.

So each worker process notes, in a file of its own under the data directory, each
hold just before it writes it (``H id until``), each dot just before it is written
(``D id``) and once the kernel took it (``S id``; ``U id`` first if the kernel could not
take it at once), and the relay's acceptance the moment it came (``A id``, before the
row could be marked sent): plain appends, no fsync, since a kill -9 loses nothing the
process wrote (a crash of the host does, and then a hold merely runs its course). Each
process keeps its note locked while it lives, and notes each attempt at an item anew.

A worker reads the notes no process holds any more as it starts and every few seconds
while it runs (a worker beside it may die), and deals with each hold the row still
carries:

- no dot: released, due at once (the relay cannot have the message);
- accepted, or the dot the kernel's (the kernel sends what it was given even once the
  process is dead, so the relay got the whole message, however its answer went):
  recorded as sent at the restart, never sent a second time;
- a dot about to be written, no more: kept, for the relay may have the message (the
  kill fell in the microseconds between the note and the write, or just after it).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import update
from sqlalchemy.orm import Session

from gateway.contract import reference_for
from gateway.outbound.smtp_wire import DotState
from gateway.outbound.targets import shown_target
from gateway.runner import first_of
from gateway.services import Services
from gateway.store.audit import AuditLog
from gateway.store.db import Database
from gateway.store.models import OutboxItem

log = logging.getLogger(__name__)

FOLDER = "outbox-holds"
# How the note writes where a dot is.
_DOT_MARKS: dict[DotState, str] = {"writing": "D", "in_buffer": "U", "with_kernel": "S"}
# The note is emptied once no hold of it is open and it has grown past this.
TRUNCATE_BYTES = 1024 * 1024


class HoldLog:
    """This process's note of its holds and dots (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pid = os.getpid()
        self.path = folder / f"{self.pid}.log"
        # Opened with the first hold: a gateway writing to a Maildir never holds.
        self._fd: int | None = None
        self._open: set[int] = set()

    def hold(self, item_id: int, until: datetime) -> None:
        if self._fd is None:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            # Held for the life of the process: the kernel lets go of it when the process
            # dies, however it dies, which is how a later start knows the note is over.
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._open.add(item_id)
        os.write(self._fd, f"H {item_id} {until.isoformat()}\n".encode())

    def dot(self, item_id: int, where: DotState) -> None:
        """Where the item's dot is (``smtp_wire.DotState``)."""
        if self._fd is not None:
            os.write(self._fd, f"{_DOT_MARKS[where]} {item_id}\n".encode())

    def accepted(self, item_id: int) -> None:
        if self._fd is not None:
            os.write(self._fd, f"A {item_id}\n".encode())

    def done(self, item_id: int) -> None:
        """The delivery's outcome is written (``gateway.outbound.outbox``): once no other
        is open, a large note starts again empty. Not sooner: until a success is written
        its row carries the hold, and the note is what tells a restart the relay took it."""
        self._open.discard(item_id)
        fd = self._fd
        if fd is not None and not self._open and os.fstat(fd).st_size > TRUNCATE_BYTES:
            os.ftruncate(fd, 0)

    def settled(self, item_id: int, written: asyncio.Future[None]) -> None:
        """A success's write ended: the note may forget the item if it was written. One
        that could not be stays noted, for the row keeps its hold and a restart then
        finds the relay's acceptance here (and records it) rather than sending it again."""
        if not written.cancelled() and written.exception() is None:
            self.done(item_id)


_logs: dict[Path, HoldLog] = {}


def for_process(data_dir: Path) -> HoldLog:
    """The note of this process (a forked process gets its own)."""
    folder = data_dir / FOLDER
    found = _logs.get(folder)
    if found is None or found.pid != os.getpid():
        found = _logs[folder] = HoldLog(folder)
    return found


@contextlib.contextmanager
def _note_of_the_dead(note: Path) -> Iterator[str | None]:
    """The text of a note whose process is gone, locked while it is dealt with; None
    while its process lives (it holds the note's lock), or once another start dealt with
    it.

    The lock, not the process id, says whether the writer lives: a process killed but
    not yet reaped by its parent, or an id the system gave to another process since,
    would pass for a live writer and keep its holds for their whole length.
    """
    try:
        fd = os.open(note, os.O_RDONLY)
    except FileNotFoundError:
        yield None
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        if os.fstat(fd).st_nlink == 0:
            yield None  # dealt with by another start, which removed it
            return
        with os.fdopen(os.dup(fd), "rb") as text:
            written = text.read().decode(errors="replace")
        # Empty: its writer may have created it and not locked it yet; nothing to do.
        yield written or None
    finally:
        os.close(fd)


@dataclass
class _Note:
    """What a note says: each item's last hold, and how far its send got since."""

    holds: dict[int, datetime] = field(default_factory=dict)
    # The dot was about to be written, or was: the relay may have the message.
    dots: set[int] = field(default_factory=set)
    # The kernel had the dot: the relay got the whole message.
    taken: set[int] = field(default_factory=set)
    # The relay's answer was that it accepted the message.
    accepted: set[int] = field(default_factory=set)


def _read(text: str) -> _Note:
    note = _Note()
    for line in text.splitlines():
        parts = line.split(" ")
        try:
            mark, item = parts[0], int(parts[1]) if len(parts) > 1 else -1
            if mark == "H" and len(parts) == 3:
                note.holds[item] = datetime.fromisoformat(parts[2])
                # A new attempt at the item: what the note said of an earlier one (its
                # dot went out, the relay failed to answer it) is not said of this one.
                note.dots.discard(item)
                note.taken.discard(item)
                note.accepted.discard(item)
            elif len(parts) != 2:
                continue
            elif mark == "D":
                note.dots.add(item)
            elif mark == "U":
                # The dot stayed in the process's buffer.
                note.dots.discard(item)
                note.taken.discard(item)
            elif mark == "S":
                note.dots.add(item)
                note.taken.add(item)
            elif mark == "A":
                note.accepted.add(item)
        except ValueError:
            continue  # the line a kill cut short
    return note


def unsent_holds(text: str) -> dict[int, datetime]:
    """The holds of a note whose dot never went out: item id -> the hold written."""
    note = _read(text)
    return {item: until for item, until in note.holds.items() if item not in note.dots}


def accepted_holds(text: str) -> dict[int, datetime]:
    """The holds of a note whose message the relay accepted: item id -> the hold written."""
    note = _read(text)
    return {
        item: until
        for item, until in note.holds.items()
        if item in note.dots and item in note.accepted
    }


def received_holds(text: str) -> dict[int, datetime]:
    """The holds of a note whose whole message the relay got, its answer unread (the
    process died first): item id -> the hold written."""
    note = _read(text)
    return {
        item: until
        for item, until in note.holds.items()
        if item in note.taken and item not in note.accepted
    }


def _release(session: Session, item_id: int, until: datetime) -> int:
    result = session.execute(
        update(OutboxItem)
        .where(
            OutboxItem.id == item_id,
            OutboxItem.state == "pending",
            OutboxItem.lease_until == until,
        )
        .values(lease_until=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0))


# What the relay said is not known (the process died with it), only that it accepted.
ACCEPTED_DETAIL = "accepted by the relay before the sending process was killed; recorded at restart"
# The relay got the whole message; its answer was never read. Sent again, it would reach
# the lawyer twice: the relays that answer a received message with anything but 250 are
# few, and the gateway's own messages are the kind they accept.
RECEIVED_DETAIL = (
    "received whole by the relay before the sending process was killed, its answer unread;"
    " recorded at restart, not sent again"
)


def _record_sent(
    session: Session, audit: AuditLog, item_id: int, until: datetime, now: datetime, detail: str
) -> int:
    """The row recorded as sent, if it still carries that very hold; 1 if it was."""
    item = session.get(OutboxItem, item_id)
    if item is None or item.state != "pending" or item.lease_until != until:
        return 0
    item.state, item.lease_until, item.last_error, item.sent_at = "sent", None, None, now
    audit.append(
        session,
        f"{item.channel}.sent",
        at=now,
        reference=reference_for(item.request_id) if item.request_id else None,
        details={
            "outbox_id": item.id,
            "purpose": item.purpose,
            "to": shown_target(item.target),
            "attempt": item.attempts,
            "relay": detail,
        },
    )
    return 1


def release_unsent(
    db: Database, data_dir: Path, audit: AuditLog | None = None, now: datetime | None = None
) -> int:
    """Release the holds that processes now gone wrote for a dot they never sent; how
    many rows were released. With ``audit`` (and ``now``), the rows whose message the
    relay accepted are recorded as sent. Their notes are removed."""
    folder = data_dir / FOLDER
    if not folder.is_dir():
        return 0
    released = recorded = 0
    for note in sorted(folder.glob("*.log")):
        if note.stem == str(os.getpid()):
            continue
        with _note_of_the_dead(note) as text:
            if text is None:
                continue
            unsent = unsent_holds(text)
            sent: list[tuple[dict[int, datetime], str]] = []
            if audit is not None and now is not None:
                sent = [
                    (accepted_holds(text), ACCEPTED_DETAIL),
                    (received_holds(text), RECEIVED_DETAIL),
                ]
            if unsent or any(holds for holds, _detail in sent):
                with db.transaction() as session:
                    released += sum(_release(session, i, u) for i, u in unsent.items())
                    for holds, detail in sent:
                        assert audit is not None and now is not None
                        recorded += sum(
                            _record_sent(session, audit, item, until, now, detail)
                            for item, until in holds.items()
                        )
            note.unlink(missing_ok=True)
    if recorded:
        log.warning(
            "outbox: %s email(s) the relay accepted or received whole before their sending "
            "process died: recorded as sent, not sent again",
            recorded,
        )
    if released:
        log.warning(
            "outbox: %s email(s) held by a process that died before their end was sent: "
            "due again now",
            released,
        )
    return released


def release_after_restart(services: Services) -> int:
    """:func:`release_unsent` as a worker starts: the accepted ones recorded as sent."""
    return release_unsent(
        services.db, services.config.data_dir, services.audit, services.clock.now()
    )


# How often a running worker looks again for the notes of processes that died: a worker
# beside it on this host (several run under ``hfa serve --role worker``) may die, and its
# holds are then released here rather than at the next start.
SWEEP_SECONDS = 5.0
# After a release that failed, the first pause before it is tried again; it doubles up to
# the second.
RELEASE_RETRY_SECONDS = (1.0, 30.0)


async def released_after_restart(services: Services) -> bool:
    """:func:`release_after_restart` once; False (and logged) if it could not be done."""
    try:
        if await services.db.run(release_after_restart, services):
            services.outbox_ready.set()
    except Exception:
        log.exception("outbox: could not release the holds of a stopped process; trying again")
        return False
    return True


async def release_until_stopped(services: Services, stop: asyncio.Event, pause: float) -> None:
    """:func:`released_after_restart` every :data:`SWEEP_SECONDS` until ``stop``, first
    after ``pause``; after a failure sooner, at growing pauses."""
    retry, longest = RELEASE_RETRY_SECONDS
    while not stop.is_set():
        await first_of(stop, timeout=pause)
        if stop.is_set():
            return
        done = await released_after_restart(services)
        pause = SWEEP_SECONDS if done else min(max(retry, pause * 2), longest)


@contextlib.asynccontextmanager
async def holds_released(services: Services, stop: asyncio.Event) -> AsyncIterator[None]:
    """Release the holds of stopped processes (:func:`released_after_restart`) before the
    block, and again while it runs: soon after a failure (the emails would otherwise wait
    for the end of their holds, ten minutes), and every :data:`SWEEP_SECONDS`."""
    done = await released_after_restart(services)
    pause = SWEEP_SECONDS if done else RELEASE_RETRY_SECONDS[0]
    sweeping = asyncio.create_task(release_until_stopped(services, stop, pause))
    try:
        yield
    finally:
        sweeping.cancel()
