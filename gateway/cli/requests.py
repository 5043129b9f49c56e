"""``hfa requests list|show|close``: the requests as ops see them."""

from __future__ import annotations

import argparse
from typing import Any

from sqlalchemy import select

from gateway import contract
from gateway.cli.common import print_json
from gateway.cli.output import (
    EXIT_OK,
    add_limit,
    limited,
    open_reading,
    print_table,
    when,
)
from gateway.cli.request_rows import gist, summary
from gateway.cli.terminal import escape as shown
from gateway.store.models import Request


def cmd_list(args: argparse.Namespace) -> int:
    services = open_reading(args)
    try:
        now = services.clock.now()
        with services.db.reading() as session:
            query = select(Request).order_by(Request.id.desc())
            if args.limit:
                query = query.limit(args.limit + 1)
            if args.status:
                query = query.where(Request.status == args.status)
            if args.category:
                query = query.where(Request.category == args.category)
            if args.overdue:
                query = query.where(
                    Request.status.in_(contract.AWAITING_ANSWER), Request.deadline_at < now
                )
            requests = limited(list(session.scalars(query)), args.limit, "requests")
    finally:
        services.close()
    if args.json:
        print_json([summary(r) for r in requests])
        return EXIT_OK
    if not requests:
        print("no requests match")
        return EXIT_OK
    print_table(
        (
            "reference",
            "status",
            "category",
            "urgency",
            "filed",
            "deadline",
            "rem.",
            "agent",
            "asks",
        ),
        [
            (
                r.reference,
                r.status + (" (overdue)" if r.deadline_at and r.deadline_at < now else ""),
                r.category,
                r.urgency,
                when(r.received_at),
                shown(r.fields.get("deadline") or ""),
                r.reminders_sent,
                shown(r.fields.get("agent_name") or r.api_key_name or ""),
                gist(r),
            )
            for r in requests
        ],
    )
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    # Loaded only for show and close: the list starts without the gateway's services.
    from gateway.cli import requests_thread

    return requests_thread.cmd_show(args)


def _close(args: argparse.Namespace) -> int:
    from gateway.cli import requests_thread

    return requests_thread.cmd_close(args)


def register(sub: Any) -> None:
    p = sub.add_parser("requests", help="list, show and close requests")
    s = p.add_subparsers(dest="requests_command", required=True, metavar="ACTION")
    ls = s.add_parser("list", help="requests, newest last")
    ls.add_argument("--status", choices=tuple(contract_statuses()))
    ls.add_argument("--category")
    ls.add_argument("--overdue", action="store_true", help="open requests past their deadline")
    add_limit(ls, "requests")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=cmd_list)
    show = s.add_parser("show", help="the whole thread and the delivery of each email")
    show.add_argument("reference")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_show)
    close = s.add_parser("close", help="close a request without an answer (audited)")
    close.add_argument("reference")
    close.add_argument("--reason", required=True, help="why; recorded in the thread")
    close.add_argument("--by", help="who decided (default: $USER)")
    close.set_defaults(handler=_close)


def contract_statuses() -> tuple[str, ...]:
    return contract.STATUSES
