"""The relay transport: connections are kept and reused, and a dropped one is replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession
from aiosmtplib.protocol import normalize_message_line_endings

from gateway.outbound.outbox import BATCH
from gateway.outbound.transports import RELAY_CONNECTIONS, SmtpRelay

MESSAGE = b"From: gw@hfa.example\nTo: counsel@lawfirm.example\nSubject: s\n\nbody\n"


@dataclass
class CountingRelay:
    """An aiosmtpd relay that counts connections and keeps each protocol, to drop them."""

    port: int = 0
    connections: int = 0
    received: int = 0
    protocols: list[SMTP] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        self.received += 1
        return "250 OK"

    def drop_all(self) -> None:
        for protocol in self.protocols:
            if protocol.transport is not None:
                protocol.transport.close()


@pytest.fixture
async def relay() -> AsyncIterator[CountingRelay]:
    handler = CountingRelay()
    loop = asyncio.get_running_loop()

    def factory() -> SMTP:
        handler.connections += 1
        protocol = SMTP(handler, hostname="relay.test", loop=loop)
        handler.protocols.append(protocol)
        return protocol

    server = await loop.create_server(factory, host="127.0.0.1", port=0)
    handler.port = server.sockets[0].getsockname()[1]
    yield handler
    server.close()
    await server.wait_closed()


async def send(transport: SmtpRelay, count: int) -> list[Any]:
    return [
        await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
        for _ in range(count)
    ]


async def test_many_messages_share_one_connection(relay: CountingRelay) -> None:
    transport = SmtpRelay("127.0.0.1", relay.port)
    try:
        await send(transport, 10)
    finally:
        await transport.close()
    assert (relay.received, relay.connections) == (10, 1)


async def test_concurrent_messages_open_only_as_many_connections_as_needed(
    relay: CountingRelay,
) -> None:
    transport = SmtpRelay("127.0.0.1", relay.port)
    try:
        for _ in range(3):
            await asyncio.gather(*(send(transport, 1) for _ in range(4)))
    finally:
        await transport.close()
    assert relay.received == 12 and relay.connections == 4


async def test_messages_beyond_max_connections_wait_for_one(relay: CountingRelay) -> None:
    transport = SmtpRelay("127.0.0.1", relay.port, max_connections=4)
    try:
        await asyncio.gather(*(send(transport, 1) for _ in range(12)))
    finally:
        await transport.close()
    assert relay.received == 12 and relay.connections == 4


async def test_the_outbox_in_flight_opens_no_more_than_relay_connections(
    relay: CountingRelay,
) -> None:
    # The worker keeps more deliveries in flight than this (outbox.BATCH): the relay
    # sees no more connections from the gateway than before it did.
    transport = SmtpRelay("127.0.0.1", relay.port)
    try:
        await asyncio.gather(*(send(transport, 1) for _ in range(BATCH)))
    finally:
        await transport.close()
    assert relay.received == BATCH and relay.connections == RELAY_CONNECTIONS


async def test_a_connection_the_relay_dropped_is_replaced(relay: CountingRelay) -> None:
    transport = SmtpRelay("127.0.0.1", relay.port)
    try:
        await send(transport, 1)
        relay.drop_all()
        await asyncio.sleep(0.05)
        await send(transport, 1)
    finally:
        await transport.close()
    assert (relay.received, relay.connections) == (2, 2)


async def test_a_connection_carries_at_most_max_messages(relay: CountingRelay) -> None:
    transport = SmtpRelay("127.0.0.1", relay.port, max_messages=3)
    try:
        await send(transport, 7)
    finally:
        await transport.close()
    assert (relay.received, relay.connections) == (7, 3)


async def test_an_idle_connection_is_not_reused_after_idle_seconds(relay: CountingRelay) -> None:
    transport = SmtpRelay("127.0.0.1", relay.port, idle_seconds=0.05)
    try:
        await send(transport, 1)
        await asyncio.sleep(0.1)
        await send(transport, 1)
    finally:
        await transport.close()
    assert (relay.received, relay.connections) == (2, 2)


@dataclass
class SizingRelay(CountingRelay):
    """Refuses one recipient, and keeps the SIZE each MAIL declared with what arrived."""

    sizes: list[tuple[str, int]] = field(default_factory=list)

    async def handle_MAIL(
        self, server: SMTP, session: SmtpSession, envelope: Envelope, address: str, options: Any
    ) -> str:
        declared = next((o.split("=", 1)[1] for o in options if o.lower().startswith("size=")), "")
        self.sizes.append((declared, 0))
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: SmtpSession, envelope: Envelope, address: str, options: Any
    ) -> str:
        if address.startswith("gone@"):
            return "550 5.1.1 No such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        declared, _ = self.sizes[-1]
        # aiosmtpd hands the content back without the final CRLF and dot-stuffing.
        self.sizes[-1] = (declared, len(envelope.original_content or b""))
        return await super().handle_DATA(server, session, envelope)


async def test_each_message_declares_its_size_on_the_wire() -> None:

    from gateway.errors import PermanentDelivery

    handler = SizingRelay()
    loop = asyncio.get_running_loop()

    def factory() -> SMTP:
        handler.connections += 1
        return SMTP(handler, hostname="relay.test", loop=loop)

    server = await loop.create_server(factory, host="127.0.0.1", port=0)
    transport = SmtpRelay("127.0.0.1", server.sockets[0].getsockname()[1])
    dotted = MESSAGE + b".starts with a dot\n\xc3\xa9t\xc3\xa9\nno final newline"
    try:
        await transport.send(dotted, "gw@hfa.example", ["counsel@lawfirm.example"])
        with pytest.raises(PermanentDelivery, match="550"):
            await transport.send(MESSAGE, "gw@hfa.example", ["gone@lawfirm.example"])
        await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
    finally:
        await transport.close()
        server.close()
        await server.wait_closed()
    # The size each MAIL declared is what DATA carried on the wire (RFC 1870).
    assert handler.sizes[0][0] == str(len(normalize_message_line_endings(dotted)))
    assert handler.sizes[-1][0] == str(len(normalize_message_line_endings(MESSAGE)))
    # A refused recipient is a permanent failure; the next message still goes out.
    assert handler.received == 2


async def test_a_relay_that_stops_answering_is_a_transient_failure_within_the_timeout() -> None:
    from gateway.errors import TransientDelivery

    class Silent(CountingRelay):
        async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
            await asyncio.sleep(30)
            return "250 OK"

    handler = Silent()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="relay.test", loop=loop), host="127.0.0.1", port=0
    )
    port = server.sockets[0].getsockname()[1]
    transport = SmtpRelay("127.0.0.1", port, timeout=0.2, dot_timeout=0.5)
    try:
        # Each command has its timeout, and the message its own wait for the dot's answer:
        # the relay's 30 s of silence is cut short, well within this bound on the wait.
        with pytest.raises(TransientDelivery, match="unreachable"):
            await asyncio.wait_for(
                transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"]), 20
            )
    finally:
        await transport.close()
        server.close()


# -- RFC 5321 4.5.3.2.6: ten minutes for the answer to the final dot --------------------


class SlowAfterDot(CountingRelay):
    """Takes the message, then answers the dot only after ``delay`` seconds (or never:
    ``drop`` closes the connection instead)."""

    delay: float = 2.0
    drop: bool = False

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        self.received += 1
        if self.drop:
            assert server.transport is not None
            server.transport.close()
        await asyncio.sleep(self.delay)
        return "250 OK"


@pytest.fixture
async def slow_relay() -> AsyncIterator[SlowAfterDot]:
    handler = SlowAfterDot()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="relay.test", loop=loop), host="127.0.0.1", port=0
    )
    handler.port = server.sockets[0].getsockname()[1]
    yield handler
    server.close()


async def test_a_relay_slow_to_answer_the_dot_is_waited_for_and_gets_one_copy(
    slow_relay: SlowAfterDot,
) -> None:
    # Each command is answered at once; the dot's answer takes ten times the command
    # timeout (as a relay scanning a large message does).
    transport = SmtpRelay("127.0.0.1", slow_relay.port, timeout=0.2, dot_timeout=30)
    try:
        answer = await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
    finally:
        await transport.close()
    assert "OK" in answer
    assert slow_relay.received == 1


async def test_no_answer_after_data_is_retried_only_once_the_wait_is_over(
    slow_relay: SlowAfterDot,
) -> None:
    from gateway.errors import TransientDelivery

    transport = SmtpRelay("127.0.0.1", slow_relay.port, timeout=5, dot_timeout=600)
    slow_relay.delay = 0
    try:
        await send(transport, 1)  # a pooled connection, reused for the next message
        slow_relay.drop = True
        with pytest.raises(TransientDelivery, match="no answer to it") as raised:
            await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
    finally:
        await transport.close()
    # Not sent again on a fresh connection at once, and the retry waits out the dot.
    assert slow_relay.received == 2
    assert raised.value.retry_after is not None and raised.value.retry_after > 590


async def test_a_refused_message_after_data_is_the_relays_answer(relay: CountingRelay) -> None:
    from gateway.errors import PermanentDelivery, TransientDelivery

    answers = iter(["554 5.6.0 content refused", "451 4.3.0 try later", "250 OK"])

    async def answer(server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        relay.received += 1
        return next(answers)

    relay.handle_DATA = answer  # type: ignore[method-assign]
    transport = SmtpRelay("127.0.0.1", relay.port)
    try:
        with pytest.raises(PermanentDelivery, match="554"):
            await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
        with pytest.raises(TransientDelivery, match="451"):
            await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
        assert await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
    finally:
        await transport.close()
    assert relay.received == 3


# -- The hold before the final dot: nothing held for a message the relay cannot have ---


class DataCounting(SMTP):
    """aiosmtpd's server, counting the DATA commands it answered with 354."""

    async def smtp_DATA(self, arg: str) -> None:
        self.event_handler.data_commands += 1
        await super().smtp_DATA(arg)


