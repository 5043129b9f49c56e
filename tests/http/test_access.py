"""Who may file: agent API keys (env and `hfa keys`), rate limits, recipients fixed by config."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from gateway import contract
from gateway.cli import main
from gateway.services import build_services
from gateway.store.models import AuditEntry, Request
from tests import auditkit
from tests.conftest import LAWYER, REPLY_DOMAIN, Running, SmtpSink, make_config, start_running
from tests.conftest import stop_running as stop

KEY = "agent-key-0123456789abcdef"
BODY = {"category": "legal_review", "request": "Please review clause 7."}


def recorded_key_name(running: Running, reference: str) -> tuple[str | None, str]:
    with running.services.db.read_only() as session:
        row = session.get(Request, contract.number_from_reference(reference))
        assert row is not None
        actor = session.scalars(
            select(AuditEntry.actor).where(
                AuditEntry.event == "request.recorded", AuditEntry.reference == reference
            )
        ).one()
        return row.api_key_name, actor


async def status_within_a_second(running: Running, headers: dict[str, str], status: int) -> bool:
    """Whether filings get ``status`` within a second (the key cache's promise)."""
    deadline = time.monotonic() + 1.0
    while True:
        answer = await running.http.post("/v1/requests", json=BODY, headers=headers)
        if answer.status_code == status:
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)


