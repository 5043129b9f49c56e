"""Where outgoing mail goes: an SMTP relay, or a local Maildir when none is set.

The outbox worker talks only to the :class:`MailTransport` protocol, so unit
tests can hand in a recording double while end-to-end tests use a real relay.
Library errors are translated here into TransientDelivery / PermanentDelivery.
"""

from __future__ import annotations

import asyncio
import contextlib
import mailbox
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import aiosmtplib

from gateway.errors import PermanentDelivery, TransientDelivery
from gateway.outbound.dkim import DkimSigner, load_signer
from gateway.outbound.smtp_wire import DotState, data, envelope
from gateway.settings.config import Config

# RFC 5321 4.5.3.2.6: a client waits at least 10 minutes for the answer to the final dot.
DOT_TIMEOUT = 600.0
# The most connections open to the relay at once: as many messages are on their way to
# it together. A relay limits the connections of one client (Postfix: 50 outside
# mynetworks), and one that refuses them would make every message beyond wait a retry.
RELAY_CONNECTIONS = 32

# Set by the deliverer around one message's send: awaited once the message is out but
# for its final dot, so that what must outlive a crash is on record before the relay can
# have the message (it is not sent again until the wait for the dot's answer would be
# over), and nothing is held for a message the relay cannot have had.
before_dot: ContextVar[Callable[[], Awaitable[None]] | None] = ContextVar(
    "before_dot", default=None
)
# Set by the deliverer around one message's send: told where its final dot is
# (``smtp_wire.DotState``): about to be written, so that a kill once the relay may have
# it finds it noted; then the kernel's (the relay gets it, whatever happens to the
# process), or first still in the process's buffer.
after_dot: ContextVar[Callable[[DotState], None] | None] = ContextVar("after_dot", default=None)
# Set by the deliverer around one message's send: called as soon as the relay accepted the
# message (its answer to the dot), with no await between.
dot_accepted: ContextVar[Callable[[], None] | None] = ContextVar("dot_accepted", default=None)

# Set by the deliverer around one message's send: the last transport in the chain (the
# relay or the Maildir) puts here the bytes it was handed, DKIM signature included, so
# the message is kept exactly as it left (the evidence of what the lawyer received).
handed_over: ContextVar[list[bytes] | None] = ContextVar("handed_over", default=None)


def _keep_handed_over(message: bytes) -> None:
    kept = handed_over.get()
    if kept is not None:
        kept[:] = [message]


@dataclass
class _Attempt:
    """How far one message's transaction got: when its final dot was sent (monotonic), if
    it was (before it, the relay cannot have the message)."""

    dot_sent_at: float | None = None

    def dot_sent(self, where: DotState) -> None:
        """Where the dot is (``smtp_wire.DotState``). For this process it counts as sent
        from its first write: a dot in the buffer of a live connection goes out."""
        if self.dot_sent_at is None:
            self.dot_sent_at = time.monotonic()
        hook = after_dot.get()
        if hook is not None:
            hook(where)

    def wait_left(self, dot_timeout: float) -> float | None:
        """Seconds until the dot's answer could no longer come, once the dot was sent."""
        if self.dot_sent_at is None:
            return None
        return max(dot_timeout - (time.monotonic() - self.dot_sent_at), 0.0)


class MailTransport(Protocol):
    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        """Deliver, returning what the other side said; raise a DeliveryError on failure."""
        ...


