"""Run every path several times and print one table of medians.

Each run uses fresh data directories under one work directory and fresh
processes on free loopback ports; the loaded database of the scale path is
built once and kept in a cache directory, since it does not change between
runs. Everything stops by itself: loads are bounded in time and count, and
every child process is terminated when its block ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench import http_paths, lock_hold, memory, peer, procs, smtp_paths
from bench.drive import FULL, QUICK, Driver, Plan
from bench.report import ROWS, Figure, combine, cpu_table, table

log = logging.getLogger(__name__)

CPU_HEADING = (
    "Where the CPU goes (medians; ms per operation by process, and what the machine's "
    "cores allow each operation at the row's target rate, load and relay included):"
)
PATHS = ("submit", "status", "accepted", "recorded", "outbound", "scale", "memory")


@dataclass
class Options:
    quick: bool = False
    runs: int = 3
    paths: Sequence[str] = PATHS
    builtin_only: bool = False
    work_dir: Path | None = None
    cache_dir: Path | None = None
    keep: bool = False
    # "awaithumans": its create/get rates beside the gateway's submit/status (bench/peer.py).
    peer: str | None = None


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


async def _one_run(
    driver: Driver, work: Path, cache: Path, wanted: set[str], say: Callable[[str], None]
) -> dict[str, Figure]:
    figures: dict[str, Figure] = {}
    plan = driver.plan
    http_dir = work / "http"
    empty: http_paths.HttpFigures | None = None
    if wanted & {"submit", "status", "outbound", "scale", "memory"}:
        say("submit and status (HTTP, empty database)")
        empty = await http_paths.submit_and_status(driver, work, http_dir)
        figures["submit"], figures["status"] = empty.submit, empty.status
        if "peer" in wanted:
            say("peer: awaithumans create and get task (HTTP, empty database)")
            figures["peer_submit"], figures["peer_status"] = await peer.submit_and_status(
                driver, work, empty.submit.limit, empty.status.limit
            )
    if "outbound" in wanted:
        say("outbound (outbox -> relay)")
        figures["outbound"] = await smtp_paths.outbound(driver, work, http_dir)
    if wanted & {"accepted", "recorded"}:
        with procs.reference("smtp", work) as (_sink, sink_port):
            say("inbound accepted (SMTP 250)")
            figures["accepted"], sink_load = await smtp_paths.accepted(driver, work, sink_port)
            if "recorded" in wanted:
                say("inbound recorded (250 -> visible over HTTP)")
                figures["recorded"] = await smtp_paths.recorded(
                    driver, work, sink_port, sink_load.rate
                )
                say("write lock held per reply recorded (in-process)")
                replies = 80 if driver.plan is QUICK else 400
                figures["lock_hold"] = await asyncio.to_thread(lock_hold.figure, work, replies)
    if "scale" in wanted and empty is not None:
        say(f"scale: bulk-loaded {plan.scale_requests:,} requests, {plan.scale_turns:,} turns")
        source, loaded = await asyncio.to_thread(
            http_paths.scale_database, cache, plan.scale_requests, plan.scale_turns
        )
        # One copy for all runs: what a run's submits add is a rounding error at this size.
        scale_dir = work.parent / "scale"
        if not (scale_dir / "gateway.db").exists():
            await asyncio.to_thread(http_paths.copy_database, source, scale_dir)
        figures["scale_status"], figures["scale_submit"] = await http_paths.at_scale(
            driver, scale_dir, loaded, empty
        )
    if "memory" in wanted and empty is not None:
        say("memory (idle, idle SMTP connections, a large message under load)")
        mem = await memory.memory(driver, work, empty.bare_idle_rss_mb)
        figures["idle_rss"], figures["idle_smtp"] = mem.idle, mem.idle_smtp
        figures["large_message"] = mem.large_message
    return {k: v for k, v in figures.items() if _wanted_row(k, wanted)}


def _wanted_row(key: str, wanted: set[str]) -> bool:
    owner = {
        "scale_status": "scale",
        "scale_submit": "scale",
        "idle_rss": "memory",
        "idle_smtp": "memory",
        "large_message": "memory",
        "peer_submit": "peer",
        "peer_status": "peer",
        "lock_hold": "recorded",
    }.get(key, key)
    return owner in wanted


def plan_for(options: Options) -> Plan:
    return QUICK if options.quick else FULL


def run(options: Options, say: Callable[[str], None] = print) -> str:
    """Run the benchmark and return the report (machine, command, table)."""
    plan = plan_for(options)
    driver = Driver.detect(plan, builtin_only=options.builtin_only)
    wanted = set(options.paths)
    peer_note = ""
    if options.peer:
        reason = peer.skip_reason(driver)
        if reason is None and wanted & {"submit", "status"}:
            wanted.add("peer")
        else:
            peer_note = f"Peer {options.peer}: skipped: {reason or 'needs the submit path'}."
            say(peer_note)
    root = options.work_dir or Path(tempfile.mkdtemp(prefix="hfa-bench-"))
    cache = options.cache_dir or Path(tempfile.gettempdir()) / "hfa-bench-cache"
    cache.mkdir(parents=True, exist_ok=True)
    runs: list[dict[str, Figure]] = []
    started = time.monotonic()
    try:
        for n in range(options.runs):
            work = root / f"run-{n + 1}"
            work.mkdir(parents=True, exist_ok=True)

            def step(text: str, n: int = n) -> None:
                say(f"[run {n + 1}/{options.runs}, {time.monotonic() - started:5.0f}s] {text}")

            runs.append(asyncio.run(_one_run(driver, work, cache, wanted, step)))
    finally:
        if not options.keep:
            shutil.rmtree(root, ignore_errors=True)
    results = {
        spec.key: combine([r[spec.key] for r in runs if spec.key in r])
        for spec in ROWS
        if any(spec.key in r for r in runs)
    }
    tools = f"HTTP load: {'wrk' if driver.use_wrk else 'built-in asyncio'}; " + (
        f"SMTP load: {'smtp-source' if driver.use_smtp_source else 'built-in asyncio'} "
        "(accepted), built-in asyncio (recorded)"
    )
    spent = cpu_table(results, len(os.sched_getaffinity(0)))
    return "\n".join(
        [
            f"Machine: {machine()}",
            f"Runs: {options.runs} ({'quick' if options.quick else 'full'}), medians; "
            f"{time.monotonic() - started:.0f}s in all. {tools}.",
            *([peer_note] if peer_note else []),
            "",
            table(results),
            *(["", CPU_HEADING, "", spent] if spent else []),
        ]
    )
