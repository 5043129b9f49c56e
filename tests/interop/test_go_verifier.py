"""A verifier this project did not write checks the served log: Go's sumdb/note and sumdb/tlog.

``tests/interop/c2spcheck/main.go`` is built against Debian's golang-golang-x-mod-dev
(``/usr/share/gocode``, GOPATH mode, offline) with Debian's Go, both installed by
``.ci/run``. It fetches the checkpoint over HTTP and checks its signature with the
note verifier key, recomputes the tree hash from the tiles, proves an entry read from
its entry bundle, and proves an older checkpoint consistent with the served one; and it
checks each ``.tlog-proof`` of an evidence bundle offline. The
test says why when it cannot run (no Go, no x/mod sources).
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import subprocess
import zipfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gateway.settings.config import Config
from gateway.store import checkpoint as notes
from tests import auditkit
from tests.conftest import Running, SmtpSink, start_running, stop_running
from tests.evidence.kit import export_of

GOCODE = Path("/usr/share/gocode")
SOURCE = Path(__file__).parent / "c2spcheck"
TOKEN = "audit-reader-0123456789"
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
BUILD_SECONDS = 300
RUN_SECONDS = 120


def _why_not() -> str | None:
    if shutil.which("go") is None:
        return "Go is not installed (.ci/run installs Debian's golang-go)"
    if not (GOCODE / "src/golang.org/x/mod/sumdb/tlog").is_dir():
        return f"golang.org/x/mod is not in {GOCODE} (.ci/run installs golang-golang-x-mod-dev)"
    return None


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go program, built offline from Debian's sources only."""
    work = tmp_path_factory.mktemp("go")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "GO111MODULE": "off",
        "GOPATH": str(GOCODE),
        "GOCACHE": str(work / "cache"),
        "GOFLAGS": "",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
    }
    binary = work / "c2spcheck"
    built = subprocess.run(
        ["go", "build", "-o", str(binary), "."],
        cwd=SOURCE,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return binary


@pytest.fixture
async def served(config: Config, sink: SmtpSink) -> AsyncIterator[Running]:
    running = await start_running(config.with_overrides(audit_read_token=TOKEN), sink)
    yield running
    await stop_running(running)


async def _grow(running: Running, count: int) -> None:
    services = running.services
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "test.entry", at=NOW, details={"i": i})
    auditkit.settle(services)


async def _check(binary: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        str(binary), *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(process.communicate(), RUN_SECONDS)
    return int(process.returncode or 0), out.decode()


async def test_go_checks_the_checkpoint_tiles_and_proofs(
    served: Running, checker: Path, tmp_path: Path
) -> None:
    http = served.http
    await _grow(served, 300)
    old = tmp_path / "old-checkpoint.txt"
    old.write_text((await http.get("/audit/checkpoint")).text)
    await _grow(served, 270)
    vkey = (await http.get("/audit/key")).text.splitlines()[0]
    prefix = f"http://127.0.0.1:{served.gateway.http_port}/audit"
    args = ["-prefix", prefix, "-vkey", vkey, "-old", str(old), "-token", TOKEN]
    for index in (0, 299, 300, 520):
        code, out = await _check(checker, *args, "-index", str(index))
        assert code == 0 and out.startswith("OK "), out
    # The same program fails for a key that did not sign the log, and for an entry
    # the tiles do not prove (its bundle is read with a token the gateway refuses).
    other = notes.verifier_key(vkey.split("+")[0], Ed25519PrivateKey.generate().public_key())
    code, out = await _check(checker, *args[:2], "-vkey", other, *args[4:], "-index", "1")
    assert code == 1 and out.startswith("FAILED checkpoint signature"), out
    code, out = await _check(checker, *args[:-1], "wrong-token", "-index", "1")
    assert code == 1 and "401" in out, out


async def test_go_checks_each_tlog_proof_of_an_evidence_bundle(
    served: Running, checker: Path, tmp_path: Path
) -> None:
    filed = await served.file(request="May we sign the NDA?")
    out = tmp_path / "bundle.zip"
    await asyncio.to_thread(export_of, served, filed["reference"], out)
    folder = tmp_path / "bundle"
    with zipfile.ZipFile(out) as bundle:
        bundle.extractall(folder)
    vkey = (folder / "keys.txt").read_text().split()[-1]
    proofs = sorted(str(p) for p in (folder / "audit" / "proofs").glob("*.tlog-proof"))
    assert len(proofs) >= 2
    code, out_text = await _check(checker, "-vkey", vkey, "-proof", *proofs)
    assert code == 0 and out_text.startswith(f"OK {len(proofs)} tlog-proofs"), out_text
    forged = Path(proofs[0])
    lines = forged.read_text().split("\n")
    lines[1] = "extra " + base64.b64encode(b'{"forged":true}').decode()
    forged.write_text("\n".join(lines))
    code, out_text = await _check(checker, "-vkey", vkey, "-proof", *proofs)
    assert code == 1 and "is not in the tree" in out_text, out_text
