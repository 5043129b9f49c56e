"""Measure the C2SP side of the audit log: ``python -m bench.tiles [--database-url URL]``.

1. a checkpoint's cost: the sequencer's batch (leaves, checkpoint, commit) after 1 and
   after 100 new entries, its SQL statements (counted on the engine) and its wall time,
   and the Ed25519 signature alone; then the round that has it cosigned by two witnesses
   (``hfa witness``'s app on loopback, in this process): statements and wall time;
2. serving: requests per second over keep-alive connections from this process to an
   ``hfa serve --role http`` process, for a full level-0 tile (kept in memory after its
   first read), a full entry bundle, the checkpoint, and, beside them, the status read
   of a ten-turn thread (``GET /v1/requests/{ref}``);
3. an evidence bundle's proofs: the bytes of ``audit/entries.json`` (entries and paths),
   of ``checkpoint.txt`` and of the ``.tlog-proof`` files, for the ten-turn thread.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import tempfile
import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import event

from bench import loadgen, procs
from bench.http_paths import thread_of_ten
from gateway.clock import Clock
from gateway.evidence.export import export
from gateway.http.witness import witness_app
from gateway.outbound import witnesses
from gateway.services import Services, build_services
from gateway.settings.config import load_config
from gateway.store import audit_origin, cosign, signing
from gateway.store import checkpoint as notes
from gateway.store.sequencer import Sequencer
from gateway.store.witness import Witness

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
ROUNDS = 30
LOAD_SECONDS = 5.0
CONNECTIONS = 8


def _services(data_dir: Path, database_url: str) -> Services:
    env = procs.gateway_env(data_dir, procs.GatewayPorts(0, 0), None, database_url=database_url)
    return build_services(load_config(env=env))


def _append(services: Services, count: int) -> None:
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "bench.entry", at=NOW, details={"i": i})


def checkpoint_cost(services: Services) -> None:
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    statements = 0

    def count(*_args: Any) -> None:
        nonlocal statements
        statements += 1

    event.listen(services.db.engine, "before_cursor_execute", count)
    sequencer = Sequencer(services.db, keys, None, macs=services.audit.macs)
    assert sequencer.lead()
    try:
        sequencer.step(NOW)
        for batch in (1, 100):
            seconds, counts = [], []
            for _ in range(ROUNDS):
                _append(services, batch)
                statements = 0
                started = time.perf_counter()
                added = sequencer.step(NOW)
                seconds.append(time.perf_counter() - started)
                counts.append(statements)
                assert added == batch, added
            print(
                f"checkpoint after {batch:>3} new entries: median "
                f"{statistics.median(seconds) * 1000:.2f} ms, p90 "
                f"{sorted(seconds)[int(ROUNDS * 0.9)] * 1000:.2f} ms, "
                f"{statistics.median(counts):.0f} statements ({ROUNDS} rounds)"
            )
    finally:
        sequencer.let_go()
        event.remove(services.db.engine, "before_cursor_execute", count)
    signed = notes.Checkpoint(keys.origin, 1, bytes(32))
    started = time.perf_counter()
    for _ in range(1000):
        notes.sign(signed, keys.origin, keys.signer)
    print(f"Ed25519 signed note alone: {(time.perf_counter() - started):.3f} ms each (1000)")


async def serving(data_dir: Path) -> str:
    """The loads above; the reference of the ten-turn thread they read."""
    with procs.gateway(data_dir, roles=("http",), name="http", audit_public="all") as (_gw, ports):
        reference, token = thread_of_ten(ports.http)
        reads = {
            "status read (10 turns)": (
                f"/v1/requests/{reference}",
                {"Authorization": f"Bearer {token}"},
            ),
            "full tile (level 0)": ("/audit/tile/0/000", {}),
            "full entry bundle": ("/audit/tile/entries/000", {}),
            "checkpoint": ("/audit/checkpoint", {}),
        }
        for label, (path, headers) in reads.items():
            request = loadgen.http_request("GET", path, headers=headers)
            await loadgen.http_load(ports.http, request, connections=1, seconds=0.5)
            load = await loadgen.http_load(
                ports.http, request, connections=CONNECTIONS, seconds=LOAD_SECONDS
            )
            p50, p99 = load.percentiles()
            print(
                f"{label:<24} {load.rate:>8,.0f} req/s  p50 {p50 or 0:.1f} ms  "
                f"p99 {p99 or 0:.1f} ms  errors {load.errors}"
            )
    return reference


def bundle_proofs(services: Services, data_dir: Path, reference: str) -> None:
    """The ten-turn thread's bundle (no worker ran: its emails are queued, not sent)."""
    out = data_dir / "bundle.zip"
    export(services.config, services.db, Clock(), reference, out, pdf=False)
    with zipfile.ZipFile(out) as bundle:
        sizes = {i.filename: i.file_size for i in bundle.infolist()}
    proofs = {k: v for k, v in sizes.items() if k.endswith(".tlog-proof")}
    print(
        f"bundle of {reference}: audit/entries.json {sizes['audit/entries.json']:,} B, "
        f"checkpoint.txt {sizes['checkpoint.txt']} B, {len(proofs)} .tlog-proof files "
        f"{sum(proofs.values()):,} B (largest {max(proofs.values(), default=0)} B), "
        f"whole bundle {out.stat().st_size:,} B"
    )


