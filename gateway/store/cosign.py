"""C2SP ``tlog-cosignature`` v1 with Ed25519: a witness's timestamped cosignature of a checkpoint.

A cosignature is a note signature line on the checkpoint, ``— <name> base64(key ID ||
u64 timestamp || Ed25519 signature)``, where the key ID is SHA-256(name || 0x0A || 0x04
|| public key)[:4] and the signature covers::

    cosignature/v1
    time <timestamp>
    <the checkpoint's body: origin, size, root hash>

A witness's verifier key is ``name+hex key ID+base64(0x04 || public key)``. Pure: no
database, no files, no network.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gateway.errors import CheckpointError

ALG_COSIGNATURE = 4
_DASH = "\u2014"


# Kept apart from evidence.verifier.layout (its DASH, its dataclasses) on purpose: the
# standalone verifier imports nothing of the gateway, and the gateway nothing of it.
@dataclass(frozen=True)
class Cosigner:
    """A witness as a log knows it: its key name and public key."""

    name: str
    public: Ed25519PublicKey

    def key_id(self) -> bytes:
        raw = self.public.public_bytes(Encoding.Raw, PublicFormat.Raw)
        return hashlib.sha256(self.name.encode() + b"\n" + bytes([ALG_COSIGNATURE]) + raw).digest()[
            :4
        ]

    def vkey(self) -> str:
        raw = self.public.public_bytes(Encoding.Raw, PublicFormat.Raw)
        encoded = base64.b64encode(bytes([ALG_COSIGNATURE]) + raw).decode()
        return f"{self.name}+{self.key_id().hex()}+{encoded}"


def parse_vkey(text: str) -> Cosigner:
    """``name+id+base64(0x04||key)``: a witness's cosignature verifier key."""
    name, _, rest = text.strip().partition("+")
    id_hex, _, encoded = rest.partition("+")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except ValueError:
        raw = b""
    if not name or len(raw) != 33 or raw[0] != ALG_COSIGNATURE:
        raise CheckpointError(f"not an Ed25519 cosignature verifier key (name+id+key): {text!r}")
    cosigner = Cosigner(name, Ed25519PublicKey.from_public_bytes(raw[1:]))
    if cosigner.key_id().hex() != id_hex:
        raise CheckpointError(f"the key ID does not match the name and key: {text!r}")
    return cosigner


def _message(body: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n{body}".encode()


def cosign(body: str, name: str, key: Ed25519PrivateKey, timestamp: int) -> str:
    """The cosignature line (with its newline) of checkpoint ``body`` at ``timestamp``."""
    signer = Cosigner(name, key.public_key())
    signature = key.sign(_message(body, timestamp))
    blob = signer.key_id() + timestamp.to_bytes(8, "big") + signature
    return f"{_DASH} {name} {base64.b64encode(blob).decode()}\n"


def verify_line(body: str, line: str, cosigner: Cosigner) -> int | None:
    """The timestamp of ``line`` if it is ``cosigner``'s valid cosignature of ``body``;
    None for a line of another key; CheckpointError for one of this key that fails."""
    dash, _, rest = line.strip("\n").partition(" ")
    name, _, blob_text = rest.partition(" ")
    try:
        blob = base64.b64decode(blob_text, validate=True)
    except ValueError:
        return None
    if dash != _DASH or name != cosigner.name or blob[:4] != cosigner.key_id():
        return None
    if len(blob) != 4 + 8 + 64:
        raise CheckpointError(f"the cosignature of {name} is not a timestamp and a signature")
    timestamp = int.from_bytes(blob[4:12], "big")
    try:
        cosigner.public.verify(blob[12:], _message(body, timestamp))
    except InvalidSignature as exc:
        raise CheckpointError(f"the cosignature of {name} does not verify") from exc
    return timestamp


def cosignatures(note: str, cosigners: list[Cosigner]) -> dict[str, str]:
    """The valid cosignature lines of ``note`` by ``cosigners``, by cosigner name."""
    body, _, signatures = note.partition("\n\n")
    body += "\n"
    found: dict[str, str] = {}
    for line in signatures.split("\n"):
        for cosigner in cosigners:
            try:
                if verify_line(body, line, cosigner) is not None:
                    found[cosigner.name] = line + "\n"
            except CheckpointError:
                continue
    return found
