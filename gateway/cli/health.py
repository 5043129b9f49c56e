"""``hfa health``: every role's last heartbeat, for people, scripts and systemd.

It reads the heartbeat rows with the database's own driver (``store.liveness``), not
the ORM: a container runs it every 30 s, and it starts in a fraction of the time.
"""

from __future__ import annotations

import argparse
import socket
from datetime import datetime
from typing import Any

from gateway.cli.common import config_from, print_json
from gateway.clock import Clock, iso
from gateway.errors import ConfigError
from gateway.store import liveness, witness_report
from gateway.store.liveness import Beat

EXIT_OK, EXIT_FAILED, EXIT_NO_DATABASE = 0, 1, 2


def cmd_health(args: argparse.Namespace) -> int:
    config = config_from(args)
    now = Clock().now()
    try:
        rows = liveness.read_beats(config.database_url, config.data_dir)
    except ConfigError as exc:
        if args.json:
            print_json({"status": "unavailable", "error": str(exc)})
        else:
            print(f"unavailable: {exc}")
        return EXIT_NO_DATABASE
    try:
        witnesses = witness_report.read_reports(config.database_url, config.data_dir)
        failed = liveness.read_failed_outbox(config.database_url, config.data_dir)
    except ConfigError:
        witnesses, failed = [], 0  # a schema of an earlier release: the roles still answer
    roles = liveness.roles_health_of(rows, now, config.ready_role_seconds, here_only=args.here)
    if args.here:
        rows = [p for p in rows if p.host == socket.gethostname()]
    wanted = tuple(args.role) if args.role else liveness.ROLES
    missing = [r.role for r in roles if r.role in wanted and r.live == 0]
    if args.json:
        print_json(
            {
                "status": "ok" if not missing else "degraded",
                "within_seconds": config.ready_role_seconds,
                "failed_outbox": failed,
                "roles": {
                    r.role: {
                        "live": r.live,
                        "last_seen": iso(r.last_seen) if r.last_seen else None,
                        "age_seconds": _age(now, r.last_seen) if r.last_seen else None,
                    }
                    for r in roles
                },
                "processes": [
                    {
                        "roles": p.roles.split(","),
                        "host": p.host,
                        "pid": p.pid,
                        "version": p.version,
                        "started_at": iso(p.started_at),
                        "seen_at": iso(p.seen_at),
                        "stopped_at": iso(p.stopped_at) if p.stopped_at else None,
                    }
                    for p in rows
                ],
                "witnesses": {
                    w.name: {"size": w.size, "lag": w.lag, "ok_at": w.ok_at, "error": w.error}
                    for w in witnesses
                },
            }
        )
    else:
        for r in roles:
            seen = (
                f"{_age(now, r.last_seen):.0f}s ago ({when(r.last_seen)})"
                if r.last_seen
                else "never"
            )
            state = f"{r.live} live" if r.live else "NONE LIVE"
            print(f"{r.role:7} {state:10} last seen {seen}")
        for p in rows[-20:]:
            ended = _state(p, now, config.ready_role_seconds)
            print(f"  {p.roles:18} {p.host}:{p.pid}  started {when(p.started_at)}, {ended}")
        for w in witnesses:
            said = f"FAILING: {w.error}" if w.error else f"last cosigned {w.ok_at}"
            print(f"witness {w.name}: cosigned {w.size} entries, {w.lag} behind; {said}")
        if failed:
            # Not a reason to restart (exit stays 0): nobody will be told until someone acts.
            print(
                f"outbox: {failed} email(s) or webhook call(s) FAILED and will not be retried; "
                "see `hfa outbox list --failed`, then `hfa outbox retry`"
            )
        if missing:
            print(
                f"no live process seen in the last {config.ready_role_seconds:.0f}s for: "
                + ", ".join(missing)
            )
    return EXIT_OK if not missing else EXIT_FAILED


def when(moment: datetime | None) -> str:
    return iso(moment)[:19].replace("T", " ") if moment is not None else ""


def _age(now: datetime, seen: datetime) -> float:
    # A heartbeat written a moment after ``now`` was read (or by a host whose clock is a
    # little ahead) is "0s ago", never "-0s ago".
    return round(max((now - seen).total_seconds(), 0.0), 1)


def _state(row: Beat, now: datetime, within: float) -> str:
    if row.stopped_at:
        return f"stopped {when(row.stopped_at)}"
    if liveness.process_exists(row.host, row.pid) is False:
        return f"GONE (pid {row.pid} no longer runs; last seen {when(row.seen_at)})"
    return f"seen {when(row.seen_at)}"


# argparse declarations: alike in shape in every command's register (cli.keys, cli.run,
# cli.witness, cli.inbound), each naming its own options and help.
def register(sub: Any) -> None:
    p = sub.add_parser("health", help="each role's live processes and last heartbeat")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--role",
        action="append",
        choices=liveness.ROLES,
        help="only this role must be live for exit 0 (repeatable); default: all",
    )
    p.add_argument(
        "--here",
        action="store_true",
        help="only processes on this host (a container's own health check)",
    )
    p.set_defaults(handler=cmd_health)
