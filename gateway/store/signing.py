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
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from gateway.errors import ConfigError
from gateway.store.checkpoint import verifier_key

log = logging.getLogger(__name__)

KEY_FILE = "audit_signing_key"
_PREFIX = "ed25519:"


@dataclass(frozen=True)
class LogKeys:
    """The log's name (the checkpoints' origin) and its keys, newest last."""

    origin: str
    keys: tuple[Ed25519PrivateKey, ...]

    @property
    def signer(self) -> Ed25519PrivateKey:
        return self.keys[-1]

    def publics(self) -> list[tuple[str, Ed25519PublicKey]]:
        return [(self.origin, k.public_key()) for k in self.keys]

    def verifier_keys(self) -> list[str]:
        return [verifier_key(self.origin, k.public_key()) for k in self.keys]


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


def origin_for(raw: Mapping[str, str]) -> str:
    """HFA_AUDIT_LOG_ORIGIN, else the public URL's host and path followed by /audit."""
    configured = raw.get("audit_log_origin", "").strip()
    if configured:
        return configured
    url = urlsplit(raw.get("public_url", "").strip())
    host = url.netloc or raw.get("http_bind", "localhost").strip() or "localhost"
    return f"{host}{url.path.rstrip('/')}/audit"


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
    """The configured keys, else those in DATA_DIR/audit_signing_key (made on first use)."""
    origin = origin_for(raw)
    configured = [k for k in raw.get("audit_signing_key", "").split(",") if k.strip()]
    if configured:
        keys = tuple(
            decode_key(k, f"HFA_AUDIT_SIGNING_KEY key {i + 1}") for i, k in enumerate(configured)
        )
        return LogKeys(origin, keys)
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
    return LogKeys(origin, keys)


def verifying_keys(raw: Mapping[str, str], data_dir: Path) -> list[tuple[str, Ed25519PublicKey]]:
    """The public keys a verifier trusts; none where no key was ever made (nothing signed)."""
    if not raw.get("audit_signing_key", "").strip() and not _stored(data_dir / KEY_FILE):
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
