"""Property tests against a running gateway: generated inputs to the three tools over
HTTP and generated raw messages over SMTP.

What must hold for every example: no 5xx; every message that got 250 is kept
with an outcome; the worker's time per message stays bounded; and a good reply
sent afterwards is still recorded. Examples are bounded so the suite stays fast.
"""

from __future__ import annotations

import asyncio
import json
import re
import smtplib
import threading
import time
from collections.abc import Iterator
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from gateway.app import Gateway
from gateway.services import build_services
from gateway.store.models import InboundMessage
from tests.budget import cpu_use
from tests.conftest import LAWYER, SmtpSink, make_config

OUTCOMES = {
    "recorded",
    "duplicate",
    "auto_reply",
    "bounce",
    "loop",
    "unverified_sender",
    "no_thread",
    "unparseable",
    "failed",
}
# The work one hostile message may cost the whole gateway (its listener, its worker, the
# poll below): CPU seconds, which a loaded machine does not add to (tests/budget.py). A
# parser that goes quadratic or a retry loop uses minutes of it.
WORKER_CPU_SECONDS = 5.0


class Background:
    """One gateway and its relay sink on a loop of their own, for synchronous clients."""

    def __init__(self, tmp: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sink = SmtpSink()
        self.tmp = tmp
        self.call(self._start())

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    async def _start(self) -> None:
        from aiosmtpd.smtp import SMTP

        loop = asyncio.get_running_loop()
        self.relay = await loop.create_server(
            lambda: SMTP(self.sink, hostname="relay.test", loop=loop), host="127.0.0.1", port=0
        )
        self.sink.port = self.relay.sockets[0].getsockname()[1]
        config = make_config(
            self.tmp, smtp_relay=f"127.0.0.1:{self.sink.port}", rate_limit_per_minute="1000000"
        )
        self.services = build_services(config)
        self.gateway = Gateway(self.services)
        await self.gateway.start()

    async def _stop(self) -> None:
        await self.gateway.stop()
        self.services.close()
        self.relay.close()

    def close(self) -> None:
        self.call(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    @property
    def smtp_port(self) -> int:
        assert self.gateway.smtp_port is not None
        return self.gateway.smtp_port

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.gateway.http_port}"

    def file(self, http: httpx.Client) -> tuple[dict[str, Any], str, str]:
        before = len(self.sink.received)
        response = http.post("/v1/requests", json={"category": "legal_review", "request": "Sign?"})
        assert response.status_code == 201, response.text
        deadline = time.monotonic() + 10
        while len(self.sink.received) <= before:
            assert time.monotonic() < deadline, "the request email never reached the relay"
            time.sleep(0.02)
        email = self.sink.messages()[before]
        return response.json(), parseaddr(str(email["Reply-To"]))[1], str(email["Message-ID"])

    def rows(self) -> list[InboundMessage]:
        with self.services.db.read_only() as session:
            return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


@pytest.fixture
def background(tmp_path: Path) -> Iterator[Background]:
    gw = Background(tmp_path)
    yield gw
    gw.close()


# -- HTTP ----------------------------------------------------------------------------------

hostile_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", " ", "\x00", "\ud800", "x\udfff", "\u202e", "\x1b[31m", "a" * 60_000]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    hostile_text,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([10**300, 2**64, -(2**63) - 1]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=12,
)
REQUEST_FIELDS = [
    "category",
    "request",
    "proposed_action",
    "urgency",
    "agent_name",
    "reply_to",
    "deadline",
    "context",
]
request_args = st.dictionaries(
    st.one_of(st.sampled_from(REQUEST_FIELDS), hostile_text), values, max_size=6
) | st.fixed_dictionaries(
    {"category": st.sampled_from(["legal_review", "nope"]), "request": hostile_text},
    optional={"extra": values, "urgency": values},
)
add_args = st.fixed_dictionaries({}, optional={"message": values, "withdraw": values, "x": values})


def encode(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


raw_bodies = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(
        [
            b"[" * 50_000,
            b'{"a":' * 3000,
            b"\xff\xfe",
            b"null",
            b'"x"',
            b"1e999999",
            b'{"category": "legal_review", "request": "x", "e": ' + b"1" * 5000 + b"}",
            b'{"category": "legal_review", "request": "x", "e": NaN}',
            b'{"category": "legal_review", "request": "x\\u0000", "e": "\\ud800"}',
        ]
    ),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    which=st.sampled_from(["file", "status", "add", "humanlayer", "a2h"]),
    args=st.one_of(request_args.map(encode), add_args.map(encode), raw_bodies),
    header=st.sampled_from(["", "k", "x" * 300]),
)
def test_no_tool_input_yields_a_5xx(
    background: Background, which: str, args: bytes, header: str
) -> None:
    with httpx.Client(base_url=background.base, timeout=20) as http:
        if not hasattr(background, "filed"):
            background.filed = background.file(http)[0]  # type: ignore[attr-defined]
        filed: dict[str, Any] = background.filed  # type: ignore[attr-defined]
        bearer = {"Authorization": f"Bearer {filed['access_token']}"}
        json_type = {"Content-Type": "application/json"}
        if which == "file":
            response = http.post(
                "/v1/requests", content=args, headers=json_type | {"Idempotency-Key": header}
            )
        elif which == "status":
            response = http.get(f"/v1/requests/{filed['reference']}", headers=bearer)
        elif which == "add":
            response = http.post(
                f"/v1/requests/{filed['reference']}/messages",
                content=args,
                headers=bearer | json_type,
            )
        elif which == "humanlayer":
            response = http.post("/humanlayer/v1/function_calls", content=args, headers=json_type)
        else:
            response = http.post("/a2h/v1alpha1/messages", content=args, headers=json_type)
        assert response.status_code < 500, (which, args[:200], response.text[:300])
        # Whatever was accepted can be read back.
        assert http.get(f"/v1/requests/{filed['reference']}", headers=bearer).status_code in (
            200,
            429,
        )


# -- SMTP ----------------------------------------------------------------------------------

header_names = st.sampled_from(
    [
        "Subject",
        "From",
        "To",
        "Message-ID",
        "In-Reply-To",
        "References",
        "Content-Type",
        "Content-Transfer-Encoding",
        "Auto-Submitted",
        "Authentication-Results",
        "X-Junk",
        "MIME-Version",
    ]
)
header_values = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
    st.sampled_from(
        [
            b"multipart/mixed; boundary=b",
            b"multipart/report; report-type=delivery-status",
            b"text/html; charset=x-unknown",
            b"base64",
            b"<a\x00b@x>",
            b"=?utf-8?b?////?=",
            b"auto-replied",
            LAWYER.encode(),
        ]
    ),
)


