"""Every audit entry of a bundle comes with a C2SP tlog-proof that stands on its own."""

from __future__ import annotations

import asyncio
import base64
import json
import zipfile
from pathlib import Path

import pytest

from gateway.evidence import verifier
from gateway.evidence.verifier import tlogproof
from gateway.evidence.verifier.proofs import NoteError
from gateway.store import checkpoint as notes
from gateway.store import merkle
from tests.conftest import Running
from tests.evidence.kit import export_of


async def test_each_entry_has_a_tlog_proof_and_a_changed_one_fails(
    running: Running, tmp_path: Path
) -> None:
    filed = await running.file(request="May we sign the NDA?")
    out = tmp_path / "bundle.zip"
    done = await asyncio.to_thread(export_of, running, filed["reference"], out)
    files = dict(done.bundle.files)
    entries = json.loads(files["audit/entries.json"])["entries"]
    vkeys = files["keys.txt"].decode().split()
    assert entries
    for item in entries:
        text = files[f"audit/proofs/{item['leaf_index']}.tlog-proof"].decode()
        # Read as the specification lays it out, with the gateway's parts left aside.
        head, _, note = text.partition("\n\n")
        lines = head.split("\n")
        assert lines[0] == "c2sp.org/tlog-proof@v1"
        assert lines[2] == f"index {item['leaf_index']}"
        extra = base64.b64decode(lines[1].removeprefix("extra "))
        assert json.loads(extra) == item["entry"]
        checkpoint = notes.verify(note, [notes.parse_verifier_key(k) for k in vkeys])
        path = [base64.b64decode(h) for h in lines[3:]]
        leaf = merkle.leaf_hash(extra)
        assert merkle.verify_inclusion(
            item["leaf_index"], checkpoint.size, leaf, path, checkpoint.root
        )
        assert note == files["checkpoint.txt"].decode()
    verdict = verifier.verify_files(files)
    assert verdict.ok and f"{len(entries)} .tlog-proof files verified on their own" in verdict.notes
    # A proof whose entry was changed no longer leads to the root; one removed is missed.
    first = f"audit/proofs/{entries[0]['leaf_index']}.tlog-proof"
    text = files[first].decode()
    forged = base64.b64encode(json.dumps({"forged": True}).encode()).decode()
    lines = text.split("\n")
    lines[1] = f"extra {forged}"
    files[first] = "\n".join(lines).encode()
    broken = verifier.verify_files(files)
    assert any(p.path == first and "does not lead" in p.what for p in broken.problems)
    del files[first]
    assert any(
        p.path == first and "missing" in p.what for p in verifier.verify_files(files).problems
    )
    with zipfile.ZipFile(out) as bundle:
        assert bundle.read(first).decode() == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "c2sp.org/tlog-proof@v2\nindex 0\n\nx",
        "c2sp.org/tlog-proof@v1\nindex 01\n\nx",
        "c2sp.org/tlog-proof@v1\nextra !!\nindex 0\n\nx",
        "c2sp.org/tlog-proof@v1\nindex 0\nAAAA\n\nx",
    ],
)
def test_a_proof_file_is_read_strictly(text: str) -> None:
    with pytest.raises(NoteError):
        tlogproof.parse(text)
