"""Flip each byte of each file of a real bundle: every flip is found, naming the file."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gateway.evidence import verifier
from gateway.evidence.bundle import sign_manifest
from gateway.store.signing import LogKeys
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.evidence.kit import all_sent, answered, export_of

# Files up to this size have every byte flipped; a bigger one has every byte of its
# first and last EDGE bytes and a byte in every stride between, so every file is touched.
EVERY_BYTE = 1024
EDGE = 32
SPREAD = 96


@pytest.fixture
async def running_sqlite(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    running = await start_running(make_config(tmp_path / "gw"), sink)
    yield running
    await stop_running(running)


def positions(size: int) -> list[int]:
    if size <= EVERY_BYTE:
        return list(range(size))
    stride = max((size - 2 * EDGE) // SPREAD, 1)
    middle = range(EDGE, size - EDGE, stride)
    return sorted({*range(EDGE), *middle, *range(size - EDGE, size)})


async def test_every_flipped_byte_of_every_file_is_reported_naming_the_file(
    running_sqlite: Running, tmp_path: Path
) -> None:
    filed = await answered(running_sqlite, "May we sign?", "Approved, within budget.\n\nDana")
    await all_sent(running_sqlite)
    done = await asyncio.to_thread(
        export_of, running_sqlite, filed["reference"], tmp_path / "b.zip"
    )
    files = done.bundle.files
    assert verifier.verify_files(files).ok
    flips = 0
    for name, content in files.items():
        for position in positions(len(content)):
            changed = bytearray(content)
            # One bit: the smallest change, the one most easily missed (a spare bit of
            # base64, a letter's case).
            changed[position] ^= 0x01
            verdict = verifier.verify_files({**files, name: bytes(changed)})
            flips += 1
            assert not verdict.ok, (name, position)
            named = [p for p in verdict.problems if p.path == name]
            assert named, (name, position, verdict.problems)
            assert all(p.what for p in named)
    assert flips >= len(files) * 100
    # A bundle re-signed with another key (keys.txt swapped too) passes only on its own
    # word: against the operator's published key it fails.
    published = files["keys.txt"].decode().split()
    assert verifier.verify_files(files, published).ok
    other = Ed25519PrivateKey.generate()
    forger = LogKeys(published[0].partition("+")[0], (other,))
    forged = dict(files)
    forged["keys.txt"] = (forger.verifier_keys()[0] + "\n").encode()
    # (the manifest lists keys.txt's hash, so the forger rewrites and re-signs it too)
    manifest = json.loads(files["manifest.json"])
    for item in manifest["files"]:
        if item["path"] == "keys.txt":
            item["sha256"] = hashlib.sha256(forged["keys.txt"]).hexdigest()
    forged["manifest.json"] = verifier.json_bytes(manifest)
    forged["manifest.sig"] = sign_manifest(
        forged["manifest.json"], done.bundle.reference, forger
    ).encode()
    assert not verifier.verify_files(forged, published).ok
    pinned = [p.path for p in verifier.verify_files(forged, published).problems]
    assert "manifest.sig" in pinned
    # A file slipped in, and one taken out, are named too.
    added = verifier.verify_files({**files, "messages/999-inbound-reply.eml": b"From: x"})
    assert [p.path for p in added.problems] == ["messages/999-inbound-reply.eml"]
    removed = {k: v for k, v in files.items() if k != "report.html"}
    assert [p.path for p in verifier.verify_files(removed).problems] == ["report.html"]
