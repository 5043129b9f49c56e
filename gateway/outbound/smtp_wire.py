"""One message's SMTP commands as the relay transport sends them, cheaper than aiosmtplib's.

``SMTP.sendmail`` goes over each message with regular expressions to count its size, then
twice more to put its line endings and dots in their wire form: more than all the rest of
sending it costs. The gateway's own messages have LF line endings only, and plain
replacements do the same for them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Literal, cast

import aiosmtplib
from aiosmtplib.protocol import PERIOD_REGEX, SMTPProtocol, normalize_message_line_endings
from aiosmtplib.typing import SMTPStatus

# The end of a message's DATA (RFC 5321 4.1.1.4).
_DOT = b".\r\n"

# Where a message's final dot is: about to be written (the relay may have it from now
# on); written but still in this process's buffer (it dies with the process, so the
# relay cannot have it yet); the kernel's (it reaches the relay even if this process dies
# now: the kernel sends what it was given before closing the connection).
DotState = Literal["writing", "in_buffer", "with_kernel"]


def _wire_size(message: bytes) -> int:
    """The octets DATA will carry (RFC 1870): every line ending made CRLF, a CRLF at the end."""
    if b"\r" in message:
        return len(normalize_message_line_endings(message))
    return len(message) + message.count(b"\n") + (0 if message.endswith(b"\n") else 2)


def wire_form(message: bytes) -> bytes:
    """``message`` as DATA carries it: CRLF line endings, a dot doubled where a line starts
    with one, then the final dot.

    aiosmtplib does this with two regular-expression passes over the message, which cost
    more than all the rest of sending it. The gateway's messages have LF line endings
    only, and two plain replacements do the same; any other goes aiosmtplib's way.
    """
    if b"\r" in message:
        wire = PERIOD_REGEX.sub(b"..", normalize_message_line_endings(message))
    else:
        wire = message.replace(b"\n", b"\r\n")
        if not wire.endswith(b"\r\n"):
            wire += b"\r\n"
        wire = wire.replace(b"\n.", b"\n..")
        if wire.startswith(b"."):
            wire = b"." + wire
    return wire + b".\r\n"


async def data(
    client: aiosmtplib.SMTP,
    message: bytes,
    timeout: float,
    before_dot: Callable[[], Awaitable[None]] | None = None,
    dot_sent: Callable[[DotState], None] | None = None,
) -> aiosmtplib.SMTPResponse:
    """``SMTP.data``, with the message put in its wire form by :func:`wire_form`.

    The message goes out up to its final dot and into the kernel's hands; ``before_dot``
    is awaited then, and only then the dot. A relay takes no message before its dot:
    until then, whatever happens to this process, it cannot have it.

    ``dot_sent("writing")`` is called just before the dot is written: a process killed
    once the relay may have the message has said so, whenever the kill falls. Then
    ``dot_sent("with_kernel")`` once the kernel took it (at once, as a rule): from then
    on the relay gets it, whatever happens to this process. Should the kernel not take
    it at once, ``dot_sent("in_buffer")`` says so first (what the process buffers dies
    with it).
    """
    wire = wire_form(message)
    body, dot = wire[: -len(_DOT)], wire[-len(_DOT) :]
    start = await client.execute_command(b"DATA", timeout=timeout)
    if start.code != SMTPStatus.start_input:
        raise aiosmtplib.SMTPDataError(start.code, start.message)
    dot_out: asyncio.Task[None] | None = None
    try:
        _protocol(client).write(body)
        await _handed_to_kernel(_protocol(client), timeout)
        if before_dot is not None:
            await before_dot()
        protocol = _protocol(client)
        # No await between the write and the wait for the answer: nothing can arrive
        # before the protocol expects it.
        if dot_sent is not None:
            dot_sent("writing")
        protocol.write(dot)
        if dot_sent is not None:
            if _buffered(protocol):
                dot_sent("in_buffer")
                dot_out = asyncio.ensure_future(_once_handed_to_kernel(protocol, dot_sent))
            else:
                dot_sent("with_kernel")
        response = await protocol.read_response(timeout=timeout)
    except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError):
        # As SMTP.data does: the connection is out of step, and is not used again. A dot
        # still in this process's buffer is dropped with it, never sent later: the
        # message is then known not to have reached the relay.
        if dot_out is not None and not dot_out.done():
            dot_out.cancel()
            transport = client.protocol.transport if client.protocol is not None else None
            if transport is not None:
                cast(asyncio.WriteTransport, transport).abort()
        client.close()
        raise
    if dot_out is not None and not dot_out.done():
        # The relay answered the dot: it has left the buffer.
        dot_out.cancel()
        assert dot_sent is not None
        dot_sent("with_kernel")
    if response.code != SMTPStatus.completed:
        raise aiosmtplib.SMTPDataError(response.code, response.message)
    return response


# How often a buffer that the kernel could not take at once is looked at again.
_FLUSH_POLL_SECONDS = 0.002


def _buffered(protocol: SMTPProtocol) -> int:
    transport = protocol.transport
    if transport is None or transport.is_closing():
        raise aiosmtplib.SMTPServerDisconnected("Connection lost")
    return int(cast(asyncio.WriteTransport, transport).get_write_buffer_size())


async def _handed_to_kernel(protocol: SMTPProtocol, timeout: float) -> None:
    """Until all that was written has left this process's buffer (at once, unless the
    relay is slow to read)."""
    try:
        async with asyncio.timeout(timeout):
            while _buffered(protocol):
                await asyncio.sleep(_FLUSH_POLL_SECONDS)
    except TimeoutError as exc:
        raise aiosmtplib.SMTPTimeoutError("the relay took no more of the message") from exc


async def _once_handed_to_kernel(protocol: SMTPProtocol, then: Callable[[DotState], None]) -> None:
    with contextlib.suppress(aiosmtplib.SMTPServerDisconnected):
        while _buffered(protocol):
            await asyncio.sleep(_FLUSH_POLL_SECONDS)
        then("with_kernel")


def _protocol(client: aiosmtplib.SMTP) -> SMTPProtocol:
    protocol = client.protocol
    if protocol is None:
        raise aiosmtplib.SMTPServerDisconnected("Connection lost")
    return protocol


async def envelope(
    client: aiosmtplib.SMTP, sender: str, recipients: list[str], message: bytes
) -> dict[str, aiosmtplib.SMTPResponse]:
    """The commands ``SMTP.sendmail`` sends before DATA, minus its second pass over the
    message to count its size (the gateway's messages have LF line endings only); the
    recipients refused, when some were accepted."""
    if client.is_ehlo_or_helo_needed:
        # Greeted first, as sendmail does, so that the relay's SIZE extension is known.
        try:
            await client.ehlo(timeout=None)
        except aiosmtplib.SMTPHeloError:
            if not client.is_connected:
                raise
            await client.helo(timeout=None)
    options = [f"size={_wire_size(message)}"] if client.supports_extension("size") else []
    await client.mail(sender, options=options, timeout=None)
    refused: list[aiosmtplib.SMTPRecipientRefused] = []
    for recipient in recipients:
        try:
            await client.rcpt(recipient, timeout=None)
        except aiosmtplib.SMTPRecipientRefused as exc:
            refused.append(exc)
    if len(refused) == len(recipients):
        raise aiosmtplib.SMTPRecipientsRefused(refused)
    return {r.recipient: aiosmtplib.SMTPResponse(r.code, r.message) for r in refused}
