"""Scale-out with PostgreSQL next door and 1 ms away: ``python -m bench.scale_out``.

One run, on 127.0.0.1, against a fresh database that is dropped at the end:

1. the reference: ``--agents`` threads each committing independent transactions
   of seven INSERTs, for ``--seconds``, straight to PostgreSQL and then through
   the latency proxy (``bench/latency_proxy.py``, ``--delay-ms`` each way);
2. the gateway: ``--http`` processes of ``hfa serve --role http``, one of
   ``--role smtp`` and ``--workers`` of ``--role worker``, first straight to
   PostgreSQL, then restarted through the proxy. Each time ``--agents`` agents
   file requests round-robin over the HTTP processes for ``--seconds``; then
   ``--replies`` of those requests get a reply over SMTP, which the workers record.

Meanwhile ``pg_stat_activity`` is sampled every 50 ms: of the gateway's active
backends, how many wait on a lock. It prints, as JSON, for each phase the
throughput, the share of active backends waiting on a lock, and the ratios
(1 ms away / next door) of the reference, of filing and of recording replies.
With the sequencer of this release it also gives the p99 integration delay (from
an entry's commit until a reader finds it in the tree). ``--code DIR`` runs the gateway of another
checkout (e.g. the previous release, for a before/after in the same conditions).

Bounded: every wait has a deadline, and every process started is stopped by PID.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg

from bench import roles as rolekit
from bench.loadgen import Load, http_load, http_request
from bench.pg_load import ADMIN_URL, REPLY_DOMAIN, db_figures
from bench.roles import (
    LAWYER,
    Roles,
    Sink,
    free_port,
    http_up,
    make_reply,
    port_open,
    send_replies,
    tear_down,
)

BODY = {
    "category": "legal_review",
    "request": "Is clause 7 of the supplier agreement acceptable?",
    "proposed_action": "Sign the agreement as sent.",
    "urgency": "routine",
    "agent_name": "load-bot",
}

# The run's own key: the gateways' HFA_SECRET_KEYS, which the probe signs its entries with.
SECRET_KEY = "scale-secret-key-0123456789abcdef"  # noqa: S105


class LockSampler:
    """Samples the database's active client backends and those waiting on a lock."""

    def __init__(self, admin_db: str, dbname: str) -> None:
        self.admin_db, self.dbname = admin_db, dbname
        self.active = self.waiting = 0
        self.waits: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self.admin_db, autocommit=True) as conn:
            while not self._stop.wait(0.05):
                # A wait is named by its statement and by what holds it up: the
                # blocker's statement and state ("idle in transaction" is a client
                # that took a lock and has not committed yet).
                rows = conn.execute(
                    "SELECT a.wait_event_type, a.wait_event || ': ' || left(a.query, 70) "
                    "|| coalesce(' <- ' || (SELECT b.state || ': ' || left(b.query, 70) "
                    "FROM pg_stat_activity b WHERE b.pid = ANY(pg_blocking_pids(a.pid)) "
                    "LIMIT 1), '') "
                    "FROM pg_stat_activity a "
                    "WHERE a.datname = %s AND a.state = 'active' "
                    "AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()",
                    (self.dbname,),
                ).fetchall()
                self.active += len(rows)
                for kind, event in rows:
                    if kind == "Lock":
                        self.waiting += 1
                        self.waits[event] = self.waits.get(event, 0) + 1

    def __enter__(self) -> LockSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    @property
    def share(self) -> float:
        return round(self.waiting / self.active, 3) if self.active else 0.0


def _for(seconds: float, agents: int, work: Callable[[int], Callable[[], bool]]) -> float:
    """Run ``agents`` loops of ``work`` for ``seconds``; successful operations per second."""
    done = [0] * agents
    stop = time.monotonic() + seconds

    def loop(n: int) -> None:
        step = work(n)
        while time.monotonic() < stop:
            if step():
                done[n] += 1

    with ThreadPoolExecutor(agents) as pool:
        list(pool.map(loop, range(agents)))
    return round(sum(done) / seconds, 1)


def seven_inserts(url: str, seconds: float, agents: int) -> float:
    def work(_n: int) -> Callable[[], bool]:
        conn = psycopg.connect(url)

        def step() -> bool:
            with conn.transaction():
                for k in range(7):
                    conn.execute(
                        "INSERT INTO bench_scratch (k, body) VALUES (%s, %s)", (k, "x" * 64)
                    )
            return True

        return step

    return _for(seconds, agents, work)


