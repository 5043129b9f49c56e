"""Where the gateway listens and sends mail, and how it checks who sent a reply.

Rows of the settings table (``gateway.settings.table`` lists them in place).
"""

from __future__ import annotations

from gateway.settings.endpoints import base_url, host_port, relay, relay_tls
from gateway.settings.sender_auth import domains, resolver, sender_policies, weak_sender_decisions
from gateway.settings.setting import (
    NO_FIELD,
    Setting,
    above_zero,
    directory,
    lowered,
    optional_path,
    stripped,
    switch,
)

# Rows of data, alike in shape by design (as in lawyer_table and limits_table): one
# Setting each, grouped by what they set.
PLACES: tuple[Setting, ...] = (
    Setting(
        "data_dir",
        "./var",
        "Directory for the SQLite database, keys, Maildir and audit.jsonl.",
        read=directory,
    ),
    Setting(
        "database_url",
        "",
        "SQLAlchemy URL. Empty: SQLite at DATA_DIR/gateway.db. "
        "PostgreSQL: postgresql+psycopg://user@host/db.",
        secret=True,
        read=stripped,
    ),
    Setting(
        "http_bind",
        "127.0.0.1:8080",
        "host:port of the agent HTTP API.",
        read=host_port,
        into=NO_FIELD,
    ),
    Setting(
        "smtp_bind",
        "127.0.0.1:2525",
        "host:port of the inbound SMTP listener for replies.",
        read=host_port,
        into=NO_FIELD,
    ),
    Setting(
        "smtp_hostname",
        "localhost",
        "Hostname the SMTP listener announces in its greeting.",
        read=stripped,
    ),
    Setting(
        "public_url", "", "Base URL used in thread_url. Empty: http://HTTP_BIND.", read=base_url
    ),
    Setting(
        "reply_domain", "localhost", "Domain of reply addresses (reply+TOKEN@DOMAIN).", read=lowered
    ),
    Setting(
        "mail_from",
        "",
        "From address of outgoing mail. Empty: hfa-gateway@REPLY_DOMAIN.",
        read=stripped,
    ),
)


RELAY: tuple[Setting, ...] = (
    Setting(
        "smtp_relay",
        "",
        "host:port of the relay for outgoing mail. Empty: write mail to DATA_DIR/maildir. "
        "The worker keeps at most 32 connections open to it, each reused for up to 100 "
        "messages.",
        read=relay,
    ),
    Setting("smtp_relay_username", "", "Username for the relay (optional)."),
    Setting(
        "smtp_relay_dot_timeout_seconds",
        600.0,
        "How long to wait for the relay's answer to the end of a message (RFC 5321 "
        "4.5.3.2.6: 10 minutes). Once its final dot is sent, the message is not sent again "
        "before this wait is over, even after a restart.",
        read=above_zero(float),
        into="relay_dot_timeout_seconds",
    ),
    Setting("smtp_relay_password", "", "Password for the relay (optional).", secret=True),
    Setting(
        "smtp_relay_tls",
        "none",
        "TLS towards the relay: none, starttls or tls. With TLS the relay's certificate "
        "and name are always verified.",
        read=relay_tls,
    ),
    Setting(
        "smtp_relay_ca_file",
        "",
        "PEM file of the CA(s) that verify the relay's certificate. Empty: the system's CAs.",
        read=optional_path,
    ),
    Setting(
        "smtp_tls_cert_file",
        "",
        "PEM certificate chain for STARTTLS on the SMTP listener. Empty: no STARTTLS "
        "(the MTA in front does TLS).",
        read=optional_path,
    ),
    Setting(
        "smtp_tls_key_file", "", "PEM private key of HFA_SMTP_TLS_CERT_FILE.", read=optional_path
    ),
    Setting(
        "dkim_selector",
        "",
        "DKIM selector that signs outgoing mail (key in DNS at SELECTOR._domainkey.DOMAIN). "
        "Empty: mail is not signed.",
        read=stripped,
    ),
    Setting(
        "dkim_domain",
        "",
        "DKIM signing domain (d=). Empty: the domain of HFA_MAIL_FROM.",
        read=lowered,
    ),
    Setting(
        "dkim_private_key_file",
        "",
        "PEM file of the DKIM private key (RSA), readable only by the gateway's user.",
        read=optional_path,
    ),
)


SENDERS: tuple[Setting, ...] = (
    Setting(
        "trusted_authserv_id",
        "",
        "authserv-id whose Authentication-Results headers are trusted. Empty: none.",
        read=stripped,
    ),
    Setting(
        "require_authenticated_sender",
        False,
        "1: a reply is recorded only when the trusted server says DMARC or a DKIM signature "
        "aligned with From passed; others are held for ops (needs HFA_TRUSTED_AUTHSERV_ID).",
        read=switch,
    ),
    Setting(
        "weak_sender_decisions",
        "confirm",
        "A decision (approve, reject, decline, close) from a lawyer domain that publishes no "
        "DMARC policy and is not in HFA_SENDER_POLICY, with nothing but the reply address to "
        "prove its sender (dmarc=none, a DKIM pass not aligned with From, spf=fail, no "
        "Authentication-Results): confirm holds it and asks the lawyer to confirm it by "
        "email; record records it on the reply address alone (the behaviour before 2026-12).",
        read=weak_sender_decisions,
        into="lawyer.weak_sender_decisions",
    ),
    Setting(
        "dns_resolver",
        "",
        "Where the gateway looks up DKIM keys and DMARC policies when no trusted server "
        "wrote Authentication-Results: an IP address with an optional port (127.0.0.1:53). "
        "Empty: the system's resolver; off: no lookups (replies then rest on the trusted "
        "server's results or the reply address alone).",
        read=resolver,
    ),
    Setting(
        "arc_trusted_sealers",
        "",
        "Domains whose ARC seals are believed (a firm's Microsoft 365 or Google tenant that "
        "forwards its mail), separated by commas. Empty: ARC is not used.",
        read=domains,
    ),
    Setting(
        "sender_policy",
        "",
        "What replies from a lawyer domain must show, per domain "
        "('firm.test=dmarc,other.test=token'): dmarc (aligned DKIM, or SPF pass at the "
        "trusted server), dkim (aligned DKIM) or token (the reply address alone). Domains "
        "not listed: a decision needs aligned DKIM when the domain publishes a DMARC policy.",
        read=sender_policies,
    ),
)
