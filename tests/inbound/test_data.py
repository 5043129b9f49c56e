"""Reading DATA in pieces gives what the line-by-line reader gave, on any chunking."""

from __future__ import annotations

import asyncio
import itertools
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.inbound import data
from gateway.inbound.data import DataRead, DataState, read_data

LIMIT = 64  # the stream reader's limit and the line limit, small to exercise both


def line_by_line(stream: bytes, size_limit: int | None, line_limit: int) -> tuple[DataRead, bytes]:
    """aiosmtpd 1.4's DATA loop, reduced: a reference for what must be stored."""
    lines, rest = [], stream
    size, state = 0, DataState.NOMINAL
    while True:
        end = rest.index(b"\r\n") + 2
        line, rest = rest[:end], rest[end:]
        if line == b".\r\n":
            break
        size += len(line)
        if state is DataState.NOMINAL and size_limit and size > size_limit:
            state = DataState.TOO_MUCH
        if state is DataState.NOMINAL and len(line) > line_limit:
            state = DataState.TOO_LONG
        lines.append(line[1:] if line.startswith(b".") else line)
    if state is not DataState.NOMINAL:
        return DataRead(b"", state), rest
    return DataRead(b"".join(lines), state), rest


async def pieced(
    chunks: list[bytes], size_limit: int | None = None, line_limit: int = LIMIT
) -> tuple[DataRead, bytes, list[tuple[int, int]]]:
    """read_data over a real StreamReader fed ``chunks`` one by one; what it read, what it
    left in the reader, and what it counted."""
    reader = asyncio.StreamReader(limit=LIMIT)
    counted: list[tuple[int, int]] = []

    async def feed() -> None:
        for chunk in chunks:
            reader.feed_data(chunk)
            await asyncio.sleep(0)
        reader.feed_eof()

    feeding = asyncio.create_task(feed())
    read = await read_data(
        reader.readuntil,
        reader.readexactly,
        size_limit=size_limit,
        line_limit=line_limit,
        count=lambda size, lines: counted.append((size, lines)),
    )
    await feeding
    return read, await reader.read(), counted


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


async def test_dot_stuffed_lines_lose_one_dot_and_sentences_ending_in_a_dot_stay() -> None:
    stream = b".leading\r\nThanks.\r\n..\r\n...x\r\nend.\r\n.\r\nQUIT\r\n"
    read, left, _ = await pieced([stream])
    assert read.state is DataState.NOMINAL
    assert read.content == b"leading\r\nThanks.\r\n.\r\n..x\r\nend.\r\n"
    assert left == b"QUIT\r\n"  # a pipelined command is left for the command loop


async def test_an_empty_message_and_a_terminator_split_across_packets() -> None:
    read, left, _ = await pieced([b".\r\nNOOP\r\n"])
    assert (read.content, left) == (b"", b"NOOP\r\n")
    read, _, _ = await pieced([b"Approved\r", b"\n", b".", b"\r", b"\nRSET\r\n"])
    assert read.content == b"Approved\r\n"


async def test_data_without_a_dot_line_is_counted_as_it_arrives_not_at_the_end() -> None:
    # What ends a DATA early (its size, its number of lines) must hear of it before the
    # client's final dot: a stretch longer than the reader's limit is taken as it comes.
    reader = asyncio.StreamReader(limit=LIMIT)
    counted: list[tuple[int, int]] = []
    body = b"QUFBQUFB\r\n" * 50
    reader.feed_data(body)
    reading = asyncio.create_task(
        read_data(
            reader.readuntil,
            reader.readexactly,
            size_limit=None,
            line_limit=10_000,
            count=lambda size, lines: counted.append((size, lines)),
        )
    )
    for _ in range(5):
        await asyncio.sleep(0)
    assert not reading.done()
    # All but the last two bytes, which could be the start of the final dot line.
    assert sum(size for size, _ in counted) == len(body) - 2
    reader.feed_data(b".\r\n")
    read = await reading
    assert read.content == body
    assert sum(size for size, _ in counted) == len(body)
    assert sum(lines for _, lines in counted) == 50