async def test_the_hook_runs_once_the_message_is_out_but_for_its_dot() -> None:
    from gateway.errors import TransientDelivery
    from gateway.outbound.transports import before_dot

    class Relay(CountingRelay):
        data_commands = 0

    handler = Relay()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: DataCounting(handler, hostname="relay.test", loop=loop), "127.0.0.1", 0
    )
    handler.port = server.sockets[0].getsockname()[1]
    seen: list[tuple[int, int]] = []

    async def hold() -> None:
        # Give the relay time to read what was sent so far.
        await asyncio.sleep(0.2)
        seen.append((handler.data_commands, handler.received))

    transport = SmtpRelay("127.0.0.1", handler.port)
    token = before_dot.set(hold)
    try:
        await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])

        async def fail() -> None:
            raise ConnectionResetError("the process died here")

        before_dot.set(fail)
        with pytest.raises(TransientDelivery) as raised:
            await transport.send(MESSAGE, "gw@hfa.example", ["counsel@lawfirm.example"])
    finally:
        before_dot.reset(token)
        await transport.close()
        server.close()
    # DATA was answered and the message sent up to its dot, and the relay had nothing yet.
    assert seen == [(1, 0)]
    # A failure before the dot: the relay never got the message, and it may go again at
    # once (no wait for a dot that was never sent).
    assert handler.received == 1 and raised.value.retry_after is None
