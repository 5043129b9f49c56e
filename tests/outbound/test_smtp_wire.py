"""A message's wire form for DATA: the same bytes aiosmtplib would send, made cheaper."""

from __future__ import annotations

import asyncio
from typing import cast

import aiosmtplib
import pytest
from aiosmtplib.protocol import PERIOD_REGEX, normalize_message_line_endings

from gateway.outbound.smtp_wire import data, envelope, wire_form


@pytest.mark.parametrize(
    "message",
    [
        b"From: gw@hfa.example\nTo: counsel@lawfirm.example\nSubject: s\n\nbody\n",
        b".a first line that starts with a dot\n..two\n.\nmiddle\n.\n",
        b"no final newline\n.last",
        b"\n\n.\n\n",
        b"",
        b"ends with a dot line\n.",
        # Not the gateway's own: CR LF, a bare CR, mixed endings go aiosmtplib's way.
        b"crlf\r\n.dot\r\nbare\rcr\n.lf\n",
    ],
)
def test_the_wire_form_is_what_aiosmtplib_sends(message: bytes) -> None:
    # aiosmtplib's DATA: line endings made CRLF, a CRLF at the end, dots doubled, the dot.
    expected = PERIOD_REGEX.sub(b"..", normalize_message_line_endings(message)) + b".\r\n"
    assert wire_form(message) == expected


class SlowReader(asyncio.Protocol):
    """A relay that stops reading once it said 354 and reads on a moment later, as a
    busy one does: meanwhile the message waits in the sender's buffer. It answers each
    message's dot with ``answer`` (none: it has not answered yet)."""

    pause_seconds = 0.3
    answer: bytes | None = b"250 taken\r\n"

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.in_data = False
        self.received = 0
        self.messages = 0
        self.tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(b"220 relay.test\r\n")

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        if self.in_data:
            self.received += len(data)
            self.tail = (self.tail + data)[-5:]
            if self.tail == b"\r\n.\r\n":
                self.in_data, self.tail = False, b""
                self.messages += 1
                if self.answer is not None:
                    self.transport.write(self.answer)
            return
        for line in data.split(b"\r\n"):
            if line.startswith(b"DATA"):
                self.in_data = True
                self.transport.write(b"354 go on\r\n")
                if self.pause_seconds:
                    self.transport.pause_reading()
                    loop = asyncio.get_running_loop()
                    loop.call_later(self.pause_seconds, self.transport.resume_reading)
            elif line:
                self.transport.write(b"250 ok\r\n")


async def test_the_message_has_left_the_process_before_its_dot_is_prepared() -> None:
    """Whatever a process still buffers dies with it: ``before_dot`` (which holds the
    row as if the relay might have the message) runs only once all of the message but
    its dot is the kernel's, and the dot is noted as sent just before it is written."""
    relay = SlowReader()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: relay, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=10)
    # Larger than what the loopback's socket buffers hold between the two.
    message = b"Subject: big\n\n" + b"x" * 76 * 400_000
    buffered_at_hold: list[int] = []
    dot_marks: list[tuple[str, int]] = []

    def buffered() -> int:
        assert client.protocol is not None and client.protocol.transport is not None
        return int(cast(asyncio.WriteTransport, client.protocol.transport).get_write_buffer_size())

    async def before_dot() -> None:
        buffered_at_hold.append(buffered())

    def dot_sent(where: str) -> None:
        dot_marks.append((where, buffered()))

    try:
        await client.connect()
        await envelope(client, "gw@hfa.example", ["counsel@lawfirm.example"], message)
        answer = await data(client, message, 10, before_dot, dot_sent)
    finally:
        client.close()
        server.close()
    assert answer.code == 250
    # Noted as about to be written, with nothing of the message left in this process,
    # then as the kernel's.
    assert buffered_at_hold == [0] and dot_marks == [("writing", 0), ("with_kernel", 0)]
    assert relay.received == len(wire_form(message))