class SmtpRelay:
    """Sends through an SMTP relay with aiosmtplib, keeping connections open between messages.

    A connection that delivered a message goes back to a pool and carries the
    next one, so a busy outbox pays the TCP (and TLS, and AUTH) handshake once
    per connection rather than once per message. A pooled connection is used
    for at most ``max_messages`` messages and ``idle_seconds`` without traffic
    (relays drop idle clients after a few minutes); one the relay has closed
    meanwhile is replaced and the message sent on a fresh connection. At most
    ``max_connections`` are open at once: a message beyond waits for one.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        username: str = "",
        password: str = "",
        tls: str = "none",
        ca_file: str | None = None,
        timeout: float = 30.0,
        dot_timeout: float = DOT_TIMEOUT,
        idle_seconds: float = 30.0,
        max_messages: int = 100,
        max_connections: int = RELAY_CONNECTIONS,
    ) -> None:
        self.host, self.port = host, port
        # ``timeout`` bounds each command's answer; ``dot_timeout`` the DATA phase.
        self.dot_timeout = dot_timeout
        self.username, self.password = username, password
        self.tls = tls
        self.ca_file = ca_file
        self.timeout = timeout
        self.idle_seconds = idle_seconds
        self.max_messages = max_messages
        # Idle connections: (client, monotonic time it was last used, messages sent on it).
        self._idle: list[tuple[aiosmtplib.SMTP, float, int]] = []
        self._local_hostname: str | None = None
        # Held by each message from taking a connection to giving it back: a connection
        # is either in use under one of these or idle, so no more are ever open.
        self._connections = asyncio.Semaphore(max_connections)

    async def _connect(self) -> aiosmtplib.SMTP:
        if self._local_hostname is None:
            # aiosmtplib looks the name up in a thread on every connect: once is enough.
            self._local_hostname = await asyncio.to_thread(socket.getfqdn)
        client = aiosmtplib.SMTP(
            hostname=self.host,
            port=self.port,
            username=self.username or None,
            password=self.password or None,
            use_tls=self.tls == "tls",
            start_tls=self.tls == "starttls",
            # Certificate and host name are checked whenever TLS is used; a private CA
            # is added with HFA_SMTP_RELAY_CA_FILE, never by turning the check off.
            validate_certs=True,
            cert_bundle=self.ca_file,
            timeout=self.timeout,
            local_hostname=self._local_hostname,
        )
        await client.connect()
        return client

    def _take_idle(self) -> tuple[aiosmtplib.SMTP, int] | None:
        now = time.monotonic()
        while self._idle:
            client, used_at, sent = self._idle.pop()
            if client.is_connected and now - used_at < self.idle_seconds:
                return client, sent
            client.close()
        return None

    def _give_back(self, client: aiosmtplib.SMTP, sent: int) -> None:
        if sent >= self.max_messages or not client.is_connected:
            client.close()
            return
        self._idle.append((client, time.monotonic(), sent))

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        _keep_handed_over(message)
        attempt = _Attempt()
        try:
            async with self._connections:
                errors, response = await self._send_pooled(message, sender, recipients, attempt)
        except aiosmtplib.SMTPRecipientsRefused as exc:
            codes = [r.code for r in exc.recipients]
            detail = "; ".join(f"{r.recipient}: {r.code} {r.message}" for r in exc.recipients)
            if all(c >= 500 for c in codes):
                raise PermanentDelivery(f"relay refused the recipient: {detail}") from exc
            raise TransientDelivery(f"relay deferred the recipient: {detail}") from exc
        except aiosmtplib.SMTPResponseException as exc:
            detail = f"relay answered {exc.code} {exc.message}"
            if exc.code >= 500:
                raise PermanentDelivery(detail) from exc
            raise TransientDelivery(detail) from exc
        except ssl.SSLCertVerificationError as exc:
            raise TransientDelivery(
                f"relay {self.host}:{self.port} certificate not trusted ({exc.verify_message}); "
                "name its CA in HFA_SMTP_RELAY_CA_FILE"
            ) from exc
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
            # Without an answer to the dot the relay may have taken the message: it is not
            # sent again before the dot's answer could no longer come (RFC 5321 4.5.3.2.6).
            # Before the dot it cannot have: it goes again as any transient failure.
            left = attempt.wait_left(self.dot_timeout)
            after = "" if left is None else " after the message's end, no answer to it"
            raise TransientDelivery(
                f"relay {self.host}:{self.port} unreachable{after}: {type(exc).__name__}",
                retry_after=left,
            ) from exc
        if errors:
            detail = "; ".join(
                f"{rcpt}: {resp.code} {resp.message}" for rcpt, resp in errors.items()
            )
            raise TransientDelivery(f"relay refused some recipients: {detail}")
        return response

    async def _send_pooled(
        self, message: bytes, sender: str, recipients: list[str], attempt: _Attempt
    ) -> tuple[dict[str, aiosmtplib.SMTPResponse], str]:
        idle = self._take_idle()
        if idle is not None:
            client, sent = idle
            try:
                result = await self._transaction(client, sender, recipients, message, attempt)
            except (aiosmtplib.SMTPServerDisconnected, ConnectionError):
                client.close()
                if attempt.dot_sent_at is not None:
                    raise  # the message may have arrived: never sent twice at once
                # The relay closed the idle connection before this message went out:
                # it goes on a fresh connection.
            except BaseException:
                client.close()
                raise
            else:
                self._give_back(client, sent + 1)
                return result
        client = await self._connect()
        try:
            result = await self._transaction(client, sender, recipients, message, attempt)
        except BaseException:
            client.close()
            raise
        self._give_back(client, 1)
        return result

    async def _transaction(
        self,
        client: aiosmtplib.SMTP,
        sender: str,
        recipients: list[str],
        message: bytes,
        attempt: _Attempt,
    ) -> tuple[dict[str, aiosmtplib.SMTPResponse], str]:
        """One mail transaction: ``timeout`` seconds for each command's answer before DATA,
        ``dot_timeout`` for DATA and the answer to the message."""
        try:
            # One deadline for the envelope's commands rather than a timer for each answer.
            async with asyncio.timeout(self.timeout * (3 + len(recipients))):
                errors = await envelope(client, sender, recipients, message)
            response = await data(
                client, message, self.dot_timeout, before_dot.get(), attempt.dot_sent
            )
            if (accepted := dot_accepted.get()) is not None:
                accepted()
        except (aiosmtplib.SMTPResponseException, aiosmtplib.SMTPRecipientsRefused):
            # The envelope is reset, so the connection can carry the next message.
            with contextlib.suppress(ConnectionError, aiosmtplib.SMTPException):
                await client.rset(timeout=self.timeout)
            raise
        return errors, response.message

    async def close(self) -> None:
        """Say goodbye on every idle connection (at shutdown)."""
        idle, self._idle = self._idle, []
        for client, _used_at, _sent in idle:
            with contextlib.suppress(Exception):
                await client.quit()
            client.close()


class MaildirTransport:
    """Writes each message into a Maildir, so a newcomer can read what would be sent."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        _keep_handed_over(message)
        try:
            box = mailbox.Maildir(str(self.path), create=True)
            key = box.add(message)
            # mailbox creates files from the umask; mail to lawyers is for the owner only.
            (self.path / "new" / key).chmod(0o600)
        except OSError as exc:
            raise TransientDelivery(f"cannot write to the Maildir {self.path}: {exc}") from exc
        return f"written to Maildir as {key}"

    async def close(self) -> None:
        """Nothing is kept open between messages."""


