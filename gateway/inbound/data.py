"""Reading an SMTP DATA section in large pieces instead of line by line.

aiosmtpd reads DATA one line at a time: a 25 MB reply with a scanned contract
is some 340,000 lines, each a Python loop turn on the event loop that HTTP and
the other SMTP clients share, and filing a request stalled for a second while
one arrived. Here the stream is read up to each ``.<CRLF>`` (or a megabyte at a
time when there is none), and the terminating line, the size limit, the line
length limit and the dot-unstuffing of RFC 5321 4.5.2 are worked out on whole
pieces with bytes methods. What is stored is byte for byte what the line-by-line
reader stored.
"""

from __future__ import annotations

import asyncio
import enum
import io
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

CRLF = b"\r\n"
# What ends every piece but the last of a too-large stretch: the terminating line
# ".<CRLF>" is one of these, at the start of a line.
DOT_LINE_END = b".\r\n"
# The loop gets a turn after this many bytes, so other clients are served while a
# large message that is already buffered is taken in.
BYTES_PER_TURN = 256 * 1024
# A DATA section larger than this is put together (joined, checked, dot-unstuffed) in a
# thread: on the loop, a 25 MB one held every HTTP request and SMTP client for 50 to
# 190 ms. Its dots are removed a slice at a time, so the thread lets go of the
# interpreter between slices.
OFF_LOOP_BYTES = 1024 * 1024
SLICE_BYTES = 1024 * 1024


class DataState(enum.Enum):
    NOMINAL = "nominal"
    TOO_LONG = "a line is too long"
    # Too long because its lines end in a bare LF, which is no line end in SMTP.
    BARE_LF = "lines end in a bare LF"
    TOO_MUCH = "too much mail data"


@dataclass
class DataRead:
    """The DATA section as the client sent it (dot-unstuffed), or why it is refused."""

    content: bytes
    state: DataState


# readuntil(separator) of the connection's stream reader.
ReadUntil = Callable[[bytes], Awaitable[bytes]]
ReadExactly = Callable[[int], Awaitable[bytes]]
# Told (bytes, lines) as each piece arrives; may raise to end the DATA at once.
Counter = Callable[[int, int], None]


def _last_two(before: bytes, taken: bytes) -> bytes:
    """The last two bytes read, once ``taken`` follows ``before`` (no copy of ``taken``)."""
    return taken[-2:] if len(taken) >= 2 else (before + taken)[-2:]


def _ends_data(before: bytes, piece: bytes) -> bool:
    """Whether ``piece`` (which ends with ".<CRLF>") ends the DATA: its dot starts a line.

    ``before``: the last two bytes read before the piece (empty at the start of DATA).
    """
    if len(piece) == 3:
        return not before or before == CRLF
    return piece[-5:-3] == CRLF if len(piece) >= 5 else before[-1:] + piece[:1] == CRLF


def too_long(data: bytes, line_limit: int) -> DataState | None:
    """Why a line of ``data`` (which ends with CRLF) is over ``line_limit`` octets, its CRLF
    included, or None.

    From each line start, the last CRLF within the limit is the next line start to look
    from: the lines in between are short. A search per megabyte, not a list of every line.
    """
    start = 0
    while start < len(data):
        end = data.rfind(CRLF, start, start + line_limit)
        if end == -1:
            line = data[start : data.find(CRLF, start)]
            # A client that ends lines with LF alone (a script writing bytes) sends one
            # long line.
            return DataState.BARE_LF if b"\n" in line else DataState.TOO_LONG
        start = end + len(CRLF)
    return None


def unstuffed_after(before: bytes, piece: bytes) -> bytes:
    """``piece`` without the dot that starts each of its lines (RFC 5321 4.5.2).

    ``before``: the last two bytes of the data before the piece (empty at its start),
    which say whether the piece starts a line or cuts a CRLF in two.
    """
    if (not before or before == CRLF) and piece.startswith(b"."):
        return piece[1:].replace(b"\r\n.", CRLF)
    if before.endswith(b"\r") and piece.startswith(b"\n."):
        return b"\n" + piece[2:].replace(b"\r\n.", CRLF)
    return piece.replace(b"\r\n.", CRLF)


def unstuffed(data: bytes) -> bytes:
    """RFC 5321 4.5.2: a line that starts with a dot loses that dot (a slice at a time)."""
    if len(data) <= SLICE_BYTES:
        return unstuffed_after(b"", data)
    # Written slice by slice into one growing buffer, whose bytes come out uncopied: the
    # message is not held a third time meanwhile.
    out = io.BytesIO()
    for start in range(0, len(data), SLICE_BYTES):
        before = data[max(0, start - 2) : start]
        out.write(unstuffed_after(before, data[start : start + SLICE_BYTES]))
    return out.getvalue()


def assembled(pieces: list[bytes], line_limit: int) -> DataRead:
    """The DATA section from its pieces as read (dot-stuffed), or why it is refused."""
    data = b"".join(pieces)
    # Each piece is held by the whole from here on: freed now, not with the list.
    pieces.clear()
    # A line can only be too long in data longer than the limit.
    refusal = too_long(data, line_limit) if len(data) > line_limit else None
    if refusal is not None:
        return DataRead(b"", refusal)
    return DataRead(unstuffed(data), DataState.NOMINAL)


async def read_data(
    read_until: ReadUntil,
    read_exactly: ReadExactly,
    *,
    size_limit: int | None,
    line_limit: int,
    count: Counter,
) -> DataRead:
    """Read up to and including the terminating ".<CRLF>" line.

    Like aiosmtpd, a message over ``size_limit`` or with a line over ``line_limit``
    octets is still read to its end (the client is answered after its final dot,
    RFC 5321 4.2.5) but nothing of it is kept. ``count`` hears of every piece.
    """
    pieces: list[bytes] = []
    size = 0
    state = DataState.NOMINAL
    tail = b""
    since_turn = 0
    while True:
        try:
            piece = await read_until(DOT_LINE_END)
        except asyncio.LimitOverrunError as exc:
            # No ".<CRLF>" in the buffer's worth: take what cannot hold its start.
            piece = await read_exactly(exc.consumed)
        ends = piece.endswith(DOT_LINE_END) and _ends_data(tail, piece)
        taken = piece[:-3] if ends else piece
        size += len(taken)
        count(len(taken), taken.count(CRLF))
        if state is DataState.NOMINAL and size_limit and size > size_limit:
            state = DataState.TOO_MUCH
            pieces.clear()
        if state is DataState.NOMINAL:
            pieces.append(taken)
        if ends:
            break
        tail = _last_two(tail, taken)
        since_turn += len(piece)
        if since_turn >= BYTES_PER_TURN:
            since_turn = 0
            await asyncio.sleep(0)
    if state is not DataState.NOMINAL:
        return DataRead(b"", state)
    if size > OFF_LOOP_BYTES:
        # Joining megabytes lets go of the interpreter, and so does the thread between
        # slices: the loop serves on meanwhile.
        return await asyncio.to_thread(assembled, pieces, line_limit)
    return assembled(pieces, line_limit)
