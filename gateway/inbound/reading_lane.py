"""A reading process and the worker's end of it: a message's bytes out, its reading back.

The worker keeps two (``reading.MailReader``): one at normal priority for ordinary
replies, so that reading them runs on the other core beside the worker's write
transactions instead of taking turns with them for one interpreter, and one at the
lowest CPU priority for large messages, which runs only on CPU the listeners leave
idle. Each is a new interpreter (not a fork: the worker has threads, and their
locks, by then), talking over a socket pair it inherits; it says hello once its
imports are done and its word tables loaded, so that its start is never counted as a
message's reading.

A read that takes READ_SECONDS of the process's CPU time is too complex: the
message is Unparseable (kept raw) and the process is replaced (a thread could not
be stopped). One still unanswered after READ_WALL_SECONDS without having spent that
CPU waited for a core or is stuck: an error, retried later like a crash.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import time
from multiprocessing.connection import Connection
from pathlib import Path

from gateway.errors import Unparseable
from gateway.helper_process import start_helper
from gateway.inbound.mailparse import ParsedMail

log = logging.getLogger(__name__)

# What reading a stored message gave: the mail, or the error it raised.
Parsed = ParsedMail | Exception

# The most CPU time one message may take to be read; bounded work (limits) keeps it far lower.
READ_SECONDS = 20.0
# The longest one message may wait to be read, however busy the machine (the idle
# process waits for idle CPU); past it the process is taken to be stuck.
READ_WALL_SECONDS = 600.0
# How often the worker looks at the CPU time the reading process has spent.
POLL_SECONDS = 0.25
# The longest a new reading process may take to say hello (its imports).
START_SECONDS = 120.0
# A lane whose process is not running starts one at most this often when asked if it is
# ready (one that cannot start is not started again for every message).
RESTART_SECONDS = 30.0
# What a reading process sends once it is ready; a reading is never empty.
HELLO = b""
# Told to a reading process that should run only on idle CPU.
IDLE_FLAG = "--idle"


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) process ``pid`` has spent, or None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class ReadingLane:
    """One reading process, started when first needed; used by one thread at a time."""

    def __init__(self, *, idle: bool) -> None:
        self.idle = idle
        self.process: subprocess.Popen[bytes] | None = None
        self._connection: Connection | None = None
        self._ready = False
        self._next_start = 0.0

    def _started(self) -> Connection:
        if self.process is None or self.process.poll() is not None or self._connection is None:
            self.stop()
            self.process, ours = start_helper(
                "gateway.inbound.reading", *([IDLE_FLAG] if self.idle else [])
            )
            self._connection = Connection(ours.detach())
            self._ready = False
        return self._connection

    def ready(self) -> bool:
        """Whether the process has said hello; starts it if it is not running (at most
        once in RESTART_SECONDS). Never waits."""
        running = self.process is not None and self.process.poll() is None
        if not running:
            if time.monotonic() < self._next_start:
                return False
            self._next_start = time.monotonic() + RESTART_SECONDS
        connection = self._started()
        if not self._ready:
            try:
                if connection.poll(0):
                    self._ready = connection.recv_bytes() == HELLO
            except (EOFError, OSError):
                self.stop()
        return self._ready

    def wait_ready(self, timeout: float) -> bool:
        """Whether the process is ready, waiting up to ``timeout`` for its hello (starting
        it if need be, at most once in RESTART_SECONDS). One that does not say hello in
        time is ended, so that the next message does not wait for it again."""
        if self.ready():
            return True
        connection, process = self._connection, self.process
        if connection is None or process is None or process.poll() is not None:
            return False
        try:
            if self._hello(connection, timeout):
                return True
        except (EOFError, OSError):
            pass
        self.stop()
        return False

    def read(self, raw: bytes) -> Parsed:
        """``raw`` read in the process (started first if need be)."""
        try:
            connection = self._started()
            if not self._ready and not self._hello(connection):
                self.stop()
                return RuntimeError(f"the reading process did not start within {START_SECONDS:g} s")
            started = self._spent()
            connection.send_bytes(raw)
            ended = self._answered(connection, started)
            if ended is not None:
                # Its answer will never come: the process is replaced.
                self.stop()
                return ended
            answer = connection.recv_bytes()
        except (EOFError, OSError) as exc:
            # The process ended mid-read (killed, out of memory): retried like a crash.
            self.stop()
            return RuntimeError(f"the reading process ended while reading ({exc!r})")
        # Pickled by our own reading process from what our parser built: the sender of the
        # email controls the values in it, never the pickle's opcodes.
        parsed: Parsed = pickle.loads(answer)  # noqa: S301
        if isinstance(parsed, ParsedMail):
            parsed.raw = raw
        return parsed

    def _hello(self, connection: Connection, timeout: float = START_SECONDS) -> bool:
        if connection.poll(timeout):
            self._ready = connection.recv_bytes() == HELLO
        return self._ready

    def _spent(self) -> tuple[float, float | None]:
        """(now, CPU time the reading process has spent): where a read is timed from."""
        process = self.process
        return time.monotonic(), cpu_seconds(process.pid) if process is not None else None

    def _answered(
        self, connection: Connection, started: tuple[float, float | None]
    ) -> Parsed | None:
        """None once the answer has come; else why the read was given up.

        CPU time is what counts (wall time where it cannot be read): the idle process
        reads only while a core is free, and a busy machine must not make a message
        look unreadable.
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

    def stop(self) -> None:
        """End the process at once (stuck, or gone already)."""
        process, connection = self.process, self._connection
        self.process = self._connection = None
        self._ready = False
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(5)
        if connection is not None:
            connection.close()

    def close(self) -> None:
        """End the process (the worker is stopping): closing our end tells it to stop."""
        process, connection = self.process, self._connection
        self.process = self._connection = None
        self._ready = False
        if connection is not None:
            connection.close()
        if process is not None:
            try:
                process.wait(2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(2)
