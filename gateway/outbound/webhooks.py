"""Signed webhook calls (Standard Webhooks) with an SSRF guard.

Each attempt resolves the host once, refuses loopback, private, link-local,
CGNAT and every other non-global address (unless HFA_WEBHOOK_ALLOW_PRIVATE),
and connects to the very address it checked, with the Host header and TLS
server name set to the URL's host, so a DNS answer that changes between the
check and the connection cannot redirect the call. Redirects are never
followed; timeouts are bounded.

Signatures: ``webhook-signature`` carries ``v1,<base64 HMAC-SHA256>`` of
``{webhook-id}.{webhook-timestamp}.{body}`` for every configured secret,
space-separated, so a receiver can move to a new secret while the old one
still verifies.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import logging
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import httpx

from gateway.errors import PermanentDelivery, Refused, TransientDelivery

log = logging.getLogger(__name__)

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
USER_AGENT = "hfa-gateway-webhooks/1"
MAX_RESPONSE_NOTE = 200

Resolver = Callable[[str, int], Awaitable[list[str]]]


def new_webhook_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def load_or_create_secrets(configured: tuple[str, ...], data_dir: Path) -> tuple[str, ...]:
    """The configured secrets, or the one in DATA_DIR/webhook_secret (created on first start)."""
    if configured:
        return configured
    path = data_dir / "webhook_secret"
    if path.exists():
        stored = tuple(s.strip() for s in path.read_text().splitlines() if s.strip())
        if stored:
            return stored
    data_dir.mkdir(parents=True, exist_ok=True)
    secret = new_webhook_secret()
    with path.open("a", encoding="ascii") as fd:
        path.chmod(0o600)
        fd.write(secret + "\n")
    log.warning(
        "HFA_WEBHOOK_SECRET is not set: generated a webhook signing secret into %s; "
        "give it to the receivers that verify our webhooks",
        path,
    )
    return (secret,)


def sign(secrets_: tuple[str, ...], msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    signatures = []
    for secret in secrets_:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
        mac = hmac.new(key, signed, hashlib.sha256).digest()
        signatures.append("v1," + base64.b64encode(mac).decode("ascii"))
    return " ".join(signatures)


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: NAT64's well-known
# prefix (RFC 6052), IPv4-translated (SIIT, RFC 2765) and IPv4-compatible (deprecated).
_V4_IN_LOW_BITS = tuple(
    ipaddress.IPv6Network(n) for n in ("64:ff9b::/96", "::ffff:0:0:0/96", "::/96")
)
# NAT64's local-use prefix (RFC 8215): where the IPv4 address sits depends on the prefix
# length its operator chose, and it never leads anywhere public.
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 transition form leads to (mapped, NAT64, 6to4, Teredo,
    IPv4-compatible): a connection to it reaches them."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if any(ip in network for network in _V4_IN_LOW_BITS):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def address_allowed(address: str, allow_private: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if allow_private:
        return not (ip.is_unspecified or ip.is_multicast)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _LOCAL_NAT64:
            return False
        # is_global judges the IPv6 prefix only: NAT64 or 6to4 of 127.0.0.1 is "global".
        if not all(_v4_allowed(v4) for v4 in embedded_ipv4(ip)):
            return False
    # is_global is False for loopback, RFC 1918, link-local, CGNAT (100.64/10),
    # documentation and reserved ranges alike.
    return ip.is_global and not ip.is_multicast


def _v4_allowed(ip: ipaddress.IPv4Address) -> bool:
    return ip.is_global and not ip.is_multicast


async def system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise TransientDelivery(f"cannot resolve {host}: {exc.strerror}") from exc
    return [str(info[4][0]) for info in infos]


@dataclass(frozen=True)
class Target:
    """Where one attempt connects: the checked address, and the URL's own host."""

    url: str
    host: str
    host_header: str


async def pin(url: str, *, allow_private: bool, resolve: Resolver) -> Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and allow_private):
        raise Refused(f"refused {scheme or 'a'}:// URL: webhooks go to https:// URLs only")
    host = parts.hostname
    if not host or parts.username or parts.password:
        raise Refused("refused URL: it needs a host and no user:password part")
    port = parts.port or (443 if scheme == "https" else 80)
    addresses = await resolve(host, port)
    if not addresses:
        raise TransientDelivery(f"{host} has no address")
    refused = [a for a in addresses if not address_allowed(a, allow_private)]
    if refused:
        # One non-global answer is enough to refuse: the host points inside.
        raise Refused(
            f"refused {host}: it resolves to {refused[0]}, a loopback, private, link-local "
            "or otherwise non-public address"
        )
    address = addresses[0]
    literal = f"[{address}]" if ":" in address else address
    netloc = f"{literal}:{port}"
    pinned = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
    default_port = (scheme == "https" and port == 443) or (scheme == "http" and port == 80)
    host_header = host if default_port else f"{host}:{port}"
    return Target(pinned, host, host_header)


def retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


async def post_pinned(
    target: Target, body: bytes, headers: dict[str, str], timeout: float
) -> httpx.Response:
    """POST ``body`` to the address ``target`` was pinned to, its host named to TLS (SNI);
    no redirect is followed and no proxy of the environment used. httpx's errors pass."""
    import httpx

    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False
    ) as client:
        return await client.post(
            target.url, content=body, headers=headers, extensions={"sni_hostname": target.host}
        )


class WebhookSender:
    """POSTs one signed body; raises Transient/PermanentDelivery as the answer deserves."""

    def __init__(
        self,
        secrets_: tuple[str, ...],
        *,
        timeout: float,
        allow_private: bool,
        resolve: Resolver = system_resolver,
    ) -> None:
        self.secrets = secrets_
        self.timeout = timeout
        self.allow_private = allow_private
        self.resolve = resolve

    async def post(self, url: str, msg_id: str, body: bytes) -> str:
        target = await pin(url, allow_private=self.allow_private, resolve=self.resolve)
        timestamp = int(time.time())
        headers = {
            "Host": target.host_header,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": sign(self.secrets, msg_id, timestamp, body),
        }
        # Imported here: httpx (with what it finds installed beside it) is some 15 MB that
        # only a process delivering pushes needs.
        import httpx

        try:
            response = await post_pinned(target, body, headers, self.timeout)
        except httpx.TimeoutException as exc:
            raise TransientDelivery(f"{target.host}: timed out ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise TransientDelivery(f"{target.host}: {type(exc).__name__}: {exc}"[:300]) from exc
        return self._judge(target.host, response)

    @staticmethod
    def _judge(host: str, response: httpx.Response) -> str:
        status = response.status_code
        note = f"{status} {response.reason_phrase} from {host}"
        if 200 <= status < 300:
            return note
        if status == 410:
            raise PermanentDelivery(f"{note}: the receiver is gone; no more deliveries")
        if status == 429 or status >= 500:
            wait = retry_after_seconds(response.headers.get("retry-after"))
            raise TransientDelivery(note, retry_after=wait)
        if 300 <= status < 400:
            raise PermanentDelivery(f"{note}: redirects are not followed")
        raise PermanentDelivery(note)
