"""The composing process: lawyer emails written on another core than the worker's.

Writing a lawyer email (its context, two templates, the MIME) costs about a
millisecond of CPU, about half of what the worker spends per email under load, and
needs no database: the worker reads each batch's threads and sends them here
(``compose_lane``), then sends what comes back. ``python -m gateway.outbound.composer
FD [IDLE_SECONDS]`` serves one worker over the socket FD: a hello once its imports are
done, then one answer per batch, in order. It ends when the worker closes its end, or
after IDLE_SECONDS without a batch, so a gateway at rest holds no second interpreter.
"""

from __future__ import annotations

import contextlib
import pickle
import socket
import struct
import sys
from dataclasses import dataclass

from gateway.outbound.compose import MailThread, compose_from_thread
from gateway.outbound.view import MailSettings
from gateway.render import Renderer
from gateway.store.models import OutboxItem

# How long the process waits for a batch before it ends (the worker starts it again).
IDLE_SECONDS = 60.0
_LENGTH = struct.Struct("!I")


@dataclass(frozen=True)
class Batch:
    """What the worker asks for: the emails of a batch, each with its thread."""

    mail_from: str
    loop_marker: str
    settings: MailSettings
    # (item, its thread, the reply address signed for its recipient), in order.
    emails: list[tuple[OutboxItem, MailThread, str]]

    def write(
        self, renderer: Renderer, item: OutboxItem, thread: MailThread, reply_address: str
    ) -> bytes:
        """One email as sent, from this batch's sender and settings (here or in the worker)."""
        return compose_from_thread(
            item,
            thread,
            renderer=renderer,
            mail_from=self.mail_from,
            reply_address=reply_address,
            loop_marker=self.loop_marker,
            settings=self.settings,
        ).as_bytes()


# Each email's bytes, or why it could not be written (the worker then writes it itself,
# and meets the error where an email's errors are handled).
Composed = list[bytes | str]


def frame(payload: bytes) -> bytes:
    """``payload`` as sent on the socket: its length, then itself."""
    return _LENGTH.pack(len(payload)) + payload


def compose_batch(renderer: Renderer, batch: Batch) -> Composed:
    answers: Composed = []
    for item, thread, reply_address in batch.emails:
        try:
            answers.append(batch.write(renderer, item, thread, reply_address))
        except Exception as exc:
            answers.append(f"{type(exc).__name__}: {exc}"[:500])
    return answers


def _receive(sock: socket.socket, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None once the worker has closed its end."""
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def serve(sock: socket.socket, idle_seconds: float) -> None:
    renderer = Renderer()
    sock.sendall(frame(b""))
    while True:
        sock.settimeout(idle_seconds)
        try:
            head = _receive(sock, _LENGTH.size)
        except TimeoutError:
            return
        # Once a batch has begun, the rest of it is on its way: no idle limit.
        sock.settimeout(None)
        body = _receive(sock, _LENGTH.unpack(head)[0]) if head is not None else None
        if body is None:
            return
        # Pickled by the worker that started this process, from rows it read itself.
        batch: Batch = pickle.loads(body)  # noqa: S301
        sock.sendall(frame(pickle.dumps(compose_batch(renderer, batch), protocol=5)))


def main(argv: list[str]) -> int:
    idle = float(argv[2]) if len(argv) > 2 else IDLE_SECONDS
    with (
        socket.socket(fileno=int(argv[1])) as sock,
        contextlib.suppress(BrokenPipeError, ConnectionResetError, KeyboardInterrupt),
    ):
        serve(sock, idle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
