"""A worker's own note of the holds it writes, so that a restart releases what no relay has.

Before an email's final dot its outbox row is held past the wait for the dot's answer
(``lawyer_mail``): the relay may have the message from then on, and no worker sends it
again before the wait is over. A process killed between that hold's commit and the dot
(one turn of its event loop) leaves a hold on a message the relay never received,
which would reach the lawyer only when the hold ends.

So each worker process notes, in a file of its own under the data directory, each
hold just before it writes it (``H id until``) and each dot just before it is handed
to the kernel (``D id``; ``U id`` if the kernel could not take it at once, and ``D``
again once it did): plain appends, no fsync, since a kill -9 loses nothing the process
wrote (a crash of the host does, and then a hold merely runs its course). Each
process keeps its note locked while it lives. A worker that starts reads the notes
no process holds any more: a hold with no dot is released, if the row still carries
that very hold (it is then due at once); a hold whose dot went out stays, for the relay may have the message, unless the relay's
answer to it is noted too (``A id``, written the moment the relay accepted the message,
before the row could be marked sent): then the relay has it, and the row is recorded as
sent at the restart, never sent a second time.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from sqlalchemy import update
from sqlalchemy.orm import Session

from gateway.contract import reference_for
from gateway.outbound.targets import shown_target
from gateway.runner import first_of
from gateway.services import Services
from gateway.store.audit import AuditLog
from gateway.store.db import Database
from gateway.store.models import OutboxItem

log = logging.getLogger(__name__)

FOLDER = "outbox-holds"
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

    def dot(self, item_id: int, out: bool = True) -> None:
        """The dot is about to be the kernel's (``out``), or stayed in this process."""
        if self._fd is not None:
            os.write(self._fd, f"{'D' if out else 'U'} {item_id}\n".encode())

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


def _read(text: str) -> tuple[dict[int, datetime], set[int], set[int]]:
    """A note's holds (item id -> the hold written), dots and accepted messages."""
    holds: dict[int, datetime] = {}
    dots: set[int] = set()
    accepted: set[int] = set()
    for line in text.splitlines():
        parts = line.split(" ")
        try:
            if parts[0] == "H" and len(parts) == 3:
                item = int(parts[1])
                holds[item] = datetime.fromisoformat(parts[2])
                # A new attempt at the item: what the note said of an earlier one (its
                # dot went out, the relay failed to answer it) is not said of this one.
                dots.discard(item)
                accepted.discard(item)
            elif parts[0] == "D" and len(parts) == 2:
                dots.add(int(parts[1]))
            elif parts[0] == "U" and len(parts) == 2:
                dots.discard(int(parts[1]))  # the dot stayed in the process's buffer
            elif parts[0] == "A" and len(parts) == 2:
                accepted.add(int(parts[1]))
        except ValueError:
            continue  # the line a kill cut short
    return holds, dots, accepted


def unsent_holds(text: str) -> dict[int, datetime]:
    """The holds of a note whose dot never went out: item id -> the hold written."""
    holds, dots, _accepted = _read(text)
    return {item: until for item, until in holds.items() if item not in dots}


def accepted_holds(text: str) -> dict[int, datetime]:
    """The holds of a note whose message the relay accepted: item id -> the hold written."""
    holds, dots, accepted = _read(text)
    return {item: until for item, until in holds.items() if item in dots and item in accepted}


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


def _record_accepted(
    session: Session, audit: AuditLog, item_id: int, until: datetime, now: datetime
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
            "relay": ACCEPTED_DETAIL,
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
            accepted = accepted_holds(text) if audit is not None and now is not None else {}
            if unsent or accepted:
                with db.transaction() as session:
                    released += sum(_release(session, i, u) for i, u in unsent.items())
                    for item_id, until in accepted.items():
                        assert audit is not None and now is not None
                        recorded += _record_accepted(session, audit, item_id, until, now)
            note.unlink(missing_ok=True)
    if recorded:
        log.warning(
            "outbox: %s email(s) the relay accepted before their sending process died: "
            "recorded as sent, not sent again",
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


# The first pause before the holds of a stopped process are tried again; it doubles up to
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


async def release_until_done(services: Services, stop: asyncio.Event) -> None:
    """:func:`released_after_restart` again, at growing pauses, until done or ``stop``."""
    pause, longest = RELEASE_RETRY_SECONDS
    while not stop.is_set():
        await first_of(stop, timeout=pause)
        if stop.is_set() or await released_after_restart(services):
            return
        pause = min(pause * 2, longest)
