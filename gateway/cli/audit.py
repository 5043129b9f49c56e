"""``hfa audit tail|verify|anchor``: read the audit log and prove it was not altered."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from gateway.cli.common import print_json
from gateway.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    open_database,
    parse_since,
    when,
)
from gateway.services import Services
from gateway.store import audit, audit_check
from gateway.store.models import AuditEntry

SUMMARY_CHARS = 110


def summary(details: dict[str, Any]) -> str:
    text = " ".join(
        f"{k}={json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}"
        for k, v in details.items()
        if k != "settings" and v not in (None, "", [], {})
    )
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def line_for(entry: AuditEntry) -> str:
    return (
        f"{when(entry.at)}Z  #{entry.seq:<6} {entry.event:<28} {entry.reference or '-':<11} "
        f"{entry.actor:<26} {summary(entry.details)}"
    )


def _print(entries: list[AuditEntry], as_json: bool) -> None:
    for entry in entries:
        if as_json:
            print(json.dumps(audit.entry_as_json(entry), ensure_ascii=False), flush=True)
        else:
            print(line_for(entry), flush=True)


def cmd_tail(args: argparse.Namespace) -> int:
    services = open_database(args)
    since = parse_since(args.since, services.clock.now()) if args.since else None
    filters: dict[str, Any] = {"reference": args.reference, "event": args.event, "since": since}

    def read(after: int, last: int | None) -> tuple[list[AuditEntry], int]:
        # The head is read in the same transaction, so following starts exactly after it.
        with services.db.reading() as session:
            entries = audit_check.select_entries(session, after_seq=after, last=last, **filters)
            return entries, audit_check.head(session)[0]

    try:
        entries, head_seq = read(0, None if since and not args.follow else args.lines)
        _print(entries, args.json)
        if not args.follow:
            return EXIT_OK
        # Follow the database, not a file: entries from every gateway process show up.
        last_seq = max([e.seq for e in entries] + [head_seq])
        while True:
            time.sleep(args.interval)
            fresh, _ = read(last_seq, None)
            _print(fresh, args.json)
            if fresh:
                last_seq = fresh[-1].seq
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        services.close()


def _parse_anchor(text: str) -> tuple[int, str]:
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isdigit() or len(digest) != 64:
        raise ValueError(text)
    return int(seq), digest.lower()


def cmd_verify(args: argparse.Namespace) -> int:
    try:
        anchor = _parse_anchor(args.anchor) if args.anchor else None
    except ValueError:
        return fail(
            f"--anchor: expected SEQ:HASH as printed by 'hfa audit anchor', got {args.anchor!r}",
            EXIT_USAGE,
        )
    services = open_database(args)
    mirror = None if args.no_mirror else services.config.data_dir / "audit.jsonl"
    if mirror is not None and not mirror.is_file():
        print(
            f"note: no JSON-lines mirror at {mirror}; checking the database only", file=sys.stderr
        )
        mirror = None
    started = time.perf_counter()
    try:
        if mirror is not None:
            # Entries committed by a process that died before writing their lines are
            # copied in first: a mirror that lags is not a tampered one.
            copied = services.audit.sync_mirror(services.db.engine)
            if copied:
                print(
                    f"note: copied {copied} committed entries the mirror lacked at its end "
                    "(a process stopped between its commit and its mirror line)",
                    file=sys.stderr,
                )
        with services.db.reading() as session:
            verdict = audit_check.verify(session, mirror=mirror, anchor=anchor)
    finally:
        services.close()
    seconds = time.perf_counter() - started
    rate = verdict.entries / seconds if seconds > 0 else 0.0
    if args.json:
        print_json(
            {
                "ok": not verdict.problems,
                "entries": verdict.entries,
                "head": {"seq": verdict.head_seq, "hash": verdict.head_hash},
                "mirror_lines": verdict.mirror_lines,
                "seconds": round(seconds, 3),
                "problems": [
                    {
                        "source": p.source,
                        "seq": p.seq,
                        "line": p.line,
                        "kind": p.kind,
                        "detail": p.detail,
                    }
                    for p in verdict.problems
                ],
            }
        )
    else:
        for problem in verdict.problems:
            print(f"FAILED {problem.describe()}")
        if not verdict.problems:
            checked = "database" + (
                f" and {verdict.mirror_lines} mirror lines" if verdict.mirror_lines else ""
            )
            anchored = f"; extends anchor {anchor[0]}" if anchor else ""
            print(
                f"OK: {verdict.entries} entries ({checked}) form an unbroken chain{anchored}; "
                f"head {verdict.head_seq}:{verdict.head_hash}"
            )
        print(f"checked in {seconds:.2f}s ({rate:,.0f} entries/s)")
    return EXIT_FAILED if verdict.problems else EXIT_OK


def cmd_anchor(args: argparse.Namespace) -> int:
    services: Services = open_database(args)
    try:
        with services.db.reading() as session:
            seq, digest = audit_check.head(session)
            entry = session.get(AuditEntry, seq) if seq else None
            at = entry.at if entry is not None else None
    finally:
        services.close()
    if args.json:
        print_json({"seq": seq, "hash": digest, "at": when(at) + "Z" if at else None})
    else:
        print(f"{seq}:{digest}")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("audit", help="tail, verify and anchor the tamper-evident audit log")
    s = p.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    tail = s.add_parser("tail", help="show the latest entries; -f follows new ones")
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new entries")
    tail.add_argument("-n", "--lines", type=int, default=20, help="how many to show (default 20)")
    tail.add_argument("--reference", help="only this request (HFA-00042)")
    tail.add_argument("--event", help="only this event type; 'email.*' matches a prefix")
    tail.add_argument("--since", help="ISO time or age (30m, 2h, 7d); all entries since then")
    tail.add_argument("--json", action="store_true", help="one JSON object per line")
    tail.add_argument("--interval", type=float, default=1.0, help=argparse.SUPPRESS)
    tail.set_defaults(handler=cmd_tail)
    verify = s.add_parser("verify", help="check the whole hash chain and the JSON-lines mirror")
    verify.add_argument("--anchor", help="SEQ:HASH from 'hfa audit anchor' the log must extend")
    verify.add_argument("--no-mirror", action="store_true", help="check the database only")
    verify.add_argument("--json", action="store_true")
    verify.set_defaults(handler=cmd_verify)
    anchor = s.add_parser("anchor", help="print the head as SEQ:HASH, to keep elsewhere")
    anchor.add_argument("--json", action="store_true")
    anchor.set_defaults(handler=cmd_anchor)
