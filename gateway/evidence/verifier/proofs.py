"""Merkle inclusion proofs (RFC 6962 / 9162) and signed notes (C2SP, Ed25519), verifier side."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# Inclusion proofs are checked here as store.merkle checks them (RFC 9162 2.1.3.2), kept
# apart on purpose: the standalone verifier imports nothing of the gateway.
from .layout import DASH

ALG_ED25519 = 1


class NoteError(ValueError):
    """A signed note or a key that cannot be read or does not verify."""


# --- Merkle trees (RFC 6962 / 9162), the verifier's side ---------------------------


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: list[bytes]) -> bytes | None:
    """The root ``proof`` leads to from ``leaf`` (RFC 9162 2.1.3.2); None if it is malformed."""
    if not 0 <= index < size or len(leaf) != 32 or any(len(p) != 32 for p in proof):
        return None
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = _node(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def canonical(value: Any) -> bytes:
    """The audit log's canonical JSON: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def entry_leaf(entry: dict[str, Any]) -> bytes:
    return leaf_hash(
        canonical({k: v for k, v in entry.items() if k not in ("leaf_index", "leaf_hash")})
    )


# --- Signed notes (C2SP signed-note, Ed25519) --------------------------------------


def strict_b64(text: str) -> bytes:
    """Strict base64: valid characters, and the one encoding of its bytes (no spare bits)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NoteError(f"not base64: {text[:60]!r}") from exc
    if base64.b64encode(raw).decode() != text:
        raise NoteError(f"not the canonical base64 of its bytes: {text[:60]!r}")
    return raw


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_hash(name: str, key: Ed25519PublicKey) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([ALG_ED25519]) + _raw_public(key)).digest()[
        :4
    ]


def parse_key(text: str) -> tuple[str, Ed25519PublicKey]:
    """A verifier key ``name+hexhash+base64(0x01||key)``, as ``hfa audit key`` prints it."""
    name, _, rest = text.strip().partition("+")
    hash_hex, _, encoded = rest.partition("+")
    raw = strict_b64(encoded)
    if not name or len(raw) != 33 or raw[0] != ALG_ED25519 or len(hash_hex) != 8:
        raise NoteError(f"not an Ed25519 verifier key (name+hash+key): {text.strip()[:80]!r}")
    key = Ed25519PublicKey.from_public_bytes(raw[1:])
    if key_hash(name, key).hex() != hash_hex:
        raise NoteError("the key's hash does not match its name and key")
    return name, key


def verify_note(note: str, keys: list[tuple[str, Ed25519PublicKey]]) -> tuple[list[str], str]:
    """A signed note's body lines and the key that signed it; NoteError unless one of ``keys`` did."""
    body, sep, signatures = note.partition("\n\n")
    if not sep or not signatures.endswith("\n"):
        raise NoteError("not a signed note (a body, a blank line, signature lines)")
    lines = body.split("\n")
    signed = (body + "\n").encode()
    for line in signatures[:-1].split("\n"):
        dash, _, rest = line.partition(" ")
        name, _, blob_text = rest.partition(" ")
        if dash != DASH or not name:
            raise NoteError(f"not a signature line: {line[:80]!r}")
        blob = strict_b64(blob_text)
        for key_name, key in keys:
            if key_name != name or key_hash(name, key) != blob[:4]:
                continue
            try:
                key.verify(blob[4:], signed)
            except InvalidSignature as exc:
                raise NoteError(
                    f"the signature of {name}+{blob[:4].hex()} does not verify"
                ) from exc
            return lines, f"{name}+{blob[:4].hex()}"
    raise NoteError("not signed by any key given")


def checkpoint_of(lines: list[str]) -> tuple[str, int, bytes]:
    """A checkpoint's origin, size and root hash, from its note's body lines."""
    if len(lines) < 3 or not lines[0] or not lines[1].isdigit():
        raise NoteError("a checkpoint has an origin, a size and a root hash")
    if lines[1] != str(int(lines[1])):
        raise NoteError(f"the size is not written plainly: {lines[1]!r}")
    root = strict_b64(lines[2])
    if len(root) != 32:
        raise NoteError("the root hash is not 32 bytes")
    return lines[0], int(lines[1]), root
