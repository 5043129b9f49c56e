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
import os
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


def derived_keys(secret_keys: tuple[str, ...], salt: str) -> list[bytes]:
    """One HMAC-SHA256 key per secret key, for one use (``salt``), newest last, as
    itsdangerous orders them: a key of one use verifies nothing of another."""
    signer = Signer(
        list(secret_keys), salt=salt, key_derivation="hmac", digest_method=hashlib.sha256
    )
    return [signer.derive_key(k) for k in signer.secret_keys]


class ReplyTokens:
    """Issues and verifies reply tokens with a rotating list of secret keys."""

    def __init__(self, secret_keys: tuple[str, ...]) -> None:
        if not secret_keys:
            raise ConfigError("HFA_SECRET_KEYS: at least one secret key is required")
        # The keys in force (configured, or generated into the data directory): every other
        # signer of the gateway (sender challenges) derives its keys from these, never from
        # the settings alone, which are empty on an install that generated its keys.
        self.secret_keys = tuple(secret_keys)
        # Newest last; verification tries every key.
        self._keys = derived_keys(secret_keys, "hfa.reply-token")

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


# A key added by ``hfa keys rotate``: every process that starts accepts it, none signs with it
# until ``hfa keys rotate --sign`` appends it to secret_keys.
NEXT_KEY_FILE = "secret_keys.next"


def _stored(path: Path) -> tuple[str, ...]:
    if not path.exists():
        return ()
    return tuple(k.strip() for k in path.read_text(encoding="ascii").splitlines() if k.strip())


def _write_keys(path: Path, keys: tuple[str, ...]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write("".join(k + "\n" for k in keys))


def load_or_create_keys(configured: tuple[str, ...], data_dir: Path) -> tuple[str, ...]:
    """The configured keys, or those stored in DATA_DIR/secret_keys (created on first start).

    A key waiting in DATA_DIR/secret_keys.next comes first: it verifies, the last one signs.
    """
    if configured:
        return configured
    path = data_dir / "secret_keys"
    keys = _stored(path)
    if keys:
        return _stored(data_dir / NEXT_KEY_FILE) + keys
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


def add_next_key(data_dir: Path) -> str:
    """Step 1 of a rotation: a new key that every process started from now on accepts.

    It signs nothing yet: a process still running on the old list could not verify it.
    Returns the new key's fingerprint, to check the running processes against.
    """
    if not _stored(data_dir / "secret_keys"):
        raise ConfigError(
            f"no stored reply-token keys in {data_dir}: run this with the gateway's settings "
            "(its HFA_DATA_DIR), or rotate HFA_SECRET_KEYS as the README says"
        )
    if _stored(data_dir / NEXT_KEY_FILE):
        raise ConfigError(
            f"a new key already waits in {data_dir / NEXT_KEY_FILE}: restart every gateway "
            "process, then run 'hfa keys rotate --sign'"
        )
    key = secrets.token_urlsafe(32)
    _write_keys(data_dir / NEXT_KEY_FILE, (key,))
    return ReplyTokens((key,)).fingerprints()[0]


def next_key_fingerprint(data_dir: Path) -> str | None:
    waiting = _stored(data_dir / NEXT_KEY_FILE)
    return ReplyTokens(waiting).fingerprints()[-1] if waiting else None


def sign_with_next_key(data_dir: Path) -> int:
    """Step 2: the waiting key goes to the end of secret_keys, where it signs; the key count."""
    waiting = _stored(data_dir / NEXT_KEY_FILE)
    if not waiting:
        raise ConfigError("no new key waits to sign: run 'hfa keys rotate' first")
    keys = _stored(data_dir / "secret_keys") + waiting
    _write_keys(data_dir / "secret_keys", keys)
    (data_dir / NEXT_KEY_FILE).unlink()
    return len(keys)