def file_for(bases: list[str], seconds: float, agents: int) -> tuple[float, int]:
    """Agents filing over keep-alive connections, spread over the HTTP processes.

    The lean asyncio client of ``bench.loadgen``: on a shared 2-core machine a
    client library would spend the cores the gateway is measured on.
    """
    request = http_request(
        "POST",
        "/v1/requests",
        body=json.dumps(BODY).encode(),
        headers={"Content-Type": "application/json"},
    )
    ports = [int(b.rsplit(":", 1)[1]) for b in bases]

    async def all_of() -> list[Load]:
        return await asyncio.gather(
            *(
                http_load(
                    port, request, connections=agents // len(ports), seconds=seconds, expect=(201,)
                )
                for port in ports
            )
        )

    loads = asyncio.run(all_of())
    return round(sum(x.done for x in loads) / seconds, 1), sum(x.errors for x in loads)


def start_gateway(
    roles: Roles, args: argparse.Namespace, db_url: str, deadline: float
) -> list[str]:
    ports = [free_port() for _ in range(args.http)]
    extra = {"HFA_DATABASE_URL": db_url}
    for n, port in enumerate(ports):
        roles.start(
            f"http{n}",
            "serve",
            "--role",
            "http",
            extra={**extra, "HFA_HTTP_BIND": f"127.0.0.1:{port}"},
        )
    roles.start("smtp", "serve", "--role", "smtp", extra=extra)
    for n in range(args.workers):
        roles.start(f"worker{n}", "serve", "--role", "worker", extra=extra)
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    rolekit.wait_until("the http roles", lambda: all(http_up(b) for b in bases), deadline)
    rolekit.wait_until(
        "the smtp role",
        lambda: port_open(int(roles.env["HFA_SMTP_BIND"].rsplit(":", 1)[1])),
        deadline,
    )
    return bases


def record_replies(
    roles: Roles, sink: Sink, db: str, dbname: str, count: int, deadline: float
) -> float:
    """Reply to ``count`` requests whose email went out; recorded replies per second."""
    emails = rolekit.wait_until(
        "request emails", lambda: e if len(e := sink.request_emails()) >= count else None, deadline
    )
    before = db_figures(db, dbname)["recorded"]
    replies = [make_reply(msg) for msg in list(emails.values())[-count:]]
    sink_refs = {str(m["X-HFA-Reference"]) for m in list(emails.values())[-count:]}
    assert len(sink_refs) == count
    smtp_port = int(roles.env["HFA_SMTP_BIND"].rsplit(":", 1)[1])
    started = time.monotonic()
    send_replies(smtp_port, replies, lambda _n: None, connections=8, resends=3, resend_after=1.0)
    rolekit.wait_until(
        "every reply recorded",
        lambda: (
            (f := db_figures(db, dbname))["recorded"] - before >= count
            and f["inbound_pending"] == 0
        ),
        deadline,
    )
    return round(count / (time.monotonic() - started), 1)


