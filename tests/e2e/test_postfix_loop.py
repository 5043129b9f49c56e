"""The gateway behind a real Postfix, configured only by deploy/postfix/setup.sh.

A private Postfix instance (its own config, queue and data directories in a
temp dir, loopback ports only) is started and stopped by this module; the
system's Postfix is never touched. The gateway runs in-process. Mail goes all
the way round: a request filed over HTTP, sent through Postfix's loopback
submission service, delivered by Postfix into the lawyer's Maildir; the
lawyer's reply sent to Postfix, verified at RCPT, relayed to the gateway and
recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import smtplib
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import aiosmtplib
import dkim
import httpx
import pytest
from sqlalchemy import select

from bench.roles import rebindable_port
from gateway.app import Gateway
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.models import InboundMessage
from tests.conftest import LAWYER, REPLY_DOMAIN, make_config
from tests.e2e.deploykit import SELECTOR, dns_for, write_dkim_key
from tests.e2e.postfixkit import (
    MAX_MESSAGE_BYTES,
    SETUP,
    TRACE_HEADROOM,
    VICTIM,
    PrivatePostfix,
    run_postfix,
    stop,
    wait_listening,
    why_not,
    write_base_config,
)
from tests.mailkit import reply_to

pytestmark = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")

BOUNCE = f"gateway@{REPLY_DOMAIN}"  # HFA_MAIL_FROM of make_config
AUTHSERV_ID = f"mx.{REPLY_DOMAIN}"  # the private Postfix's myhostname


@pytest.fixture(scope="module")
def postfix() -> Iterator[PrivatePostfix]:
    root = Path(tempfile.mkdtemp(prefix="hfa-postfix-"))
    root.chmod(0o755)  # Postfix's own processes run as mail_owner and must reach it
    # Every port Postfix binds is below the range of clients' local ports: one from that
    # range, free when chosen, could be taken by another test's connection during the
    # seconds before Postfix binds it, and Postfix would fail to start.
    ports: list[int] = []
    while len(ports) < 3:
        if (port := rebindable_port()) not in ports:
            ports.append(port)
    pf = PrivatePostfix(root, *ports)
    started = False
    try:
        write_base_config(pf)
        subprocess.run(
            [
                "sh",
                str(SETUP),
                "-c",
                str(pf.config_dir),
                "--reply-domain",
                REPLY_DOMAIN,
                "--gateway",
                f"127.0.0.1:{pf.gateway_port}",
                "--submission",
                f"127.0.0.1:{pf.submission_port}",
                "--max-message-bytes",
                str(MAX_MESSAGE_BYTES),
                "--authserv-id",
                AUTHSERV_ID,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
        for action in ("check", "start"):
            result = run_postfix(pf.config_dir, action)
            assert result.returncode == 0, f"postfix {action} failed:\n{pf.log()}"
        started = True
        wait_listening(pf.inbound_port)
        wait_listening(pf.submission_port)
        yield pf
    finally:
        if started:
            stop(pf)
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Site:
    postfix: PrivatePostfix
    config: Config
    services: Services
    http: httpx.AsyncClient
    dkim_record: bytes

    async def file(self) -> dict[str, Any]:
        response = await self.http.post(
            "/v1/requests",
            json={"category": "legal_review", "request": "Is clause 7 acceptable for us?"},
        )
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    async def thread(self, filed: dict[str, Any]) -> dict[str, Any]:
        response = await self.http.get(
            f"/v1/requests/{filed['reference']}",
            headers={"Authorization": f"Bearer {filed['access_token']}"},
        )
        assert response.status_code == 200
        result: dict[str, Any] = response.json()
        return result

    async def answered(self, filed: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            thread = await self.thread(filed)
            if thread["human_has_replied"]:
                return thread
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the reply was not recorded: {thread}")
            await asyncio.sleep(0.2)

    def stored(self) -> list[InboundMessage]:
        with self.services.db.read_only() as session:
            return list(session.scalars(select(InboundMessage)))


@pytest.fixture
async def site(postfix: PrivatePostfix, tmp_path: Path) -> AsyncIterator[Site]:
    async with running_site(postfix, tmp_path) as running:
        yield running


@pytest.fixture
async def authenticating_site(postfix: PrivatePostfix, tmp_path: Path) -> AsyncIterator[Site]:
    """A gateway that believes Postfix's Authentication-Results and requires a pass."""
    async with running_site(
        postfix,
        tmp_path,
        trusted_authserv_id=AUTHSERV_ID,
        require_authenticated_sender="1",
    ) as running:
        yield running


@contextlib.asynccontextmanager
async def running_site(
    postfix: PrivatePostfix, tmp_path: Path, **settings: str
) -> AsyncIterator[Site]:
    key_file, record = write_dkim_key(tmp_path)
    config = make_config(
        tmp_path / "var",
        smtp_bind=f"127.0.0.1:{postfix.gateway_port}",
        smtp_relay=f"127.0.0.1:{postfix.submission_port}",
        max_message_bytes=str(MAX_MESSAGE_BYTES),
        dkim_selector=SELECTOR,
        dkim_private_key_file=str(key_file),
        **settings,
    )
    services = build_services(config)
    gateway = Gateway(services)
    await gateway.start()
    http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}", timeout=10)
    try:
        yield Site(postfix, config, services, http, record)
    finally:
        await http.aclose()
        await gateway.stop()
        services.close()


