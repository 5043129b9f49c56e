"""Path 4w: how long recording a reply holds the database's write lock, per reply.

SQLite has one write lock for every process: while the worker records replies,
filings and the listener's commits wait. This measures, in-process and with the
gateway's own code, the time from taking the lock to letting it go for each
transaction of the worker's recording (``inbound.worker.process_batch``: the
replies read first, outside it, as the worker does), divided by the replies it
records. The replies are the same 8 KB multipart messages as rows 3 and 4, to the
reply addresses of a bulk-loaded database, stored the way the listener stores them.
The audit log's INFO lines are not written meanwhile (a gateway writes them to its log).

    PYTHONPATH=$PWD python -m bench.lock_hold [--replies 400]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench import bulk, mail, procs
from bench.report import Figure
from gateway.inbound.claims import claim_pending, load_raw
from gateway.inbound.listener import store_inbound
from gateway.inbound.reading import parse_stored
from gateway.inbound.worker import WRITE_CHUNK, process_batch
from gateway.services import Services, build_services
from gateway.settings.config import load_config
from gateway.store.writelock import WriterLock
from gateway.tokens import ReplyTokens

# The target: recording a reply keeps the others waiting for less than this.
LIMIT_MS = 3.0


@dataclass
class Holds:
    """Each time the lock was held: seconds, CPU seconds of the holder, replies recorded."""

    seconds: list[float]
    cpu: list[float]
    replies: list[int]

    def per_reply_ms(self) -> list[float]:
        return [s * 1000 / n for s, n in zip(self.seconds, self.replies, strict=True) if n]


@contextmanager
def _timed(lock: WriterLock, into: list[float], cpu: list[float]) -> Iterator[None]:
    """The lock's ``held``, timed from taken to let go (the outermost hold only)."""
    inner = lock.held
    depth = [0]

    @contextmanager
    def held() -> Iterator[None]:
        with inner():
            depth[0] += 1
            started, used = time.perf_counter(), time.thread_time()
            try:
                yield
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    into.append(time.perf_counter() - started)
                    cpu.append(time.thread_time() - used)

    lock.held = held  # type: ignore[method-assign]
    try:
        yield
    finally:
        lock.held = inner  # type: ignore[method-assign]


def _services(data_dir: Path) -> Services:
    ports = procs.GatewayPorts(0, 0)
    env = procs.gateway_env(data_dir, ports, None, correction_window="0")
    return build_services(load_config(env=env))


def measure(work: Path, replies: int) -> Holds:
    data_dir = work / "lock-hold"
    bulk.load(data_dir / "gateway.db", requests=replies, turns=replies)
    services = _services(data_dir)
    tokens = ReplyTokens((procs.SECRET_KEY,))
    try:
        for recipient_id in range(1, replies + 1):
            address = tokens.reply_address(recipient_id, procs.REPLY_DOMAIN)
            raw = mail.reply(address, f"HFA-{recipient_id:05d}")
            store_inbound(services, raw, "127.0.0.1", procs.LAWYER, [address])
        lock = services.db._writer_lock
        assert lock is not None
        holds = Holds([], [], [])
        while ids := claim_pending(services, WRITE_CHUNK):
            # Read outside the transaction, as the worker's reading thread does.
            read = {i: parse_stored(raw) for i, raw in load_raw(services, ids).items()}
            seconds: list[float] = []
            cpu: list[float] = []
            with _timed(lock, seconds, cpu):
                outcomes = process_batch(services, ids, read)
            assert outcomes == ["recorded"] * len(ids), outcomes
            holds.seconds.append(sum(seconds))
            holds.cpu.append(sum(cpu))
            holds.replies.append(len(ids))
        return holds
    finally:
        services.close()


def figure(work: Path, replies: int) -> Figure:
    # The audit log's lines would be printed into the report: said only when something fails.
    logger = logging.getLogger("gateway")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        holds = measure(work, replies)
    finally:
        logger.setLevel(level)
    per_reply = holds.per_reply_ms()
    cpu_ms = sum(holds.cpu) * 1000 / max(1, sum(holds.replies))
    quantiles = statistics.quantiles(per_reply, n=100) if len(per_reply) > 1 else per_reply * 99
    median = statistics.median(per_reply)
    return Figure(
        median,
        LIMIT_MS,
        median,
        quantiles[98],
        None,
        f"in-process, {replies} replies, {WRITE_CHUNK} a transaction; CPU {cpu_ms:.2f} ms",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lock_hold")
    parser.add_argument("--replies", type=int, default=400)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hfa-lock-") as work:
        fig = figure(Path(work), args.replies)
    print(
        f"write lock held per reply: median {fig.gateway:.2f} ms, p99 {fig.p99_ms:.2f} ms "
        f"(limit {LIMIT_MS} ms; {fig.note})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
