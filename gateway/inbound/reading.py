"""Reading a stored message: parse, read the From address, split off the new text,
read the decision, all before the write transaction that records it.

This is the part of processing a reply that costs the most CPU and needs no
database. A large message is read in a process of its own: parsing 25 MB in the
worker's process held, for seconds, the interpreter that the worker's write
transactions need, and on SQLite, where every process shares one write lock,
filing waited in the other process too. The reading process starts with the
first large message; one that takes more than READ_SECONDS of CPU time is given
up on and its process replaced (a thread could not be stopped). Ordinary replies
are read in the worker's reading thread, where they cost a few milliseconds.

The reading process runs at the lowest CPU priority (``SCHED_IDLE`` on Linux,
else nice 19): a 25 MB reply costs it over a second of CPU, and on a small
machine that second was taken from the listeners, so filings waited while it was
read. It reads on whenever the listeners leave a core idle, so its limit counts
the CPU time it spends, not the time it waits for a core; a read still waiting after
READ_WALL_SECONDS is retried later like a crash, never taken for an unreadable message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path

from gateway.inbound.mailparse import ParsedMail, Unparseable, parse
from gateway.inbound.sender import from_address
from gateway.replies import (
    AutomaticKind,
    ReplyError,
    ReplyText,
    detect_automatic,
    extract_reply,
    read_decision,
)
from gateway.replies.bounces import report_of_message

log = logging.getLogger(__name__)

# What reading a stored message gave: the mail, or the error it raised.
Parsed = ParsedMail | Exception

# The most CPU time one message may take to be read; bounded work (limits) keeps it far lower.
READ_SECONDS = 20.0
# The longest one message may wait to be read, however busy the machine (the reading
# process waits for idle CPU); past it the process is taken to be stuck.
READ_WALL_SECONDS = 600.0
# How often the worker looks at the CPU time the reading process has spent.
POLL_SECONDS = 0.25
# Messages up to this size are read in the worker's reading thread: a few milliseconds
# each, bounded by the limits. Larger ones (scans, attachments) go to the reading process.
IN_PROCESS_BYTES = 256 * 1024


def parse_stored(raw: bytes) -> Parsed:
    """Everything about a message that costs CPU and needs no database: parse it, read
    its From address strictly, split off the new text and read its decision, and read
    it as a delivery report (what mail to the bounce address is)."""
    try:
        mail = parse(raw)
        mail.sender = from_address(mail.message)
        mail.raw = raw
    except RecursionError:
        return Unparseable("nested too deeply to read")
    except Exception as exc:
        return exc
    with contextlib.suppress(ReplyError):
        # A delivery report (what the bounce address takes) is read here, off the event
        # loop and outside the write transaction that records it.
        if detect_automatic(mail.headers, mail.subject, mail.headers.get("content-type")) is (
            AutomaticKind.BOUNCE
        ):
            mail.report = report_of_message(mail.message)
    try:
        mail.reply = extract_reply(mail.text_plain, mail.text_html)
    except ReplyError as exc:
        mail.reply = exc
    except Exception as exc:
        return exc
    if isinstance(mail.reply, ReplyText):
        try:
            mail.decision = read_decision(mail.reply.new_text, mail.subject)
        except Exception as exc:
            return exc
    return mail


def _packed(parsed: Parsed) -> bytes:
    try:
        return pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        # An error that does not pickle still reaches the worker, as a crash to retry.
        return pickle.dumps(RuntimeError(f"{type(parsed).__name__}: {parsed}"))


def _yield_the_cpu() -> None:
    """This process runs only on CPU that the listeners and the worker leave idle."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        # Not Linux: the lowest priority that everywhere has.
        with contextlib.suppress(OSError):
            os.nice(19)


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) process ``pid`` has spent, or None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _serve(connection: Connection) -> None:
    """The reading process: raw bytes in, what :func:`parse_stored` gave out, until the
    worker closes its end."""
    # Ctrl-C reaches the whole process group: the worker decides when this one ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _yield_the_cpu()
    while True:
        try:
            raw = connection.recv_bytes()
        except (EOFError, OSError):
            return
        parsed = parse_stored(raw)
        if isinstance(parsed, ParsedMail):
            # The worker has the bytes already: they do not travel back.
            parsed.raw = None
        connection.send_bytes(_packed(parsed))


# Told each message's reading as it is done (from the reading thread).
Deliver = Callable[[int, Parsed], None]


def _fail_unsettled(
    done: asyncio.Future[None], futures: Mapping[int, asyncio.Future[Parsed]]
) -> None:
    error = done.exception() if not done.cancelled() else None
    if not isinstance(error, Exception):
        error = RuntimeError("the message was not read")
    for future in futures.values():
        if not future.done():
            future.set_result(error)


