"""How fast the worker records a backlog of replies, with the machine to itself.

``PYTHONPATH=$PWD python -m bench.drain`` prints, from a checkout, the rate at which
``python -m gateway serve --role worker`` records replies that are already stored:
the backlog an outage or a burst leaves behind. Row 4 of ``hfa bench`` measures the
same work while the listeners take the replies in and the harness sends them and
polls for them, all on the same cores; here nothing else runs, so the figure is the
worker's own (its reading processes included), and the relay is an aiosmtpd sink.

The backlog (``--messages`` replies of row 4, 8 KB multipart, one per request) is
taken in once by ``--role smtp`` with the built-in load generator and copied; each
run starts the worker on a fresh copy and times it from ready to the last message
done. The median of ``--runs`` is printed with every run's figure.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bench import bulk, procs
from bench.loadgen import smtp_load
from bench.smtp_paths import reply_mail
from gateway.tokens import ReplyTokens

# The longest one run may take before it is reported as unfinished.
RUN_SECONDS = 300.0
DB = "gateway.db"


def _done(database: Path) -> int:
    with sqlite3.connect(database) as connection:
        row = connection.execute("SELECT count(*) FROM inbound WHERE state = 'done'").fetchone()
    return int(row[0])


def backlog(work: Path, messages: int) -> Path:
    """A data directory whose inbound table holds ``messages`` stored, unprocessed replies."""
    seed = work / "seed"
    seed.mkdir(parents=True)
    bulk.load(seed / DB, requests=messages, turns=messages)
    tokens = ReplyTokens((procs.SECRET_KEY,))
    mails = [reply_mail(tokens, i)[0] for i in range(1, messages + 1)]
    with procs.gateway(seed, roles=("smtp",), name="backlog") as (_gw, ports):
        load = asyncio.run(smtp_load(ports.smtp, mails, connections=16, seconds=RUN_SECONDS))
    if load.done != messages:
        raise RuntimeError(f"the listener took {load.done} of {messages} replies")
    return seed


def drain(seed: Path, run: Path, messages: int) -> float:
    """Replies recorded a second by a worker started on a copy of ``seed``."""
    shutil.copytree(seed, run)
    database = run / DB
    with (
        procs.reference("smtp", run) as (_sink, sink_port),
        procs.gateway(run, roles=("worker",), relay_port=sink_port, name="drain"),
    ):
        started = time.perf_counter()
        while _done(database) < messages:
            if time.perf_counter() - started > RUN_SECONDS:
                raise RuntimeError(f"{_done(database)} of {messages} recorded in {RUN_SECONDS} s")
            time.sleep(0.1)
        return messages / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hfa-drain-") as temp:
        work = Path(temp)
        seed = backlog(work, args.messages)
        rates = [drain(seed, work / f"run-{n}", args.messages) for n in range(args.runs)]
    each = ", ".join(f"{rate:.1f}" for rate in rates)
    print(
        f"worker alone, a backlog of {args.messages} replies: "
        f"{statistics.median(rates):.1f} replies/s recorded (median; runs: {each})"
    )


if __name__ == "__main__":
    main()
