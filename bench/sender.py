"""What the gateway's own sender checks cost per reply.

``PYTHONPATH=$PWD python -m bench.sender`` prints, against a DNS server on loopback
(tests/dnskit.py) that publishes a DKIM key and a DMARC record:

- DNS questions for N replies from one firm (a work budget: the key and the DMARC record
  once each, then answers from the cache);
- per reply, the gateway's checks (``assurance.gather``: DKIM verified, ARC, DMARC) on a
  signed reply and on an unsigned one, DNS answered from the cache;
- a resolver that never answers: how long the one bounded lookup takes before it is a
  temperror, and the next reply's (the failure is remembered).
"""

from __future__ import annotations

import socket
import sys
import time

import dkim

from gateway.inbound.assurance import gather
from gateway.settings.config import load_config
from tests.dnskit import dkim_key, loopback_dns

REPLIES = 500
BODY = (
    b"From: Dana Counsel <counsel@firm.test>\r\nTo: reply+abc@hfa.example\r\n"
    b"Subject: Re: [HFA-00001] Legal review\r\nMessage-ID: <1@firm.test>\r\n\r\nAPPROVE\r\n"
    + b"> a quoted line of the original request\r\n"
    * 200
)


def _per_reply(raw: bytes, resolver: str) -> float:
    config = load_config(env={"HFA_LAWYERS": "counsel@firm.test", "HFA_DNS_RESOLVER": resolver})
    start = time.perf_counter()
    for _ in range(REPLIES):
        gather(raw, "firm.test", config, mta_wrote=False)
    return (time.perf_counter() - start) / REPLIES * 1000


def _silent_resolver() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        resolver = f"127.0.0.1:{silent.getsockname()[1]}"
        config = load_config(env={"HFA_LAWYERS": "counsel@firm.test", "HFA_DNS_RESOLVER": resolver})
        for label in ("first reply", "next reply"):
            start = time.perf_counter()
            evidence = gather(BODY, "firm.test", config, mta_wrote=False)
            took = time.perf_counter() - start
            print(
                f"  resolver that never answers, {label}: {took:.2f} s, DMARC {evidence.dmarc.shown}"
            )


def main() -> int:
    key = dkim_key("firm.test")
    signed = bytes(
        dkim.sign(BODY, b"s1", b"firm.test", key.private_pem, include_headers=[b"from", b"to"])
    )
    signed += BODY
    with loopback_dns() as dns:
        dns.publish(key.name, key.record)
        dns.publish("_dmarc.firm.test", "v=DMARC1; p=reject")
        signed_ms = _per_reply(signed, dns.address)
        print(f"sender checks, {REPLIES} replies from one firm: {len(dns.queries)} DNS questions")
        unsigned_ms = _per_reply(BODY, dns.address)
    print(f"  signed reply ({len(signed)} bytes): {signed_ms:.3f} ms per reply")
    print(f"  unsigned reply ({len(BODY)} bytes): {unsigned_ms:.3f} ms per reply")
    _silent_resolver()
    return 0


if __name__ == "__main__":
    sys.exit(main())
