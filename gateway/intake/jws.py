"""Detached JWS over JCS (RFC 7515 appendix F, RFC 8785), signed with Ed25519 (RFC 8037, 9864).

A2H v1.0 signs every message with one JWS over the JCS-canonical JSON of the
message without its ``signature`` field, and publishes the verifying key as a
JWKS. The signature is ``<protected header>..<signature>``: the payload is
left out, and a verifier canonicalizes the message it received to put it back.

The key is ``HFA_A2H_SIGNING_KEY`` (``ed25519:<base64 of the 32-byte seed>``, as
the audit log's) or, unset, one generated once into the data directory, so
every process of a deployment that shares it signs alike. Its ``kid`` is its
RFC 7638 thumbprint.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gateway.services import Services
from gateway.store.signing import decode_key, encode_key

log = logging.getLogger(__name__)

KEY_FILE = "a2h_signing_key"
# RFC 9864: the fully specified identifier, where "EdDSA" left the curve open.
ALGORITHM = "Ed25519"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _number(value: int | float) -> str:
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError("JCS has no NaN or Infinity")
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    # Python's shortest round-trip repr, with ECMAScript's exponent spelling.
    mantissa, _, exponent = repr(value).partition("e")
    if not exponent:
        return mantissa
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"


def _canonical(value: Any, out: list[str]) -> None:
    if value is None or isinstance(value, bool):
        out.append("null" if value is None else "true" if value else "false")
    elif isinstance(value, int | float):
        out.append(_number(value))
    elif isinstance(value, str):
        # The standard library escapes as ECMAScript's JSON.stringify does (RFC 8785 3.2.2.2).
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _canonical(item, out)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        # Members sorted by their names' UTF-16 code units (RFC 8785 3.2.3).
        for i, key in enumerate(sorted(value, key=lambda k: str(k).encode("utf-16-be"))):
            if i:
                out.append(",")
            out.append(json.dumps(str(key), ensure_ascii=False))
            out.append(":")
            _canonical(value[key], out)
        out.append("}")
    else:
        raise TypeError(f"not JSON: {type(value).__name__}")


def canonical(value: Any) -> bytes:
    """The JCS (RFC 8785) serialization of ``value``."""
    out: list[str] = []
    _canonical(value, out)
    return "".join(out).encode("utf-8")


class Signer:
    """Signs A2H messages and publishes the key that verifies them."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self._jwk = {"crv": "Ed25519", "kty": "OKP", "x": b64url(public)}
        self.kid = b64url(hashlib.sha256(canonical(self._jwk)).digest())

    def jwks(self) -> dict[str, Any]:
        return {"keys": [{**self._jwk, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}]}

    def detached(self, payload: dict[str, Any]) -> str:
        """The detached JWS of ``payload`` (without any ``signature`` member)."""
        header = b64url(canonical({"alg": ALGORITHM, "kid": self.kid}))
        body = b64url(canonical({k: v for k, v in payload.items() if k != "signature"}))
        signature = self._key.sign(f"{header}.{body}".encode("ascii"))
        return f"{header}..{b64url(signature)}"

    def signed(self, message: dict[str, Any]) -> dict[str, Any]:
        return {**message, "signature": self.detached(message)}


def load_key(configured: str, data_dir: Path) -> Ed25519PrivateKey:
    if configured.strip():
        return decode_key(configured, "HFA_A2H_SIGNING_KEY")
    path = data_dir / KEY_FILE
    try:
        return decode_key(path.read_text(encoding="ascii"), str(path))
    except FileNotFoundError:
        pass
    key = Ed25519PrivateKey.generate()
    try:
        # Created exclusively: two processes starting at once keep the first one's key.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return decode_key(path.read_text(encoding="ascii"), str(path))
    with os.fdopen(descriptor, "w", encoding="ascii") as out:
        out.write(encode_key(key) + "\n")
    log.warning(
        "HFA_A2H_SIGNING_KEY is not set: generated the A2H signing key into %s; give every "
        "process of this deployment the same key",
        path,
    )
    return key


def signer_for(services: Services) -> Signer:
    """The one ``Signer`` of these services."""
    return services.shared(_signer_of)


def _signer_of(services: Services) -> Signer:
    config = services.config
    return Signer(load_key(config.a2h_signing_key, config.data_dir))
