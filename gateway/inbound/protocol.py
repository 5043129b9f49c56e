"""The SMTP protocol as the listener runs it: aiosmtpd's, with the limits an MTA keeps.

- Connections: at most HFA_SMTP_MAX_CONNECTIONS open, and
  HFA_SMTP_MAX_CONNECTIONS_PER_CLIENT per client address; past either the
  client is told ``421`` and the connection closed, before any work is done.
- Timeouts (RFC 5321 4.5.3.2): HFA_SMTP_TIMEOUT_SECONDS between commands and for
  a whole DATA; while over half the connections are in use, 10 s (Postfix's
  answer to stress). A timed-out client is told ``421`` before the close.
- Size while it arrives: a DATA of more than MAX_DATA_LINES lines, or over the
  small limit of mail to the bounce address alone, is answered ``552`` and the
  connection closed at once, rather than read to the end only to be refused.
- Lines: a DATA line may be up to MAX_LINE_OCTETS long (RFC 5321's 1,000 is a
  minimum, and real HTML mail breaks it), and is stored as sent; a longer line
  gets ``552`` saying so, audited as ``inbound.refused``.

- DATA is read in pieces, not line by line (``gateway.inbound.data``): a large
  attachment arriving costs the event loop milliseconds, not a second.

aiosmtpd's hooks for these are methods of its protocol class (``_handle_client``,
``_reset_timeout``, ``_timeout_cb``, ``smtp_DATA``), overridden here and nowhere else.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from aiosmtpd.smtp import MISSING, SMTP, syntax

from gateway.inbound.data import DataState, read_data
from gateway.throttle import ConnectionGuard

log = logging.getLogger(__name__)

MAX_LINE_OCTETS = 1024 * 1024
STRESS_TIMEOUT = 10.0
LINES_PER_TURN = 256
# 25 MB of ordinary mail is some 330,000 lines; millions of them are an attack.
MAX_DATA_LINES = 1_000_000
_TOO_LONG = "500 Line too long"
BARE_LF_REFUSAL = (
    "552 5.6.0 Lines must end with CR LF: this message's end in a bare LF, so it reads as a "
    f"line longer than {MAX_LINE_OCTETS} octets; message not accepted"
)
LINE_REFUSAL = (
    f"552 5.3.4 A line of the message is longer than {MAX_LINE_OCTETS} octets; message not accepted"
)


class Auditor(Protocol):
    """What the protocol tells the handler about messages it refuses on its own."""

    async def refused_by_protocol(self, peer: str, mail_from: str, status: str) -> None: ...


class _OverLimit(asyncio.CancelledError):
    """Raised out of a DATA read to end a DATA that is already refused (``_end_data``)."""


def _take_turns(reader: asyncio.StreamReader) -> None:
    """Make ``reader.readuntil`` (which reads commands) give the loop a turn every
    LINES_PER_TURN lines.

    A line already in the buffer comes back without a pause, and the buffer holds
    megabytes: thousands of pipelined commands would otherwise keep HTTP and the
    other SMTP clients waiting. DATA is read in pieces by ``gateway.inbound.data``,
    which takes its own turns, and ends early once far past its envelope's limit
    (``count_data``).
    """
    readuntil = reader.readuntil
    count = 0

    async def taking_turns(separator: bytes = b"\n") -> bytes:
        nonlocal count
        count += 1
        if count % LINES_PER_TURN == 0:
            await asyncio.sleep(0)
        return await readuntil(separator)

    reader.readuntil = taking_turns  # type: ignore[method-assign,assignment]


class ReplySMTP(SMTP):
    """aiosmtpd's protocol with connection caps, RFC timeouts and long-line handling."""

    # aiosmtpd sizes its stream reader and its DATA line check from this.
    line_length_limit = MAX_LINE_OCTETS + 2

    def __init__(
        self,
        handler: Any,
        *,
        guard: ConnectionGuard,
        small_envelope: tuple[str, int] = ("", 0),
        **kwargs: Any,
    ) -> None:
        self._guard = guard
        self._client = ""
        self._admitted = False
        # (address, limit): DATA for that address alone ends once this far over.
        self._small_address, self._small_limit = small_envelope[0].lower(), small_envelope[1]
        self._data_bytes: int | None = None
        self._data_lines = 0
        super().__init__(handler, **kwargs)

    @syntax("DATA")
    async def smtp_DATA(self, arg: str) -> None:
        """aiosmtpd's DATA, with the message read in pieces (``gateway.inbound.data``)."""
        if await self.check_helo_needed() or await self.check_auth_needed("DATA"):
            return
        assert self.envelope is not None
        if not self.envelope.rcpt_tos:
            await self.push("503 Error: need RCPT command")
            return
        if arg:
            await self.push("501 Syntax: DATA")
            return
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        self._data_bytes = 0
        self._data_lines = 0
        try:
            read = await read_data(
                self._read_until,
                self._reader.readexactly,
                size_limit=self.data_size_limit,
                line_limit=self.line_length_limit,
                count=self.count_data,
            )
        except _OverLimit:
            raise
        except (asyncio.CancelledError, asyncio.IncompleteReadError):
            log.info("SMTP connection from %s lost during DATA", self._client)
            self._writer.close()
            raise asyncio.CancelledError from None
        finally:
            self._data_bytes = None
        if read.state is DataState.TOO_LONG:
            answer = LINE_REFUSAL
        elif read.state is DataState.BARE_LF:
            answer = BARE_LF_REFUSAL
        elif read.state is DataState.TOO_MUCH:
            answer = "552 Error: Too much mail data"
        else:
            self.envelope.content = self.envelope.original_content = read.content
            status = await self._call_handler_hook("DATA")
            answer = "250 OK" if status is MISSING else status
        self._set_post_data_state()  # type: ignore[no-untyped-call]
        await self.push(answer)

    def count_data(self, size: int, lines: int = 1) -> None:
        if self._data_bytes is None or self.envelope is None:
            return
        self._data_bytes += size
        self._data_lines += lines
        if self._data_lines > MAX_DATA_LINES:
            self._end_data(
                f"552 5.3.4 A message of more than {MAX_DATA_LINES} lines is not accepted"
            )
        if not self._small_limit or self._data_bytes <= self._small_limit:
            return
        if all(a.lower() == self._small_address for a in self.envelope.rcpt_tos):
            self._end_data(
                f"552 5.3.4 This address takes messages of at most {self._small_limit} bytes"
            )

    def _end_data(self, answer: str) -> None:
        """Refuse a DATA while it is still arriving, and close: reading the rest line by
        line only to refuse it would cost minutes of CPU."""
        log.warning("SMTP DATA from %s ended early: %s", self._client, answer)
        transport = self.transport
        if isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(f"{answer}; closing connection\r\n".encode())
            transport.close()
        raise _OverLimit

    def connection_made(self, transport: Any) -> None:
        # aiosmtpd calls this again, on the same connection, once STARTTLS has put TLS
        # under it (``_original_transport`` is set by then): that is no new client, and
        # taking a second slot here leaked one per STARTTLS session.
        upgraded = self._original_transport is not None
        super().connection_made(transport)
        if upgraded:
            return
        # DATA is read in pieces with the reader's own method; commands take turns.
        self._read_until = self._reader.readuntil
        _take_turns(self._reader)
        peer = transport.get_extra_info("peername")
        self._client = str(peer[0]) if peer else "unknown"
        self._admitted = self._guard.admit(self._client)

    def _release(self) -> None:
        """Give the connection's slot back, once, however the session ended."""
        if self._admitted:
            self._admitted = False
            self._guard.release(self._client)

    def connection_lost(self, error: Exception | None) -> None:
        self._release()
        super().connection_lost(error)

    async def _handle_client(self) -> None:
        try:
            if not self._admitted:
                log.warning("SMTP connection from %s refused: too many connections", self._client)
                await self.push("421 4.7.0 Too many connections; try again later")
                if self.transport is not None:
                    self.transport.close()
                return
            await super()._handle_client()
        finally:
            # The session is over (QUIT, a failed TLS handshake, a reset, a timeout): the
            # slot goes back even where the transport never reports its loss.
            self._release()

    def _reset_timeout(self, duration: float | None = None) -> None:
        if duration is None and self._guard.stressed:
            duration = min(self._timeout_duration, STRESS_TIMEOUT)
        super()._reset_timeout(duration)

    def _timeout_cb(self) -> None:
        transport = self.transport
        if isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(f"421 4.4.2 {self.hostname} Timeout; closing connection\r\n".encode())
        super()._timeout_cb()  # type: ignore[no-untyped-call]
        # A client silent inside a STARTTLS handshake leaves aiosmtpd waiting on the
        # handshake for ever, and closing the TLS layer does not end it: abort the TCP
        # connection under it and give the slot back now.
        raw = self._original_transport
        if isinstance(raw, asyncio.WriteTransport) and not raw.is_closing():
            raw.abort()
        self._release()

    async def push(self, status: Any) -> None:
        text = status.decode() if isinstance(status, bytes) else str(status)
        if text.startswith(_TOO_LONG):
            text = LINE_REFUSAL
        if text.startswith("552") and hasattr(self.event_handler, "refused_by_protocol"):
            session = self.session
            peer = str(session.peer[0]) if session is not None and session.peer else "unknown"
            mail_from = (self.envelope.mail_from or "") if self.envelope is not None else ""
            auditor: Auditor = self.event_handler
            try:
                await auditor.refused_by_protocol(peer, mail_from, text)
            except Exception:
                log.exception("could not audit a refused message")
        await super().push(text)
