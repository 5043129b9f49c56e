"""TLS on both SMTP hops: STARTTLS on the listener, a verified certificate towards the relay."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import aiosmtplib
import pytest
from aiosmtpd.smtp import SMTP
from sqlalchemy import select

from gateway.errors import ConfigError
from gateway.inbound.listener import tls_context
from gateway.services import build_services
from gateway.store.models import AuditEntry
from tests.conftest import SmtpSink, make_config, start_running, stop_running
from tests.e2e.deploykit import write_certificate
from tests.mailkit import reply_to


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "tls").mkdir()
    return write_certificate(tmp_path / "tls")


async def ehlo_features(port: int) -> set[str]:
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, start_tls=False, timeout=10)
    await client.connect()
    await client.ehlo()
    features = set(client.esmtp_extensions)
    await client.quit()
    return features


async def test_listener_offers_starttls_and_records_a_reply_sent_over_it(
    tmp_path: Path, sink: SmtpSink, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    config = make_config(tmp_path / "var", smtp_tls_cert_file=str(cert), smtp_tls_key_file=str(key))
    running = await start_running(config, sink)
    try:
        assert "starttls" in await ehlo_features(running.smtp_port)
        filed = await running.file()
        (email,) = await sink.wait_for(1)
        await aiosmtplib.send(
            reply_to(email, "Approved."),
            hostname="127.0.0.1",
            port=running.smtp_port,
            start_tls=True,
            cert_bundle=str(cert),
            timeout=10,
        )
        thread = await running.wait_status(filed, lambda s: s["human_has_replied"])
        assert thread["status"] == "answered"
    finally:
        await stop_running(running)


async def test_no_certificate_no_starttls(tmp_path: Path, sink: SmtpSink) -> None:
    running = await start_running(make_config(tmp_path), sink)
    try:
        assert "starttls" not in await ehlo_features(running.smtp_port)
    finally:
        await stop_running(running)


def test_listener_certificate_settings_fail_closed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="go together"):
        make_config(tmp_path, smtp_tls_cert_file=str(tmp_path / "x.crt"))
    config = make_config(
        tmp_path,
        smtp_tls_cert_file=str(tmp_path / "absent.crt"),
        smtp_tls_key_file=str(tmp_path / "absent.key"),
    )
    with pytest.raises(ConfigError, match="cannot load"):
        tls_context(config)


@pytest.fixture
async def tls_sink(certificate: tuple[Path, Path]) -> AsyncIterator[SmtpSink]:
    """The relay sink, offering STARTTLS with a self-signed certificate."""
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    handler = SmtpSink()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="relay.test", tls_context=context, loop=loop),
        host="127.0.0.1",
        port=0,
    )
    handler.port = server.sockets[0].getsockname()[1]
    yield handler
    server.close()
    await server.wait_closed()


async def test_relay_certificate_is_verified_by_default(
    tmp_path: Path, tls_sink: SmtpSink, certificate: tuple[Path, Path]
) -> None:
    cert, _key = certificate
    # Not signed by a CA the gateway trusts: nothing is sent, the email waits for a retry.
    config = make_config(tmp_path / "a", smtp_relay_tls="starttls", outbox_backoff_seconds="60")
    running = await start_running(config, tls_sink)
    try:
        await running.file()
        deferred: list[AuditEntry] = []
        for _ in range(100):
            with running.services.db.read_only() as session:
                deferred = list(
                    session.scalars(select(AuditEntry).where(AuditEntry.event == "email.deferred"))
                )
            if deferred:
                break
            await asyncio.sleep(0.1)
        assert deferred, "the email was not deferred"
        assert "HFA_SMTP_RELAY_CA_FILE" in deferred[0].details["error"]
        assert tls_sink.received == []
    finally:
        await stop_running(running)

    # With the relay's CA named, the same relay is trusted and the email goes out.
    config = make_config(tmp_path / "b", smtp_relay_tls="starttls", smtp_relay_ca_file=str(cert))
    running = await start_running(config, tls_sink)
    try:
        await running.file()
        await tls_sink.wait_for(1)
    finally:
        await stop_running(running)


def test_build_fails_on_an_unreadable_listener_key(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, _key = certificate
    bad = tmp_path / "bad.key"
    bad.write_text("nope")
    config = make_config(tmp_path, smtp_tls_cert_file=str(cert), smtp_tls_key_file=str(bad))
    services = build_services(config)
    try:
        with pytest.raises(ConfigError):
            tls_context(services.config)
    finally:
        services.close()


async def test_auth_is_not_advertised_before_or_after_starttls(
    tmp_path: Path, sink: SmtpSink, certificate: tuple[Path, Path]
) -> None:
    """No one logs in to the listener: AUTH offered after STARTTLS got every attempt 535."""
    cert, key = certificate
    config = make_config(tmp_path / "var", smtp_tls_cert_file=str(cert), smtp_tls_key_file=str(key))
    running = await start_running(config, sink)
    try:
        assert "auth" not in await ehlo_features(running.smtp_port)
        client = aiosmtplib.SMTP(
            hostname="127.0.0.1",
            port=running.smtp_port,
            start_tls=False,
            cert_bundle=str(cert),
            timeout=10,
        )
        await client.connect()
        await client.starttls()
        await client.ehlo()
        assert "auth" not in client.esmtp_extensions
        assert client.is_ehlo_or_helo_needed is False
        answer = await client.execute_command(b"AUTH", b"PLAIN", b"AGFAYg==")
        assert answer.code == 504, answer
        await client.quit()
    finally:
        await stop_running(running)
