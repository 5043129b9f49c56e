"""Bounds on a request's head (request line and header fields), over uvicorn's httptools protocol.

llhttp, the parser under httptools, bounds neither a header line nor their number,
and uvicorn keeps every header it is given: a 1 MB header line or 20,000 headers
were answered 200. Here a request whose head is past a bound gets ``431 Request
Header Fields Too Large`` (``414 URI Too Long`` for its request line) and the
connection is closed; nothing of it reaches the application.

Two checks, because the parser reports a header only once it is whole:

- the parser's callbacks count the URL, each header field and their number, so a
  head that arrives in one read is bounded before it is dispatched;
- while a head is being read across several reads, each read is scanned before
  the parser sees it: the line being read and the head so far are bounded, so a
  header line that never ends is refused after a read or two, not buffered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gateway.http.errors import closing_answer

if TYPE_CHECKING:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    _Protocol = HttpToolsProtocol
else:
    _Protocol = object

# A header field (name and value) or the request line: nginx's large buffer is 8 KiB.
MAX_LINE = 8 * 1024
# Header fields in one request (Apache's LimitRequestFields).
MAX_FIELDS = 100
# The whole head: request line and header fields.
MAX_HEAD = 64 * 1024
# How long a refused connection stays open, its input dropped, for the answer to arrive.
LINGER_SECONDS = 1.0


def _answer(status: str, message: str) -> bytes:
    return closing_answer(status, "request_head_too_large", message)


FIELDS_TOO_LARGE = _answer(
    "431 Request Header Fields Too Large",
    f"the request's header fields are too large: at most {MAX_FIELDS} fields, "
    f"{MAX_LINE} bytes each, {MAX_HEAD} bytes in all",
)
URI_TOO_LONG = _answer(
    "414 URI Too Long", f"the request line is too long: at most {MAX_LINE} bytes"
)


class LimitedHead(_Protocol):
    """httptools' protocol, refusing a request whose head is past the bounds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = False
        self._refusal: bytes | None = None
        self._answered = False
        self._fields = 0
        self._head = 0
        # Scanned reads of a head that spans several: bytes so far, the line being read,
        # whether the request line has ended, the last bytes (for an end that straddles).
        self._scanned = 0
        self._line = 0
        self._past_request_line = False
        self._tail = b""

    def _refuse(self, answer: bytes) -> None:
        if self._refusal is None:
            self._refusal = answer

    # --- Parser callbacks: nothing reaches the application once refused ---------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._fields = self._head = self._scanned = self._line = 0
        self._past_request_line = False
        self._tail = b""

    def on_url(self, url: bytes) -> None:
        if self._refusal is not None:
            return
        self._head += len(url)
        if len(self.url) + len(url) > MAX_LINE:
            self._refuse(URI_TOO_LONG)
            return
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if self._refusal is not None:
            return
        self._past_request_line = True
        self._fields += 1
        self._head += len(name) + len(value) + 4
        if len(name) + len(value) > MAX_LINE or self._fields > MAX_FIELDS or self._head > MAX_HEAD:
            self._refuse(FIELDS_TOO_LARGE)
            return
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        if self._refusal is None:
            super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if self._refusal is None:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refusal is None:
            super().on_message_complete()

    # --- Reads -------------------------------------------------------------------------

    def _scan(self, data: bytes) -> None:
        """Bound a head that spans reads: the line being read and the head so far."""
        joined = self._tail + data
        ends = [at for at in (joined.find(b"\r\n\r\n"), joined.find(b"\n\n")) if at >= 0]
        head = data if not ends else joined[len(self._tail) : min(ends) + 2]
        self._tail = joined[-3:]
        self._scanned += len(head)
        lines = head.split(b"\n")
        longest = max([self._line + len(lines[0]), *(len(line) for line in lines[1:])])
        self._line = len(lines[-1]) if len(lines) > 1 else self._line + len(head)
        if longest > MAX_LINE and not self._past_request_line:
            self._refuse(URI_TOO_LONG)
        elif longest > MAX_LINE or self._scanned > MAX_HEAD:
            self._refuse(FIELDS_TOO_LARGE)
        self._past_request_line = self._past_request_line or len(lines) > 1

    def data_received(self, data: bytes) -> None:
        if self._refusal is None and self._in_head:
            self._scan(data)
        if self._refusal is None:
            super().data_received(data)
        transport = self.transport
        if self._refusal is not None and transport is not None and not self._answered:
            self._answered = True
            transport.write(self._refusal)
            # Closed once the client had time to read the answer: what it still sends
            # meanwhile is dropped unread (a close with bytes unread would reset the
            # connection, and the client might never see why).
            if transport.can_write_eof():
                transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, transport.close)
