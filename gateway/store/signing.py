"""The log's Ed25519 signing keys, kept like the gateway's other secrets.

``HFA_AUDIT_SIGNING_KEY`` holds them (comma-separated ``ed25519:<base64 seed>``,
newest last), or, when it is empty, ``DATA_DIR/audit_signing_key`` (one per line,
created readable by its owner on first use). The newest key signs new
checkpoints; every key verifies, so checkpoints signed before a rotation still
verify after it. Processes on several hosts must share the setting, as they
share ``HFA_SECRET_KEYS``.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from gateway.errors import ConfigError
from gateway.store.checkpoint import verifier_key

log = logging.getLogger(__name__)

KEY_FILE = "audit_signing_key"
_PREFIX = "ed25519:"
DEFAULT_ORIGIN_PREFIX = "hfa-gateway/audit/"


@dataclass(frozen=True)
class LogKeys:
    """The log's name (the checkpoints' origin) and its keys, newest last.

    ``pinned``: the name is HFA_AUDIT_LOG_ORIGIN's; otherwise the log's own name replaces
    it wherever the log has one (``audit_origin.resolve``).
    """

    origin: str
    keys: tuple[Ed25519PrivateKey, ...]
    pinned: bool = False

    @property
    def signer(self) -> Ed25519PrivateKey:
        return self.keys[-1]

    def publics(self) -> list[tuple[str, Ed25519PublicKey]]:
        return [(self.origin, k.public_key()) for k in self.keys]

    def verifier_keys(self) -> list[str]:
        return [verifier_key(self.origin, k.public_key()) for k in self.keys]

    def named(self, origin: str) -> LogKeys:
        """The same keys under another name (the one the log carries)."""
        return LogKeys(origin, self.keys, self.pinned)


def default_origin(keys: tuple[Ed25519PrivateKey, ...]) -> str:
    """A new log's name: ``hfa-gateway/audit/`` and 8 bytes of SHA-256 of its first key."""
    first = keys[0].public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return DEFAULT_ORIGIN_PREFIX + hashlib.sha256(first).hexdigest()[:16]


def encode_key(key: Ed25519PrivateKey) -> str:
    seed = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return _PREFIX + base64.b64encode(seed).decode()


def decode_key(text: str, where: str) -> Ed25519PrivateKey:
    try:
        seed = base64.b64decode(text.strip().removeprefix(_PREFIX), validate=True)
        if not text.strip().startswith(_PREFIX) or len(seed) != 32:
            raise ValueError
    except ValueError:
        # The value itself is never repeated: it is a secret.
        raise ConfigError(f"{where}: expected ed25519:<base64 of 32 bytes>") from None
    return Ed25519PrivateKey.from_private_bytes(seed)


def configured_origin(raw: Mapping[str, str]) -> str:
    """HFA_AUDIT_LOG_ORIGIN, checked: a signed note's key name (no spaces, no '+'); or ''."""
    value = raw.get("audit_log_origin", "").strip()
    if value and ("+" in value or any(c.isspace() or ord(c) < 0x20 or c == "\x7f" for c in value)):
        raise ConfigError(
            "HFA_AUDIT_LOG_ORIGIN: expected a name without spaces, control characters or '+' "
            f"(a schema-less URL such as example.com/hfa-audit), got {value!r}"
        )
    return value


def has_keys(raw: Mapping[str, str], data_dir: Path) -> bool:
    """Whether a signing key is configured or stored (reading it may still fail)."""
    return bool(raw.get("audit_signing_key", "").strip()) or bool(_stored(data_dir / KEY_FILE))


def _stored(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def _append(path: Path, key: Ed25519PrivateKey) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="ascii") as fh:
        path.chmod(0o600)
        fh.write(encode_key(key) + "\n")


def load_keys(raw: Mapping[str, str], data_dir: Path, *, create: bool = True) -> LogKeys:
    """The configured keys, else those in DATA_DIR/audit_signing_key (made on first use).

    Named by HFA_AUDIT_LOG_ORIGIN, else as a new log would be: where a log exists,
    ``audit_origin.log_keys`` names them as the log is named.
    """
    origin = configured_origin(raw)
    configured = [k for k in raw.get("audit_signing_key", "").split(",") if k.strip()]
    if configured:
        keys = tuple(
            decode_key(k, f"HFA_AUDIT_SIGNING_KEY key {i + 1}") for i, k in enumerate(configured)
        )
        return LogKeys(origin or default_origin(keys), keys, bool(origin))
    path = data_dir / KEY_FILE
    stored = _stored(path)
    if not stored:
        if not create:
            raise ConfigError(
                f"no audit signing key: HFA_AUDIT_SIGNING_KEY is empty and {path} is missing"
            )
        _append(path, Ed25519PrivateKey.generate())
        log.warning(
            "HFA_AUDIT_SIGNING_KEY is not set: generated the audit log's signing key into %s; "
            "back it up, and publish 'hfa audit key' to whoever keeps checkpoints",
            path,
        )
        stored = _stored(path)
    keys = tuple(decode_key(k, f"{path} line {i + 1}") for i, k in enumerate(stored))
    return LogKeys(origin or default_origin(keys), keys, bool(origin))


def verifying_keys(raw: Mapping[str, str], data_dir: Path) -> list[tuple[str, Ed25519PublicKey]]:
    """The public keys a verifier trusts; none where no key was ever made (nothing signed)."""
    if not has_keys(raw, data_dir):
        return []
    return load_keys(raw, data_dir, create=False).publics()


def rotate_stored_key(data_dir: Path) -> int:
    """Append a new signing key to DATA_DIR/audit_signing_key; returns how many there are now."""
    path = data_dir / KEY_FILE
    _append(path, Ed25519PrivateKey.generate())
    return len(_stored(path))


def integrate_seconds(raw: Mapping[str, str]) -> float:
    """HFA_AUDIT_INTEGRATE_SECONDS, checked: a number above 0."""
    text = raw.get("audit_integrate_seconds", "").strip() or "0.25"
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 60:
        raise ConfigError(
            f"HFA_AUDIT_INTEGRATE_SECONDS: expected a number of seconds above 0, at most 60, got {text!r}"
        )
    return value
