"""Behind a real Postfix configured by deploy/postfix/setup.sh: a gateway restart costs the
lawyers' servers seconds, and a queue Postfix flushes after an outage draws no 421.

The private Postfix instance is the one test_postfix_loop starts (its own config, queue and
data in a temp dir, loopback ports only); the gateway runs in-process and is stopped and
started by each test.
"""

from __future__ import annotations

import asyncio
import re
import smtplib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import func, select

from gateway.app import Gateway
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.settings.table import SETTINGS
from gateway.store.models import InboundMessage
from tests.conftest import LAWYER, REPLY_DOMAIN, make_config
from tests.e2e.postfixkit import PrivatePostfix, run_postfix, why_not
from tests.e2e.test_postfix_loop import postfix  # noqa: F401 (the module's Postfix instance)

pytestmark = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")


@dataclass
class Site:
    postfix: PrivatePostfix
    config: Config
    services: Services
    gateway: Gateway | None = None

    async def start(self) -> None:
        self.gateway = Gateway(self.services)
        await self.gateway.start()

    async def stop(self) -> None:
        if self.gateway is not None:
            await self.gateway.stop()
            self.gateway = None

    def stored(self) -> int:
        with self.services.db.read_only() as session:
            return int(session.scalar(select(func.count(InboundMessage.id))) or 0)

    def rcpt(self, address: str) -> int:
        with smtplib.SMTP("127.0.0.1", self.postfix.inbound_port, timeout=60) as client:
            client.ehlo("lawfirm.example")
            client.mail(LAWYER)
            code, _text = client.rcpt(address)
            return code


@pytest.fixture
async def site(postfix: PrivatePostfix, tmp_path: Path) -> AsyncIterator[Site]:  # noqa: F811
    config = make_config(
        tmp_path / "var",
        smtp_bind=f"127.0.0.1:{postfix.gateway_port}",
        smtp_relay=f"127.0.0.1:{postfix.submission_port}",
    )
    services = build_services(config)
    built = Site(postfix, config, services)
    try:
        yield built
    finally:
        await built.stop()
        services.close()


async def test_a_reply_address_probed_while_the_gateway_restarts_is_accepted_seconds_later(
    site: Site,
) -> None:
    # A reply address never seen before, first used while the gateway is down.
    address = site.services.tokens.reply_address(424242, REPLY_DOMAIN)
    assert await asyncio.to_thread(site.rcpt, address) == 450
    await site.start()
    # Postfix cached the failed probe; it asks again after the refresh time setup.sh sets,
    # not after its default 3 hours. Tried as a sending server would, but every 2 s.
    codes = []
    for _ in range(30):
        codes.append(await asyncio.to_thread(site.rcpt, address))
        if codes[-1] == 250:
            break
        await asyncio.sleep(2)
    assert codes[-1] == 250, codes


def reply(address: str, n: int) -> EmailMessage:
    message = EmailMessage()
    message["From"] = LAWYER
    message["To"] = address
    message["Subject"] = f"Re: your request ({n})"
    message["Message-ID"] = make_msgid(domain="lawfirm.example")
    message.set_content(f"Approved ({n}).")
    return message


async def test_a_queue_flushed_after_an_outage_draws_no_421(site: Site) -> None:
    per_client = next(s.text for s in SETTINGS if s.name == "smtp_max_connections_per_client")
    assert site.postfix.postconf("-h", "hfa_destination_concurrency_limit").strip() == per_client
    await site.start()
    address = site.services.tokens.reply_address(434343, REPLY_DOMAIN)
    assert await asyncio.to_thread(site.rcpt, address) == 250  # verified, and cached
    await site.stop()
    count = 60

    def queue_replies() -> None:
        with smtplib.SMTP("127.0.0.1", site.postfix.inbound_port, timeout=60) as client:
            for n in range(count):
                client.send_message(reply(address, n), from_addr=LAWYER, to_addrs=[address])

    await asyncio.to_thread(queue_replies)  # Postfix holds them: the gateway is down
    log_before = len(site.postfix.log())
    await site.start()
    run_postfix(site.postfix.config_dir, "flush")
    for _ in range(300):
        if site.stored() >= count:
            break
        await asyncio.sleep(0.2)
    assert site.stored() == count
    log = site.postfix.log()[log_before:]
    deferred = re.findall(r"postfix/hfa/smtp.*status=deferred.*", log)
    assert not [line for line in deferred if "421" in line or "Too many" in line], deferred[:3]
