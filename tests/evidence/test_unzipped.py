"""An unzipped bundle is checked as the zip is: from inside it with ``python3 verify.py``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import zipfile
from pathlib import Path

from gateway.evidence import verifier
from gateway.evidence.export import verify
from tests.conftest import Running
from tests.evidence.kit import export_of


def _outsider(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Only the folder, Python and cryptography: not the gateway (-I)."""
    return subprocess.run(
        [sys.executable, "-I", "verify.py", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_verify_py_checks_the_folder_it_was_unzipped_into(
    running: Running, tmp_path: Path
) -> None:
    filed = await running.file(request="May we sign the NDA?")
    out = tmp_path / "bundle.zip"
    await asyncio.to_thread(export_of, running, filed["reference"], out)
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(out) as bundle:
        bundle.extractall(folder)
    whole = f"OK: the evidence of {filed['reference']} is whole"
    for args in ((), (".",), (str(folder),)):
        checked = _outsider(folder, *args)
        assert checked.returncode == 0 and whole in checked.stdout, checked.stdout + checked.stderr
    # Python's bytecode beside the verifier is not evidence; the gateway's own check agrees.
    (folder / "hfa_verify" / "__pycache__").mkdir(exist_ok=True)
    (folder / "hfa_verify" / "__pycache__" / "checks.cpython-311.pyc").write_bytes(b"\0")
    assert verify(folder).ok
    assert _outsider(folder).returncode == 0

    # Each change to the folder is named, as in the zip.
    thread = folder / "thread.json"
    original = thread.read_bytes()
    thread.write_bytes(original.replace(b"May we sign", b"May we burn"))
    edited = _outsider(folder)
    assert edited.returncode == 1 and "FAILED thread.json" in edited.stdout, edited.stdout
    thread.write_bytes(original)
    (folder / "extra.txt").write_text("added later")
    assert "extra.txt" in " ".join(p.describe() for p in verify(folder).problems)
    (folder / "extra.txt").unlink()
    (folder / "messages.json").unlink()
    missing = verify(folder)
    assert not missing.ok and "messages.json" in str(missing.problems)


def test_a_link_in_the_folder_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").symlink_to("/etc/hostname")
    verdict = verifier.verify_folder(str(tmp_path))
    assert not verdict.ok
    assert "manifest.json: a link or special file" in verdict.problems[0].what