@st.composite
def raw_messages(draw: st.DrawFn) -> bytes:
    headers = draw(st.lists(st.tuples(header_names, header_values), max_size=8))
    lines = [name.encode() + b": " + value for name, value in headers]
    body = draw(
        st.one_of(
            st.binary(max_size=300),
            st.sampled_from(
                [
                    b"Approved.",
                    b"--b\r\n\r\nApproved.\r\n--b--",
                    b"--b\r\n" * 2000,
                    b"<div>" * 3000,
                    b"=\r\n" * 500,
                ]
            ),
        )
    )
    return b"\r\n".join(lines) + b"\r\n\r\n" + body + b"\r\n"


# The gateway under test runs in this process, in threads of its own: when one of them
# draws from ``random`` (a Message-ID, a MIME boundary) while Hypothesis draws a message,
# Hypothesis takes it for the strategy using ``random`` and warns, on that run only.
@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=raw_messages(), sender=st.sampled_from([LAWYER, "", "x@evil.test"]))
def test_every_raw_message_is_kept_with_an_outcome(
    background: Background, raw: bytes, sender: str
) -> None:
    with httpx.Client(base_url=background.base, timeout=20) as http:
        if not hasattr(background, "address"):
            background.address = background.file(http)[1]  # type: ignore[attr-defined]
    before = len(background.rows())
    with cpu_use() as used:
        accepted = _send_and_wait(background, raw, sender, before)
    if accepted:
        rows = background.rows()
        row = rows[before]
        # Kept as sent. (With bare CR or LF, dot-stuffing by the client and the
        # server may differ on what a line is; the bytes are still kept.)
        if re.search(rb"\r(?!\n)|(?<!\r)\n", raw) is None:
            assert row.raw.rstrip(b"\r\n") == raw.rstrip(b"\r\n")
        else:
            assert row.raw
        assert row.outcome in OUTCOMES
        assert row.processed_at is not None
        # Processed in one claim: no failure, no retry after a lease ran out.
        assert row.attempts == 1, (row.attempts, row.outcome, row.outcome_detail)
    assert used.process < WORKER_CPU_SECONDS, f"{used.process:.2f} s of CPU for one message"


def _send_and_wait(background: Background, raw: bytes, sender: str, before: int) -> bool:
    """Send ``raw``; once what was accepted is processed, whether it was accepted."""
    with smtplib.SMTP("127.0.0.1", background.smtp_port, timeout=20) as client:
        client.ehlo("fuzz.test")
        try:
            client.sendmail(sender, [background.address], raw)  # type: ignore[attr-defined]
            accepted = True
        except smtplib.SMTPResponseException as exc:
            assert exc.smtp_code < 500 or exc.smtp_code in (550, 552, 554), exc
            assert exc.smtp_code not in (451, 421), (
                exc
            )  # never "try again" for what will never work
            accepted = False
        except smtplib.SMTPDataError as exc:
            raise AssertionError(exc) from exc
    deadline = time.monotonic() + 20
    while True:
        rows = background.rows()
        if len(rows) >= before + (1 if accepted else 0) and all(r.state == "done" for r in rows):
            break
        assert time.monotonic() < deadline, [(r.id, r.state) for r in rows[before:]]
        time.sleep(0.02)
    return accepted


def test_a_good_reply_is_recorded_after_hostile_mail(background: Background) -> None:
    with httpx.Client(base_url=background.base, timeout=20) as http:
        _filed, address, _ = background.file(http)
        filed, good_address, message_id = background.file(http)
        with smtplib.SMTP("127.0.0.1", background.smtp_port, timeout=20) as client:
            for raw in (
                b"--b\r\n" * 20000,
                b"\x00\xff" * 1000,
                b"Content-Type: multipart/mixed\r\n\r\n" * 500,
            ):
                client.sendmail(LAWYER, [address], raw)
            good = (
                f"From: {LAWYER}\r\nTo: {good_address}\r\nSubject: Re: x\r\n"
                f"In-Reply-To: {message_id}\r\nMessage-ID: <good@lawfirm.example>\r\n\r\nApproved.\r\n"
            )
            client.sendmail(LAWYER, [good_address], good.encode())
        deadline = time.monotonic() + 20
        bearer = {"Authorization": f"Bearer {filed['access_token']}"}
        while True:
            thread = http.get(f"/v1/requests/{filed['reference']}", headers=bearer).json()
            if thread["human_has_replied"]:
                break
            assert time.monotonic() < deadline, thread
            time.sleep(0.05)
        assert [t["kind"] for t in thread["turns"] if t["author"] == "human"] == ["approval"]
