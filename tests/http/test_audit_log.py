"""GET /audit/checkpoint over real HTTP: the newest signed checkpoint, checked by an outsider."""

from __future__ import annotations

import asyncio

from gateway.store import checkpoint as notes
from gateway.store import merkle, signing
from gateway.store.audit_proof import inclusion
from tests.conftest import Running


async def test_a_witness_fetches_the_checkpoint_and_a_proof_leads_to_it(running: Running) -> None:
    await running.file()
    services = running.services
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    # What a witness configures: the verifier key that 'hfa audit key' prints.
    witness_key = notes.parse_verifier_key(keys.verifier_keys()[-1])
    checkpoint = None
    for _ in range(100):
        response = await running.http.get("/audit/checkpoint")
        if response.status_code == 200:
            checkpoint = notes.verify(response.text, [witness_key])
            if checkpoint.size >= 3:
                break
        await asyncio.sleep(0.1)
    assert checkpoint is not None and checkpoint.size >= 3, "no checkpoint covered the filing"
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["cache-control"] == "no-store"
    # The request's own entry is proved against the very checkpoint the witness holds.
    with services.db.read_only() as session:
        proof = inclusion(session, 1, checkpoint.size)
    path = proof.hashes
    leaf = merkle.leaf_hash(proof.as_json()["leaf_data"].encode())
    assert (
        merkle.root_from_inclusion(proof.leaf_index, checkpoint.size, leaf, path) == checkpoint.root
    )
