"""The inbound SMTP listener: an aiosmtpd handler plus start/stop.

Policy is decided before DATA: a recipient whose reply token does not verify
is refused with 550, so the sending server bounces and nothing is stored.
DATA commits the raw bytes durably and only then answers 250; any failure
answers 451 (try again later) without a word about what went wrong.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import ssl
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import insert
from sqlalchemy.orm import Session

from gateway.contract import storable
from gateway.errors import ConfigError
from gateway.inbound.bounce_policy import BOUNCE_MAX_BYTES, BouncePolicy
from gateway.inbound.challenge import challenged_message
from gateway.inbound.protocol import BARE_LF_REFUSAL, LINE_REFUSAL, ReplySMTP
from gateway.services import Services
from gateway.settings.config import Config
from gateway.store import arrivals, blobs
from gateway.store.models import InboundMessage
from gateway.throttle import ConnectionGuard, Throttle

log = logging.getLogger(__name__)

MAX_LOCAL_PART = 64
MAX_RECIPIENTS = 100
MAX_REPLY_ADDRESSES = 10
REJECT_AUDIT_INTERVAL = 60.0
# A message larger than this is hashed and committed off the event loop, alone.
HEAVY_MESSAGE_BYTES = 1024 * 1024


def message_id_of(raw: bytes) -> str | None:
    # compat32 hands the header back as text without building header objects: this
    # runs before every 250, and a Message-ID needs no decoding, only unfolding.
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw[:65536], headersonly=True)
        value = headers.get("Message-ID")
    except Exception:
        # A malformed header is the inbound worker's business, not the listener's.
        return None
    # Kept as text a database can hold: a NUL or a byte that is not UTF-8 is escaped
    # (the raw bytes keep it), so PostgreSQL stores it like SQLite does.
    return storable(" ".join(str(value).split()))[:998] if value else None


def store_inbound(
    services: Services, raw: bytes, peer: str, mail_from: str, rcpt_to: list[str]
) -> int:
    """Commit the message as received; returns its inbound id."""
    with services.db.transaction() as session:
        return add_inbound(services, session, raw, peer, mail_from, rcpt_to)


# Prebuilt and run on the session's connection: the listener commits every message it
# answers 250 while holding the database's one write lock, so each costs as little as
# SQLAlchemy allows (no ORM object, no unit of work).
_INSERT_INBOUND = insert(InboundMessage)


def add_inbound(
    services: Services,
    session: Session,
    raw: bytes,
    peer: str,
    mail_from: str,
    rcpt_to: list[str],
    digest: str | None = None,
    *,
    apart: bool = False,
) -> int:
    """Add the message as received to the caller's transaction; returns its inbound id.

    ``digest``: the SHA-256 of ``raw`` in hex, when the caller worked it out already.
    ``apart``: the bytes were written already (``store.blobs``): the row keeps none.
    """
    # Before the clock is read: the job that ends correction windows must see this row
    # if its received_at is before a window's end (``store.arrivals``).
    arrivals.fence(session, exclusive=False)
    now = services.clock.now()
    sender = storable(mail_from)
    digest = digest or hashlib.sha256(raw).hexdigest()
    result = session.connection().execute(
        _INSERT_INBOUND,
        {
            "received_at": now,
            "peer": storable(peer)[:128],
            "mail_from": sender,
            "rcpt_to": [storable(address) for address in rcpt_to],
            "raw": b"" if apart else raw,
            "size": len(raw),
            "sha256": digest,
            "message_id": message_id_of(raw),
            "state": "pending",
            "attempts": 0,
        },
    )
    (inbound_id,) = result.inserted_primary_key or (None,)
    assert isinstance(inbound_id, int)
    services.audit.append(
        session,
        "inbound.received",
        at=now,
        actor=f"smtp:{peer}",
        # The hash of the bytes as received: the log vouches for the message kept.
        details={"inbound_id": inbound_id, "size": len(raw), "sha256": digest, "mail_from": sender},
    )
    return inbound_id


class ReplyHandler:
    """aiosmtpd handler: RCPT checks the token, DATA stores durably."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._reject_audit = Throttle(REJECT_AUDIT_INTERVAL)
        self.bounce_policy = BouncePolicy()

    def _accepts(self, address: str) -> bool:
        config = self.services.config
        if address.lower() == config.mail_from.lower():
            # Bounces come back to our envelope sender; the worker matches them.
            return True
        token = self.services.tokens.token_from_address(address, config.reply_domain)
        if token is None:
            # The signed address of a challenge to confirm a held reply.
            return challenged_message(self.services, address) is not None
        return self.services.tokens.verify(token) is not None

    def _audit_rejection(self, peer: str, address: str) -> None:
        # Throttled per client, so a scan of guessed addresses cannot flood the log.
        held_back = self._reject_audit.let_through(peer)
        if held_back is None:
            return
        services = self.services
        local, _, domain = address.rpartition("@")
        with services.db.transaction() as session:
            services.audit.append(
                session,
                "inbound.token_rejected",
                at=services.clock.now(),
                actor=f"smtp:{peer}",
                # The local part may hold a (forged) token: only its length is kept.
                details={
                    "domain": domain,
                    "local_part_chars": len(local),
                    "not_audited_before": held_back,
                },
            )

    def _audit_refused(self, peer: str, mail_from: str, status: str) -> None:
        # The protocol refuses these itself (552: too much data, a line too long), so they
        # never reach handle_DATA; nothing is stored, but ops see a reply turned away.
        services = self.services
        too_large = status not in (LINE_REFUSAL, BARE_LF_REFUSAL)
        details: dict[str, object] = {"mail_from": storable(mail_from), "answer": status[:200]}
        if too_large:
            details["limit_bytes"] = services.config.max_message_bytes
        with services.db.transaction() as session:
            services.audit.append(
                session,
                "inbound.too_large" if too_large else "inbound.refused",
                at=services.clock.now(),
                actor=f"smtp:{peer}",
                details=details,
            )

    async def refused_by_protocol(self, peer: str, mail_from: str, status: str) -> None:
        await self.services.db.run(self._audit_refused, peer, mail_from, status)

    async def handle_EHLO(
        self,
        server: SMTP,
        session: SmtpSession,
        envelope: Envelope,
        hostname: str,
        responses: list[str],
    ) -> list[str]:
        """The EHLO answer without AUTH: no one logs in to the listener (a reply is taken
        on its token and its sender), so advertising it after STARTTLS only earned every
        attempt a refusal."""
        session.host_name = hostname
        return [line for line in responses if not line[4:].upper().startswith("AUTH")]

    async def handle_RCPT(
        self,
        server: SMTP,
        session: SmtpSession,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        local = address.rpartition("@")[0]
        if len(local.encode("utf-8", "replace")) > MAX_LOCAL_PART:
            return "550 5.1.3 Local part longer than 64 octets"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            # RFC 5321 4.5.3.1.8: 100 is the minimum to accept; the client sends the rest later.
            return "452 4.5.3 Too many recipients"
        if not self._accepts(address):
            peer = str(session.peer[0]) if session.peer else "unknown"
            try:
                await self.services.db.run(self._audit_rejection, peer, address)
            except Exception:
                log.exception("could not audit a rejected recipient")
            return "550 5.1.1 No such recipient here"
        distinct = {a.lower() for a in envelope.rcpt_tos}
        if address.lower() not in distinct and len(distinct) >= MAX_REPLY_ADDRESSES:
            # Each reply address gets its own stored copy: their number is bounded.
            return "452 4.5.3 Too many reply addresses in one message"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if not raw and isinstance(envelope.content, bytes):
            raw = envelope.content
        peer = str(session.peer[0]) if session.peer else "unknown"
        services, mail_from = self.services, envelope.mail_from or ""
        copies = _one_per_address(envelope.rcpt_tos)
        bounce = services.config.mail_from.lower()
        cut_from = 0
        if bounce in copies:
            refusal = self.bounce_policy.refusal(raw, mail_from)
            if refusal is not None:
                del copies[bounce]
                if not copies:
                    return refusal
            elif len(copies) == 1:
                # Only the bounce address: its daily storage budget applies.
                kept = self.bounce_policy.within_budget(raw, services.clock.now().date())
                cut_from, raw = (len(raw) if kept is not raw else 0), kept

        heavy = len(raw) > HEAVY_MESSAGE_BYTES
        # Hashing megabytes releases the interpreter: in a thread, the loop goes on.
        digest = await asyncio.to_thread(_sha256, raw) if heavy else _sha256(raw)
        apart = blobs.kept_apart(raw)

        def add(session: Session) -> None:
            for address in copies.values():
                inbound_id = add_inbound(
                    services, session, raw, peer, mail_from, [address], digest, apart=apart
                )
                if cut_from:
                    services.audit.append(
                        session,
                        "inbound.bounce_over_budget",
                        at=services.clock.now(),
                        actor=f"smtp:{peer}",
                        details={"inbound_id": inbound_id, "size": cut_from, "kept": len(raw)},
                    )

        try:
            if apart:
                # A large message's bytes first, in short transactions of their own, so
                # the write lock is never held for long; then its row, like any other.
                await asyncio.to_thread(
                    blobs.write_apart, services.db.transaction, raw, digest, services.clock.now()
                )
            # 250 only once the commit holding these bytes has returned (group commit).
            await services.db.write(add)
        except Exception:
            log.exception("could not store an inbound message; answered 451")
            return "451 4.3.0 Temporary failure, please try again later"
        self.services.inbound_ready.set()
        return "250 2.0.0 Message accepted"


def _sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _one_per_address(rcpt_tos: list[str]) -> dict[str, str]:
    """Lower-cased address -> the address as given, each once: one stored copy each, so
    each copy is matched, deduplicated and recorded for its own request."""
    copies: dict[str, str] = {}
    for address in rcpt_tos:
        copies.setdefault(address.lower(), address)
    return copies


def tls_context(config: Config) -> ssl.SSLContext | None:
    """The STARTTLS context of the listener, or None when no certificate is configured."""
    if config.smtp_tls_cert_file is None or config.smtp_tls_key_file is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(config.smtp_tls_cert_file, config.smtp_tls_key_file)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(
            f"HFA_SMTP_TLS_CERT_FILE/HFA_SMTP_TLS_KEY_FILE: cannot load "
            f"{config.smtp_tls_cert_file}: {exc}"
        ) from None
    return context


def smtp_admission(config: Config) -> ConnectionGuard:
    """The listener's admission: per-client and shared caps, and the relays' reserve."""
    listeners = config.listeners
    return ConnectionGuard(
        listeners.smtp.max_connections,
        listeners.smtp.max_connections_per_client,
        trusted=listeners.is_trusted_relay if listeners.trusted_relays else None,
        reserved=listeners.smtp_reserve(),
        fair=True,
    )


async def start_listener(
    services: Services, host: str, port: int, guard: ConnectionGuard | None = None
) -> asyncio.Server:
    """Serve SMTP on the running loop (not aiosmtpd's threaded Controller)."""
    config = services.config
    handler = ReplyHandler(services)
    limits = config.listeners.smtp
    guard = guard or smtp_admission(config)
    loop = asyncio.get_running_loop()
    context = tls_context(config)

    def factory() -> Any:
        return ReplySMTP(
            handler,
            guard=guard,
            small_envelope=(config.mail_from, BOUNCE_MAX_BYTES),
            timeout=limits.timeout_seconds,
            hostname=config.smtp_hostname,
            ident="hfa-gateway",
            data_size_limit=config.max_message_bytes,
            enable_SMTPUTF8=True,
            decode_data=False,
            # STARTTLS is offered when a certificate is configured; a client may still
            # send in plain text, as MTAs fall back to it (the token guards the data).
            tls_context=context,
            # No mechanism: AUTH is answered as unknown, never with a login attempt.
            auth_exclude_mechanism=("LOGIN", "PLAIN"),
            loop=loop,
        )

    return await loop.create_server(factory, host=host, port=port)
