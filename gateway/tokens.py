"""Reply tokens (in reply addresses and Message-IDs) and agents' secrets.

A reply token names one (request, recipient) pair and is signed::

    version (1 byte) | recipient id (8 bytes) | HMAC-SHA256 truncated (10 bytes)

encoded as lowercase base32 without padding: 31 characters, so
``reply+<token>`` is 37 octets, far below the 64-octet local-part limit, and
survives mail servers that change case. Keys come from itsdangerous' key
derivation over the configured secret keys: the newest signs, all verify, so
keys rotate without breaking replies in flight.

Access tokens and read capabilities are 256 random bits, shown once and
stored only as SHA-256 hashes (the input is already uniformly random, so a
fast hash is enough); they are compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import re
import secrets
import struct
from dataclasses import dataclass
from pathlib import Path

from itsdangerous import Signer

from gateway.errors import ConfigError

log = logging.getLogger(__name__)

TOKEN_VERSION = 1
_MAC_BYTES = 10
_TOKEN_BYTES = 1 + 8 + _MAC_BYTES
TOKEN_CHARS = 31
_TOKEN_RE = re.compile(r"[a-z2-7]{31}")
_REPLY_LOCAL = re.compile(r"^reply\+([a-z2-7]{31})$")
_MSGID_TOKEN = re.compile(r"hfa\.([a-z2-7]{31})\.")


@dataclass(frozen=True)
class ReplyToken:
    """A verified token: the recipient row it was issued for."""

    recipient_id: int


class ReplyTokens:
    """Issues and verifies reply tokens with a rotating list of secret keys."""

    def __init__(self, secret_keys: tuple[str, ...]) -> None:
        if not secret_keys:
            raise ConfigError("HFA_SECRET_KEYS: at least one secret key is required")
        signer = Signer(
            list(secret_keys),
            salt="hfa.reply-token",
            key_derivation="hmac",
            digest_method=hashlib.sha256,
        )
        # Newest last, as itsdangerous orders them; verification tries every key.
        self._keys = [signer.derive_key(k) for k in signer.secret_keys]

    def fingerprints(self) -> tuple[str, ...]:
        """A one-way name per key, newest (the signing one) last, to compare across processes."""
        return tuple(
            hashlib.sha256(b"hfa.reply-key-fingerprint:" + k).hexdigest()[:16] for k in self._keys
        )

    def _mac(self, key: bytes, body: bytes) -> bytes:
        return hmac.new(key, body, hashlib.sha256).digest()[:_MAC_BYTES]

    def issue(self, recipient_id: int) -> str:
        body = struct.pack(">BQ", TOKEN_VERSION, recipient_id)
        raw = body + self._mac(self._keys[-1], body)
        return base64.b32encode(raw).decode("ascii").rstrip("=").lower()

    def verify(self, token: str) -> ReplyToken | None:
        """The token's recipient, or None for anything forged, tampered or malformed."""
        token = token.strip().lower()
        if not _TOKEN_RE.fullmatch(token):
            return None
        try:
            raw = base64.b32decode(token.upper() + "=" * (-len(token) % 8))
        except ValueError:
            return None
        if len(raw) != _TOKEN_BYTES or raw[0] != TOKEN_VERSION:
            return None
        body, mac = raw[:9], raw[9:]
        ok = False
        for key in self._keys:
            # Every key is tried, so the time does not say which one matched.
            ok |= hmac.compare_digest(self._mac(key, body), mac)
        if not ok:
            return None
        return ReplyToken(recipient_id=struct.unpack(">Q", body[1:])[0])

    def reply_address(self, recipient_id: int, domain: str) -> str:
        return f"reply+{self.issue(recipient_id)}@{domain}"

    def derived_secret(self, prefix: str, nonce: str, key_id: str | None = None) -> tuple[str, str]:
        """A secret derived from ``nonce`` and a key, and that key's id: what is stored
        may hold the nonce and the id, never the secret, which is derived again when it
        is sent. ``key_id`` None: the newest key. Raises KeyError for a key since removed.
        """
        for key in reversed(self._keys):
            this_id = hashlib.sha256(b"hfa.key-id" + key).hexdigest()[:12]
            if key_id is None or key_id == this_id:
                mac = hmac.new(key, f"{prefix}{nonce}".encode(), hashlib.sha256).digest()
                return prefix + base64.urlsafe_b64encode(mac).decode().rstrip("="), this_id
        raise KeyError(key_id)

    def message_id(self, recipient_id: int, domain: str) -> str:
        """A fresh Message-ID that carries the token, for replies whose address was mangled."""
        return f"<hfa.{self.issue(recipient_id)}.{secrets.token_hex(6)}@{domain}>"

    def token_from_address(self, address: str, domain: str) -> str | None:
        local, _, host = address.strip().strip("<>").rpartition("@")
        if host.lower() != domain.lower():
            return None
        match = _REPLY_LOCAL.match(local.lower())
        return match.group(1) if match else None

    def tokens_in_message_ids(self, header_value: str) -> list[str]:
        return _MSGID_TOKEN.findall(header_value.lower())


def new_secret(prefix: str) -> str:
    """256 random bits, URL-safe, with a prefix that tells what the secret is for."""
    return prefix + secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_hash)


# A hash no secret has, compared against when a reference is unknown, so that
# an unknown reference and a wrong token take the same time.
DUMMY_HASH = hash_secret("hfa-no-such-request")


def load_or_create_keys(configured: tuple[str, ...], data_dir: Path) -> tuple[str, ...]:
    """The configured keys, or those stored in DATA_DIR/secret_keys (created on first start)."""
    if configured:
        return configured
    path = data_dir / "secret_keys"
    if path.exists():
        keys = tuple(k.strip() for k in path.read_text().splitlines() if k.strip())
        if keys:
            return keys
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(32)
    fd = path.open("a", encoding="ascii")
    try:
        path.chmod(0o600)
        fd.write(key + "\n")
    finally:
        fd.close()
    log.warning(
        "HFA_SECRET_KEYS is not set: generated a secret key into %s; "
        "back it up, or replies to mail already sent cannot be verified",
        path,
    )
    return (key,)


def rotate_stored_keys(data_dir: Path) -> int:
    """Append a new key to DATA_DIR/secret_keys; returns how many keys there are now."""
    path = data_dir / "secret_keys"
    existing = path.read_text().splitlines() if path.exists() else []
    existing = [k for k in existing if k.strip()]
    existing.append(secrets.token_urlsafe(32))
    data_dir.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(existing) + "\n", encoding="ascii")
    path.chmod(0o600)
    return len(existing)
