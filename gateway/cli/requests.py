"""``hfa requests list|show|close|reassign|erase``: the requests as ops see them."""

from __future__ import annotations

import argparse
from typing import Any

from gateway import contract
from gateway.cli.common import config_from, print_json
from gateway.cli.request_rows import gist, summary
from gateway.cli.tables import EXIT_OK, add_limit, limited, print_table, when
from gateway.cli.terminal import escape as shown
from gateway.clock import Clock
from gateway.store.listing import list_requests


def cmd_list(args: argparse.Namespace) -> int:
    config = config_from(args)
    now = Clock().now()
    requests = limited(
        list_requests(
            config.database_url,
            config.data_dir,
            status=args.status,
            category=args.category,
            overdue_at=now if args.overdue else None,
            limit=args.limit + 1 if args.limit else 0,
        ),
        args.limit,
        "requests",
    )
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


def _reassign(args: argparse.Namespace) -> int:
    from gateway.cli import requests_reassign

    return requests_reassign.cmd_reassign(args)


def _erase(args: argparse.Namespace) -> int:
    from gateway.cli import requests_erase

    return requests_erase.cmd_erase(args)


def register(sub: Any) -> None:
    p = sub.add_parser("requests", help="list, show, close, reassign and erase requests")
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
    move = s.add_parser("reassign", help="move a request to another lawyer (audited)")
    move.add_argument("reference")
    move.add_argument("--to", required=True, help="the lawyer who answers from now on")
    move.add_argument(
        "--from", dest="earlier", help="the lawyer replaced (default: the one awaited)"
    )
    move.add_argument("--reason", required=True, help="why; recorded in the thread")
    move.add_argument("--by", help="who decided (default: $USER)")
    move.set_defaults(handler=_reassign)
    erase = s.add_parser(
        "erase", help="erase an ended request's content (right to erasure; audited)"
    )
    erase.add_argument("reference")
    erase.add_argument("--reason", required=True, help="why; recorded in the thread and the log")
    erase.add_argument("--by", help="who decided (default: $USER)")
    erase.set_defaults(handler=_erase)


def contract_statuses() -> tuple[str, ...]:
    return contract.STATUSES
