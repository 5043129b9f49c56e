"""A real DNS server on loopback (dnslib), publishing the TXT records a test gives it.

It answers over UDP and TCP on one free port: TXT records for the names in its
zone (DKIM keys, DMARC records), NXDOMAIN for every other name. ``queries``
counts the questions it was asked.
"""

from __future__ import annotations

import base64
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from dnslib import QTYPE, RCODE, RR, TXT
from dnslib.server import BaseResolver, DNSServer


class _Zone(BaseResolver):  # type: ignore[misc]
    def __init__(self, records: dict[str, list[str]], counter: list[str]) -> None:
        self.records = records
        self.counter = counter

    def resolve(self, request: Any, handler: Any) -> Any:
        reply = request.reply()
        name = str(request.q.qname).lower().rstrip(".")
        self.counter.append(name)
        texts = self.records.get(name)
        if texts is None:
            reply.header.rcode = RCODE.NXDOMAIN
            return reply
        if request.q.qtype == QTYPE.TXT:
            for text in texts:
                # One TXT record may hold several strings of up to 255 octets each.
                data = text.encode()
                parts = [data[i : i + 255] for i in range(0, len(data), 255)]
                reply.add_answer(RR(request.q.qname, QTYPE.TXT, rdata=TXT(parts), ttl=60))
        return reply


@dataclass
class LoopbackDns:
    records: dict[str, list[str]] = field(default_factory=dict)
    queries: list[str] = field(default_factory=list)
    port: int = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def publish(self, name: str, text: str) -> None:
        self.records.setdefault(name.lower().rstrip("."), []).append(text)


def _free_port() -> int:
    # A port free for both UDP and TCP.
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.bind(("127.0.0.1", 0))
            port = int(udp.getsockname()[1])
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
                try:
                    tcp.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port


@contextmanager
def loopback_dns() -> Iterator[LoopbackDns]:
    dns = LoopbackDns(port=_free_port())
    resolver = _Zone(dns.records, dns.queries)
    servers = [
        DNSServer(resolver, address="127.0.0.1", port=dns.port, tcp=tcp, logger=_Silent())
        for tcp in (False, True)
    ]
    for server in servers:
        server.start_thread()
    try:
        yield dns
    finally:
        for server in servers:
            server.stop()
            server.server.server_close()


class _Silent:
    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


_shared: LoopbackDns | None = None
_shared_lock = threading.Lock()
# Held for the whole run: were it collected, its servers would stop.
_shared_servers: list[Any] = []


def empty_dns() -> str:
    """A loopback server that knows no names (every answer NXDOMAIN), shared by the tests
    that do not publish records: replies to them are checked as in production, fast."""
    global _shared
    with _shared_lock:
        if _shared is None:
            manager = loopback_dns()
            _shared = manager.__enter__()
            _shared_servers.append(manager)
        return _shared.address


@dataclass(frozen=True)
class DkimKey:
    """A sending domain's DKIM key pair: the private key in PEM, the TXT record to publish."""

    domain: str
    selector: str
    private_pem: bytes
    record: str

    @property
    def name(self) -> str:
        return f"{self.selector}._domainkey.{self.domain}"


def dkim_key(domain: str, selector: str = "s1") -> DkimKey:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    record = "v=DKIM1; k=rsa; p=" + base64.b64encode(public).decode()
    return DkimKey(domain, selector, pem, record)
