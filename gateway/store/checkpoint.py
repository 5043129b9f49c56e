"""Checkpoints: the C2SP tlog-checkpoint body in a C2SP signed note, signed with Ed25519.

A checkpoint says "the log named ORIGIN has SIZE entries whose Merkle root is
ROOT"::

    example.org/hfa-audit
    42
    <base64 root hash>

    — example.org/hfa-audit <base64(key hash || signature)>

The body is the three lines (each ending in a newline); each signature line
names its key and starts with the key's 4-byte hash, SHA-256(name || "\\n" ||
0x01 || public key)[:4], as the signed-note format defines for Ed25519. A
verifier key is written ``name+hex key hash+base64(0x01 || public key)``, the form
Go's ``golang.org/x/mod/sumdb/note`` and the witness ecosystem read. Pure: no
database, no files; ``gateway.store.signing`` keeps the keys.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gateway.errors import CheckpointError, UnknownKey

ALG_ED25519 = 1
_DASH = "\u2014"


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    def body(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


@dataclass(frozen=True)
class Signature:
    name: str
    key_hash: bytes
    signature: bytes


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_hash(name: str, public: Ed25519PublicKey) -> bytes:
    return hashlib.sha256(
        name.encode() + b"\n" + bytes([ALG_ED25519]) + _raw_public(public)
    ).digest()[:4]


def verifier_key(name: str, public: Ed25519PublicKey) -> str:
    """``name+hash+base64(0x01||key)``: what a witness or an auditor configures."""
    encoded = base64.b64encode(bytes([ALG_ED25519]) + _raw_public(public)).decode()
    return f"{name}+{key_hash(name, public).hex()}+{encoded}"


def parse_verifier_key(text: str) -> tuple[str, Ed25519PublicKey]:
    # Split from the left, as Go's note package does: a key name holds no "+", the
    # base64 key may.
    name, _, rest = text.strip().partition("+")
    hash_hex, _, rest = rest.partition("+")
    try:
        raw = base64.b64decode(rest, validate=True)
        wanted = bytes.fromhex(hash_hex)
    except ValueError as exc:
        raise CheckpointError(f"not a verifier key (name+hash+key): {text!r}") from exc
    if not name or len(raw) != 33 or raw[0] != ALG_ED25519:
        raise CheckpointError(f"not an Ed25519 verifier key (name+hash+key): {text!r}")
    public = Ed25519PublicKey.from_public_bytes(raw[1:])
    if key_hash(name, public) != wanted:
        raise CheckpointError(f"the verifier key's hash does not match its name and key: {text!r}")
    return name, public


def sign(checkpoint: Checkpoint, name: str, key: Ed25519PrivateKey) -> str:
    """The signed note: the checkpoint's body, a blank line, one signature line."""
    body = checkpoint.body()
    signature = key.sign(body.encode())
    blob = base64.b64encode(key_hash(name, key.public_key()) + signature).decode()
    return f"{body}\n{_DASH} {name} {blob}\n"


def parse(note: str) -> tuple[Checkpoint, list[Signature]]:
    """Split a signed note into its checkpoint and signature lines; checks shape, not keys."""
    body, sep, signatures = note.partition("\n\n")
    if not sep:
        raise CheckpointError("no blank line between the checkpoint and its signatures")
    lines = body.split("\n")
    if len(lines) < 3:
        raise CheckpointError("a checkpoint has an origin, a size and a root hash")
    origin, size_text, root_text = lines[0], lines[1], lines[2]
    if not origin or not size_text.isdigit() or (size_text != "0" and size_text.startswith("0")):
        raise CheckpointError(f"bad origin or size line: {origin!r}, {size_text!r}")
    try:
        root = base64.b64decode(root_text, validate=True)
    except ValueError as exc:
        raise CheckpointError(f"the root hash is not base64: {root_text!r}") from exc
    if len(root) != 32:
        raise CheckpointError("the root hash is not 32 bytes")
    found: list[Signature] = []
    for line in signatures.split("\n"):
        if not line:
            continue
        dash, _, rest = line.partition(" ")
        name, _, blob_text = rest.partition(" ")
        try:
            blob = base64.b64decode(blob_text, validate=True)
        except ValueError as exc:
            raise CheckpointError(f"a signature line is not base64: {line!r}") from exc
        if dash != _DASH or not name or len(blob) < 5:
            raise CheckpointError(f"not a signature line: {line!r}")
        found.append(Signature(name, blob[:4], blob[4:]))
    if not found:
        raise CheckpointError("the note carries no signature")
    return Checkpoint(origin, int(size_text), root), found


def verify(note: str, keys: Sequence[tuple[str, Ed25519PublicKey]]) -> Checkpoint:
    """The checkpoint, if one of ``keys`` (name, public key) signed the note; else CheckpointError."""
    checkpoint, signatures = parse(note)
    body = note.partition("\n\n")[0] + "\n"
    for signature in signatures:
        for name, public in keys:
            if name != signature.name or key_hash(name, public) != signature.key_hash:
                continue
            try:
                public.verify(signature.signature, body.encode())
            except InvalidSignature as exc:
                raise CheckpointError(
                    f"the signature of key {name}+{signature.key_hash.hex()} does not verify"
                ) from exc
            return checkpoint
    named = ", ".join(f"{s.name}+{s.key_hash.hex()}" for s in signatures)
    raise UnknownKey(f"signed by {named}: not a key this log holds")


def verify_log(note: str, keys: Sequence[tuple[str, Ed25519PublicKey]]) -> Checkpoint:
    """``verify``, with each of the log's keys also trusted under the note's own origin.

    A log's key name is its origin, and the origin is a setting: a checkpoint signed
    before the log was renamed (or, before its name was pinned, under a name taken from
    its public URL) carries the name of its day. The key is what is trusted, not the name.
    """
    origin = note.partition("\n")[0]
    return verify(note, [*keys, *((origin, public) for _name, public in keys)])
