"""The SMTP listener's promises, over a real socket."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from email.message import EmailMessage
from typing import Any

import aiosmtplib
import pytest
from sqlalchemy import event, select

from gateway.store.models import InboundMessage
from tests.conftest import (
    REPLY_DOMAIN,
    Running,
    SmtpSink,
    make_config,
    start_running,
    stop_running,
    wait_outcomes,
)
from tests.mailkit import reply_to


def stored_count(running: Running) -> int:
    with running.services.db.read_only() as session:
        return len(list(session.scalars(select(InboundMessage.id))))


async def first_email(running: Running) -> EmailMessage:
    await running.file()
    return (await running.sink.wait_for(1))[0]


async def rcpt(port: int, address: str) -> tuple[int, str]:
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=10)
    await client.connect()
    try:
        await client.ehlo()
        await client.mail("lawyer@lawfirm.example")
        response = await client.execute_command(f"RCPT TO:<{address}>".encode())
        return response.code, response.message
    finally:
        client.close()


def token_of(email: EmailMessage) -> str:
    match = re.search(r"reply\+([a-z2-7]+)@", str(email["Reply-To"]))
    assert match
    return match.group(1)


async def test_forged_and_tampered_tokens_get_550_and_nothing_is_stored(running: Running) -> None:
    email = await first_email(running)
    token = token_of(email)
    tampered = token[:-1] + ("a" if token[-1] != "a" else "b")
    forged = "a" * len(token)
    for address in (
        f"reply+{tampered}@{REPLY_DOMAIN}",
        f"reply+{forged}@{REPLY_DOMAIN}",
        f"reply+{token}@other.example",
        f"someone@{REPLY_DOMAIN}",
    ):
        code, _message = await rcpt(running.smtp_port, address)
        assert code == 550, address
    assert stored_count(running) == 0


async def test_upper_cased_token_is_still_accepted(running: Running) -> None:
    email = await first_email(running)
    address = f"REPLY+{token_of(email).upper()}@{REPLY_DOMAIN.upper()}"
    code, _ = await rcpt(running.smtp_port, address)
    assert code == 250
    reply = reply_to(email, "Approve.", to=address)
    await aiosmtplib.send(reply, hostname="127.0.0.1", port=running.smtp_port)
    assert await wait_outcomes(running, 1) == ["recorded"]


async def test_local_part_over_64_octets_is_refused(running: Running) -> None:
    code, message = await rcpt(running.smtp_port, "reply+" + "a" * 70 + f"@{REPLY_DOMAIN}")
    assert code == 550 and "64" in message


async def test_message_over_the_size_limit_gets_552(
    tmp_path: Any, database_url: str, sink: SmtpSink
) -> None:
    config = make_config(tmp_path, max_message_bytes="20000", database_url=database_url)
    running = await start_running(config, sink)
    try:
        email = await first_email(running)
        big = reply_to(email, "x" * 40000)
        with pytest.raises(aiosmtplib.SMTPResponseException) as info:
            await aiosmtplib.send(big, hostname="127.0.0.1", port=running.smtp_port)
        assert info.value.code == 552
        assert stored_count(running) == 0
        with running.services.db.read_only() as session:
            from gateway.store.models import AuditEntry

            events = list(session.scalars(select(AuditEntry.event)))
        assert "inbound.too_large" in events
    finally:
        await stop_running(running)


async def test_database_failure_answers_451_without_internal_text(running: Running) -> None:
    email = await first_email(running)
    reply = reply_to(email, "Approved.")
    # The database goes away between RCPT and DATA: the table cannot be written.
    from sqlalchemy import text

    with running.services.db.engine.begin() as conn:
        conn.execute(text("ALTER TABLE inbound RENAME TO inbound_gone"))
    try:
        with pytest.raises(aiosmtplib.SMTPResponseException) as info:
            await aiosmtplib.send(reply, hostname="127.0.0.1", port=running.smtp_port)
        assert info.value.code == 451
        message = info.value.message.lower()
        for leak in ("sqlite", "inbound", "table", "traceback", "error:"):
            assert leak not in message
    finally:
        with running.services.db.engine.begin() as conn:
            conn.execute(text("ALTER TABLE inbound_gone RENAME TO inbound"))
    # Once the database is back, the client's retry succeeds.
    await aiosmtplib.send(reply, hostname="127.0.0.1", port=running.smtp_port)
    assert await wait_outcomes(running, 1) == ["recorded"]


async def test_250_only_after_the_message_is_committed(running: Running) -> None:
    email = await first_email(running)
    await aiosmtplib.send(reply_to(email, "Noted."), hostname="127.0.0.1", port=running.smtp_port)
    # Read with a separate connection right after 250: the row is there.
    from gateway.store.db import Database

    other = Database(running.services.config.database_url)
    try:
        with other.read_only() as session:
            rows = list(session.scalars(select(InboundMessage)))
        assert len(rows) == 1 and b"Noted." in rows[0].raw
    finally:
        other.dispose()


async def test_concurrent_messages_share_commits_and_each_250_follows_its_own(
    running: Running,
) -> None:
    email = await first_email(running)
    count = 8  # under the per-client connection cap
    replies = [
        reply_to(email, f"Noted {n}.", message_id=f"<n{n}@lawfirm.example>") for n in range(count)
    ]
    inserts: list[int] = [0]
    per_commit: list[int] = []
    engine = running.services.db.engine

    def executed(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if sql.lstrip().upper().startswith("INSERT INTO INBOUND"):
            inserts[0] += 1

    def committed(_conn: Any) -> None:
        if inserts[0]:
            per_commit.append(inserts[0])
        inserts[0] = 0

    from gateway.store.db import Database

    other = Database(running.services.config.database_url)

    async def send(message: EmailMessage) -> None:
        await aiosmtplib.send(message, hostname="127.0.0.1", port=running.smtp_port)
        # Right after this message's 250, another connection reads it: it was committed.
        with other.read_only() as session:
            ids = set(session.scalars(select(InboundMessage.message_id)))
        assert message["Message-ID"] in ids

    event.listen(engine, "before_cursor_execute", executed)
    event.listen(engine, "commit", committed)
    try:
        await asyncio.gather(*(send(r) for r in replies))
    finally:
        event.remove(engine, "before_cursor_execute", executed)
        event.remove(engine, "commit", committed)
        other.dispose()
    assert sum(per_commit) == count
    if running.services.db.is_sqlite:
        # Group commit: messages that arrive together share a transaction and an fsync.
        assert len(per_commit) < count


async def test_a_large_message_is_stored_whole_in_short_transactions(running: Running) -> None:
    import hashlib

    from gateway.inbound.listener import HEAVY_MESSAGE_BYTES
    from gateway.store import blobs

    email = await first_email(running)
    engine = running.services.db.engine
    written: list[int] = []  # bytes of parameters per committed transaction
    pending = [0]

    def size(value: Any) -> int:
        if isinstance(value, memoryview):
            # A chunk is a view of the whole message (whose .obj that is).
            return value.nbytes
        value = getattr(value, "obj", value)  # psycopg wraps bytes as Binary(obj)
        if isinstance(value, bytes | bytearray | memoryview):
            return len(value)
        if isinstance(value, Mapping):
            return sum(size(v) for v in value.values())
        if isinstance(value, list | tuple):
            return sum(size(v) for v in value)
        return 0

    def executed(conn: Any, cursor: Any, statement: str, params: Any, *rest: Any) -> None:
        pending[0] += size(params)

    def committed(conn: Any) -> None:
        written.append(pending[0])
        pending[0] = 0

    event.listen(engine, "before_cursor_execute", executed)
    event.listen(engine, "commit", committed)
    try:
        small = reply_to(email, "Approved.")
        large = reply_to(email, "Approved, scan below.\n" + "QUFB" * (HEAVY_MESSAGE_BYTES // 3))
        for message in (small, large):
            await aiosmtplib.send(message, hostname="127.0.0.1", port=running.smtp_port)
    finally:
        event.remove(engine, "before_cursor_execute", executed)
        event.remove(engine, "commit", committed)
    with running.services.db.read_only() as session:
        rows = list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))
        stored = [blobs.raw_of(session, row) for row in rows]
    assert [row.size > HEAVY_MESSAGE_BYTES for row in rows] == [False, True]
    # Every byte is kept: each message reads back whole, as received.
    assert [hashlib.sha256(raw).hexdigest() for raw in stored] == [row.sha256 for row in rows]
    assert [len(raw) for raw in stored] == [row.size for row in rows]
    # ...and no transaction wrote much more than one chunk of it: the write lock is
    # held for a large message about as long as for a small one.
    assert sum(written) >= rows[1].size
    assert max(written) <= blobs.CHUNK_BYTES + 64 * 1024