async def test_open_gateway_says_so_at_start_and_files_without_a_key(
    tmp_path: Path, sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        running = await start_running(make_config(tmp_path), sink)
    try:
        assert "the gateway is OPEN" in caplog.text
        filed = await running.file()
        assert recorded_key_name(running, filed["reference"]) == (None, "agent")
    finally:
        await stop(running)


async def test_keys_from_the_environment_are_required_and_recorded(
    tmp_path: Path, sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        running = await start_running(make_config(tmp_path, api_keys=f"billing-bot:{KEY}"), sink)
    try:
        assert "keys are required" in caplog.text and "OPEN" not in caplog.text
        missing = await running.http.post("/v1/requests", json=BODY)
        assert missing.status_code == 401
        assert "X-API-Key" in missing.json()["error"]["message"]
        wrong = await running.http.post(
            "/v1/requests", json=BODY, headers={"X-API-Key": "not-" + KEY}
        )
        assert wrong.status_code == 401
        ok = await running.http.post("/v1/requests", json=BODY, headers={"X-API-Key": KEY})
        assert ok.status_code == 201
        reference = ok.json()["reference"]
        assert recorded_key_name(running, reference) == ("billing-bot", "agent:billing-bot")
        # Reading back needs the access token only.
        got = await running.http.get(
            f"/v1/requests/{reference}",
            headers={"Authorization": f"Bearer {ok.json()['access_token']}"},
        )
        assert got.status_code == 200
        assert KEY not in await asyncio.to_thread(auditkit.mirror_text, running.services)
    finally:
        await stop(running)


async def test_hfa_keys_create_list_revoke_and_rotate(
    tmp_path: Path,
    sink: SmtpSink,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HFA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("HFA_LAWYERS", LAWYER)
    monkeypatch.setenv("HFA_REPLY_DOMAIN", REPLY_DOMAIN)
    # Keys belong to a gateway: its database exists first (hfa serve or hfa db upgrade).
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    assert main(["keys", "create", "research-agent"]) == 0
    key = capsys.readouterr().out.splitlines()[0].strip()
    assert key.startswith("hfak_")
    assert main(["keys", "list"]) == 0
    listed = capsys.readouterr().out
    assert "research-agent" in listed and key not in listed
    assert main(["keys", "create", "research-agent"]) == 1
    assert main(["keys", "create", "other-agent"]) == 0
    other_key = capsys.readouterr().out.splitlines()[0].strip()

    running = await start_running(make_config(tmp_path), sink)
    try:
        refused = await running.http.post("/v1/requests", json=BODY)
        assert refused.status_code == 401
        ok = await running.http.post("/v1/requests", json=BODY, headers={"X-API-Key": key})
        assert ok.status_code == 201
        assert recorded_key_name(running, ok.json()["reference"])[0] == "research-agent"
        assert main(["keys", "revoke", "research-agent"]) == 0
        # Revoked by another process (the CLI): refused within a second.
        assert await status_within_a_second(running, {"X-API-Key": key}, 401)
        capsys.readouterr()
        assert main(["keys", "revoke", "other-agent"]) == 0
        said = capsys.readouterr().out
        assert "revoked other-agent" in said and "stays CLOSED" in said and "hfa keys open" in said
        # No live key is left, and the gateway stays closed: nobody reopened it.
        refused = await running.http.post("/v1/requests", json=BODY)
        assert refused.status_code == 401
        revoked = await running.http.post("/v1/requests", json=BODY, headers={"X-API-Key": key})
        assert revoked.status_code == 401
        assert main(["keys", "list"]) == 0
        assert "stays CLOSED" in capsys.readouterr().out
        # Opening it is an explicit, audited decision.
        assert main(["keys", "open", "--by", "alice"]) == 0
        assert await status_within_a_second(running, {}, 201)
        assert other_key != key
    finally:
        await stop(running)

    (tmp_path / "secret_keys").write_text("stored-key-0123456789abcdef\n")
    assert main(["keys", "rotate"]) == 0
    assert main(["keys", "rotate", "--sign"]) == 0  # no process is running to restart
    assert len((tmp_path / "secret_keys").read_text().split()) == 2
    services = build_services(make_config(tmp_path))
    try:
        with services.db.read_only() as session:
            events = list(session.scalars(select(AuditEntry.event)))
    finally:
        services.close()
    assert "reply_key.rotated" in events
    assert "api_key.created" in events and "api_key.revoked" in events
    assert "api_key.gateway_opened" in events


async def test_filing_is_rate_limited_per_key(tmp_path: Path, sink: SmtpSink) -> None:
    config = make_config(tmp_path, api_keys=f"a:{KEY},b:{KEY}-b", rate_limit_per_minute="2")
    running = await start_running(config, sink)
    try:
        codes = []
        for _ in range(3):
            r = await running.http.post("/v1/requests", json=BODY, headers={"X-API-Key": KEY})
            codes.append(r.status_code)
        assert codes == [201, 201, 429]
        assert int(r.headers["Retry-After"]) >= 1
        assert r.json()["error"]["code"] == "rate_limited"
        other = await running.http.post(
            "/v1/requests", json=BODY, headers={"X-API-Key": f"{KEY}-b"}
        )
        assert other.status_code == 201
    finally:
        await stop(running)


async def test_the_owner_reads_its_thread_after_1000_wrong_tokens_from_another_client(
    tmp_path: Path, sink: SmtpSink
) -> None:
    running = await start_running(make_config(tmp_path, token_failures_per_hour="3"), sink)
    # The attacker connects from another loopback address: another client.
    attacker = httpx.AsyncClient(
        base_url=str(running.http.base_url),
        transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2"),
        timeout=20,
    )
    try:
        filed = await running.file()
        path = f"/v1/requests/{filed['reference']}"
        wrong = {"Authorization": "Bearer hfat_guess"}
        codes = [(await attacker.get(path, headers=wrong)).status_code for _ in range(1000)]
        assert codes[:3] == [404, 404, 404] and set(codes[3:]) == {429}
        right = {"Authorization": f"Bearer {filed['access_token']}"}
        owner = await running.http.get(path, headers=right)
        assert owner.status_code == 200 and owner.json()["reference"] == filed["reference"]
        # Even from the client that is throttled, the right token reads the thread.
        same_client = await attacker.get(path, headers=right)
        assert same_client.status_code == 200
        # The owner's own wrong guesses are counted on their own.
        assert (await running.http.get(path, headers=wrong)).status_code == 404
    finally:
        await attacker.aclose()
        await stop(running)


async def test_agents_cannot_choose_recipients(running: Running) -> None:
    before = len(running.sink.received)
    await running.file(
        to="ceo@victim.example",
        cc="press@victim.example",
        recipients=["x@victim.example"],
        lawyer="friend@victim.example",
    )
    await running.sink.wait_for(before + 1)
    _sender, rcpts, raw = running.sink.received[before]
    assert rcpts == [LAWYER]
    assert b"victim.example" not in raw.split(b"\r\n\r\n", 1)[0]