async def until(predicate: Any, what: str, timeout: float = 30) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)


async def request_in_mailbox(site: Site) -> tuple[dict[str, Any], EmailMessage]:
    before = len(site.postfix.mailbox("counsel"))
    filed = await site.file()

    def arrived() -> EmailMessage | None:
        # The tests share one Postfix: a notice an earlier test caused (a bounce, a
        # challenge) may reach the same mailbox first.
        return next(
            (
                m
                for m in site.postfix.mailbox("counsel")[before:]
                if m["X-HFA-Kind"] == "request" and m["X-HFA-Reference"] == filed["reference"]
            ),
            None,
        )

    email = await until(arrived, "the request email in the lawyer's mailbox")
    return filed, email


def wire_size(message: EmailMessage) -> int:
    """Octets on the wire (CRLF line ends), as SMTP SIZE and Postfix count them."""
    return len(message.as_bytes(policy=default_policy.clone(linesep="\r\n")))


async def send_to_mx(site: Site, message: EmailMessage, sender: str = LAWYER) -> None:
    await aiosmtplib.send(
        message, hostname="127.0.0.1", port=site.postfix.inbound_port, sender=sender, timeout=60
    )


async def test_request_goes_out_through_postfix_and_the_reply_comes_back(site: Site) -> None:
    filed, email = await request_in_mailbox(site)
    # Delivered by Postfix, still signed: dkimpy verifies it against the published key.
    raw = next(r for r in site.postfix.raw_mailbox("counsel") if email["Message-ID"].encode() in r)
    assert dkim.verify(raw, dnsfunc=dns_for(REPLY_DOMAIN, site.dkim_record))
    assert str(email["Return-Path"]).strip("<>") == site.config.mail_from

    await send_to_mx(site, reply_to(email, "Approved, go ahead.\n\nDana"))
    thread = await site.answered(filed)
    human = [t for t in thread["turns"] if t["author"] == "human"]
    assert len(human) == 1 and human[0]["body"].startswith("Approved, go ahead.")
    assert thread["status"] == "answered"
    # The receipt comes back round through Postfix too.
    receipts = await until(
        lambda: [
            m for m in site.postfix.mailbox("counsel") if m["Auto-Submitted"] == "auto-replied"
        ],
        "the receipt in the lawyer's mailbox",
    )
    assert receipts[0]["X-HFA-Reference"] == filed["reference"]
    log = site.postfix.log()
    assert re.search(r"status=deliverable \(250", log), "Postfix did not verify the address"
    assert f"relay=127.0.0.1[127.0.0.1]:{site.postfix.gateway_port}" in log


async def test_forged_reply_address_is_refused_in_session_and_nothing_bounces(site: Site) -> None:
    _filed, email = await request_in_mailbox(site)
    token = str(email["Reply-To"]).split("+", 1)[1].split("@", 1)[0]
    tampered = token[:-1] + ("a" if token[-1] != "a" else "b")
    for forged in (tampered, "a" * len(token)):
        address = f"reply+{forged}@{REPLY_DOMAIN}"
        message = reply_to(email, "Approved.", to=address, sender=VICTIM)
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
            await send_to_mx(site, message, sender=VICTIM)
        (answer,) = refused.value.recipients
        assert answer.code == 550, answer
        assert "5.1.1" in answer.message
    # Postfix writes its log file through postlogd, a moment after it answers.
    await until(
        lambda: (
            len(
                re.findall(
                    r"NOQUEUE: reject: RCPT from .*: 550 5\.1\.1 <reply\+", site.postfix.log()
                )
            )
            >= 2
        ),
        "both refusals in Postfix's log",
        timeout=10,
    )
    # Nothing entered Postfix's queue, so nothing can bounce to the (forged) sender.
    await asyncio.sleep(2)
    assert site.postfix.queued() == []
    assert site.postfix.mailbox("victim") == []
    assert site.stored() == []