class MailReader:
    """The worker's end of the reading process: one message at a time."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._connection: Connection | None = None
        self._lock = threading.Lock()
        self._reading: asyncio.Future[None] | None = None

    def _started(self) -> Connection:
        if self._process is None or self._process.poll() is not None or self._connection is None:
            self._stop_process()
            # A new interpreter (not a fork: this process has threads, and their locks,
            # by now), talking over a socket pair it inherits.
            ours, theirs = socket.socketpair()
            with theirs:
                self._process = subprocess.Popen(  # noqa: S603 (our interpreter, our module)
                    [sys.executable, "-m", "gateway.inbound.reading", str(theirs.fileno())],
                    pass_fds=(theirs.fileno(),),
                    stdin=subprocess.DEVNULL,
                )
            self._connection = Connection(ours.detach())
        return self._connection

    def _read_one(self, inbound_id: int, raw: bytes) -> Parsed:
        if len(raw) <= IN_PROCESS_BYTES:
            # Bounded (``limits``) and quick: a process round trip would cost more.
            return parse_stored(raw)
        try:
            connection = self._started()
            started = self._spent()
            connection.send_bytes(raw)
            ended = self._answered(connection, started)
            if ended is not None:
                # Its answer will never come: the process is replaced.
                self._stop_process()
                return ended
            answer = connection.recv_bytes()
        except (EOFError, OSError) as exc:
            # The process ended mid-read (killed, out of memory): retried like a crash.
            self._stop_process()
            return RuntimeError(f"the reading process ended while reading ({exc!r})")
        # Pickled by our own reading process from what our parser built: the sender of the
        # email controls the values in it, never the pickle's opcodes.
        parsed: Parsed = pickle.loads(answer)  # noqa: S301
        if isinstance(parsed, ParsedMail):
            parsed.raw = raw
        return parsed

    def _spent(self) -> tuple[float, float | None]:
        """(now, CPU time the reading process has spent): where a read is timed from."""
        process = self._process
        return time.monotonic(), cpu_seconds(process.pid) if process is not None else None

    def _answered(
        self, connection: Connection, started: tuple[float, float | None]
    ) -> Parsed | None:
        """None once the answer has come; else why the read was given up.

        A read that took READ_SECONDS of the reading process's CPU time (of wall time
        where that cannot be read) is too complex: Unparseable, kept raw. One still
        unanswered after READ_WALL_SECONDS without having spent that CPU waited for a
        core (a machine busy for minutes; the process runs only on idle CPU) or is stuck:
        an error, so the message is retried like any crash, not called unreadable.
        """
        since, cpu_before = started
        while not connection.poll(min(POLL_SECONDS, READ_SECONDS)):
            now, cpu_now = self._spent()
            spent = now - since if cpu_before is None or cpu_now is None else cpu_now - cpu_before
            if spent >= READ_SECONDS:
                log.warning("a message not read within %s s of CPU time; kept raw", READ_SECONDS)
                return Unparseable(
                    f"not read within {READ_SECONDS:g} s of CPU time (too complex); kept raw"
                )
            if now - since >= READ_WALL_SECONDS:
                log.warning(
                    "a message not read within %s s, %.1f s of CPU time spent; retried",
                    READ_WALL_SECONDS,
                    spent,
                )
                return RuntimeError(
                    f"not read within {READ_WALL_SECONDS:g} s with {spent:.1f} s of CPU time"
                    " spent: the reading process got no CPU or is stuck"
                )
        return None

    def _read_all(self, raws: list[tuple[int, bytes]], deliver: Deliver) -> None:
        with self._lock:
            for inbound_id, raw in raws:
                deliver(inbound_id, self._read_one(inbound_id, raw))

    def read_each(self, raws: Mapping[int, bytes]) -> dict[int, asyncio.Future[Parsed]]:
        """Start reading ``raws`` in order; each one's future is settled as it is read.

        The worker records the first messages while the next ones are being read.
        A message not read within READ_SECONDS is Unparseable (it stays raw).
        """
        loop = asyncio.get_running_loop()
        futures: dict[int, asyncio.Future[Parsed]] = {i: loop.create_future() for i in raws}

        def settle(inbound_id: int, parsed: Parsed) -> None:
            future = futures[inbound_id]
            if not future.done():
                future.set_result(parsed)

        def deliver(inbound_id: int, parsed: Parsed) -> None:
            loop.call_soon_threadsafe(settle, inbound_id, parsed)

        reading = loop.run_in_executor(None, self._read_all, list(raws.items()), deliver)
        # Held so the task is not collected; an error in it fails what was not read yet.
        self._reading = reading
        reading.add_done_callback(lambda done: _fail_unsettled(done, futures))
        return futures

    async def read(self, inbound_id: int, raw: bytes) -> Parsed:
        """One message, read in the reading process."""
        return await self.read_each({inbound_id: raw})[inbound_id]

    def _stop_process(self) -> None:
        process, connection = self._process, self._connection
        self._process = self._connection = None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(5)
        if connection is not None:
            connection.close()

    def close(self) -> None:
        """End the reading process (the worker is stopping)."""
        with self._lock:
            process, connection = self._process, self._connection
            self._process = self._connection = None
            if connection is not None:
                # Closing our end is what tells it to stop.
                connection.close()
            if process is not None:
                try:
                    process.wait(2)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(2)


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
