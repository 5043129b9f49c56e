"""Hostile HTTP bodies and connections against the running gateway: a 4xx that names
the problem, never a 5xx, nothing stored that cannot be read back, no secret logged.

Each test is one case of the reliability audit (reviews/reliability-audit.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text

from gateway.store.models import AuditEntry, OutboxItem
from tests import auditkit
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running

KEY_ONE = "agent-one-key-0123456789abcdef"
KEY_TWO = "agent-two-key-0123456789abcdef"

# Each endpoint's valid body with two holes: @S (a string value) and @V (any JSON value).
BODIES = {
    "/v1/requests": '{"category": "legal_review", "request": "Review clause 7 @S", "extra": @V}',
    "messages": '{"message": "More context @S", "note": @V}',
    "/humanlayer/v1/function_calls": (
        '{"run_id": "r", "call_id": "c-@N", "spec": {"fn": "pay @S", "kwargs": {"amount": @V}}}'
    ),
    "/a2h/v1alpha1/messages": (
        '{"apiVersion": "proto.a2h.dev/v1alpha1", "kind": "Message", "metadata": {"uid": "u-@N"},'
        ' "spec": {"agentMessage": "Approve @S", "extra": @V}}'
    ),
}
VALUES = {
    "nan": "NaN",
    "infinity": "Infinity",
    "minus_infinity": "-Infinity",
    "huge_float": "1e999999",
    "5000_digits": "1" * 5000,
    "deep_list": "[" * 100_000 + "]" * 100_000,
    "deep_object": '{"a":' * 5000 + "1" + "}" * 5000,
}
STRINGS = {
    "nul": "\\u0000",
    "lone_surrogate": "\\ud800",
    "lone_low_surrogate": "x\\udfff",
}


@pytest.fixture
async def keyed(tmp_path: Path, database_url: str, sink: SmtpSink) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        api_keys=f"one:{KEY_ONE},two:{KEY_TWO}",
        rate_limit_per_minute="100000",
    )
    running = await start_running(config, sink)
    running.http.headers["X-API-Key"] = KEY_ONE
    yield running
    await stop_running(running)


async def post(running: Running, path: str, body: str, filed: dict[str, Any]) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    if path == "messages":
        path = f"/v1/requests/{filed['reference']}/messages"
        headers["Authorization"] = f"Bearer {filed['access_token']}"
    return await running.http.post(path, content=body.encode("utf-8"), headers=headers)


def fill(template: str, string: str = "", value: str = "1", n: int = 0) -> str:
    return template.replace("@S", string).replace("@V", value).replace("@N", str(n))


async def test_hostile_json_gets_a_4xx_naming_the_field_on_every_endpoint(keyed: Running) -> None:
    filed = await keyed.file()
    n = 0
    for path, template in BODIES.items():
        for name, value in VALUES.items():
            n += 1
            response = await post(keyed, path, fill(template, value=value, n=n), filed)
            assert response.status_code in (400, 422), (path, name, response.text[:300])
            problem = response.json()["error"]
            if name in ("nan", "infinity", "minus_infinity", "huge_float", "5000_digits"):
                fields = [d["field"] for d in problem["details"]]
                assert any(f.endswith(("extra", "note", "amount")) for f in fields), (
                    path,
                    name,
                    problem,
                )
        for name, string in STRINGS.items():
            n += 1
            response = await post(keyed, path, fill(template, string=string, n=n), filed)
            assert response.status_code in (400, 422), (path, name, response.text[:300])
            assert response.json()["error"]["details"], (path, name)
        # A lone surrogate as a key, too.
        n += 1
        response = await post(keyed, path, fill(template, n=n).replace('"@', '"\\ud800@'), filed)
        assert response.status_code < 500, (path, response.text[:300])
    # Every request filed before is still readable: nothing unreadable was stored.
    status = await keyed.http.get(
        f"/v1/requests/{filed['reference']}",
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert status.status_code == 200
    listed = await keyed.http.get("/openapi.json")
    assert listed.status_code == 200


async def test_nan_never_makes_a_request_unreadable(keyed: Running) -> None:
    response = await keyed.http.post(
        "/v1/requests",
        content=b'{"category": "legal_review", "request": "x", "extra": NaN}',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert "extra" in json.dumps(response.json())
    with keyed.services.db.read_only() as session:
        assert session.execute(text("select count(*) from requests")).scalar() == 0


async def test_schema_valid_inputs_are_accepted(keyed: Running) -> None:
    response = await keyed.http.post(
        "/v1/requests",
        json={"category": "legal_review", "request": "Review."},
        headers={"Idempotency-Key": ""},
    )
    assert response.status_code == 201, response.text
    filed = response.json()
    withdrawn = await keyed.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={"message": "", "withdraw": True},
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert withdrawn.status_code == 201, withdrawn.text
    assert (await keyed.status(filed))["status"] == "closed"


async def test_429_is_in_the_openapi_document(running: Running) -> None:
    document = (await running.http.get("/openapi.json")).json()
    operations = {
        (path, method): op
        for path, item in document["paths"].items()
        for method, op in item.items()
    }
    assert "429" in operations[("/v1/requests", "post")]["responses"]
    assert "429" in operations[("/v1/requests/{reference}", "get")]["responses"]
    assert "429" in operations[("/v1/requests/{reference}/messages", "post")]["responses"]


# -- review #14, A6: another key's compat ids ------------------------------------------


async def test_another_keys_call_id_and_uid_answer_404(keyed: Running) -> None:
    call = {"run_id": "r", "call_id": "shared-call", "spec": {"fn": "pay", "kwargs": {"a": 1}}}
    message = {
        "apiVersion": "proto.a2h.dev/v1alpha1",
        "kind": "Message",
        "metadata": {"uid": "shared-uid"},
        "spec": {"agentMessage": "Approve?"},
    }
    assert (await keyed.http.post("/humanlayer/v1/function_calls", json=call)).status_code == 200
    assert (await keyed.http.post("/a2h/v1alpha1/messages", json=message)).status_code in (200, 201)
    other = {"X-API-Key": KEY_TWO}
    for path, body in (
        ("/humanlayer/v1/function_calls", call),
        ("/a2h/v1alpha1/messages", message),
    ):
        response = await keyed.http.post(path, json=body, headers=other)
        assert response.status_code == 404, (path, response.text)
    nul = await keyed.http.get("/a2h/v1alpha1/messages/a%00b")
    assert nul.status_code == 404


# -- review #10 and #13: secrets in URLs, the push read link ---------------------------


async def test_webhook_query_secret_is_never_logged_or_audited(
    tmp_path: Path, sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    hits: list[bytes] = []

    async def hook(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hits.append(await reader.read(65536))
        status = b"500 Oops" if len(hits) == 1 else b"200 OK"
        writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(hook, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    secret = "s3cr3t-query-token-value"
    config = make_config(tmp_path, webhook_allow_private="1")
    running = await start_running(config, sink)
    caplog.set_level(logging.INFO)
    try:
        url = f"http://127.0.0.1:{port}/hook?token={secret}"
        filed = await running.file(reply_to=url)
        deadline = time.monotonic() + 15
        await running.sink.wait_for(1)
        # The lawyer answers: a push is due, the first delivery fails, the retry succeeds.
        from tests.mailkit import reply_to, send

        await send(reply_to(running.sink.messages()[0], "Approved."), running.smtp_port)
        while len(hits) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert len(hits) >= 2
        assert secret.encode() in hits[0]  # the receiver still gets its token
        with running.services.db.read_only() as session:
            audited = [json.dumps(e.details) for e in session.scalars(select(AuditEntry))]
            payloads = [json.dumps(o.payload) for o in session.scalars(select(OutboxItem))]
        assert not any(secret in a for a in audited)
        audit_file = await asyncio.to_thread(auditkit.mirror_text, running.services)
        assert secret not in audit_file
        assert secret not in caplog.text
        # The read-link capability is stored only as a hash (read_links), never in a payload.
        assert not any("/v1/links/hfar_" in p for p in payloads)
        assert filed["reference"]
    finally:
        await stop_running(running)
        server.close()


# -- review #19 / #20: PostgreSQL NUL, first start -------------------------------------


@pytest.mark.postgres
async def test_postgres_first_start_concurrent_filings_all_succeed(
    tmp_path: Path, postgres_url: str, sink: SmtpSink
) -> None:
    config = make_config(tmp_path, database_url=postgres_url, rate_limit_per_minute="100000")
    running = await start_running(config, sink)
    try:
        body = {"category": "legal_review", "request": "x"}
        answers = await asyncio.gather(
            *(running.http.post("/v1/requests", json=body) for _ in range(12))
        )
        assert [a.status_code for a in answers] == [201] * 12
    finally:
        await stop_running(running)


# -- review #21, case 14 / O4: another process holds SQLite's write lock ---------------


async def test_sqlite_write_lock_answers_promptly(tmp_path: Path, sink: SmtpSink) -> None:
    import sqlite3

    running = await start_running(make_config(tmp_path), sink)
    holder = sqlite3.connect(str(tmp_path / "gateway.db"), isolation_level=None)
    # Before, each waited for SQLite's 30 s busy timeout; a client that gives up after
    # 15 s sees the difference whatever the machine's load.
    patient = httpx.AsyncClient(base_url=str(running.http.base_url), timeout=15)
    try:
        holder.execute("BEGIN IMMEDIATE")
        response = await patient.post(
            "/v1/requests", json={"category": "legal_review", "request": "x"}
        )
        assert response.status_code == 503, response.text
        assert (await patient.get("/healthz")).status_code == 200
    finally:
        await patient.aclose()
        holder.execute("ROLLBACK")
        holder.close()
        await stop_running(running)


# -- review #5, H6: slow HTTP connections -----------------------------------------------


async def test_slow_and_idle_http_connections_are_closed(tmp_path: Path, sink: SmtpSink) -> None:
    config = make_config(tmp_path, http_timeout_seconds="1.5", http_max_connections_per_client="5")
    running = await start_running(config, sink)
    port = running.gateway.http_port
    assert port is not None
    loop = asyncio.get_running_loop()

    def slowloris() -> tuple[bool, int]:
        # A header line every 0.3 s, for 9 s at most: HFA_HTTP_TIMEOUT_SECONDS (1.5) is
        # for the whole request, so the gateway closes the connection well before.
        closed = False
        with socket.create_connection(("127.0.0.1", port), 10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            s.settimeout(0.3)
            for _ in range(30):
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                    if s.recv(1000) == b"":
                        closed = True
                        break
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
                    break
        socks = [socket.create_connection(("127.0.0.1", port), 5) for _ in range(8)]
        answered = 0
        for s in socks:
            s.settimeout(3)
            try:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                if s.recv(100).startswith(b"HTTP/1.1 200"):
                    answered += 1
            except OSError:
                pass
        for s in socks:
            s.close()
        return closed, answered

    try:
        closed, answered = await loop.run_in_executor(None, slowloris)
        assert closed, "a header every 0.3 s kept the connection open for 9 s"
        assert answered == 5
    finally:
        await stop_running(running)
