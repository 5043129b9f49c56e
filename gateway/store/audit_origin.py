"""The audit log's name (its checkpoints' origin), pinned by the log, and the key that signs it.

The origin is the first line of every checkpoint and the name of the log's key, so a
witness, a saved checkpoint and an evidence bundle all depend on it. It never follows
the HTTP settings:

- ``HFA_AUDIT_LOG_ORIGIN`` names the log when it is set (changing it renames the log
  from its next checkpoint on: earlier checkpoints keep the name they were signed with);
- empty, the log keeps the name its newest checkpoint carries, so a log begun by an
  earlier release, whose name came from its public URL, keeps that name;
- a log with no checkpoint yet is named ``hfa-gateway/audit/<id>``, the id being the first
  8 bytes of SHA-256 of its first key's public key (the same for every process that
  shares the key, and different for every installation).

``log_keys`` also refuses a process whose keys do not include the one that signed the
log's newest checkpoint: that process would sign checkpoints nobody can verify with the
keys the others publish.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.errors import CheckpointError, SigningKeyMismatch
from gateway.store import checkpoint as notes
from gateway.store import signing, state
from gateway.store.models import AuditCheckpoint
from gateway.store.signing import LogKeys


def newest_note(session: Session) -> str | None:
    return session.scalar(
        select(AuditCheckpoint.note).order_by(AuditCheckpoint.tree_size.desc()).limit(1)
    )


def origin_of(note: str) -> str:
    """A checkpoint's origin: its first line."""
    return note.partition("\n")[0]


def resolve(keys: LogKeys, newest: str | None) -> LogKeys:
    """``keys`` named as the log is: the setting, else the newest checkpoint's name, else
    the default for a new log (which ``load_keys`` gave them)."""
    if keys.pinned or newest is None:
        return keys
    return keys.named(origin_of(newest))


def check_signer(keys: LogKeys, newest: str) -> None:
    """SigningKeyMismatch, in one sentence, unless one of ``keys`` signed ``newest``."""
    try:
        _, signatures = notes.parse(newest)
    except CheckpointError:
        return  # 'hfa audit verify' names a malformed checkpoint; it is no key question
    origin = origin_of(newest)
    held = {notes.key_hash(origin, key.public_key()) for key in keys.keys}
    if any(s.name == origin and s.key_hash in held for s in signatures):
        return
    named = ", ".join(f"{s.name}+{s.key_hash.hex()}" for s in signatures)
    raise SigningKeyMismatch(
        f"HFA_AUDIT_SIGNING_KEY does not hold the key that signed the audit log's newest "
        f"checkpoint ({named}): give every worker the same HFA_AUDIT_SIGNING_KEY (the "
        "log's key, older keys first), then start it again"
    )


def log_keys(
    session: Session, raw: Mapping[str, str], data_dir: Path, *, create: bool = True
) -> LogKeys:
    """This process's signing keys, named as the log is, checked against the log's signer.

    A log that already has checkpoints never gets a freshly generated key: a process
    with none is refused instead.
    """
    newest = newest_note(session)
    if newest is not None and not signing.has_keys(raw, data_dir):
        raise SigningKeyMismatch(
            "this process has no audit signing key (HFA_AUDIT_SIGNING_KEY is empty and "
            f"{data_dir / signing.KEY_FILE} is missing) but the audit log is signed: give it "
            "the log's HFA_AUDIT_SIGNING_KEY, then start it again"
        )
    keys = signing.load_keys(raw, data_dir, create=create)
    if newest is not None:
        check_signer(keys, newest)
    return resolve(keys, newest)


# The log's public keys, as its sequencer last published them: {"public_keys": [base64]}.
PUBLISHED = "audit_keys"


def publish(session: Session, keys: LogKeys, now: datetime) -> None:
    """Keep the leader's public keys in the database, for ``GET /audit/key`` on processes
    that hold no signing key (an http role on its own host). Keys published before stay
    (older first): they verify the checkpoints they signed; the leader's signer is last."""
    raw = [
        base64.b64encode(k.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()
        for k in keys.keys
    ]
    stored = (state.get(session, PUBLISHED) or {}).get("public_keys") or []
    merged = [k for k in stored if k not in raw] + raw
    if stored != merged:
        state.put(session, PUBLISHED, {"public_keys": merged}, now)


def published_verifier_keys(session: Session) -> list[str]:
    """The log's verifier keys, newest first, named as the log is now; [] before any."""
    stored = (state.get(session, PUBLISHED) or {}).get("public_keys") or []
    newest = newest_note(session)
    if not stored or newest is None:
        return []
    origin = origin_of(newest)
    publics = [Ed25519PublicKey.from_public_bytes(base64.b64decode(k)) for k in stored]
    return [notes.verifier_key(origin, k) for k in reversed(publics)]