async def test_over_the_gateways_limit_is_refused_at_postfix(site: Site) -> None:
    limit = site.config.max_message_bytes - TRACE_HEADROOM

    # Postfix announces the limit derived from the gateway's own HFA_MAX_MESSAGE_BYTES.
    def ehlo_size() -> str:
        with smtplib.SMTP("127.0.0.1", site.postfix.inbound_port, timeout=30) as client:
            client.ehlo("lawfirm.example")
            return client.esmtp_features["size"]

    assert int(await asyncio.to_thread(ehlo_size)) == limit
    filed, email = await request_in_mailbox(site)
    address = str(email["Reply-To"])

    big = reply_to(email, "Approved.\n" + "x" * 76 + "\n")
    big.add_attachment(
        os.urandom(limit), maintype="application", subtype="octet-stream", filename="too-big.bin"
    )
    # Declared with SIZE: refused at MAIL FROM.
    with pytest.raises(aiosmtplib.SMTPResponseException) as declared:
        await send_to_mx(site, big)
    assert declared.value.code == 552 and "5.3.4" in declared.value.message

    # Not declared: refused after DATA, still in the session (the sender's server tells the lawyer).
    def undeclared() -> tuple[int, bytes]:
        with smtplib.SMTP("127.0.0.1", site.postfix.inbound_port, timeout=60) as client:
            client.ehlo("lawfirm.example")
            client.mail(LAWYER)
            code, _ = client.rcpt(address)
            assert code == 250, code
            return client.data(big.as_bytes())

    code, text = await asyncio.to_thread(undeclared)
    assert code == 552 and b"5.3.4" in text, (code, text)

    # Just under Postfix's limit, the message reaches the gateway and is recorded: the
    # headroom covers what Postfix adds on the way, so the gateway never refuses it.
    fits = reply_to(email, "Approved, see the attachment.")
    overhead = wire_size(fits) + 2048
    # base64 turns 57 bytes into a 76-character line plus CRLF: 78 bytes on the wire.
    fits.add_attachment(
        os.urandom((limit - overhead) // 78 * 57),
        maintype="application",
        subtype="octet-stream",
        filename="fits.bin",
    )
    assert limit - 4096 < wire_size(fits) < limit
    await send_to_mx(site, fits)
    stored = await until(site.stored, "the message under the limit at the gateway")
    assert len(stored) == 1 and stored[0].size <= site.config.max_message_bytes
    await asyncio.sleep(1)
    assert site.postfix.queued() == []
    thread = await site.answered(filed)
    (human,) = [t for t in thread["turns"] if t["author"] == "human"]
    assert human["body"].startswith("Approved, see the attachment.")


async def test_while_the_gateway_is_down_postfix_answers_450_so_the_sender_retries(
    postfix: PrivatePostfix,
) -> None:
    # No gateway on its port: the probe cannot connect, and that is not a refusal.
    address = f"reply+{'b' * 31}@{REPLY_DOMAIN}"

    def rcpt() -> tuple[int, bytes]:
        with smtplib.SMTP("127.0.0.1", postfix.inbound_port, timeout=60) as client:
            client.ehlo("lawfirm.example")
            client.mail(LAWYER)
            return client.rcpt(address)

    code, text = await asyncio.to_thread(rcpt)
    assert code == 450 and b"4.1.1" in text, (code, text)
    assert postfix.queued() == []


async def test_an_incoming_authentication_result_claiming_our_id_is_removed_and_never_counts(
    authenticating_site: Site,
) -> None:
    site = authenticating_site
    filed, email = await request_in_mailbox(site)
    # Sent straight to the MX: the forgery would stand right under Postfix's own Received
    # header, where a filter on the MX writes the real result. Postfix removes it.
    forged = reply_to(email, "Approved, go ahead.")
    raw = (
        f"Authentication-Results: {AUTHSERV_ID}; dmarc=pass header.from=lawfirm.example\r\n"
    ).encode() + forged.as_bytes()
    await aiosmtplib.send(
        raw,
        hostname="127.0.0.1",
        port=site.postfix.inbound_port,
        sender=LAWYER,
        recipients=[str(email["Reply-To"])],
        timeout=60,
    )
    [stored] = await until(site.stored, "the reply at the gateway")
    assert b"Authentication-Results" not in stored.raw
    await until(lambda: site.stored()[0].outcome, "the reply processed")
    (stored,) = site.stored()
    assert stored.outcome == "unverified_sender", stored.outcome_detail
    thread = await site.thread(filed)
    assert [t for t in thread["turns"] if t["author"] == "human"] == []


async def test_the_bounce_address_takes_only_the_null_sender_at_rcpt(site: Site) -> None:
    _filed, email = await request_in_mailbox(site)
    # A person's mail (or a forger's, naming a victim as sender): refused in the session,
    # so Postfix never queues it and never bounces to the victim.
    person = reply_to(email, "Hello, is anyone there?", to=BOUNCE, sender=VICTIM)
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
        await send_to_mx(site, person, sender=VICTIM)
    (answer,) = refused.value.recipients
    assert answer.code >= 500 and "delivery reports" in answer.message, answer
    # A delivery report (null sender) is taken and reaches the gateway.
    report = reply_to(email, "Out of office.", to=BOUNCE, sender="mailer-daemon@lawfirm.example")
    report["Auto-Submitted"] = "auto-replied"
    await send_to_mx(site, report, sender="")
    stored = await until(site.stored, "the report at the gateway")
    assert [row.mail_from for row in stored] in (["<>"], [""])
    await asyncio.sleep(2)
    assert site.postfix.queued() == []
    assert site.postfix.mailbox("victim") == []