def read_maildir(path: Path) -> list[tuple[str, bytes]]:
    """Every message in the Maildir, oldest first, as (key, raw bytes)."""
    if not path.exists():
        return []
    box = mailbox.Maildir(str(path), create=False)
    # Maildir keys start with the delivery time in seconds and a counter, so they sort in order.
    return sorted((key, box.get_bytes(key)) for key in box.keys())  # noqa: SIM118 (iterating a Maildir yields messages)


class SigningTransport:
    """Signs each message with DKIM, then hands it to the transport it wraps."""

    def __init__(self, inner: MailTransport, signer: DkimSigner) -> None:
        self.inner = inner
        self.signer = signer

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        return await self.inner.send(self.signer.sign(message), sender, recipients)


async def close_transport(transport: MailTransport) -> None:
    """Let go of what a transport keeps open (the relay's pooled connections), at shutdown."""
    while isinstance(transport, SigningTransport):
        transport = transport.inner
    if isinstance(transport, SmtpRelay):
        await transport.close()


def mail_transport(config: Config) -> MailTransport:
    """The relay when one is configured, else the Maildir under the data directory.

    Signed with DKIM when configured, so every email is signed as it leaves, whichever
    way it goes; a DKIM key that cannot be used fails here, at start (ConfigError).
    """
    transport: MailTransport
    if config.smtp_relay is None:
        transport = MaildirTransport(config.data_dir / "maildir")
    else:
        host, port = config.smtp_relay
        transport = SmtpRelay(
            host,
            port,
            username=config.smtp_relay_username,
            password=config.smtp_relay_password,
            tls=config.smtp_relay_tls,
            ca_file=str(config.smtp_relay_ca_file) if config.smtp_relay_ca_file else None,
            dot_timeout=config.relay_dot_timeout_seconds,
        )
    signer = load_signer(config)
    return transport if signer is None else SigningTransport(transport, signer)
