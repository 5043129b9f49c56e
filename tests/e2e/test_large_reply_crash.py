"""Crash test: ``hfa serve`` killed with SIGKILL while a large reply's bytes are being written.

A reply with a 9 MB scan attached is sent; the gateway (both its processes) is
killed first while the listener is writing the message's bytes (before its 250),
then, the sender having sent it again, while the worker is writing the
attachment's bytes (before the turn is recorded). After a restart the reply is
recorded once, the message and the attachment read back byte for byte, and no
piece of either is left without an owner.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import smtplib
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from bench.roles import HFA, ROOT, free_port, http_up, wait_until
from gateway.store import blobs
from gateway.store.models import InboundMessage
from tests.e2e.servekit import file_request
from tests.mailkit import reply_to

LAWYER = "counsel@lawfirm.example"
SCAN = os.urandom(9 * 1024 * 1024)  # incompressible, and unlike anything else stored


def _env(data_dir: Path, http_port: int, smtp_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        PYTHONPATH=str(ROOT),
        HFA_DATA_DIR=str(data_dir),
        HFA_HTTP_BIND=f"127.0.0.1:{http_port}",
        HFA_SMTP_BIND=f"127.0.0.1:{smtp_port}",
        HFA_SECRET_KEYS="large-reply-crash-key-0123456789",
        HFA_LAWYERS=LAWYER,
        HFA_REPLY_DOMAIN="reply.hfa.test",
        HFA_WORKER_POLL_SECONDS="0.1",
        # The killed worker's claim is taken over soon after the restart.
        HFA_LEASE_SECONDS="2",
        # The reply is typed text: recorded as an answer at once, not after a window.
        HFA_CORRECTION_WINDOW="0",
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
    )
    return env


@contextlib.contextmanager
def serving(data_dir: Path) -> Iterator[tuple[str, int, subprocess.Popen[bytes]]]:
    """``hfa serve`` in a session of its own (so both its processes can be killed at once)."""
    http_port, smtp_port = free_port(), free_port()
    with (data_dir.parent / "serve.log").open("ab") as out:
        proc = subprocess.Popen(
            [*HFA, "serve"],
            env=_env(data_dir, http_port, smtp_port),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{http_port}"
    try:
        wait_until("the gateway", lambda: http_up(base), time.monotonic() + 60)
        yield base, smtp_port, proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def crash_when(
    database: Path, proc: subprocess.Popen[bytes], condition: Callable[[sqlite3.Connection], bool]
) -> None:
    """Kill every process of the gateway with SIGKILL the moment ``condition`` holds."""
    deadline = time.monotonic() + 60
    with contextlib.closing(sqlite3.connect(database, timeout=5)) as look:
        while not condition(look):
            assert time.monotonic() < deadline, "the moment to crash never came"
            time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _send_in_background(port: int, message: EmailMessage) -> threading.Thread:
    def send() -> None:
        # Cut off by the crash: the 250 never comes, so the sender will send again.
        with (
            contextlib.suppress(smtplib.SMTPException, OSError),
            smtplib.SMTP("127.0.0.1", port, timeout=60) as client,
        ):
            client.send_message(message)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def _count(look: sqlite3.Connection, sql: str, *args: object) -> int:
    try:
        return int(look.execute(sql, args).fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


@pytest.mark.slow
def test_a_gateway_killed_while_writing_a_large_reply_loses_and_orphans_nothing(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "var"
    database = data_dir / "gateway.db"
    scan_digest = hashlib.sha256(SCAN).hexdigest()
    scan_chunks = -(-len(SCAN) // blobs.CHUNK_BYTES)
    with serving(data_dir) as (base, smtp_port, proc):
        filed, email = file_request(base, data_dir)
        reply = reply_to(email, "Approved. The signed scan is attached.")
        reply.add_attachment(SCAN, maintype="application", subtype="pdf", filename="signed.pdf")
        # 1. Mid-way through the listener writing the message's bytes, before the 250.
        sender = _send_in_background(smtp_port, reply)
        crash_when(
            database,
            proc,
            lambda look: (
                _count(look, "SELECT count(*) FROM blob_chunks") >= 2
                and _count(look, "SELECT count(*) FROM inbound") == 0
            ),
        )
        sender.join(30)
    with serving(data_dir) as (base, smtp_port, proc):
        # 2. Sent again; mid-way through the worker writing the attachment's bytes.
        sender = _send_in_background(smtp_port, reply)
        crash_when(
            database,
            proc,
            lambda look: (
                0
                < _count(look, "SELECT count(*) FROM blob_chunks WHERE sha256 = ?", scan_digest)
                < scan_chunks
            ),
        )
        sender.join(30)
    bearer = {"Authorization": f"Bearer {filed['access_token']}"}
    with serving(data_dir) as (base, _smtp_port, _proc):
        status = wait_until(
            "the answer",
            lambda: (
                (s := httpx.get(f"{base}/v1/requests/{filed['reference']}", headers=bearer).json())[
                    "status"
                ]
                == "answered"
                and s
            ),
            time.monotonic() + 60,
        )
    human = [t for t in status["turns"] if t["author"] == "human"]
    assert len(human) == 1
    with contextlib.closing(sqlite3.connect(database)) as look:
        messages = look.execute("SELECT id, raw, size, sha256 FROM inbound").fetchall()
        attachments = look.execute("SELECT content, size, sha256 FROM attachments").fetchall()
        chunks = look.execute("SELECT sha256, count(*) FROM blob_chunks GROUP BY sha256").fetchall()
    # The message read back whole, byte for byte as its digest says.
    assert len(messages) == 1
    _id, inline, size, digest = messages[0]
    assert inline == b"" and size > blobs.INLINE_BYTES
    # The scan stored once, apart, complete.
    assert [(content, s, d) for content, s, d in attachments] == [(b"", len(SCAN), scan_digest)]
    # Complete: as many chunks as their sizes need. The first copy, cut off before its
    # 250, left chunks of its own (its bytes differ: headers are written anew per send).
    by_digest = dict(chunks)
    assert by_digest[digest] == -(-size // blobs.CHUNK_BYTES)
    assert by_digest[scan_digest] == scan_chunks
    engine = create_engine(f"sqlite:///{database}")
    try:
        with Session(engine) as session:
            message = session.get(InboundMessage, _id)
            assert message is not None
            assert hashlib.sha256(blobs.raw_of(session, message)).hexdigest() == digest
            scan = blobs.read(session, scan_digest, len(SCAN))
            assert scan == SCAN
            # Once they are old, the sweep removes what no row owns, and nothing else.
            later = datetime.now(UTC) + blobs.ORPHAN_AGE + timedelta(minutes=1)
            removed = blobs.sweep(session, later)
            session.commit()
            assert removed == sum(n for d, n in chunks if d not in (digest, scan_digest))
            left = session.execute(
                select(blobs.BlobChunk.sha256, func.count()).group_by(blobs.BlobChunk.sha256)
            ).all()
            assert dict(left) == {digest: by_digest[digest], scan_digest: scan_chunks}
    finally:
        engine.dispose()
