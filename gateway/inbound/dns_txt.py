"""TXT lookups for DKIM keys and DMARC policies, bounded in time, remembered for a while.

dnspython's stub resolver, pointed at HFA_DNS_RESOLVER or the system's. Every
lookup is bounded (LOOKUP_SECONDS over all tries, UDP then TCP for a truncated
answer), and its failure is a :class:`DnsTempError`: the caller reads it as
"temperror", which never authenticates anyone. A name that does not exist, or
has no TXT record, is an empty answer, not a failure. Answers are kept for their
TTL (at most CACHE_SECONDS), failures for FAILURE_SECONDS, so a burst of replies
from one firm costs one lookup and a resolver that is down is not asked again
for every message.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from gateway.errors import DnsTempError
from gateway.settings.sender_auth import DNS_OFF

LOOKUP_SECONDS = 2.0
CACHE_SECONDS = 300.0
FAILURE_SECONDS = 30.0
MAX_CACHED = 2048


class TxtSource(Protocol):
    off: bool

    def txt(self, name: str) -> list[bytes]: ...


def _join(strings: list[bytes]) -> bytes:
    return b"".join(strings)


class TxtLookup:
    """TXT records by name; one per process and resolver setting (see :func:`lookup_for`)."""

    def __init__(self, resolver: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.off = resolver == DNS_OFF
        self._server: tuple[str, int] | None = None
        if resolver and not self.off:
            host, _, port = resolver.rpartition(":")
            self._server = (host, int(port))
        self._clock = clock
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, list[bytes] | None]] = {}
        # How many questions went out (the work budget tests count).
        self.queries = 0

    def txt(self, name: str) -> list[bytes]:
        """Each TXT record at ``name`` (its strings joined); [] when there is none."""
        key = name.lower().rstrip(".")
        now = self._clock()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            if cached[1] is None:
                raise DnsTempError(f"DNS lookup of {key} failed recently")
            return cached[1]
        try:
            records, ttl = self._ask(key)
        except DnsTempError:
            self._keep(key, now + FAILURE_SECONDS, None)
            raise
        self._keep(key, now + min(max(ttl, 0), CACHE_SECONDS), records)
        return records

    def _keep(self, key: str, until: float, records: list[bytes] | None) -> None:
        with self._lock:
            if len(self._cache) >= MAX_CACHED:
                self._cache.clear()
            self._cache[key] = (until, records)

    def _ask(self, key: str) -> tuple[list[bytes], float]:
        if self.off:
            raise DnsTempError("DNS lookups are off (HFA_DNS_RESOLVER=off)")
        self.queries += 1
        # Imported by the first message checked, not at start: dnspython (with dkimpy some
        # 3.5 MB) would otherwise sit idle in both of hfa serve's processes.
        import dns.exception

        try:
            if self._server is None:
                return self._ask_system(key)
            return self._ask_server(key, *self._server)
        except DnsTempError:
            raise
        except (dns.exception.DNSException, OSError, ValueError) as exc:
            raise DnsTempError(f"DNS lookup of {key} failed: {type(exc).__name__}") from None

    def _ask_system(self, key: str) -> tuple[list[bytes], float]:
        import dns.resolver  # see _ask

        resolver = dns.resolver.Resolver()
        resolver.lifetime = resolver.timeout = LOOKUP_SECONDS
        try:
            answer = resolver.resolve(key, "TXT", search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return [], CACHE_SECONDS
        rrset = answer.rrset
        records = [_join(list(r.strings)) for r in rrset] if rrset is not None else []
        return records, float(rrset.ttl if rrset is not None else 0)

    def _ask_server(self, key: str, host: str, port: int) -> tuple[list[bytes], float]:
        import dns.message  # see _ask
        import dns.name
        import dns.query
        import dns.rcode
        import dns.rdatatype

        query = dns.message.make_query(dns.name.from_text(key), dns.rdatatype.TXT)
        # At most LOOKUP_SECONDS over UDP, and as long again over TCP for a truncated answer.
        response, _tcp = dns.query.udp_with_fallback(query, host, timeout=LOOKUP_SECONDS, port=port)
        rcode = response.rcode()
        if rcode == dns.rcode.NXDOMAIN:
            return [], CACHE_SECONDS
        if rcode != dns.rcode.NOERROR:
            raise DnsTempError(f"DNS lookup of {key}: {dns.rcode.to_text(rcode)}")
        records: list[bytes] = []
        ttl = CACHE_SECONDS
        for rrset in response.answer:
            if rrset.rdtype == dns.rdatatype.TXT:
                records += [_join(list(r.strings)) for r in rrset]
                ttl = min(ttl, float(rrset.ttl))
        return records, ttl


class Budgeted:
    """One message's lookups: answers from the cache as ever, but no new question once
    ``seconds`` have gone on this message's lookups (a message with many signatures, or
    a long ARC chain, to slow domains cannot hold the worker for long)."""

    def __init__(self, lookup: TxtLookup, seconds: float) -> None:
        self.lookup = lookup
        self.off = lookup.off
        self._until = time.monotonic() + seconds

    def txt(self, name: str) -> list[bytes]:
        if time.monotonic() > self._until:
            raise DnsTempError(
                f"DNS lookup of {name} skipped: this message's lookups took too long"
            )
        return self.lookup.txt(name)


_LOOKUPS: dict[str, TxtLookup] = {}
_LOOKUPS_LOCK = threading.Lock()


def lookup_for(resolver: str) -> TxtLookup:
    """The process's lookup (and its cache) for this resolver setting."""
    with _LOOKUPS_LOCK:
        found = _LOOKUPS.get(resolver)
        if found is None:
            found = _LOOKUPS[resolver] = TxtLookup(resolver)
        return found
