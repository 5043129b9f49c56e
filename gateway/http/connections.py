"""uvicorn's HTTP/1.1 protocol with the limits a public listener needs.

- At most HFA_HTTP_MAX_CONNECTIONS connections open, and
  HFA_HTTP_MAX_CONNECTIONS_PER_CLIENT per client address: past either, the
  client gets ``503`` with Retry-After and the connection is closed.
- A request's headers and body must arrive within HFA_HTTP_TIMEOUT_SECONDS
  of its first byte (or of the connection, for a client that sends nothing):
  a client trickling a header line every few seconds (slowloris) gets ``408``
  and is closed. Time spent answering is not limited here; idle keep-alive
  connections are closed by uvicorn's own keep-alive timeout.
- A request's head is bounded (``head_limits``): a header field of more than
  8 KiB, more than 100 of them or 64 KiB in all get ``431`` (a request line
  over 8 KiB ``414``) and the close. Over h11 (no httptools), h11's own bound
  on an incomplete head (64 KiB) answers ``400``.

The limits are the same over either of uvicorn's HTTP/1.1 parsers: httptools
(llhttp, in C) where it is installed, as it is with the gateway, else h11.

uvicorn writes a response's head and its body to the socket one after the other:
two system calls and two TCP segments for every answer, and on loopback or a
busy host the second costs as much as the first. Here what one turn of the
event loop writes to a connection goes out in one write, at the end of that
turn (``CorkedWrites``); a streamed response still goes out as it is written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: h11 only
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

from gateway.http.errors import closing_answer
from gateway.http.head_limits import LimitedHead
from gateway.store.prepared import Arrivals
from gateway.throttle import ConnectionGuard

log = logging.getLogger(__name__)

# The scope key of a request whose arrival was counted (``Arrivals``): its kept status
# may be answered from the commit count asked since.
ARRIVALS = "gateway.arrivals"
# The scope key of the connection's transport, for a response that runs long (an event
# stream) to see that its client has gone: uvicorn drops what is sent then, silently.
TRANSPORT = "gateway.transport"


TOO_MANY = closing_answer(
    "503 Service Unavailable",
    "connection_refused",
    "too many connections; try again shortly",
    {"Retry-After": "5"},
)
TOO_SLOW = closing_answer(
    "408 Request Timeout", "connection_refused", "the request did not arrive in time"
)


# Type-checked as h11's protocol; at run time a mixin over either parser's protocol.
if TYPE_CHECKING:
    _Protocol = H11Protocol
else:
    _Protocol = object


# Writes this large leave at once (after what was written before them).
UNCORKED_BYTES = 64 * 1024


class CorkedWrites:
    """A transport whose writes of one turn of the event loop are sent as one.

    The first write schedules the flush for the end of the current turn; closing
    (or writing EOF) flushes first, so nothing written is lost or reordered.
    Everything else is the transport's own.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if len(data) >= UNCORKED_BYTES:
            # A large body gains nothing from sharing a write, and joining would copy it.
            self.flush()
            self._transport.write(data)
            return
        if self._pending is None:
            self._pending = [bytes(data)]
            self._loop.call_soon(self.flush)
        else:
            self._pending.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending:
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def get_write_buffer_size(self) -> int:
        waiting = sum(map(len, self._pending)) if self._pending else 0
        return self._transport.get_write_buffer_size() + waiting

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _Guarded(_Protocol):
    """Per-client and total connection caps and a request deadline, over a uvicorn
    HTTP protocol (both keep the request being read as ``cycle``)."""

    guard: ConnectionGuard
    timeout: float
    arrivals: Arrivals
    # HFA_TRUSTED_PROXIES: their connections are not capped per client.
    proxies: Callable[[str], bool] | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # When the request being read must have arrived (loop time), or None when no
        # request is being read. One timer per connection checks it, moved only when it
        # fires early: a timer set and cancelled for every request cost more than
        # reading a small request.
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        # The cycle that was current when the deadline was set: a new one means that
        # the request the deadline is for has been read.
        self._armed_for: object | None = None
        self._key = ""
        self._admitted = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Every writer of the connection (uvicorn's request cycles, the answers below)
        # writes through the cork; uvicorn's flow control keeps the transport itself.
        self.transport = CorkedWrites(transport, self.loop)  # type: ignore[assignment]
        self._key = self.client[0] if self.client else "unknown"
        if self.proxies is not None and self.proxies(self._key):
            # A trusted proxy carries many clients: only the total cap counts it.
            self._key = f"{self._key} (proxy connection {id(self):x})"
        self._admitted = self.guard.admit(self._key)
        if not self._admitted:
            log.warning("HTTP connection from %s refused: too many connections", self._key)
            transport.write(TOO_MANY)
            transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._admitted:
            self.guard.release(self._key)
            self._admitted = False
        self._disarm()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            # The first bytes of the next request on a kept-alive connection.
            self._arm()
        # Counted before the request these bytes carry can be served.
        self.arrivals.note()
        super().data_received(data)
        cycle = self.cycle
        if cycle is not None and not getattr(self, "pipeline", None):
            # A request queued behind another on this connection (pipelining) is not
            # marked: it is served after that one, maybe after its commit, and then
            # must ask for the commit count itself.
            cycle.scope[ARRIVALS] = self.arrivals  # type: ignore[literal-required]
            cycle.scope[TRANSPORT] = self.transport  # type: ignore[literal-required]
        if self._request_read():
            self._disarm()

    def _request_read(self) -> bool:
        cycle = self.cycle
        return cycle is not None and cycle is not self._armed_for and not cycle.more_body

    def _arm(self) -> None:
        self._armed_for = self.cycle
        self._deadline = self.loop.time() + self.timeout
        if self._timer is None:
            self._timer = self.loop.call_at(self._deadline, self._check)

    def _disarm(self) -> None:
        self._deadline = None

    def _check(self) -> None:
        self._timer = None
        deadline = self._deadline
        if deadline is None:
            return  # nothing being read: the next request sets a timer again
        if self.loop.time() < deadline:
            # Set for a request read since; this one's deadline is later.
            self._timer = self.loop.call_at(deadline, self._check)
            return
        self._expired()

    def _expired(self) -> None:
        self._deadline = None
        if self._request_read() or self.transport is None or self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or cycle is self._armed_for or not cycle.response_started:
            self.transport.write(TOO_SLOW)
        self.transport.close()


class GuardedH11(_Guarded, H11Protocol):  # type: ignore[misc]
    """h11's protocol with the limits."""


if HttpToolsProtocol is not None:

    class GuardedHttpTools(_Guarded, LimitedHead, HttpToolsProtocol):  # type: ignore[misc]
        """httptools' protocol with the limits: the same checks, a parser in C, and the
        bounds on a request's head that llhttp lacks."""

    GUARDED: type[asyncio.Protocol] = GuardedHttpTools
else:
    GUARDED = GuardedH11


def guarded_protocol(
    guard: ConnectionGuard, timeout: float, proxies: Callable[[str], bool] | None = None
) -> type[asyncio.Protocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` sharing one guard, and one
    count of arrivals for the requests it marks; connections from ``proxies`` count
    towards the total only."""
    attributes = {"guard": guard, "timeout": timeout, "arrivals": Arrivals(), "proxies": proxies}
    return type("GatewayHttp", (GUARDED,), attributes)
