"""Outgoing mail carries a DKIM signature that dkimpy verifies against the published key."""

from __future__ import annotations

from pathlib import Path

import dkim
import pytest

from gateway.errors import ConfigError
from gateway.outbound.transports import mail_transport
from gateway.services import build_services
from tests.conftest import REPLY_DOMAIN, SmtpSink, make_config, start_running, stop_running
from tests.e2e.deploykit import SELECTOR, dns_for, write_dkim_key
from tests.mailkit import reply_to, send


async def test_request_and_receipt_are_signed_and_verify(tmp_path: Path, sink: SmtpSink) -> None:
    key_file, record = write_dkim_key(tmp_path)
    config = make_config(
        tmp_path / "var", dkim_selector=SELECTOR, dkim_private_key_file=str(key_file)
    )
    running = await start_running(config, sink)
    try:
        filed = await running.file()
        (request_email,) = await sink.wait_for(1)
        await send(reply_to(request_email, "Approved."), running.smtp_port)
        await running.wait_status(filed, lambda s: s["human_has_replied"])
        await sink.wait_for(2)
    finally:
        await stop_running(running)

    dnsfunc = dns_for(REPLY_DOMAIN, record)
    for _sender, _rcpts, raw in sink.received:
        assert raw.startswith(b"DKIM-Signature:"), raw[:200]
        signature = raw.split(b"\r\n\r\n", 1)[0]
        assert f"d={REPLY_DOMAIN};".encode() in signature.replace(b" ", b"")
        assert f"s={SELECTOR};".encode() in signature.replace(b" ", b"")
        assert dkim.verify(raw, dnsfunc=dnsfunc), "dkimpy did not verify the signature"
        # A changed subject on the way must break it: the subject is signed.
        tampered = raw.replace(b"Subject: ", b"Subject: [changed] ", 1)
        assert not dkim.verify(tampered, dnsfunc=dnsfunc)


async def test_another_key_in_dns_does_not_verify(tmp_path: Path, sink: SmtpSink) -> None:
    key_file, _ = write_dkim_key(tmp_path)
    (tmp_path / "other").mkdir()
    _, other_record = write_dkim_key(tmp_path / "other")
    config = make_config(
        tmp_path / "var", dkim_selector=SELECTOR, dkim_private_key_file=str(key_file)
    )
    running = await start_running(config, sink)
    try:
        await running.file()
        await sink.wait_for(1)
    finally:
        await stop_running(running)
    assert not dkim.verify(sink.received[0][2], dnsfunc=dns_for(REPLY_DOMAIN, other_record))


def test_unsigned_without_settings_and_clear_errors_for_bad_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="go together"):
        make_config(tmp_path, dkim_selector=SELECTOR)
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    for key_file, message in ((bad, "not a PEM RSA key"), (tmp_path / "absent.key", "cannot read")):
        config = make_config(tmp_path, dkim_selector=SELECTOR, dkim_private_key_file=str(key_file))
        services = build_services(config)
        try:
            with pytest.raises(ConfigError, match=message):
                mail_transport(services.config)
        finally:
            services.close()
