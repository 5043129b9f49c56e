"""Hostile zips against every verifier: refused in one sentence, within 200 MB and 5 CPU s.

The verifiers: ``hfa evidence verify`` (the installed one), the ``verify.py`` of a real
bundle unzipped beside its ``hfa_verify/``, and that ``verify.py`` alone in a folder
beside the zip. Each runs in a child whose peak memory (``ru_maxrss``) and time are
measured (peak memory, and CPU time so that a busy machine does not count); none may run
code from the zip it checks.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import zipfile
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import pytest

from gateway.evidence import verifier
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.evidence.kit import all_sent, answered, export_of

MIB = 1024 * 1024
MEMORY_MB = 200
# CPU seconds (user and system) of the verifier's process: what a zip costs it, whatever
# else the machine runs; the wall clock is only kept from hanging.
SECONDS = 5.0
WALL_SECONDS = 30.0
# The child reports its own child's peak RSS and time, as the review's probe did.
MEASURE = """
import json, resource, subprocess, sys, time
started = time.monotonic()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=60)
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "rc": done.returncode,
    "seconds": time.monotonic() - started,
    "cpu": used.ru_utime + used.ru_stime,
    "mb": used.ru_maxrss / 1024,
    "out": done.stdout + done.stderr,
}))
"""


@pytest.fixture
async def running_sqlite(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    running = await start_running(make_config(tmp_path / "gw"), sink)
    yield running
    await stop_running(running)


def measured(command: list[str], cwd: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def rebuilt(
    real: Path, out: Path, extra: Iterable[tuple[str, Iterable[bytes]]], **keep: Any
) -> Path:
    """The real bundle's members (but those replaced), then ``extra``, each streamed in."""
    replaced = dict(keep.get("replace", {}))
    with zipfile.ZipFile(real) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename not in replaced:
                dst.writestr(info, src.read(info))
        for name, chunks in [*replaced.items(), *extra]:
            with dst.open(name, "w", force_zip64=True) as member:
                for chunk in chunks:
                    member.write(chunk)
    return out


