"""Who sent a reply: the DNS resolver, trusted ARC sealers and the policy per lawyer domain.

The readers of their settings, each refusing a bad value by the setting's name.
"""

from __future__ import annotations

import ipaddress

from gateway.errors import ConfigError

# What a lawyer domain's replies must show (HFA_SENDER_POLICY):
#   dmarc  a DKIM signature aligned with From, or an SPF pass the trusted server saw;
#   dkim   a DKIM signature aligned with From;
#   token  the signed reply address alone.
SENDER_POLICIES = ("dmarc", "dkim", "token")
# What a decision proven by the reply address alone comes to (HFA_WEAK_SENDER_DECISIONS).
WEAK_SENDER_DECISIONS = ("confirm", "record")
DNS_OFF = "off"


def resolver(value: str, setting: str) -> str:
    """``host[:port]`` (an IP address; IPv6 in brackets), "" for the system's, or "off"."""
    text = value.strip().lower()
    if text in ("", DNS_OFF):
        return text
    host, port = text, "53"
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":") or "53"
    elif text.count(":") == 1:
        host, port = text.split(":")
    try:
        ipaddress.ip_address(host)
        number = int(port)
    except ValueError:
        number = 0
    if not 0 < number < 65536:
        raise ConfigError(
            f"{setting}: expected an IP address with an optional port "
            f"(127.0.0.1:5353, [::1]:53), empty for the system's resolver, or off; got {value!r}"
        )
    return f"{host}:{number}"


def domains(value: str, setting: str) -> frozenset[str]:
    out: set[str] = set()
    for part in (p.strip().lower().rstrip(".") for p in value.split(",")):
        if not part:
            continue
        if "." not in part or "@" in part or " " in part:
            raise ConfigError(f"{setting}: expected domains separated by commas, got {part!r}")
        out.add(part)
    return frozenset(out)


def sender_policies(value: str, setting: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        domain, sep, policy = (s.strip().lower() for s in part.partition("="))
        if not sep or "." not in domain or "@" in domain or policy not in SENDER_POLICIES:
            raise ConfigError(
                f"{setting}: expected DOMAIN=POLICY,... with POLICY one of "
                f"{', '.join(SENDER_POLICIES)}, got {part!r}"
            )
        table[domain.rstrip(".")] = policy
    return table


def weak_sender_decisions(value: str, setting: str) -> str:
    """HFA_WEAK_SENDER_DECISIONS: confirm or record (``gateway.inbound.assurance``)."""
    text = value.strip().lower()
    if text not in WEAK_SENDER_DECISIONS:
        raise ConfigError(
            f"{setting}: expected confirm (hold and ask the lawyer) or record "
            f"(record on the reply address alone), got {value!r}"
        )
    return text