async def _witness_rounds(services: Services, tmp: Path) -> None:
    import httpx
    import uvicorn

    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    with services.db.read_only() as session:
        keys = audit_origin.resolve(keys, audit_origin.newest_note(session))
    log_name, public = notes.parse_verifier_key(keys.verifier_keys()[-1])
    servers, targets = [], []
    for name in ("w1", "w2"):
        witness = Witness(
            f"bench/{name}",
            Ed25519PrivateKey.generate(),
            {log_name: [public]},
            tmp / f"{name}.json",
        )
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(
            uvicorn.Config(witness_app(witness), log_level="warning", lifespan="off")
        )
        servers.append((server, asyncio.create_task(server.serve(sockets=[sock]))))
        targets.append(
            witnesses.Target(
                cosign.parse_vkey(witness.vkey()), f"http://127.0.0.1:{sock.getsockname()[1]}"
            )
        )
    while not all(server.started for server, _ in servers):
        await asyncio.sleep(0.01)
    policy = witnesses.Policy(tuple(targets), 2, 1.0)
    sequencer = Sequencer(services.db, keys, None, macs=services.audit.macs)
    assert sequencer.lead()
    seconds, counts, total = [], [], []
    statements = 0

    def count(*_args: Any) -> None:
        nonlocal statements
        statements += 1

    try:
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(ROUNDS):
                _append(services, 1)
                started = time.perf_counter()
                sequencer.step(NOW)
                event.listen(services.db.engine, "before_cursor_execute", count)
                statements = 0
                witnessed = time.perf_counter()
                _size, cosigned = await witnesses.witness_round(services, policy, client)
                done = time.perf_counter()
                event.remove(services.db.engine, "before_cursor_execute", count)
                assert cosigned == 2, cosigned
                seconds.append(done - witnessed)
                total.append(done - started)
                counts.append(statements)
    finally:
        sequencer.let_go()
        for server, task in servers:
            server.should_exit = True
            await task
    print(
        f"cosigned by two witnesses: the round median {statistics.median(seconds) * 1000:.1f} ms "
        f"({statistics.median(counts):.0f} statements), checkpoint + round median "
        f"{statistics.median(total) * 1000:.1f} ms ({ROUNDS} rounds)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default="", help="PostgreSQL to measure on")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        services = _services(data_dir, args.database_url)
        try:
            checkpoint_cost(services)
            asyncio.run(_witness_rounds(services, data_dir))
            _append(services, 600)
            sequencer = Sequencer(
                services.db,
                signing.load_keys(services.config.raw, data_dir),
                None,
                macs=services.audit.macs,
            )
            assert sequencer.lead()
            sequencer.step(NOW)
            sequencer.let_go()
            if not args.database_url:
                reference = asyncio.run(serving(data_dir))
                bundle_proofs(services, data_dir, reference)
        finally:
            services.close()


if __name__ == "__main__":
    main()