async def test_over_the_size_or_line_limit_is_read_to_the_end_and_kept_nowhere() -> None:
    read, left, _ = await pieced([b"a\r\n" * 40 + b".\r\nQUIT\r\n"], size_limit=100)
    assert (read.state, read.content, left) == (DataState.TOO_MUCH, b"", b"QUIT\r\n")
    read, left, _ = await pieced([b"short\r\n" + b"y" * 200 + b"\r\n.\r\nQUIT\r\n"])
    assert (read.state, read.content, left) == (DataState.TOO_LONG, b"", b"QUIT\r\n")
    # Lines ended with LF alone are one long line: refused, saying why.
    read, left, _ = await pieced([b"Subject: x\n\n" + b"body line\n" * 30 + b"\r\n.\r\nQUIT\r\n"])
    assert (read.state, left) == (DataState.BARE_LF, b"QUIT\r\n")


async def test_a_count_that_raises_ends_the_read_at_once() -> None:
    reader = asyncio.StreamReader(limit=LIMIT)
    reader.feed_data(b"x\r\n" * 100)  # no final dot: it never arrives

    def over(_size: int, _lines: int) -> None:
        raise OverflowError("far past the limit")

    with pytest.raises(OverflowError):
        await read_data(
            reader.readuntil, reader.readexactly, size_limit=None, line_limit=LIMIT, count=over
        )


_lines = st.lists(
    st.one_of(
        st.sampled_from([b".", b"..", b".x", b"end.", b"", b"a.b", b"\r", b"Thanks."]),
        st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(
    lines=_lines,
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=12),
    size_limit=st.one_of(st.none(), st.integers(min_value=1, max_value=400)),
)
def test_any_message_on_any_chunking_reads_as_line_by_line(
    lines: list[bytes], cuts: list[int], size_limit: int | None
) -> None:
    # What a client sends: each line dot-stuffed, then the terminating dot line.
    body = b"".join((b"." + x if x.startswith(b".") else x) + b"\r\n" for x in lines)
    stream = body + b".\r\nQUIT\r\n"
    expected, expected_left = line_by_line(stream, size_limit, LIMIT)
    read, left, _ = asyncio.run(pieced(split_at(stream, cuts), size_limit))
    assert (read.state, read.content) == (expected.state, expected.content)
    assert left == expected_left


@settings(max_examples=300, deadline=None)
@given(
    raw=st.lists(st.sampled_from([b".", b"\r", b"\n", b"\r\n", b"a"]), max_size=60).map(b"".join),
    slice_bytes=st.integers(min_value=1, max_value=8),
)
def test_dots_are_unstuffed_a_slice_at_a_time_as_in_one_go(raw: bytes, slice_bytes: int) -> None:
    whole = (raw[1:] if raw.startswith(b".") else raw).replace(b"\r\n.", b"\r\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(data, "SLICE_BYTES", slice_bytes)
        assert data.unstuffed(raw) == whole


async def test_a_large_data_section_is_put_together_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Joining and unstuffing 25 MB on the loop held every HTTP request meanwhile."""
    monkeypatch.setattr(data, "OFF_LOOP_BYTES", 100)
    monkeypatch.setattr(data, "SLICE_BYTES", 7)
    assembled = data.assembled
    threads: list[int] = []

    def watched(pieces: list[bytes], line_limit: int) -> DataRead:
        threads.append(threading.get_ident())
        return assembled(pieces, line_limit)

    monkeypatch.setattr(data, "assembled", watched)
    lines = [b"..leading dot", b"plain", b".", b"x" * 40] * 5
    body = b"".join((b"." + x if x.startswith(b".") else x) + b"\r\n" for x in lines)
    stream = body + b".\r\nQUIT\r\n"
    expected, _left = line_by_line(stream, None, LIMIT)
    read, left, _ = await pieced(split_at(stream, [13, 50, 51, 120]))
    assert (read.state, read.content) == (DataState.NOMINAL, expected.content)
    assert left == b"QUIT\r\n"
    assert threads and threads[0] != threading.get_ident()
