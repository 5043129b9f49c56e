"""PostgreSQL scale-out load: the roles as separate processes, many replies at once.

What it runs, all on 127.0.0.1 and free ports, against a fresh database that is
dropped at the end:

- a relay sink (aiosmtpd) that takes ``--relay-delay`` seconds per DATA, so
  deliveries are in flight when a worker dies;
- one ``hfa serve --role http``, one ``--role smtp`` and ``--workers`` processes
  of ``--role worker``, with routine reminders every minute so the workers'
  schedulers write while replies arrive;
- ``--requests`` filings over HTTP, then one reply per request over
  ``--connections`` SMTP connections at once, as a sending MTA would (a 4xx is
  resent after ``--resend-after`` seconds, at most ``--resends`` times).

It prints, as JSON: replies/s (first attempts, wall clock), the number of 451
answers, deadlocks (PostgreSQL's own counter ``pg_stat_database.deadlocks``,
and log records that mention a deadlock), and whether every reply was recorded
exactly once. With ``--kill-after N`` the first worker is killed with SIGKILL
after N replies; the figure ``takeover_seconds`` is then how long it took until
every outbox and inbound row that was leased at the moment of the kill was done.

Usage (from the repository root, with the project installed)::

    python -m bench.pg_load --requests 300 --connections 8 --workers 2
    python -m bench.pg_load --requests 300 --connections 8 --workers 2 --kill-after 150

Bounded: every wait has a deadline (``--timeout`` overall), and every process
started is stopped by its PID when the run ends.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from bench.roles import (
    HFA,
    LAWYER,
    ROOT,
    Roles,
    Sink,
    file_requests,
    free_port,
    http_up,
    make_reply,
    port_open,
    send_replies,
    tear_down,
    wait_until,
)

REPLY_DOMAIN = "reply.hfa.test"
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def leased_now(db: str) -> set[tuple[str, int]]:
    with psycopg.connect(db, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT 'outbox', id FROM outbox WHERE state = 'pending' AND lease_until > now() "
            "UNION ALL SELECT 'inbound', id FROM inbound "
            "WHERE state = 'pending' AND lease_until > now()"
        ).fetchall()
    return {(str(kind), int(row_id)) for kind, row_id in rows}


def still_pending(db: str, held: set[tuple[str, int]]) -> set[tuple[str, int]]:
    if not held:
        return set()
    with psycopg.connect(db, autocommit=True) as conn:
        out = {
            ("outbox", i)
            for (i,) in conn.execute(
                "SELECT id FROM outbox WHERE state = 'pending' AND id = ANY(%s)",
                ([i for k, i in held if k == "outbox"],),
            )
        }
        out |= {
            ("inbound", i)
            for (i,) in conn.execute(
                "SELECT id FROM inbound WHERE state = 'pending' AND id = ANY(%s)",
                ([i for k, i in held if k == "inbound"],),
            )
        }
    return out


@dataclass
class Takeover:
    """Watches what a killed worker held until every row of it is done."""

    db: str
    killed_at: float = 0.0
    held: set[tuple[str, int]] = field(default_factory=set)
    finished_at: float | None = None
    thread: threading.Thread | None = None

    def start(self, deadline: float) -> None:
        self.killed_at = time.monotonic()
        self.held = leased_now(self.db)

        def watch() -> None:
            while time.monotonic() < deadline:
                if not still_pending(self.db, self.held):
                    self.finished_at = time.monotonic()
                    return
                time.sleep(0.5)

        self.thread = threading.Thread(target=watch, daemon=True)
        self.thread.start()

    def seconds(self) -> float | None:
        if self.thread is not None:
            self.thread.join()
        if self.finished_at is None:
            return None
        return round(self.finished_at - self.killed_at, 1)


def db_figures(db: str, dbname: str) -> dict[str, int]:
    with psycopg.connect(db, autocommit=True) as conn:

        def one(sql: str, *params: Any) -> int:
            row = conn.execute(sql, params).fetchone()
            return int(row[0]) if row and row[0] is not None else 0

        return {
            "recorded": one("SELECT count(*) FROM inbound WHERE outcome = 'recorded'"),
            "inbound_pending": one("SELECT count(*) FROM inbound WHERE state = 'pending'"),
            # Given up after repeated processing errors: a reply that is not recorded.
            "inbound_failed": one("SELECT count(*) FROM inbound WHERE outcome = 'failed'"),
            "requests_with_two_human_turns": one(
                "SELECT count(*) FROM (SELECT request_id FROM turns WHERE author = 'human' "
                "GROUP BY request_id HAVING count(*) > 1) t"
            ),
            "pg_deadlocks": one(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = %s", dbname
            ),
        }


def start_roles(
    roles: Roles, http_port: int, smtp_port: int, workers: int, deadline: float
) -> None:
    base = f"http://127.0.0.1:{http_port}"
    # The first process migrates the fresh database; the others start once it is up.
    upgrade = subprocess.run(  # noqa: S603
        [*HFA, "db", "upgrade"],
        env={**roles.env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    roles.start(
        "http", "serve", "--role", "http", extra={"HFA_HTTP_BIND": f"127.0.0.1:{http_port}"}
    )
    wait_until("the http role", lambda: http_up(base) or not roles.alive("http"), deadline)
    if not roles.alive("http"):
        tail = (roles.logs / "http.log").read_text(errors="replace")[-1500:]
        raise RuntimeError(f"the http role exited (db upgrade rc={upgrade.returncode}): {tail}")
    roles.start(
        "smtp", "serve", "--role", "smtp", extra={"HFA_SMTP_BIND": f"127.0.0.1:{smtp_port}"}
    )
    for n in range(1, workers + 1):
        roles.start(f"worker{n}", "serve", "--role", "worker")
    wait_until("the smtp role", lambda: port_open(smtp_port), deadline)


def run(args: argparse.Namespace) -> dict[str, Any]:
    deadline = time.monotonic() + args.timeout
    dbname = f"hfa_bench_load_{os.getpid()}"
    admin = args.admin_url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    db = admin.rsplit("/", 1)[0] + "/" + dbname
    work = Path(tempfile.mkdtemp(prefix="hfa-pg-load-"))
    sink = Sink(args.relay_delay)
    sink.controller.start()
    http_port, smtp_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        HFA_DATABASE_URL=db.replace("postgresql://", "postgresql+psycopg://", 1),
        HFA_DATA_DIR=str(work / "var"),
        HFA_SECRET_KEYS="load-secret-key-0123456789abcdef",  # noqa: S106 (the run's own key)
        HFA_WEBHOOK_SECRET="whsec_" + "bG9hZC13ZWJob29rLXNlY3JldC0wMTIz",
        HFA_SMTP_RELAY=f"127.0.0.1:{sink.port}",
        HFA_LAWYERS=LAWYER,
        HFA_REPLY_DOMAIN=REPLY_DOMAIN,
        HFA_PUBLIC_URL=f"http://127.0.0.1:{http_port}",
        HFA_HTTP_BIND=f"127.0.0.1:{http_port}",
        HFA_SMTP_BIND=f"127.0.0.1:{smtp_port}",
        HFA_REMINDERS=f"routine={args.reminder_every}",
        HFA_SCHEDULER_SECONDS=str(args.scheduler_seconds),
        HFA_RATE_LIMIT_PER_MINUTE="1000000",
        # Each reply's decision in effect at once: the figures count one human turn each.
        HFA_CORRECTION_WINDOW="0",
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
    )
    roles = Roles(env, work)
    result: dict[str, Any] = {
        "requests": args.requests,
        "connections": args.connections,
        "workers": args.workers,
    }
    try:
        start_roles(roles, http_port, smtp_port, args.workers, deadline)
        refs = file_requests(f"http://127.0.0.1:{http_port}", args.requests, args.connections)
        filed_at = time.monotonic()
        emails = wait_until(
            "every request email",
            lambda: e if len(e := sink.request_emails()) >= len(refs) else None,
            deadline,
        )
        replies = [make_reply(emails[ref]) for ref in refs]
        # Replies arrive while the first round of reminders (1 minute after filing) goes
        # out, as in a real scale-out: the workers' schedulers and the recording overlap.
        time.sleep(max(0.0, filed_at + args.reply_after - time.monotonic()))
        takeover = Takeover(db)

        def on_sent(done: int) -> None:
            if args.kill_after and done == args.kill_after:
                roles.kill9("worker1")
                takeover.start(deadline)

        stats = send_replies(
            smtp_port,
            replies,
            on_sent,
            connections=args.connections,
            resends=args.resends,
            resend_after=args.resend_after,
        )
        wait_until(
            "every reply processed",
            lambda: (
                (f := db_figures(db, dbname))["inbound_pending"] == 0
                and f["recorded"] + f["inbound_failed"] >= len(refs)
            ),
            deadline,
        )
        figures = db_figures(db, dbname)
        result.update(
            replies_per_second=round(len(replies) / stats.first_round_seconds, 1),
            answers_451=sum(1 for c in stats.codes if c == 451),
            answers_4xx=sum(1 for c in stats.codes if 400 <= c < 500),
            deadlock_log_records=sum(
                1 for line in roles.log_records() if "deadlock" in line.lower()
            ),
            relay_duplicates=sink.duplicated_message_ids(),
            **figures,
        )
        if args.kill_after:
            result["leased_at_kill"] = len(takeover.held)
            result["takeover_seconds"] = takeover.seconds()
    finally:
        tear_down(roles, sink, admin, dbname, work, args.keep_logs, result)
    return result


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--admin-url", default=os.environ.get("HFA_BENCH_PG_ADMIN", ADMIN_URL))
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kill-after", type=int, default=0, help="SIGKILL worker1 after N replies")
    parser.add_argument(
        "--reply-after", type=float, default=58.0, help="seconds after filing to start replying"
    )
    parser.add_argument("--relay-delay", type=float, default=0.3)
    parser.add_argument("--resends", type=int, default=3)
    parser.add_argument("--resend-after", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--keep-logs", action="store_true")
    parser.add_argument("--reminder-every", default="1m", help="routine reminder interval")
    parser.add_argument("--scheduler-seconds", type=float, default=5.0)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    print(json.dumps(run(options(argv)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
