"""A relay outage longer than the old attempt window; what the gateway leaves on disk; schemas.

In-process gateways on real loopback sockets (SQLite and PostgreSQL), a real
aiosmtpd relay that is down, then up.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select, text

from bench.roles import Sink
from gateway.app import Gateway
from gateway.errors import ConfigError
from gateway.services import Services, build_services
from gateway.settings.config import load_config
from gateway.store.models import AuditEntry
from tests.conftest import make_config


def deferred(services: Services) -> int:
    """How many deferrals the audit log holds (read through the running gateway's pool:
    building services for each look cost more than the wait it polls)."""
    with services.db.read_only() as session:
        count = session.scalar(select(func.count()).where(AuditEntry.event == "email.deferred"))
    return count or 0


async def test_a_relay_down_longer_than_the_old_attempt_window_then_back_delivers(
    tmp_path: Path, database_url: str
) -> None:
    relay = Sink(delay=0.0)  # its port stays closed until it is started below
    config = make_config(
        tmp_path,
        database_url=database_url,
        smtp_relay=f"127.0.0.1:{relay.port}",
        outbox_backoff_seconds="0.05",
        outbox_max_backoff_seconds="0.2",
        outbox_delay_notice_seconds="1",
    )
    services = build_services(config)
    gateway = Gateway(services)
    await gateway.start()
    relay_started = False
    kinds: list[str] = []
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as http:
            body = {"category": "legal_review", "request": "Is clause 7 acceptable?"}
            filed = (await http.post("/v1/requests", json=body)).json()
            headers = {"Authorization": f"Bearer {filed['access_token']}"}
            # The old default gave up for good after 8 attempts; wait for more than that.
            for _ in range(400):
                if deferred(services) >= 12:
                    break
                await asyncio.sleep(0.05)
            assert deferred(services) >= 12
            relay.controller.start()
            relay_started = True
            path = f"/v1/requests/{filed['reference']}"
            for _ in range(200):
                thread = (await http.get(path, headers=headers)).json()
                kinds = [t["kind"] for t in thread["turns"]]
                if "email_delivered" in kinds:
                    break
                await asyncio.sleep(0.05)
    finally:
        await gateway.stop()
        services.close()
        if relay_started:
            relay.controller.stop()
    assert len(relay.request_emails()) == 1
    assert "email_failed" not in kinds
    assert kinds.count("email_delayed") == 1 and kinds.count("email_delivered") == 1
    assert kinds.index("email_delayed") < kinds.index("email_delivered")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_files_holding_threads_and_secrets_are_created_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        config = load_config(
            env={
                "HFA_DATA_DIR": str(tmp_path / "var"),
                "HFA_HTTP_BIND": "127.0.0.1:0",
                "HFA_SMTP_BIND": "127.0.0.1:0",
                "HFA_WORKER_POLL_SECONDS": "0.05",
            }
        )
        services = build_services(config)
        gateway = Gateway(services)
        await gateway.start()
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as http:
                assert (
                    await http.post(
                        "/v1/requests", json={"category": "legal_review", "request": "x"}
                    )
                ).status_code == 201
            maildir = tmp_path / "var" / "maildir" / "new"
            for _ in range(100):
                if maildir.is_dir() and any(maildir.iterdir()):
                    break
                await asyncio.sleep(0.05)
        finally:
            await gateway.stop()
            services.close()
    finally:
        os.umask(old)
    var = tmp_path / "var"
    private = [var / n for n in ("gateway.db", "secret_keys", "webhook_secret", "audit.jsonl")]
    private += list((var / "maildir" / "new").iterdir())
    assert len(private) == 5
    assert {p.name: oct(mode(p)) for p in private} == {p.name: "0o600" for p in private}


def test_a_partial_reminders_setting_keeps_the_other_defaults() -> None:
    config = load_config(env={"HFA_REMINDERS": "routine=1d"})
    assert config.reminders == {"blocking": 7200.0, "soon": 86400.0, "routine": 86400.0}
    config = load_config(env={"HFA_REMINDERS": "blocking=off"})
    assert config.reminders["blocking"] is None and config.reminders["soon"] == 86400.0


def test_a_role_refuses_a_schema_older_or_newer_than_its_own(
    tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path, database_url=database_url)
    build_services(config).close()
    services = build_services(config, migrate=False)
    try:
        for revision, words in (("0001", "older"), ("9999_from_a_newer_release", "newer")):
            with services.db.engine.begin() as conn:
                conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})
            with pytest.raises(ConfigError) as refused:
                build_services(config)
            said = str(refused.value)
            assert words in said and revision in said and "\n" not in said
            if words == "older":
                assert "hfa db upgrade" in said
    finally:
        services.close()
