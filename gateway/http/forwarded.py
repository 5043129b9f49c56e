"""Behind a trusted reverse proxy, the client is the one X-Forwarded-For names.

Without it every agent behind the recommended TLS proxy is one client: one bucket for
the filing rate limit, one wrong-token limiter, one audit actor. Only a connection from
an address in HFA_TRUSTED_PROXIES is believed; from anyone else the header is ignored,
so a client cannot pick the address it is counted as.

The address taken is the last one of the header that is not itself a trusted proxy
(each proxy appends the address it was called from; what comes before the first
untrusted one was written by the client and proves nothing).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

# The connection's own peer, kept in the scope when the client was taken from the header.
PEER = "gateway.peer"


def forwarded_client(headers: list[tuple[bytes, bytes]], trusted: Callable[[str], bool]) -> str:
    """The client X-Forwarded-For names, or "" when it names none that can be believed."""
    hops: list[str] = []
    for name, value in headers:
        if name == b"x-forwarded-for":
            hops.extend(part.strip() for part in value.decode("latin-1").split(","))
    found = ""
    for hop in reversed(hops):
        try:
            address = str(ipaddress.ip_address(hop.strip("[]")))
        except ValueError:
            # Not an address: what comes before it cannot be believed either.
            return found
        found = address
        if not trusted(address):
            return address
    return found


class ForwardedFor:
    """ASGI middleware: a call passed on by a trusted proxy gets the real client as
    ``scope["client"]``, which the rate limits, the audit actor and the access log read."""

    def __init__(self, app: ASGIApp, trusted: Callable[[str], bool]) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] == "http" and client and self.trusted(client[0]):
            real = forwarded_client(scope["headers"], self.trusted)
            if real:
                scope[PEER] = client[0]
                scope["client"] = (real, 0)
        await self.app(scope, receive, send)
