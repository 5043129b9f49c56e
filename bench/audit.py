"""Measure the audit log: ``python -m bench.audit [--entries N] [--submits M]``.

1. verify: bulk-generates N integrated entries (their leaves, a signed
   checkpoint and their JSON-lines mirror), then times ``audit_check.verify``
   over the database alone and with the mirror.
2. the audit log's cost on filing: files M requests through ``submit.file_request``
   (the code behind POST /v1/requests, without HTTP) with the real audit log,
   and M with appends switched off, alternating rounds in the same run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.intake.filing import file_request
from gateway.services import Services, build_services
from gateway.settings.config import load_config
from gateway.store import audit, audit_check, merkle, signing
from gateway.store.audit import entry_fields, leaf_hash_hex
from gateway.store.audit_check import VERIFY_BATCH
from gateway.store.models import AuditEntry
from gateway.store.sequencer import add_checkpoint, latest_checkpoint


class _NoAudit(audit.AuditLog):
    """Appends nothing: the 'without' side of the measurement, never used by the gateway."""

    def append(self, session: Session, event: str, **kwargs: Any) -> int:  # type: ignore[override]
        return 0


def _services(directory: Path, database_url: str) -> Services:
    env = {
        "HFA_DATA_DIR": str(directory),
        "HFA_DATABASE_URL": database_url,
        "HFA_LAWYERS": "counsel@lawfirm.example",
        "HFA_SECRET_KEYS": "bench-key-0123456789abcdef",
    }
    return build_services(load_config(env=env))


def bench_verify(directory: Path, entries: int, database_url: str) -> None:
    services = _services(directory / "verify", database_url)
    mirror = services.config.data_dir / "audit.jsonl"
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    started = time.perf_counter()
    with services.db.transaction() as session:
        generate(session, entries, start=datetime(2026, 1, 1, tzinfo=UTC), mirror=mirror, keys=keys)
    print(f"generated {entries:,} entries in {time.perf_counter() - started:.1f}s")
    for label, path in (("database only", None), ("database + mirror", mirror)):
        started = time.perf_counter()
        with services.db.read_only() as session:
            verdict = audit_check.verify(session, keys.publics(), mirror=path)
        seconds = time.perf_counter() - started
        assert not verdict.problems, verdict.problems
        print(
            f"verify ({label}): {verdict.leaves:,} entries in {seconds:.1f}s = "
            f"{verdict.leaves / seconds:,.0f} entries/s"
        )
    services.close()


def _file_many(services: Services, count: int) -> float:
    started = time.perf_counter()
    for n in range(count):
        with services.db.transaction() as session:
            file_request(
                services,
                session,
                {"category": "legal_review", "request": f"Please review clause {n}."},
            )
    return count / (time.perf_counter() - started)


def bench_submits(directory: Path, count: int, rounds: int, database_url: str) -> None:
    rates: dict[str, list[float]] = {"with audit": [], "without audit": []}
    for r in range(rounds):
        for label in rates:
            services = _services(directory / f"submit-{label[:4]}-{r}", database_url)
            if label == "without audit":
                services.audit = _NoAudit(None, services.audit.macs)
            _file_many(services, 20)  # warm up: connections, caches, the first pages
            rates[label].append(_file_many(services, count))
            services.close()
    for label, values in rates.items():
        print(f"submits/s {label}: " + ", ".join(f"{v:,.0f}" for v in values))
    with_, without = (sum(v) / len(v) for v in rates.values())
    print(f"audit log cost: {100 * (1 - with_ / without):.1f}% of submit throughput")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--submits", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", help="work directory (default: a temp dir)")
    parser.add_argument("--database-url", default="", help="default: SQLite in the work dir")
    parser.add_argument("--skip-verify", action="store_true")
    args = parser.parse_args()
    directory = Path(args.dir or tempfile.mkdtemp(prefix="hfa-audit-bench-"))
    if not args.skip_verify:
        bench_verify(directory, args.entries, args.database_url)
    if args.submits:
        bench_submits(directory, args.submits, args.rounds, args.database_url)


if __name__ == "__main__":
    main()


def generate(
    session: Session,
    count: int,
    *,
    start: datetime,
    keys: signing.LogKeys,
    mirror: Path | None = None,
) -> int:
    """Append ``count`` integrated entries in bulk (benchmarks and tests); returns the tree size.

    Writes what ``append`` and then the sequencer would: the entries with their
    leaves, one multi-row INSERT per batch, and a signed checkpoint at the end.
    """
    newest = latest_checkpoint(session)
    edge = (
        merkle.CompactRange(newest.tree_size, [bytes.fromhex(h) for h in newest.edge])
        if newest is not None
        else merkle.CompactRange()
    )
    seq = int(session.scalar(select(func.coalesce(func.max(AuditEntry.seq), 0))) or 0)
    fh = mirror.open("a", encoding="utf-8") if mirror is not None else None
    try:
        for batch_start in range(0, count, VERIFY_BATCH):
            rows: list[dict[str, Any]] = []
            lines: list[str] = []
            for _ in range(min(VERIFY_BATCH, count - batch_start)):
                seq += 1
                at = start + timedelta(milliseconds=seq)
                details = {"outbox_id": seq, "purpose": "request", "to": "lawyer@example.com"}
                reference = f"HFA-{seq // 3 + 1:05d}"
                fields = entry_fields(seq, iso(at), "email.sent", reference, "system", details)
                digest = leaf_hash_hex(fields)
                row = {**fields, "at": at, "leaf_index": edge.size, "leaf_hash": digest}
                rows.append(row)
                lines.append(
                    json.dumps({"leaf_index": edge.size, **fields}, ensure_ascii=False) + "\n"
                )
                edge.append(bytes.fromhex(digest))
            session.execute(insert(AuditEntry), rows)
            if fh is not None:
                fh.write("".join(lines))
    finally:
        if fh is not None:
            fh.close()
    add_checkpoint(session, edge, keys, start)
    return edge.size
