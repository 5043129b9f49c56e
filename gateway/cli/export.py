"""``hfa export``: every request with every turn, streamed as JSON Lines.

The export a rollback keeps (README, "Upgrading and rolling back"): one line per
request, oldest first, with its whole thread (the lawyers' answers included), its
recipients and its deliveries. Nothing is cut: rows are read in batches by id, so
any number of requests streams in constant memory, and the last line says how
many were written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.cli.output import EXIT_OK, EXIT_USAGE, fail, open_database
from gateway.cli.request_rows import summary
from gateway.cli.requests_thread import emails_of
from gateway.cli.terminal import json_text
from gateway.store.models import Recipient, Request
from gateway.store.thread import load_turns, turn_as_json

BATCH = 200


def requests_in_batches(session: Session, since_id: int = 0) -> Iterator[Request]:
    """Every request after ``since_id``, oldest first, ``BATCH`` rows per query."""
    last = since_id
    while True:
        batch = list(
            session.scalars(
                select(Request).where(Request.id > last).order_by(Request.id).limit(BATCH)
            )
        )
        yield from batch
        if len(batch) < BATCH:
            return
        last = batch[-1].id


def exported(session: Session, request: Request) -> dict[str, Any]:
    return {
        "request": {**summary(request), "fields": request.fields},
        "recipients": [
            {"address": r.address, "role": r.role}
            for r in session.scalars(select(Recipient).where(Recipient.request_id == request.id))
        ],
        "turns": [turn_as_json(t) for t in load_turns(session, request.id)],
        "emails": emails_of(session, request.id),
    }


def cmd_export(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        return fail(
            f"--limit: expected a number of requests of 1 or more, got {args.limit}; "
            "leave it out to export every request",
            EXIT_USAGE,
        )
    start = 0
    if args.since_reference:
        number = contract.number_from_reference(args.since_reference)
        if number is None:
            return fail(
                f"--after: expected a reference like HFA-00042, got {args.since_reference!r}",
                EXIT_USAGE,
            )
        start = number
    services = open_database(args)
    written = 0
    try:
        with services.db.read_only() as session:
            for request in requests_in_batches(session, start):
                sys.stdout.write(json_text(exported(session, request), indent=None) + "\n")
                written += 1
                if args.limit is not None and written >= args.limit:
                    break
    finally:
        services.close()
    sys.stdout.flush()
    print(f"exported {written} request(s) with every turn", file=sys.stderr)
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="every request with every turn, as JSON Lines",
        description="One JSON object per line and request, oldest first: the request, its "
        "recipients, every turn (the answers included) and every delivery. Nothing is left out.",
    )
    p.add_argument(
        "--after",
        dest="since_reference",
        metavar="REFERENCE",
        help="only requests filed after this one (to continue an export)",
    )
    p.add_argument("--limit", type=int, help="at most this many requests (default: all)")
    p.set_defaults(handler=cmd_export)
