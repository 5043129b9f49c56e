"""The sender-assurance ladder's parts against a real DNS server on loopback: lookups that
fail fast and are remembered, DMARC records and alignment, DKIM verified with the key record
kept, a signature counted only where it was sent, and DNS switched off."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes
from email.policy import default as default_policy

import dkim
import pytest

from gateway.errors import DnsTempError
from gateway.inbound import dns_txt
from gateway.inbound.assurance import GatewayEvidence, assure, gather
from gateway.inbound.dkim_check import verify_dkim
from gateway.inbound.dmarc import DmarcRecord, aligned, dmarc_record, organizational_domain
from gateway.inbound.dns_txt import TxtLookup
from gateway.inbound.sender import SenderCheck
from gateway.inbound.sender_policy import refusal
from gateway.replies import DecisionKind
from tests.dnskit import DkimKey, LoopbackDns, dkim_key, loopback_dns
from tests.inbound.test_sender_policy import check_of, config_of

REPLY = "reply+abcdefghijklmnopqrstuvwxyz23456@hfa.example"
MESSAGE = (
    f"From: Dana Counsel <counsel@firm.test>\r\nTo: {REPLY}\r\nSubject: Re: HFA-00001\r\n"
    "Message-ID: <1@firm.test>\r\n\r\nAPPROVE\r\n"
).encode()


@pytest.fixture(scope="module")
def key() -> DkimKey:
    return dkim_key("firm.test")


@pytest.fixture
def dns(key: DkimKey) -> Iterator[LoopbackDns]:
    with loopback_dns() as server:
        server.publish(key.name, key.record)
        server.publish("_dmarc.firm.test", "v=DMARC1; p=reject; adkim=s")
        server.publish("_dmarc.corp.example", "v=DMARC1; p=quarantine")
        server.publish("_dmarc.twice.test", "v=DMARC1; p=none")
        server.publish("_dmarc.twice.test", "v=DMARC1; p=reject")
        yield server


def sign(key: DkimKey, message: bytes = MESSAGE) -> bytes:
    headers = [b"from", b"to", b"subject", b"message-id"]
    return (
        bytes(
            dkim.sign(message, b"s1", key.domain.encode(), key.private_pem, include_headers=headers)
        )
        + message
    )


def test_records_are_read_absent_names_are_empty_and_answers_are_kept(dns: LoopbackDns) -> None:
    lookup = TxtLookup(dns.address)
    assert lookup.txt("_dmarc.firm.test") == [b"v=DMARC1; p=reject; adkim=s"]
    assert lookup.txt("_dmarc.nowhere.test") == []
    asked = len(dns.queries)
    assert lookup.txt("_dmarc.firm.test") and lookup.txt("_dmarc.nowhere.test") == []
    assert len(dns.queries) == asked  # both answers came from the cache


def test_a_resolver_that_never_answers_is_a_temperror_and_is_not_asked_again_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dns_txt, "LOOKUP_SECONDS", 0.2)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        lookup = TxtLookup(f"127.0.0.1:{silent.getsockname()[1]}")
        with pytest.raises(DnsTempError):
            lookup.txt("_dmarc.firm.test")
        with pytest.raises(DnsTempError):
            lookup.txt("_dmarc.firm.test")
        assert lookup.queries == 1
    assert dmarc_record(TxtLookup("off"), "firm.test") == DmarcRecord(unknown=True)


def test_dmarc_records_and_alignment(dns: LoopbackDns) -> None:
    lookup = TxtLookup(dns.address)
    firm = dmarc_record(lookup, "firm.test")
    assert (firm.policy, firm.strict_dkim, firm.published) == ("reject", True, True)
    # A subdomain without a record of its own takes the organizational domain's.
    assert dmarc_record(lookup, "mail.corp.example").policy == "quarantine"
    assert not dmarc_record(lookup, "nowhere.test").published
    # Two records are as good as none (RFC 7489 6.6.3).
    assert not dmarc_record(lookup, "twice.test").published
    assert organizational_domain("mail.firm.co.uk") == "firm.co.uk"
    assert aligned("mail.firm.test", "firm.test", strict=False)
    assert not aligned("mail.firm.test", "firm.test", strict=True)
    assert not aligned("firm.test.evil.example", "firm.test", strict=False)
    assert not aligned("firrn.test", "firm.test", strict=False)


def test_dkim_is_verified_with_the_published_key_and_the_key_record_is_kept(
    dns: LoopbackDns, key: DkimKey
) -> None:
    lookup = TxtLookup(dns.address)
    (good,) = verify_dkim(sign(key), lookup)
    assert (good.result, good.domain, good.selector) == ("pass", "firm.test", "s1")
    assert good.key_record == key.record
    assert good.key_sha256 == hashlib.sha256(key.record.encode()).hexdigest()
    assert "to" in good.signed_headers
    (changed,) = verify_dkim(sign(key).replace(b"APPROVE", b"REJECT!"), lookup)
    assert changed.result == "fail"
    unknown = dkim_key("unpublished.test")
    assert verify_dkim(sign(unknown), lookup)[0].result == "fail"
    assert verify_dkim(MESSAGE, lookup) == []


def test_a_key_that_cannot_be_fetched_is_a_temperror(
    key: DkimKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dns_txt, "LOOKUP_SECONDS", 0.2)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        lookup = TxtLookup(f"127.0.0.1:{silent.getsockname()[1]}")
        assert verify_dkim(sign(key), lookup)[0].result == "temperror"


def test_a_signature_counts_only_for_the_address_it_was_signed_to(
    dns: LoopbackDns, key: DkimKey
) -> None:
    config = config_of(HFA_DNS_RESOLVER=dns.address)
    lookup = TxtLookup(dns.address)
    raw = sign(key)
    evidence = GatewayEvidence(
        tuple(verify_dkim(raw, lookup)), dmarc=dmarc_record(lookup, "firm.test")
    )
    message = message_from_bytes(raw, policy=default_policy)
    now = datetime(2026, 12, 2, tzinfo=UTC)
    base = SenderCheck(True, "counsel@firm.test")
    here = assure(base, message, config, evidence, [REPLY], now)
    assert here.strength == "dkim" and here.authenticated_by["method"] == "dkim"
    other = "reply+zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz@hfa.example"
    there = assure(base, message, config, evidence, [other], now)
    assert there.strength == "token" and there.authenticated_by["method"] == "token"


def test_with_dns_off_nothing_is_looked_up_and_the_reply_address_decides(key: DkimKey) -> None:
    config = config_of(HFA_DNS_RESOLVER="off")
    evidence = gather(sign(key), "firm.test", config, mta_wrote=False)
    assert evidence.dkim == () and not evidence.dmarc.published and not evidence.dmarc.unknown
    check = check_of("token", evidence.dmarc)
    # A decision on the reply address alone is held for the lawyer's confirmation ...
    assert "HFA_WEAK_SENDER_DECISIONS=confirm" in refusal(config, check, DecisionKind.APPROVAL)
    assert refusal(config, check, DecisionKind.QUESTION) == ""
    # ... or, as before, recorded on it.
    recording = config_of(HFA_DNS_RESOLVER="off", HFA_WEAK_SENDER_DECISIONS="record")
    assert refusal(recording, check, DecisionKind.APPROVAL) == ""