def zeros(size: int) -> Iterable[bytes]:
    block = bytes(MIB)
    for _ in range(size // MIB):
        yield block


def huge_manifest(size: int) -> Iterable[bytes]:
    entry = b'{"path": "messages/x.eml", "role": "x", "size": 1, "sha256": "' + b"0" * 64 + b'"}, '
    yield b'{"format": "hfa-evidence/1", "reference": "HFA-00001", "files": ['
    block = entry * (MIB // len(entry))
    for _ in range(size // len(block)):
        yield block
    yield entry[:-2] + b"]}"


def forged(out: Path, marker: Path) -> Path:
    """A bundle that carries its own verifier, which says OK and leaves a mark."""
    code = (
        "import pathlib\n"
        "def main(argv=None):\n"
        f"    pathlib.Path({str(marker)!r}).write_text('code from the bundle ran')\n"
        "    print('OK: the evidence of HFA-00001 is whole and proved by the audit log')\n"
        "    return 0\n"
    )
    with zipfile.ZipFile(out, "w") as bundle:
        bundle.writestr("hfa_verify/__init__.py", "")
        bundle.writestr("hfa_verify/cli.py", code)
        bundle.writestr("manifest.json", b"{}")
    return out


def many_members(out: Path, count: int) -> Path:
    with zipfile.ZipFile(out, "w") as bundle:
        for number in range(count):
            bundle.writestr(f"pad/{number}", b"x")
    return out


def as_zip64(real: Path, out: Path) -> Path:
    """The real bundle, every member written with ZIP64 records."""
    with zipfile.ZipFile(real) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            with dst.open(info.filename, "w", force_zip64=True) as member:
                member.write(src.read(info))
    return out


def hostile(real: Path, base: Path, marker: Path) -> dict[str, tuple[Path, str]]:
    """Each hostile zip and the words its one-sentence refusal holds."""
    evil_cli = (real.parent / "evil_cli.py").read_bytes()
    return {
        "forged, own hfa_verify/": (forged(base / "forged.zip", marker), "keys.txt: missing"),
        "real, hfa_verify/cli.py replaced": (
            rebuilt(real, base / "swap.zip", [], replace={"hfa_verify/cli.py": [evil_cli]}),
            "hfa_verify/cli.py: its SHA-256 is not the one the signed manifest lists",
        ),
        "6 x 255 MiB of zeros": (
            rebuilt(
                real, base / "bomb.zip", [(f"pad/{n}.bin", zeros(255 * MIB)) for n in range(6)]
            ),
            "uncompressed, more than the 256.0 MiB this verifier reads",
        ),
        "260 MB manifest.json": (
            rebuilt(
                real, base / "m260.zip", [], replace={"manifest.json": huge_manifest(260 * MIB)}
            ),
            "uncompressed, more than the 256.0 MiB this verifier reads",
        ),
        "100 MB manifest.json": (
            rebuilt(
                real, base / "m100.zip", [], replace={"manifest.json": huge_manifest(100 * MIB)}
            ),
            "manifest.json: not read: 100.0 MiB, more than is left of what this verifier parses",
        ),
        "100,000 tiny members (ZIP64)": (
            many_members(base / "many.zip", 100_000),
            "100000 members",
        ),
    }


async def test_hostile_zips_are_refused_by_every_verifier_in_one_sentence_within_bounds(
    running_sqlite: Running, tmp_path: Path
) -> None:
    filed = await answered(running_sqlite, "May we sign?", "Approved.\n\nDana")
    await all_sent(running_sqlite)
    real = tmp_path / "real.zip"
    await asyncio.to_thread(export_of, running_sqlite, filed["reference"], real)
    unzipped, alone, outside = tmp_path / "unzipped", tmp_path / "alone", tmp_path / "outside"
    alone.mkdir()
    outside.mkdir()
    with zipfile.ZipFile(real) as bundle:
        bundle.extractall(unzipped)
        (alone / "verify.py").write_bytes(bundle.read("verify.py"))
    marker = outside / "evil-ran.txt"
    (tmp_path / "evil_cli.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        "def main(argv=None):\n    print('OK')\n    return 0\n"
    )
    verifiers = {
        "hfa": [sys.executable, "-m", "gateway", "evidence", "verify"],
        "unzipped": [sys.executable, str(unzipped / "verify.py")],
        "alone": [sys.executable, str(alone / "verify.py")],
    }
    cases = await asyncio.to_thread(hostile, real, tmp_path, marker)
    zip64 = await asyncio.to_thread(as_zip64, real, tmp_path / "zip64.zip")
    figures = {}
    for label, (hostile_zip, words) in cases.items():
        for mode, command in verifiers.items():
            run = await asyncio.to_thread(measured, [*command, str(hostile_zip)], tmp_path)
            figures[label, mode] = (round(run["mb"]), round(run["cpu"], 2))
            lines = run["out"].strip().splitlines()
            assert run["rc"] != 0 and not marker.exists(), (label, mode, run)
            assert "Traceback" not in run["out"] and "OK" not in run["out"], (label, mode, run)
            if mode == "alone":
                # No verifier it trusts beside it: it says so, and checks nothing.
                assert lines == [lines[0]] and "no trusted verifier beside it" in lines[0]
            else:
                failed = [line for line in lines if line.startswith("FAILED")]
                assert len(failed) == 1 and words in failed[0], (label, mode, lines)
            assert run["mb"] < MEMORY_MB and run["cpu"] < SECONDS, (label, mode, run)
            assert run["seconds"] < WALL_SECONDS, (label, mode, run)
    # Within the bounds, a changed email of 250 MiB and a JSON bomb: refused, cheaply.
    email = json.loads((unzipped / "messages.json").read_bytes())[0]["path"]
    heavy = {
        email: zeros(250 * MIB),
        "thread.json": [b"[" + b"{}," * (4 * MIB // 3 - 1) + b"{}]"],
    }
    for name, content in heavy.items():
        hostile_zip = await asyncio.to_thread(
            rebuilt, real, tmp_path / "heavy.zip", [], replace={name: content}
        )
        for mode in ("hfa", "unzipped"):
            run = await asyncio.to_thread(measured, [*verifiers[mode], str(hostile_zip)], tmp_path)
            figures[name, mode] = (round(run["mb"]), round(run["cpu"], 2))
            assert run["rc"] == 1 and f"FAILED {name}: its SHA-256" in run["out"], run
            assert run["mb"] < MEMORY_MB and run["cpu"] < SECONDS, (name, mode, run)
            assert run["seconds"] < WALL_SECONDS, (name, mode, run)
    # The manifest is parsed only once its signature vouches for its hash: a manifest
    # that is not JSON at all is named for that, not parsed.
    files = verifier.read_zip(str(real))
    unsigned = verifier.verify_files({**files, "manifest.json": b"[" * 100_000})
    assert [p.describe() for p in unsigned.problems] == [
        "manifest.json: is not the manifest manifest.sig signs: no file's hash can be trusted"
    ]
    # A genuine bundle written with ZIP64 records is read like any other.
    for mode in ("hfa", "unzipped"):
        run = await asyncio.to_thread(measured, [*verifiers[mode], str(zip64)], tmp_path)
        assert run["rc"] == 0 and "OK: the evidence" in run["out"], (mode, run)
    print(json.dumps({f"{label} / {mode}": v for (label, mode), v in figures.items()}, indent=1))


def test_a_verdict_of_thousands_of_problems_prints_a_bounded_number_of_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    verdict = verifier.Verdict()
    for number in range(10_000):
        verdict.fail(f"pad/{number}", "not in the signed manifest: added after the export")
    verifier.print_verdict(verdict)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 41 and lines[-1] == "FAILED ... and 9960 more"
