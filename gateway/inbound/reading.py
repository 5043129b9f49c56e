"""Reading a stored message: parse, read the From address, split off the new text,
read the decision, all before the write transaction that records it.

This is the part of processing a reply that costs the most CPU and needs no
database, so it is done in reading processes (``reading_lane``), not in the
worker's. An ordinary reply costs a few milliseconds to read: in the worker's own
interpreter those milliseconds took turns with its write transactions, while a
process of its own reads on the other core. A large message is read in a process
at the lowest CPU priority (``SCHED_IDLE`` on Linux, else nice 19): parsing 25 MB
costs over a second of CPU, which on a small machine was taken from the
listeners, so filings waited while it was read; it reads whenever the listeners
leave a core idle. Both start with the first message they are needed for, which
waits for its reading process to be ready (its word tables loaded, about half a
second of CPU): read in the worker instead, the first reply would load a second
copy of those tables (some 37 MB) into the worker for as long as it runs. Only
when the ordinary one cannot start is a reply read in the worker's reading thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection

from gateway.errors import Unparseable
from gateway.inbound.mailparse import ParsedMail, parse
from gateway.inbound.reading_lane import HELLO, IDLE_FLAG, START_SECONDS, Parsed, ReadingLane
from gateway.inbound.sender import from_address
from gateway.replies import (
    AutomaticKind,
    ReplyError,
    ReplyText,
    detect_automatic,
    extract_reply,
    read_text,
    report_of_message,
)

__all__ = ["IN_PROCESS_BYTES", "MailReader", "Parsed", "parse_stored"]

# Messages up to this size are read in the ordinary reading process (or this one's
# reading thread): a few milliseconds each, bounded by the limits. Larger ones (scans,
# attachments) go to the idle one.
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
            mail.decision = read_text(mail.reply.new_text, mail.subject)
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


# Read once before the hello, so that the word tables are loaded when the process
# says it is ready and the first reply waits for no loading of its own.
_WARM_UP = (
    b"From: counsel@lawfirm.example\r\nSubject: Re: warm-up\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n\r\nApproved.\r\n"
)


def _serve(connection: Connection, *, idle: bool) -> None:
    """A reading process: raw bytes in, what :func:`parse_stored` gave out, until the
    worker closes its end."""
    # Ctrl-C reaches the whole process group: the worker decides when this one ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if idle:
        _yield_the_cpu()
    parse_stored(_WARM_UP)
    connection.send_bytes(HELLO)
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
    """The worker's end of its reading processes: one message at a time.

    An ordinary reply is read in a process at normal priority, beside the worker's
    write transactions (in this process's reading thread only when that process cannot
    start); a large one in a process that runs only on idle CPU.
    """

    def __init__(self) -> None:
        self.quick = ReadingLane(idle=False)
        self.large = ReadingLane(idle=True)
        self._lock = threading.Lock()
        self._reading: asyncio.Future[None] | None = None

    def _read_one(self, raw: bytes) -> Parsed:
        if len(raw) > IN_PROCESS_BYTES:
            return self.large.read(raw)
        if self.quick.wait_ready(START_SECONDS):
            return self.quick.read(raw)
        # Its process cannot start: read here (bounded by ``limits``, a few milliseconds),
        # at the cost of the word tables in this process.
        return parse_stored(raw)

    def _read_all(self, raws: list[tuple[int, bytes]], deliver: Deliver) -> None:
        with self._lock:
            for inbound_id, raw in raws:
                deliver(inbound_id, self._read_one(raw))

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

    def close(self) -> None:
        """End the reading processes (the worker is stopping)."""
        with self._lock:
            self.quick.close()
            self.large.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])), idle=IDLE_FLAG in sys.argv[2:])