class Probe:
    """The integration-delay probe (``bench.integration_probe``), run in its own process.

    For a gateway without a sequencer (``audit_checkpoints`` missing) nothing is written.
    """

    def __init__(self, db: str) -> None:
        self.db = db
        self.delays: list[float | None] = []
        self._proc: subprocess.Popen[str] | None = None
        with psycopg.connect(db) as conn:
            found = conn.execute("SELECT to_regclass('audit_checkpoints')").fetchone()
        self.enabled = bool(found and found[0] is not None)

    def __enter__(self) -> Probe:
        if self.enabled:
            self._proc = subprocess.Popen(  # noqa: S603 (our own executable)
                [sys.executable, "-m", "bench.integration_probe", self.db, SECRET_KEY],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=Path(__file__).resolve().parents[1],
            )
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def p99(self, deadline: float) -> float | None:
        if self._proc is None:
            return None
        try:
            out, _err = self._proc.communicate("", timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            raise
        self.delays = json.loads(out)
        missing = [d for d in self.delays if d is None]
        assert self.delays and not missing, f"{len(missing)} probe entries never integrated"
        delays = sorted(d for d in self.delays if d is not None)
        return round(delays[min(len(delays) - 1, int(len(delays) * 0.99))], 3)


def gateway_phase(
    roles: Roles,
    args: argparse.Namespace,
    sink: Sink,
    urls: dict[str, str],
    label: str,
    deadline: float,
) -> dict[str, Any]:
    bases = start_gateway(roles, args, urls[label], deadline)
    try:
        file_for(bases, 2.0, args.agents)  # warm up: connections, caches, pages
        probe = Probe(urls["admin_db"])
        with probe:
            with LockSampler(urls["admin_db"], urls["dbname"]) as filing:
                submits, errors = file_for(bases, args.seconds, args.agents)
            with LockSampler(urls["admin_db"], urls["dbname"]) as recording:
                replies = record_replies(
                    roles,
                    sink,
                    urls["direct"].replace("+psycopg", ""),
                    urls["dbname"],
                    args.replies,
                    deadline,
                )
        p99 = probe.p99(deadline)
    finally:
        roles.stop_all()
        roles.procs.clear()
    return {
        "integration_delay_p99_seconds": p99,
        "submits_per_second": submits,
        "submit_errors": errors,
        "submit_lock_wait_share": filing.share,
        "submit_lock_waits": filing.waits,
        "replies_per_second": replies,
        "reply_lock_wait_share": recording.share,
        "reply_lock_waits": recording.waits,
    }


def round_trip_ms(url: str) -> float:
    """The median time of ``SELECT 1`` on one connection: what a round trip costs."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT 1")
        times = []
        for _ in range(200):
            started = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            times.append((time.perf_counter() - started) * 1000)
    return round(sorted(times)[len(times) // 2], 3)


def pg(url: str) -> str:
    """A libpq URL as SQLAlchemy's psycopg 3 URL."""
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def run(args: argparse.Namespace) -> dict[str, Any]:
    deadline = time.monotonic() + args.timeout
    dbname = f"hfa_bench_scale_{os.getpid()}"
    admin = args.admin_url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    direct = admin.rsplit("/", 1)[0] + "/" + dbname
    proxy_port = free_port()
    host_port = direct.split("@", 1)[1].split("/", 1)[0]
    proxy = subprocess.Popen(  # noqa: S603 (our own module)
        [
            sys.executable,
            "-m",
            "bench.latency_proxy",
            "--listen",
            str(proxy_port),
            "--target",
            host_port,
            "--delay-ms",
            str(args.delay_ms),
        ],
        env={**os.environ, "PYTHONPATH": str(rolekit.ROOT)},
    )
    away = direct.replace(host_port, f"127.0.0.1:{proxy_port}")
    work = Path(tempfile.mkdtemp(prefix="hfa-scale-out-"))
    sink = Sink(0.0)
    sink.controller.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        HFA_DATA_DIR=str(work / "var"),
        HFA_SECRET_KEYS=SECRET_KEY,
        HFA_WEBHOOK_SECRET="whsec_" + "bG9hZC13ZWJob29rLXNlY3JldC0wMTIz",
        HFA_SMTP_RELAY=f"127.0.0.1:{sink.port}",
        HFA_LAWYERS=LAWYER,
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
        HFA_REPLY_DOMAIN=REPLY_DOMAIN,
        HFA_SMTP_BIND=f"127.0.0.1:{free_port()}",
        HFA_RATE_LIMIT_PER_MINUTE="100000000",
        HFA_WORKER_POLL_SECONDS="0.2",
    )
    roles = Roles(env, work, code=Path(args.code) if args.code else rolekit.ROOT)
    urls = {
        "next door": pg(direct),
        "1 ms away": pg(away),
        "direct": pg(direct),
        "admin_db": direct,
        "dbname": dbname,
    }
    result: dict[str, Any] = {
        "agents": args.agents,
        "http": args.http,
        "workers": args.workers,
        "seconds": args.seconds,
        "delay_ms_each_way": args.delay_ms,
        "code": str(roles.code),
    }
    try:
        upgrade = subprocess.run(  # noqa: S603
            [*rolekit.HFA, "db", "upgrade"],
            env={**env, "HFA_DATABASE_URL": pg(direct), "PYTHONPATH": str(roles.code)},
            capture_output=True,
            timeout=120,
            check=False,
            cwd=roles.code,
        )
        assert upgrade.returncode == 0, upgrade.stderr[-2000:]
        with psycopg.connect(direct, autocommit=True) as conn:
            conn.execute("CREATE TABLE bench_scratch (id bigserial PRIMARY KEY, k int, body text)")
        rolekit.wait_until("the latency proxy", lambda: port_open(proxy_port), deadline)
        result["round_trip_ms"] = {
            "next door": round_trip_ms(direct),
            "1 ms away": round_trip_ms(away),
        }
        ref = {
            label: seven_inserts(urls[label].replace("+psycopg", ""), args.seconds, args.agents)
            for label in ("next door", "1 ms away")
        }
        result["seven_insert_tx_per_second"] = ref
        phases = {
            label: gateway_phase(roles, args, sink, urls, label, deadline)
            for label in ("next door", "1 ms away")
        }
        result["gateway"] = phases
        ref_ratio = ref["1 ms away"] / ref["next door"]
        for key in ("submits_per_second", "replies_per_second"):
            ratio = phases["1 ms away"][key] / phases["next door"][key]
            result[f"{key}_ratio"] = round(ratio, 3)
            result[f"{key}_ratio_of_reference"] = round(ratio / ref_ratio, 3)
        result["seven_insert_ratio"] = round(ref_ratio, 3)
    finally:
        proxy.terminate()
        proxy.wait(10)
        tear_down(roles, sink, admin, dbname, work, args.keep_logs, result)
    return result


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--admin-url", default=os.environ.get("HFA_BENCH_PG_ADMIN", ADMIN_URL))
    parser.add_argument("--agents", type=int, default=48)
    parser.add_argument("--http", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--replies", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=0.5)
    parser.add_argument("--code", help="the checkout whose gateway runs (default: this one)")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--keep-logs", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    print(json.dumps(run(options(argv)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
