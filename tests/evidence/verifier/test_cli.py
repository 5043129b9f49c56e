"""An unzipped bundle is checked as the zip is, by a ``verify.py`` from another folder.

The verifier that runs is never the folder's own: ``verify.py`` refuses to check the folder
it runs from (or one that holds it), and the folder's files are read within the zip's bounds.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import zipfile
from pathlib import Path

from gateway.evidence.export import verify
from tests.conftest import Running
from tests.evidence.kit import export_of


def _outsider(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Only the script's folder, Python and cryptography: not the gateway (-I)."""
    return subprocess.run(
        [sys.executable, "-I", str(script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def _unzipped(running: Running, tmp_path: Path, *folders: str) -> tuple[str, list[Path]]:
    filed = await running.file(request="May we sign the NDA?")
    out = tmp_path / "bundle.zip"
    await asyncio.to_thread(export_of, running, filed["reference"], out)
    made = []
    for name in folders:
        with zipfile.ZipFile(out) as bundle:
            bundle.extractall(tmp_path / name)
        made.append(tmp_path / name)
    return filed["reference"], made


async def test_a_trusted_verify_py_checks_another_unzipped_bundle(
    running: Running, tmp_path: Path
) -> None:
    reference, (trusted, folder) = await _unzipped(running, tmp_path, "trusted", "unzipped")
    script = trusted / "verify.py"
    whole = f"OK: the evidence of {reference} is whole"
    for args, cwd in (((str(folder),), tmp_path), ((".",), folder), (("../unzipped",), trusted)):
        checked = _outsider(script, *args, cwd=cwd)
        assert checked.returncode == 0 and whole in checked.stdout, checked.stdout + checked.stderr
    # Python's bytecode in the checked folder is not evidence; the gateway's own check agrees.
    (folder / "hfa_verify" / "__pycache__").mkdir(exist_ok=True)
    (folder / "hfa_verify" / "__pycache__" / "checks.cpython-311.pyc").write_bytes(b"\0")
    assert verify(folder).ok
    assert _outsider(script, str(folder), cwd=tmp_path).returncode == 0

    # Each change to the folder is named, as in the zip.
    thread = folder / "thread.json"
    original = thread.read_bytes()
    thread.write_bytes(original.replace(b"May we sign", b"May we burn"))
    edited = _outsider(script, str(folder), cwd=tmp_path)
    assert edited.returncode == 1 and "FAILED thread.json" in edited.stdout, edited.stdout
    thread.write_bytes(original)
    (folder / "extra.txt").write_text("added later")
    assert "extra.txt" in " ".join(p.describe() for p in verify(folder).problems)
    (folder / "extra.txt").unlink()
    (folder / "messages.json").unlink()
    missing = verify(folder)
    assert not missing.ok and "messages.json" in str(missing.problems)


async def test_verify_py_never_checks_the_folder_it_runs_from(
    running: Running, tmp_path: Path
) -> None:
    _, (folder,) = await _unzipped(running, tmp_path, "unzipped")
    script = folder / "verify.py"
    # Its own folder, however named, or a folder that holds it: its code would vouch for itself.
    for args, cwd in (((".",), folder), ((str(folder),), tmp_path), ((str(tmp_path),), tmp_path)):
        refused = _outsider(script, *args, cwd=cwd)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "nothing was checked" in refused.stdout and "OK" not in refused.stdout
    assert _outsider(script, cwd=folder).returncode == 2  # no folder named: nothing checked


async def test_code_in_the_checked_folder_is_never_run(running: Running, tmp_path: Path) -> None:
    _, (trusted, folder) = await _unzipped(running, tmp_path, "trusted", "unzipped")
    marker = tmp_path / "ran"
    planted = (
        f"open({str(marker)!r}, 'w').write('ran')\ndef main(argv=None, here=None):\n    return 0\n"
    )
    for name in ("cli.py", "__init__.py", "checks.py"):
        (folder / "hfa_verify" / name).write_text(planted)
    (folder / "verify.py").write_text(planted)
    checked = _outsider(trusted / "verify.py", str(folder), cwd=folder)
    assert checked.returncode == 1 and "FAILED hfa_verify/cli.py" in checked.stdout, checked.stdout
    assert not verify(folder).ok
    assert not marker.exists()
