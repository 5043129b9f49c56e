"""Where outgoing mail goes: an SMTP relay, or a local Maildir when none is set.

The outbox worker talks only to the :class:`MailTransport` protocol, so unit
tests can hand in a recording double while end-to-end tests use a real relay.
Library errors are translated here into TransientDelivery / PermanentDelivery.
"""

from __future__ import annotations

import mailbox
from pathlib import Path
from typing import Protocol

import aiosmtplib

from gateway.config import Config
from gateway.errors import PermanentDelivery, TransientDelivery


class MailTransport(Protocol):
    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        """Deliver, returning what the other side said; raise a DeliveryError on failure."""
        ...


class SmtpRelay:
    """Sends through an SMTP relay with aiosmtplib, a new connection per message."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        username: str = "",
        password: str = "",
        tls: str = "none",
        timeout: float = 30.0,
    ) -> None:
        self.host, self.port = host, port
        self.username, self.password = username, password
        self.tls = tls
        self.timeout = timeout

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        try:
            errors, response = await aiosmtplib.send(
                message,
                sender=sender,
                recipients=recipients,
                hostname=self.host,
                port=self.port,
                username=self.username or None,
                password=self.password or None,
                use_tls=self.tls == "tls",
                start_tls=self.tls == "starttls",
                timeout=self.timeout,
            )
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
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
            raise TransientDelivery(
                f"relay {self.host}:{self.port} unreachable: {type(exc).__name__}"
            ) from exc
        if errors:
            detail = "; ".join(
                f"{rcpt}: {resp.code} {resp.message}" for rcpt, resp in errors.items()
            )
            raise TransientDelivery(f"relay refused some recipients: {detail}")
        return response


class MaildirTransport:
    """Writes each message into a Maildir, so a newcomer can read what would be sent."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        try:
            box = mailbox.Maildir(str(self.path), create=True)
            key = box.add(message)
            # mailbox creates files from the umask; mail to lawyers is for the owner only.
            (self.path / "new" / key).chmod(0o600)
        except OSError as exc:
            raise TransientDelivery(f"cannot write to the Maildir {self.path}: {exc}") from exc
        return f"written to Maildir as {key}"


def read_maildir(path: Path) -> list[tuple[str, bytes]]:
    """Every message in the Maildir, oldest first, as (key, raw bytes)."""
    if not path.exists():
        return []
    box = mailbox.Maildir(str(path), create=False)
    # Maildir keys start with the delivery time in seconds and a counter, so they sort in order.
    return sorted((key, box.get_bytes(key)) for key in box.keys())  # noqa: SIM118 (iterating a Maildir yields messages)


def mail_transport(config: Config) -> MailTransport:
    """The relay when one is configured, else the Maildir under the data directory."""
    if config.smtp_relay is None:
        return MaildirTransport(config.data_dir / "maildir")
    host, port = config.smtp_relay
    return SmtpRelay(
        host,
        port,
        username=config.smtp_relay_username,
        password=config.smtp_relay_password,
        tls=config.smtp_relay_tls,
    )
