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
from sqlalchemy.orm import Session

from gateway.config import Config
from gateway.errors import ConfigError
from gateway.services import Services
from gateway.store.models import InboundMessage
from gateway.throttle import Throttle

log = logging.getLogger(__name__)

MAX_LOCAL_PART = 64
REJECT_AUDIT_INTERVAL = 60.0


def message_id_of(raw: bytes) -> str | None:
    # compat32 hands the header back as text without building header objects: this
    # runs before every 250, and a Message-ID needs no decoding, only unfolding.
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw[:65536], headersonly=True)
        value = headers.get("Message-ID")
    except Exception:
        # A malformed header is the inbound worker's business, not the listener's.
        return None
    return " ".join(str(value).split())[:998] if value else None


def store_inbound(
    services: Services, raw: bytes, peer: str, mail_from: str, rcpt_to: list[str]
) -> int:
    """Commit the message as received; returns its inbound id."""
    with services.db.transaction() as session:
        return add_inbound(services, session, raw, peer, mail_from, rcpt_to)


def add_inbound(
    services: Services, session: Session, raw: bytes, peer: str, mail_from: str, rcpt_to: list[str]
) -> int:
    """Add the message as received to the caller's transaction; returns its inbound id."""
    now = services.clock.now()
    row = InboundMessage(
        received_at=now,
        peer=peer[:128],
        mail_from=mail_from,
        rcpt_to=rcpt_to,
        raw=raw,
        size=len(raw),
        sha256=hashlib.sha256(raw).hexdigest(),
        message_id=message_id_of(raw),
        state="pending",
        attempts=0,
    )
    session.add(row)
    session.flush()
    services.audit.append(
        session,
        "inbound.received",
        at=now,
        actor=f"smtp:{peer}",
        details={"inbound_id": row.id, "size": len(raw), "mail_from": mail_from},
    )
    return row.id


class ReplyHandler:
    """aiosmtpd handler: RCPT checks the token, DATA stores durably."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._reject_audit = Throttle(REJECT_AUDIT_INTERVAL)

    def _accepts(self, address: str) -> bool:
        config = self.services.config
        if address.lower() == config.mail_from.lower():
            # Bounces come back to our envelope sender; the worker matches them.
            return True
        token = self.services.tokens.token_from_address(address, config.reply_domain)
        return token is not None and self.services.tokens.verify(token) is not None

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

    def audit_too_large(self, peer: str, mail_from: str) -> None:
        # aiosmtpd refuses the message itself (552), so it never reaches handle_DATA;
        # nothing is stored, but ops still see that a reply was turned away.
        services = self.services
        with services.db.transaction() as session:
            services.audit.append(
                session,
                "inbound.too_large",
                at=services.clock.now(),
                actor=f"smtp:{peer}",
                details={"mail_from": mail_from, "limit_bytes": services.config.max_message_bytes},
            )

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
        if not self._accepts(address):
            peer = str(session.peer[0]) if session.peer else "unknown"
            try:
                await self.services.db.run(self._audit_rejection, peer, address)
            except Exception:
                log.exception("could not audit a rejected recipient")
            return "550 5.1.1 No such recipient here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if not raw and isinstance(envelope.content, bytes):
            raw = envelope.content
        peer = str(session.peer[0]) if session.peer else "unknown"
        services, mail_from, rcpt_to = (
            self.services,
            envelope.mail_from or "",
            list(envelope.rcpt_tos),
        )
        try:
            # 250 only once the commit holding these bytes has returned (group commit).
            await services.db.write(
                lambda session: add_inbound(services, session, raw, peer, mail_from, rcpt_to)
            )
        except Exception:
            log.exception("could not store an inbound message; answered 451")
            return "451 4.3.0 Temporary failure, please try again later"
        self.services.inbound_ready.set()
        return "250 2.0.0 Message accepted"


class ReplySMTP(SMTP):
    """aiosmtpd's protocol, with the size refusal reported to the handler."""

    async def push(self, status: Any) -> None:
        text = status.decode() if isinstance(status, bytes) else str(status)
        if text.startswith("552") and isinstance(self.event_handler, ReplyHandler):
            session = self.session
            peer = str(session.peer[0]) if session is not None and session.peer else "unknown"
            mail_from = (self.envelope.mail_from or "") if self.envelope is not None else ""
            try:
                await self.event_handler.services.db.run(
                    self.event_handler.audit_too_large, peer, mail_from
                )
            except Exception:
                log.exception("could not audit a message over the size limit")
        await super().push(status)


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


async def start_listener(services: Services, host: str, port: int) -> asyncio.Server:
    """Serve SMTP on the running loop (not aiosmtpd's threaded Controller)."""
    config = services.config
    handler = ReplyHandler(services)
    loop = asyncio.get_running_loop()
    context = tls_context(config)

    def factory() -> Any:
        return ReplySMTP(
            handler,
            hostname=config.smtp_hostname,
            ident="hfa-gateway",
            data_size_limit=config.max_message_bytes,
            enable_SMTPUTF8=True,
            decode_data=False,
            # STARTTLS is offered when a certificate is configured; a client may still
            # send in plain text, as MTAs fall back to it (the token guards the data).
            tls_context=context,
            loop=loop,
        )

    return await loop.create_server(factory, host=host, port=port)
