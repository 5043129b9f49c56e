"""A C2SP ``tlog-witness``: checks each log's new checkpoint against the last it cosigned.

``Witness.add_checkpoint`` answers one ``POST <prefix>/add-checkpoint`` body (``old
<size>``, the consistency proof lines, a blank line, the checkpoint) as the
specification says: 404 for a log it does not know, 403 without a valid signature of
the log's key, 400 for an old size past the checkpoint's, 409 (and its own size, as
``text/x.tlog.size``) when the old size is not the one it cosigned last, 422 for a
proof that does not verify; else it records the checkpoint and returns its timestamped
cosignature. What it cosigned last, per origin, is a JSON file written whole and
renamed into place, read and written under one lock, so two requests cannot roll
the log back between them.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from gateway.errors import CheckpointError
from gateway.store import checkpoint as notes
from gateway.store import cosign, merkle

MAX_PROOF_LINES = 63
SIZE_TYPE = "text/x.tlog.size"


@dataclass(frozen=True)
class Answer:
    status: int
    body: str
    content_type: str = "text/plain; charset=utf-8"


class Witness:
    """One witness key, the logs it follows (origin -> public keys), and its state file."""

    def __init__(
        self,
        name: str,
        key: Ed25519PrivateKey,
        logs: dict[str, list[Ed25519PublicKey]],
        state: Path,
    ) -> None:
        self.name = name
        self.key = key
        self.logs = logs
        self.state = state
        self._lock = threading.Lock()

    def vkey(self) -> str:
        return cosign.Cosigner(self.name, self.key.public_key()).vkey()

    def _load(self) -> dict[str, dict[str, object]]:
        if not self.state.exists():
            return {}
        loaded: dict[str, dict[str, object]] = json.loads(self.state.read_text("utf-8"))
        return loaded

    def _save(self, state: dict[str, dict[str, object]]) -> None:
        temporary = self.state.with_name(self.state.name + ".new")
        with temporary.open("w", encoding="utf-8") as fh:
            json.dump(state, fh, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        temporary.replace(self.state)

    def latest(self, origin: str) -> str | None:
        """The last checkpoint cosigned for ``origin``, with its cosignature."""
        with self._lock:
            entry = self._load().get(origin)
        return str(entry["note"]) if entry else None

    def add_checkpoint(self, body: str, now: int) -> Answer:
        try:
            old, proof, note = _parse(body)
            checkpoint, _ = notes.parse(note)
        except (ValueError, CheckpointError) as exc:
            return Answer(400, f"not an add-checkpoint request: {exc}\n")
        keys = self.logs.get(checkpoint.origin)
        if keys is None:
            return Answer(404, f"unknown log {checkpoint.origin}\n")
        try:
            notes.verify(note, [(checkpoint.origin, k) for k in keys])
        except CheckpointError as exc:
            return Answer(403, f"not signed by the log's key: {exc}\n")
        if old > checkpoint.size:
            return Answer(400, f"old size {old} is past the checkpoint's size {checkpoint.size}\n")
        if checkpoint.size == 0 and checkpoint.root != merkle.EMPTY_ROOT:
            return Answer(422, "a checkpoint of size 0 has the empty tree's root\n")
        with self._lock:
            state = self._load()
            known = state.get(checkpoint.origin, {"size": 0, "root": ""})
            known_size = int(str(known["size"]))
            if old != known_size:
                return Answer(409, f"{known_size}\n", SIZE_TYPE)
            old_root = base64.b64decode(str(known["root"])) if old else b""
            problem = _inconsistent(old, old_root, checkpoint, proof)
            if problem:
                return Answer(422, problem + "\n")
            line = cosign.cosign(checkpoint.body(), self.name, self.key, now)
            state[checkpoint.origin] = {
                "size": checkpoint.size,
                "root": base64.b64encode(checkpoint.root).decode(),
                "note": note + line,
            }
            self._save(state)
        return Answer(200, line)


def _parse(body: str) -> tuple[int, list[bytes], str]:
    head, sep, note = body.partition("\n\n")
    lines = head.split("\n")
    if not sep or not lines[0].startswith("old "):
        raise ValueError("expected 'old <size>', proof lines, a blank line, the checkpoint")
    size_text = lines[0].removeprefix("old ")
    if not size_text.isdigit() or size_text != str(int(size_text)):
        raise ValueError(f"the old size is not a decimal without leading zeros: {size_text!r}")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise ValueError(f"more than {MAX_PROOF_LINES} proof lines")
    proof = [base64.b64decode(line, validate=True) for line in lines[1:]]
    return int(size_text), proof, note


def _inconsistent(
    old: int, old_root: bytes, checkpoint: notes.Checkpoint, proof: list[bytes]
) -> str | None:
    if old == 0:
        return "the empty tree needs no proof" if proof else None
    if old == checkpoint.size:
        if proof or old_root != checkpoint.root:
            return "the same size with another root hash"
        return None
    if not merkle.verify_consistency(old, checkpoint.size, old_root, checkpoint.root, proof):
        return f"the consistency proof from {old} to {checkpoint.size} does not verify"
    return None
