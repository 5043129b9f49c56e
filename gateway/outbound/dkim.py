"""DKIM signatures on outgoing mail (RFC 6376), made with dkimpy.

The transport signs (``transports.mail_transport``), so every email the gateway
sends (requests, reminders, receipts, answers pushed to an email ``reply_to``)
is signed at the moment it leaves, whatever relay carries it. dkimpy is the DKIM library of the
Python ecosystem (also behind dkimpy-milter); it signs with the pure-Python RSA
it ships, so no C extension is needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from gateway.errors import ConfigError
from gateway.settings.config import Config

# Headers a receiver shows or threads by. Each one is signed when present, and
# From is also signed once more than present ("oversigned"), so a second From
# added on the way breaks the signature instead of riding along.
SIGNED_HEADERS = (
    b"from",
    b"to",
    b"cc",
    b"reply-to",
    b"subject",
    b"date",
    b"message-id",
    b"in-reply-to",
    b"references",
    b"mime-version",
    b"content-type",
    b"content-transfer-encoding",
    b"auto-submitted",
    b"x-hfa-reference",
)

_BLANK_LINE = re.compile(rb"\r?\n\r?\n")


class DkimSigner:
    """Signs messages as ``d=domain; s=selector`` with relaxed/relaxed canonicalisation."""

    def __init__(self, selector: str, domain: str, private_key: bytes) -> None:
        # dkimpy (and the DNS library it loads) only where a key is configured: about
        # 10 MB that a gateway signing nothing never needs.
        from dkim.crypto import UnparsableKeyError, parse_pem_private_key

        try:
            parse_pem_private_key(private_key)
        except (UnparsableKeyError, ValueError, IndexError) as exc:
            raise ConfigError(f"the DKIM private key is not a PEM RSA key: {exc}") from None
        self.selector = selector
        self.domain = domain
        self._key = private_key

    def signature(self, message: bytes) -> bytes:
        """The ``DKIM-Signature:`` header line for ``message``, with the message's line ending."""
        head = _BLANK_LINE.split(message, maxsplit=1)[0]
        present = {
            line.split(b":", 1)[0].strip().lower()
            for line in head.splitlines()
            if line[:1] not in (b" ", b"\t") and b":" in line
        }
        headers = [h for h in SIGNED_HEADERS if h in present] + [b"from"]
        import dkim

        header: bytes = dkim.sign(
            message,
            self.selector.encode("ascii"),
            self.domain.encode("ascii"),
            self._key,
            include_headers=headers,
            canonicalize=(b"relaxed", b"relaxed"),
        )
        first_line = message[: message.find(b"\n") + 1]
        if not first_line.endswith(b"\r\n"):
            # dkimpy answers in CRLF; the header must not mix line endings with the message.
            header = header.replace(b"\r\n", b"\n")
        return header

    def sign(self, message: bytes) -> bytes:
        return self.signature(message) + message


def load_signer(config: Config) -> DkimSigner | None:
    """The signer the settings ask for, or None when DKIM is off; a bad key fails at start."""
    if not config.dkim_selector or config.dkim_private_key_file is None:
        return None
    path: Path = config.dkim_private_key_file
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"HFA_DKIM_PRIVATE_KEY_FILE: cannot read {path}: {exc}") from None
    try:
        domain = config.dkim_domain.encode("ascii").decode()
        config.dkim_selector.encode("ascii")
    except UnicodeEncodeError:
        raise ConfigError("HFA_DKIM_SELECTOR and HFA_DKIM_DOMAIN must be ASCII") from None
    return DkimSigner(config.dkim_selector, domain, key)
