"""``hfa outbox list|retry``: what is waiting to be delivered, what failed, try again."""

from __future__ import annotations

import argparse
from typing import Any

from sqlalchemy import select

from gateway import contract
from gateway.cli.common import print_json
from gateway.cli.output import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    add_limit,
    fail,
    limited,
    open_database,
    operator,
    print_table,
)
from gateway.store.models import OutboxItem, Request


def _target(item: OutboxItem) -> str:
    # A webhook URL's query string may carry the receiver's own secret.
    return item.target if item.channel == "email" else item.target.split("?")[0]


def _as_json(item: OutboxItem, reference: str | None) -> dict[str, Any]:
    return {
        "id": item.id,
        "channel": item.channel,
        "purpose": item.purpose,
        "reference": reference,
        "to": _target(item),
        "state": item.state,
        "attempts": item.attempts,
        "next_attempt_at": contract.iso(item.next_attempt_at),
        "created_at": contract.iso(item.created_at),
        "sent_at": contract.iso(item.sent_at) if item.sent_at else None,
        "last_error": item.last_error,
    }


def cmd_list(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.read_only() as session:
            query = (
                select(OutboxItem, Request.id)
                .outerjoin(Request, OutboxItem.request_id == Request.id)
                .order_by(OutboxItem.id.desc())
            )
            if args.limit:
                query = query.limit(args.limit + 1)
            if args.failed:
                query = query.where(OutboxItem.state == "dead")
            elif args.pending:
                query = query.where(OutboxItem.state == "pending")
            rows = limited(
                [
                    _as_json(item, contract.reference_for(rid) if rid else None)
                    for item, rid in session.execute(query)
                ],
                args.limit,
                "deliveries",
            )
    finally:
        services.close()
    if args.json:
        print_json(rows)
        return EXIT_OK
    if not rows:
        print("no failed deliveries" if args.failed else "the outbox is empty")
        return EXIT_OK
    print_table(
        ("id", "channel", "purpose", "reference", "to", "state", "tries", "queued", "last error"),
        [
            (
                r["id"],
                r["channel"],
                r["purpose"],
                r["reference"] or "",
                r["to"],
                r["state"],
                r["attempts"],
                r["created_at"][:19].replace("T", " "),
                r["last_error"] or "",
            )
            for r in rows
        ],
    )
    return EXIT_OK


def cmd_retry(args: argparse.Namespace) -> int:
    if (args.id is None) == (not args.all_failed):
        return fail("outbox retry: give one ID or --all-failed", EXIT_USAGE)
    services = open_database(args)
    by = operator(args)
    try:
        with services.db.transaction() as session:
            now = services.clock.now()
            if args.all_failed:
                items = list(session.scalars(select(OutboxItem).where(OutboxItem.state == "dead")))
            else:
                item = session.get(OutboxItem, args.id)
                if item is None:
                    return fail(f"no outbox item {args.id}", EXIT_NOT_FOUND)
                if item.state == "sent":
                    return fail(f"outbox item {args.id} was already delivered", EXIT_FAILED)
                items = [item]
            for item in items:
                request = session.get(Request, item.request_id) if item.request_id else None
                services.audit.append(
                    session,
                    "outbox.retry_requested",
                    at=now,
                    actor=f"ops:{by}",
                    reference=request.reference if request else None,
                    details={
                        "outbox_id": item.id,
                        "channel": item.channel,
                        "previous_state": item.state,
                        "previous_attempts": item.attempts,
                    },
                )
                # A fresh retry period, due now; the last error stays until one succeeds,
                # and the thread is told when it does.
                if item.state == "dead":
                    item.revived_by = f"ops:{by}"
                item.state, item.attempts = "pending", 0
                item.next_attempt_at, item.lease_until = now, None
                item.retry_since, item.delay_noticed_at = now, None
            ids = [i.id for i in items]
    finally:
        services.close()
    if not ids:
        print("no failed deliveries to retry")
        return EXIT_OK
    print(
        f"queued again: {', '.join(map(str, ids))}; a running gateway delivers "
        "them now ('hfa outbox list' shows the result)"
    )
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("outbox", help="list and retry outgoing email and webhook deliveries")
    s = p.add_subparsers(dest="outbox_command", required=True, metavar="ACTION")
    ls = s.add_parser("list", help="deliveries, newest last")
    which = ls.add_mutually_exclusive_group()
    which.add_argument("--failed", action="store_true", help="only those that gave up (dead)")
    which.add_argument("--pending", action="store_true", help="only those not yet delivered")
    add_limit(ls, "deliveries")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=cmd_list)
    retry = s.add_parser("retry", help="try a failed delivery again (audited)")
    retry.add_argument("id", type=int, nargs="?")
    retry.add_argument("--all-failed", action="store_true", help="every dead item")
    retry.add_argument("--by", help="who decided (default: $USER)")
    retry.set_defaults(handler=cmd_retry)
