"""Who really sent a reply, over real sockets: a DNS server on loopback publishes the
firm's DKIM keys and DMARC records, replies are signed with dkimpy as the firm's mail
server signs them and sent over SMTP to a running gateway.

Every forgery in the matrix is held and the lawyer's registered address is challenged;
none is recorded. Genuine replies, signed directly or forwarded through a trusted ARC
sealer, are recorded with ``authenticated_by`` saying how, with the key record used.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import socket
from collections.abc import AsyncIterator, Iterator
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib
import dkim
import pytest

from gateway.cli import main
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.dnskit import DkimKey, LoopbackDns, dkim_key, loopback_dns
from tests.mailkit import reply_to

LAWYER = "counsel@firm.test"
PLAIN_LAWYER = "counsel@plain.test"
TRUSTED_MTA = "mx.gateway.test"
TENANT = "tenant.test"  # the firm's mail tenant: a trusted ARC sealer
STRANGER = "relay.test"  # a forwarder nobody listed


class Keys:
    def __init__(self) -> None:
        self.firm = dkim_key("firm.test")
        self.other = dkim_key("other.test")
        self.lookalike = dkim_key("firrn.test")
        self.tenant = dkim_key(TENANT, "arc")
        self.stranger = dkim_key(STRANGER, "arc")

    def all(self) -> list[DkimKey]:
        return [self.firm, self.other, self.lookalike, self.tenant, self.stranger]


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture
def dns(keys: Keys) -> Iterator[LoopbackDns]:
    with loopback_dns() as server:
        for key in keys.all():
            server.publish(key.name, key.record)
        server.publish("_dmarc.firm.test", "v=DMARC1; p=reject; rua=mailto:d@firm.test")
        server.publish("_dmarc.firrn.test", "v=DMARC1; p=none")
        server.publish("_dmarc.plain.test", "v=DMARC1; p=none")
        yield server


async def _running(
    tmp_path: Path,
    sink: SmtpSink,
    dns: LoopbackDns,
    lawyer: str,
    database_url: str,
    **settings: str,
) -> Running:
    config = make_config(
        tmp_path,
        database_url=database_url,
        lawyers=lawyer,
        dns_resolver=dns.address,
        arc_trusted_sealers=TENANT,
        trusted_authserv_id=TRUSTED_MTA,
        sender_policy="plain.test=dkim",
        **settings,
    )
    return await start_running(config, sink)


@pytest.fixture
async def gateway(
    tmp_path: Path, sink: SmtpSink, dns: LoopbackDns, database_url: str
) -> AsyncIterator[Running]:
    running = await _running(tmp_path, sink, dns, LAWYER, database_url)
    yield running
    await stop_running(running)


async def filed_with_email(running: Running) -> tuple[dict[str, Any], EmailMessage]:
    filed = await running.file(request="May we sign the Nordwind agreement?")
    return filed, await running.sink.request_email(filed["reference"])


def signed(message: EmailMessage, key: DkimKey) -> bytes:
    """The message as the sending domain's server signs it (relaxed/relaxed, To covered)."""
    raw = message.as_bytes(policy=SMTP_POLICY)
    signature = dkim.sign(
        raw,
        key.selector.encode(),
        key.domain.encode(),
        key.private_pem,
        canonicalize=(b"relaxed", b"relaxed"),
        include_headers=[b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to"],
    )
    return bytes(signature) + raw


def sealed(raw: bytes, key: DkimKey, said: str) -> bytes:
    """The message after a forwarder changed it (a footer) and sealed what it saw (ARC)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    changed = b"Authentication-Results: " + said.encode() + b"\r\n" + head
    changed += b"\r\n\r\n" + body + b"\r\n-- \r\nScanned by the firm's mail tenant\r\n"
    seal = dkim.arc_sign(
        changed,
        key.selector.encode(),
        key.domain.encode(),
        key.private_pem,
        key.domain.encode(),
        logger=logging.getLogger("arc-test"),
    )
    return b"".join(seal) + changed


async def deliver(running: Running, raw: bytes, to: str, mail_from: str = LAWYER) -> None:
    await aiosmtplib.send(
        raw, sender=mail_from, recipients=[to], hostname="127.0.0.1", port=running.smtp_port
    )


def reply_address(email: EmailMessage) -> str:
    return str(email["Reply-To"]).rpartition("<")[2].strip(">")


async def outcome_of(running: Running, index: int) -> tuple[str, str]:
    from sqlalchemy import select

    from gateway.store.models import InboundMessage

    for _ in range(200):
        with running.services.db.read_only() as session:
            rows = list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))
        if len(rows) > index and rows[index].outcome is not None:
            return rows[index].outcome or "", rows[index].outcome_detail or ""
        await asyncio.sleep(0.05)
    raise AssertionError("the message was not processed")


async def challenges(running: Running, count: int) -> list[EmailMessage]:
    for _ in range(200):
        found = [m for m in running.sink.messages() if m["X-HFA-Kind"] == "sender_challenge"]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"expected {count} challenge(s), got {len(found)}")


def human_turns(thread: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in thread["turns"] if t["author"] == "human"]


def _forged_from(email: EmailMessage, keys: Keys, running: Running) -> tuple[bytes, str]:
    return reply_to(email, "APPROVE", sender=LAWYER).as_bytes(policy=SMTP_POLICY), ""


def _other_domain(email: EmailMessage, keys: Keys, running: Running) -> tuple[bytes, str]:
    return signed(reply_to(email, "APPROVE", sender=LAWYER), keys.other), ""


def _lookalike(email: EmailMessage, keys: Keys, running: Running) -> tuple[bytes, str]:
    message = reply_to(email, "APPROVE", sender="counsel@firrn.test")
    return signed(message, keys.lookalike), "counsel@firrn.test"


def _untrusted_results(email: EmailMessage, keys: Keys, running: Running) -> tuple[bytes, str]:
    message = reply_to(email, "APPROVE", sender=LAWYER)
    claimed = (
        b"Authentication-Results: mx.attacker.test; dkim=pass header.d=firm.test;"
        b" dmarc=pass header.from=firm.test\r\n"
    )
    return claimed + message.as_bytes(policy=SMTP_POLICY), ""


def _name_is_an_address(email: EmailMessage, keys: Keys, running: Running) -> tuple[bytes, str]:
    message = reply_to(email, "APPROVE", sender="intruder@evil.test", display_name=LAWYER)
    return message.as_bytes(policy=SMTP_POLICY), "intruder@evil.test"


def _unlisted_sealer(email: EmailMessage, keys: Keys, running: Running) -> tuple[bytes, str]:
    said = f"{STRANGER}; dkim=pass header.d=firm.test; dmarc=pass header.from=firm.test"
    raw = sealed(signed(reply_to(email, "APPROVE", sender=LAWYER), keys.firm), keys.stranger, said)
    return raw, ""


SPOOFS = {
    "forged From, no DKIM": _forged_from,
    "DKIM of another domain": _other_domain,
    "look-alike domain": _lookalike,
    "Authentication-Results of an untrusted authserv-id": _untrusted_results,
    "display name that is an address": _name_is_an_address,
    "ARC from an unlisted sealer": _unlisted_sealer,
}


@pytest.mark.parametrize("case", list(SPOOFS))
async def test_each_forgery_is_held_challenged_and_not_recorded(
    gateway: Running, keys: Keys, case: str
) -> None:
    filed, email = await filed_with_email(gateway)
    raw, envelope = SPOOFS[case](email, keys, gateway)
    await deliver(gateway, raw, reply_address(email), envelope or LAWYER)
    outcome, _detail = await outcome_of(gateway, 0)
    assert outcome == "unverified_sender"
    (challenge,) = await challenges(gateway, 1)
    # To the lawyer's registered address, never to whoever sent the forgery.
    assert str(challenge["To"]) == LAWYER
    body = challenge.get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content()
    # What the held reply claims and says, so the lawyer knows what they would confirm.
    assert "CONFIRM" in text and "> APPROVE" in text and "It reads as: APPROVAL" in text
    assert re.search(r"\d{4}-\d\d-\d\dT", text) is None  # the lawyer's clock, not ISO
    thread = await gateway.status(filed)
    assert human_turns(thread) == [] and thread["status"] != "answered"
    await asyncio.sleep(0.5)
    # The lawyer gets the challenge, not also a notice that the reply was not recorded.
    to_lawyer = [m for m in gateway.sink.messages() if str(m["To"]) == LAWYER]
    assert [m["X-HFA-Kind"] for m in to_lawyer] == ["request", "sender_challenge"]


async def test_dmarc_none_under_the_dkim_policy_is_held(
    tmp_path: Path, sink: SmtpSink, dns: LoopbackDns, database_url: str
) -> None:
    running = await _running(tmp_path, sink, dns, PLAIN_LAWYER, database_url)
    try:
        filed, email = await filed_with_email(running)
        message = reply_to(email, "What does clause 7 cover?", sender=PLAIN_LAWYER)
        said = (
            f"Authentication-Results: {TRUSTED_MTA}; dmarc=none header.from=plain.test;"
            " dkim=none\r\n"
        ).encode()
        await deliver(running, said + message.as_bytes(policy=SMTP_POLICY), reply_address(email))
        outcome, detail = await outcome_of(running, 0)
        assert outcome == "unverified_sender" and "HFA_SENDER_POLICY asks dkim" in detail
        await challenges(running, 1)
        assert human_turns(await running.status(filed)) == []
    finally:
        await stop_running(running)


async def test_a_genuine_signed_reply_replayed_to_another_thread_is_held(
    gateway: Running, keys: Keys
) -> None:
    first, first_email = await filed_with_email(gateway)
    second, second_email = await filed_with_email(gateway)
    genuine = signed(reply_to(first_email, "APPROVE", sender=LAWYER), keys.firm)
    await deliver(gateway, genuine, reply_address(first_email))
    assert (await outcome_of(gateway, 0))[0] == "recorded"
    # The same bytes, signature intact, to the other request's reply address.
    await deliver(gateway, genuine, reply_address(second_email))
    assert (await outcome_of(gateway, 1))[0] == "unverified_sender"
    await challenges(gateway, 1)
    assert human_turns(await gateway.status(second)) == []
    assert len(human_turns(await gateway.status(first))) == 1


async def test_a_genuine_signed_reply_is_recorded_with_the_key_it_was_verified_with(
    gateway: Running, keys: Keys, capsys: pytest.CaptureFixture[str]
) -> None:
    filed, email = await filed_with_email(gateway)
    await deliver(
        gateway, signed(reply_to(email, "APPROVE", sender=LAWYER), keys.firm), reply_address(email)
    )
    thread = await gateway.wait_status(filed, lambda t: t["status"] == "answered")
    (turn,) = human_turns(thread)
    proven = turn["authenticated_by"]
    assert proven["method"] == "dkim" and proven["result"] == "pass" and proven["aligned"]
    assert (proven["domain"], proven["selector"]) == ("firm.test", "s1")
    assert proven["key_record"] == keys.firm.record
    assert proven["key_sha256"] == hashlib.sha256(keys.firm.record.encode()).hexdigest()
    assert proven["dmarc_policy"] == "reject" and proven["verified_by"] == "gateway"
    assert proven["checked_at"]
    shown = _cli_show(gateway, filed["reference"], capsys)
    assert "sender: dkim pass firm.test, selector s1" in shown
    assert json.loads(_cli_show(gateway, filed["reference"], capsys, "--json"))["turns"]


async def test_replies_from_one_firm_ask_dns_once_per_name(
    gateway: Running, keys: Keys, dns: LoopbackDns
) -> None:
    for _ in range(3):
        filed, email = await filed_with_email(gateway)
        reply = signed(reply_to(email, "APPROVE", sender=LAWYER), keys.firm)
        await deliver(gateway, reply, reply_address(email))
        await gateway.wait_status(filed, lambda t: t["status"] == "answered")
    # The work budget: the key and the DMARC record once each, for three replies.
    asked = [name for name in dns.queries if name.endswith("firm.test")]
    assert sorted(asked) == ["_dmarc.firm.test", "s1._domainkey.firm.test"]


async def test_a_reply_forwarded_through_a_trusted_arc_sealer_is_recorded(
    gateway: Running, keys: Keys
) -> None:
    filed, email = await filed_with_email(gateway)
    said = f"{TENANT}; dkim=pass header.d=firm.test; dmarc=pass header.from=firm.test"
    raw = sealed(signed(reply_to(email, "APPROVE", sender=LAWYER), keys.firm), keys.tenant, said)
    await deliver(gateway, raw, reply_address(email))
    thread = await gateway.wait_status(filed, lambda t: t["status"] == "answered")
    (turn,) = human_turns(thread)
    proven = turn["authenticated_by"]
    # The footer broke the firm's own signature: the tenant's seal is what proves it.
    assert proven["method"] == "arc" and proven["domain"] == TENANT
    assert proven["key_record"] == keys.tenant.record and proven["result"] == "pass"


async def test_a_confirm_from_the_lawyers_mailbox_records_the_held_reply(
    gateway: Running, keys: Keys
) -> None:
    filed, email = await filed_with_email(gateway)
    unsigned = reply_to(email, "APPROVE", sender=LAWYER).as_bytes(policy=SMTP_POLICY)
    await deliver(gateway, unsigned, reply_address(email))
    (challenge,) = await challenges(gateway, 1)
    confirm_to = reply_address(challenge)
    assert confirm_to.startswith("confirm+")
    # The address is signed: one changed character is refused at RCPT, nothing stored.
    local, _, domain = confirm_to.partition("@")
    forged = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
        await deliver(gateway, b"Subject: x\r\n\r\nCONFIRM\r\n", forged)
    # A CONFIRM from another mailbox confirms nothing, and draws no mail.
    stranger = reply_to(challenge, "CONFIRM", sender="intruder@evil.test")
    await deliver(gateway, stranger.as_bytes(policy=SMTP_POLICY), confirm_to, "intruder@evil.test")
    assert (await outcome_of(gateway, 1))[0] == "unconfirmed"
    assert human_turns(await gateway.status(filed)) == []
    confirm = signed(reply_to(challenge, "CONFIRM", sender=LAWYER), keys.firm)
    await deliver(gateway, confirm, confirm_to)
    assert (await outcome_of(gateway, 2))[0] == "confirmed"
    thread = await gateway.wait_status(filed, lambda t: t["status"] == "answered")
    (turn,) = human_turns(thread)
    proven = turn["authenticated_by"]
    assert proven["method"] == "confirm" and proven["confirm"]["method"] == "dkim"
    assert "DMARC" in proven["held_because"]


async def test_a_held_approval_with_conditions_is_named_as_one_in_the_challenge(
    gateway: Running,
) -> None:
    """The lawyer confirms what the thread will record: an approval with conditions, named
    so, as the receipt names it once confirmed, never a bare APPROVAL."""
    _filed, email = await filed_with_email(gateway)
    typed = "Approved, subject to:\n- attach the signed NDA\n- copy me on the email"
    unsigned = reply_to(email, typed, sender=LAWYER).as_bytes(policy=SMTP_POLICY)
    await deliver(gateway, unsigned, reply_address(email))
    (challenge,) = await challenges(gateway, 1)
    body = challenge.get_body(preferencelist=("plain",))
    assert body is not None
    assert "It reads as: APPROVAL WITH CONDITIONS" in body.get_content()


def _cli_show(
    running: Running, reference: str, capsys: pytest.CaptureFixture[str], *more: str
) -> str:
    saved = {k: v for k, v in os.environ.items() if k.startswith("HFA_")}
    try:
        for name, value in running.services.config.raw.items():
            os.environ[f"HFA_{name.upper()}"] = value
        capsys.readouterr()
        assert main(["requests", "show", reference, *more]) == 0
        return capsys.readouterr().out
    finally:
        for key in [k for k in os.environ if k.startswith("HFA_")]:
            del os.environ[key]
        os.environ.update(saved)


async def test_when_dns_does_not_answer_a_decision_is_held_and_a_question_recorded(
    tmp_path: Path, sink: SmtpSink, database_url: str
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        config = make_config(
            tmp_path,
            database_url=database_url,
            lawyers=LAWYER,
            dns_resolver=f"127.0.0.1:{silent.getsockname()[1]}",
        )
        running = await start_running(config, sink)
        try:
            filed, email = await filed_with_email(running)
            approve = reply_to(email, "APPROVE", sender=LAWYER).as_bytes(policy=SMTP_POLICY)
            await deliver(running, approve, reply_address(email))
            outcome, detail = await outcome_of(running, 0)
            # Unknown is never taken for "no DMARC policy": a temperror holds a decision.
            assert outcome == "unverified_sender" and "could not be looked up" in detail
            question = reply_to(email, "QUESTION: which version is this?", sender=LAWYER)
            await deliver(running, question.as_bytes(policy=SMTP_POLICY), reply_address(email))
            thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
            (turn,) = human_turns(thread)
            assert turn["kind"] == "question"
            assert turn["authenticated_by"]["method"] == "token"
            assert turn["authenticated_by"]["dmarc_policy"] == "temperror"
        finally:
            await stop_running(running)


async def test_a_french_lawyers_challenge_is_french_names_the_request_and_has_a_confirm_button(
    tmp_path: Path, sink: SmtpSink, dns: LoopbackDns, keys: Keys, database_url: str
) -> None:
    running = await _running(
        tmp_path, sink, dns, LAWYER, database_url, lawyer_languages=f"{LAWYER}=fr"
    )
    try:
        filed, email = await filed_with_email(running)
        unsigned = reply_to(email, "APPROVE", sender=LAWYER).as_bytes(policy=SMTP_POLICY)
        await deliver(running, unsigned, reply_address(email))
        (challenge,) = await challenges(running, 1)
        assert challenge["Content-Language"] == "fr"
        assert str(challenge["Subject"]).startswith(
            "Avez-vous envoyé cette réponse ? “May we sign the Nordwind"
        )
        plain_part = challenge.get_body(preferencelist=("plain",))
        html_part = challenge.get_body(preferencelist=("html",))
        assert plain_part is not None and html_part is not None
        text = " ".join(str(plain_part.get_content()).split())
        assert "elle n'est donc PAS encore enregistrée" in text
        assert "May we sign the Nordwind agreement?" in text  # which request it is
        assert "Lue comme : APPROBATION" in text and "Why:" not in text
        page = str(html_part.get_content())
        [url] = re.findall(r'href="(mailto:confirm\+[^"]+)"[^>]*>CONFIRM</a>', page)
        parts = urlsplit(unescape(url))
        query = parse_qs(parts.query)
        button = EmailMessage()
        button["From"] = LAWYER
        button["To"] = unquote(parts.path)
        button["Subject"] = query["subject"][0]
        button["Message-ID"] = "<confirm-button@firm.test>"
        button.set_content(query["body"][0].replace("\r\n", "\n"))
        await deliver(running, signed(button, keys.firm), unquote(parts.path))
        assert (await outcome_of(running, 1))[0] == "confirmed"
        await running.wait_status(filed, lambda t: t["status"] == "answered")
    finally:
        await stop_running(running)
