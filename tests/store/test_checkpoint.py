"""Checkpoints as C2SP signed notes: the exact text, the key hash, and what fails to verify."""

from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gateway.errors import CheckpointError
from gateway.store import checkpoint as notes

SEED = bytes(range(32))
KEY = Ed25519PrivateKey.from_private_bytes(SEED)
ORIGIN = "gateway.example.com/audit"
ROOT = hashlib.sha256(b"root").digest()


def _raw_public() -> bytes:
    return KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def test_the_note_is_the_c2sp_checkpoint_body_then_one_signature_line() -> None:
    note = notes.sign(notes.Checkpoint(ORIGIN, 42, ROOT), ORIGIN, KEY)
    body, signatures = note.split("\n\n")
    assert body == f"{ORIGIN}\n42\n{base64.b64encode(ROOT).decode()}"
    dash, name, blob = signatures.rstrip("\n").split(" ")
    assert (dash, name) == ("\u2014", ORIGIN)
    raw = base64.b64decode(blob)
    # The key hash: SHA-256(name || "\n" || 0x01 || public key), first 4 bytes.
    wanted = hashlib.sha256(ORIGIN.encode() + b"\n\x01" + _raw_public()).digest()[:4]
    assert raw[:4] == wanted and len(raw) == 4 + 64
    # Ed25519 over the body with its final newline.
    KEY.public_key().verify(raw[4:], (body + "\n").encode())


def test_the_verifier_key_reads_back_and_verifies() -> None:
    vkey = notes.verifier_key(ORIGIN, KEY.public_key())
    name, hash_hex, key64 = vkey.split("+", 2)
    assert name == ORIGIN and base64.b64decode(key64) == b"\x01" + _raw_public()
    parsed = notes.parse_verifier_key(vkey)
    note = notes.sign(notes.Checkpoint(ORIGIN, 7, ROOT), ORIGIN, KEY)
    assert notes.verify(note, [parsed]) == notes.Checkpoint(ORIGIN, 7, ROOT)
    with pytest.raises(CheckpointError, match="hash does not match"):
        notes.parse_verifier_key(f"other.example+{hash_hex}+{key64}")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda n: n.replace("\n42\n", "\n43\n"), "does not verify"),
        (lambda n: n.replace(ORIGIN + "\n", "evil.example/audit\n", 1), "does not verify"),
        (lambda n: n.split("\n\n")[0] + "\n\n", "no signature"),
        (lambda n: n.replace("\n\n", "\n"), "no blank line"),
        (lambda n: n.replace("\n42\n", "\n042\n"), "bad origin or size"),
    ],
)
def test_an_altered_note_does_not_verify(change: object, message: str) -> None:
    note = notes.sign(notes.Checkpoint(ORIGIN, 42, ROOT), ORIGIN, KEY)
    assert callable(change)
    with pytest.raises(CheckpointError, match=message):
        notes.verify(change(note), [(ORIGIN, KEY.public_key())])


def test_a_note_signed_by_another_key_names_that_key() -> None:
    other = Ed25519PrivateKey.generate()
    note = notes.sign(notes.Checkpoint(ORIGIN, 1, ROOT), ORIGIN, other)
    with pytest.raises(CheckpointError, match="not a key this log holds"):
        notes.verify(note, [(ORIGIN, KEY.public_key())])
