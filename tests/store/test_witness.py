"""The witness's answers, as C2SP tlog-witness lays them down, one refusal at a time."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gateway.store import checkpoint as notes
from gateway.store import cosign, merkle
from gateway.store.witness import Witness

ORIGIN = "log.test/audit"
LOG_KEY = Ed25519PrivateKey.generate()
LEAVES = [merkle.leaf_hash(str(i).encode()) for i in range(9)]
NOW = 1_800_000_000


def _note(size: int, key: Ed25519PrivateKey = LOG_KEY, origin: str = ORIGIN) -> str:
    checkpoint = notes.Checkpoint(origin, size, merkle.root_of(LEAVES[:size]))
    return notes.sign(checkpoint, origin, key)


def _body(old: int, size: int, proof: list[bytes] | None = None, note: str | None = None) -> str:
    if proof is None:
        proof = merkle.consistency_proof(old, LEAVES[:size]) if 0 < old < size else []
    lines = [f"old {old}", *(base64.b64encode(h).decode() for h in proof)]
    return "\n".join(lines) + "\n\n" + (note or _note(size))


@pytest.fixture
def witness(tmp_path: Path) -> Witness:
    return Witness(
        "witness.test/w",
        Ed25519PrivateKey.generate(),
        {ORIGIN: [LOG_KEY.public_key()]},
        tmp_path / "w.json",
    )


def test_the_witness_cosigns_a_consistent_log_and_keeps_its_size(witness: Witness) -> None:
    first = witness.add_checkpoint(_body(0, 3), NOW)
    assert first.status == 200
    cosigner = cosign.parse_vkey(witness.vkey())
    assert cosign.verify_line(_note(3).partition("\n\n")[0] + "\n", first.body, cosigner) == NOW
    assert witness.add_checkpoint(_body(3, 7), NOW + 1).status == 200
    # The same size and root again is cosigned; the state survives a new process.
    again = Witness(witness.name, witness.key, witness.logs, witness.state)
    assert again.add_checkpoint(_body(7, 7), NOW + 2).status == 200
    assert str(again.latest(ORIGIN)).startswith(_note(7))


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (lambda: _body(0, 3, note=_note(3, origin="other.test/log")), 404),
        (lambda: _body(0, 3, note=_note(3, key=Ed25519PrivateKey.generate())), 403),
        (lambda: _body(5, 3), 400),
        (lambda: "old 01\n\n" + _note(3), 400),
        (lambda: _body(0, 3, proof=[LEAVES[0]]), 422),
    ],
)
def test_each_refusal_has_its_status(witness: Witness, body: object, status: int) -> None:
    assert callable(body)
    assert witness.add_checkpoint(body(), NOW).status == status


def test_a_stale_old_size_gets_409_with_the_witness_size_and_a_bad_proof_422(
    witness: Witness,
) -> None:
    assert witness.add_checkpoint(_body(0, 4), NOW).status == 200
    stale = witness.add_checkpoint(_body(0, 6), NOW)
    assert (stale.status, stale.body, stale.content_type) == (409, "4\n", "text/x.tlog.size")
    wrong = merkle.consistency_proof(3, LEAVES[:6])
    assert witness.add_checkpoint(_body(4, 6, proof=wrong), NOW).status == 422
    forked = notes.sign(notes.Checkpoint(ORIGIN, 4, LEAVES[0]), ORIGIN, LOG_KEY)
    assert witness.add_checkpoint(_body(4, 4, note=forked), NOW).status == 422
    # Refused requests leave the witness where it was.
    assert witness.add_checkpoint(_body(4, 6), NOW).status == 200
