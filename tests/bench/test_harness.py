"""``hfa bench --quick`` runs end to end and produces every row of the table.

The figures depend on the machine and are not asserted; what is checked is
that every hot path was measured against its limit, so the harness keeps
working as the code changes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import peer
from bench.drive import QUICK, Driver
from bench.harness import CPU_HEADING
from bench.harness import PATHS as HARNESS_PATHS
from bench.report import ROWS
from bench.tools import UNIQUE, wrk_script
from gateway.cli import bench as bench_command
from gateway.cli import main

# The processes whose CPU each row always accounts for. The composing process is left out:
# a worker starts it only for a large enough batch, and never on a one-core machine.
CPU_ROLES = {
    "submit": {"gateway"},
    "recorded": {"listeners", "worker", "reading", "load"},
    "outbound": {"worker", "relay"},
}


def test_the_command_offers_the_harness_paths() -> None:
    # `hfa bench --help` works without importing the harness, so it keeps its own list.
    assert tuple(bench_command.PATHS) == tuple(HARNESS_PATHS)


def test_an_installed_wheel_says_to_run_from_a_checkout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What an installed wheel sees: no bench package at all.
    monkeypatch.setattr(bench_command, "HARNESS", "bench_not_installed.harness")
    assert main(["bench", "--quick"]) == 2
    err = capsys.readouterr().err
    assert "ships with the source, not the wheel" in err and "checkout" in err


@pytest.mark.slow
def test_quick_bench_prints_every_row(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gateway",
            "bench",
            "--quick",
            "--work-dir",
            str(tmp_path / "work"),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        capture_output=True,
        text=True,
        # A guard against a hang, not a bound on speed: on a busy 2-core machine the
        # quick run alone took 145 s of wall time.
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures, heading, spent = done.stdout.partition(CPU_HEADING)
    lines = figures.splitlines()
    assert lines[0].startswith("Machine: ")
    rows = {line.split(" | ")[0].strip("| "): line for line in lines if line.startswith("| ")}
    for spec in ROWS:
        if spec.key.startswith("peer_"):
            # Only with --peer (test_the_peer_rows_are_skipped_with_a_reason).
            continue
        assert spec.path in rows, f"missing row {spec.path!r} in:\n{done.stdout}"
        cells = [c.strip() for c in rows[spec.path].strip("|").split("|")]
        # path, gateway, limit: both figures were measured (a number with its unit).
        assert cells[1][0].isdigit(), rows[spec.path]
        assert cells[2][0].isdigit(), rows[spec.path]
    # Where each operation's CPU went, for the rows with a rate target that measure it.
    assert heading, done.stdout
    spent_rows = {
        line.split(" | ")[0].strip("| "): line for line in spent.splitlines() if "ms (" in line
    }
    for key, roles in CPU_ROLES.items():
        path = next(spec.path for spec in ROWS if spec.key == key)
        cells = [c.strip() for c in spent_rows[path].strip("|").split("|")]
        measured = dict(part.rsplit(" ", 1) for part in cells[1].split(", "))
        assert roles <= set(measured), (roles, cells[1])
        assert all(float(ms) > 0 for role, ms in measured.items() if role in roles), cells[1]
        assert float(cells[2]) > 0 and cells[3].endswith(")"), cells
    # Nothing was left running: the work directory's processes were all stopped.
    assert "exited early" not in done.stderr


def test_the_peer_rows_are_skipped_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_AWAITHUMANS", "/nonexistent/bin/awaithumans")
    reason = peer.skip_reason(Driver(QUICK, use_wrk=True, use_smtp_source=False))
    assert reason is not None and "awaithumans is not installed" in reason
    assert "pip install 'awaithumans[server]==0.1.12'" in reason


def test_the_peer_needs_wrk_for_distinct_filings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    command = tmp_path / "awaithumans"
    command.write_text("#!/bin/sh\n")
    monkeypatch.setenv("BENCH_AWAITHUMANS", str(command))
    assert peer.skip_reason(Driver(QUICK, use_wrk=True, use_smtp_source=False)) is None
    reason = peer.skip_reason(Driver(QUICK, use_wrk=False, use_smtp_source=False))
    assert reason is not None and "wrk" in reason


def test_a_body_with_a_counter_makes_every_wrk_request_distinct() -> None:
    script = wrk_script("POST", f'{{"idempotency_key": "k-{UNIQUE}"}}', {})
    assert "request = function()" in script and "string.gsub(wrk.body" in script
    assert "request = function()" not in wrk_script("POST", '{"a": 1}', {})
