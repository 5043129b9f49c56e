"""``hfa requests show|close``: one request's whole thread, and closing it (audited).

Apart from ``hfa requests list``, so that the list starts without what closing needs
(the push to the agent, the mail to the lawyers).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.cli.common import print_json
from gateway.cli.output import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    fail,
    hide_tokens,
    open_database,
    operator,
    print_table,
    when,
)
from gateway.cli.request_rows import summary
from gateway.cli.terminal import escape as shown
from gateway.inbound.held import HELD_OUTCOMES
from gateway.outbound.closing import Push, Tell, close_request
from gateway.store.models import InboundMessage, OutboxItem, Recipient, Request
from gateway.store.thread import load_turns, turn_as_json

if TYPE_CHECKING:
    from gateway.services import Services


def find_request(session: Session, reference: str) -> Request | None:
    number = contract.number_from_reference(reference)
    return session.get(Request, number) if number is not None else None


@contextmanager
def named_request(
    args: argparse.Namespace, *, write: bool
) -> Iterator[tuple[Services, Session, Request | None]]:
    """The database, a session (a write transaction, or read-only) and the request
    ``args.reference`` names, None when there is none; the database is closed after."""
    services = open_database(args)
    try:
        with services.db.transaction() if write else services.db.read_only() as session:
            yield services, session, find_request(session, args.reference)
    finally:
        services.close()


def no_request(args: argparse.Namespace) -> int:
    return fail(f"no request {args.reference}", EXIT_NOT_FOUND)


def emails_of(session: Session, request_id: int) -> list[dict[str, Any]]:
    items = session.scalars(
        select(OutboxItem).where(OutboxItem.request_id == request_id).order_by(OutboxItem.id)
    )
    return [
        {
            "id": i.id,
            "channel": i.channel,
            "purpose": i.purpose,
            "to": i.target if i.channel == "email" else i.target.split("?")[0],
            "state": i.state,
            "attempts": i.attempts,
            "queued_at": contract.iso(i.created_at),
            "sent_at": contract.iso(i.sent_at) if i.sent_at else None,
            "last_error": i.last_error,
        }
        for i in items
    ]


def _held(session: Session, request_id: int) -> list[dict[str, Any]]:
    """Messages held on this request (not recorded), with the command that accepts them."""
    rows = session.scalars(
        select(InboundMessage)
        .where(InboundMessage.request_id == request_id, InboundMessage.outcome.in_(HELD_OUTCOMES))
        .order_by(InboundMessage.id)
    )
    return [
        {
            "inbound_id": r.id,
            "received_at": contract.iso(r.received_at),
            "mail_from": r.mail_from,
            "outcome": r.outcome,
            "why": r.outcome_detail or "",
            "accept_with": f"hfa inbound accept {r.id} --by NAME"
            if r.outcome == "unverified_sender"
            else f"hfa inbound show {r.id}",
        }
        for r in rows
    ]


def _print_held(held: list[dict[str, Any]]) -> None:
    print("\nHELD MESSAGES (not on the record)")
    if not held:
        print("    none")
    for h in held:
        print(
            f"    inbound {h['inbound_id']}  {h['received_at'][:19]}  from {shown(h['mail_from'])}"
        )
        print(f"        held: {h['outcome']} - {shown(h['why'][:200])}")
        print(f"        to record it: {h['accept_with']}")


def _print_head(request: Request, recipients: list[dict[str, str]]) -> None:
    fields = request.fields
    agent = shown(fields.get("agent_name") or "(agent)")
    print(f"{request.reference}  {request.status.upper()}  {request.category} / {request.urgency}")
    print(f"  filed      {when(request.received_at)}Z by {agent}")
    if request.api_key_name:
        print(f"  api key    {shown(request.api_key_name)}")
    if fields.get("deadline"):
        print(f"  deadline   {shown(fields['deadline'])}")
    if request.reply_to:
        print(f"  reply_to   {shown(request.reply_to).split('?')[0]}")
    for r in recipients:
        print(f"  {r['role']:<10} {r['address']}")
    print(f"  reminders  {request.reminders_sent}{' (escalated)' if request.escalated else ''}")
    if fields.get("proposed_action"):
        print("\nPROPOSED ACTION")
        for line in shown(fields["proposed_action"]).splitlines() or [""]:
            print(f"    {line}")


def _proven_by(entry: object) -> str:
    """How the sender was proven: the ladder's entry, or the text older turns carry."""
    if not isinstance(entry, dict):
        return str(entry or "")
    if entry.get("method") == "confirm":
        return f"confirmed by {entry.get('domain')} ({_proven_by(entry.get('confirm'))})"
    if entry.get("method") == "ops":
        return f"accepted by {entry.get('accepted_by')}"
    key = str(entry.get("key_sha256") or "")
    parts = [
        f"{entry.get('method')} {entry.get('result')} {entry.get('domain')}",
        f"selector {entry['selector']}" if entry.get("selector") else "",
        f"key sha256 {key[:16]}" if key else "",
        f"DMARC p={entry['dmarc_policy']}" if entry.get("dmarc_policy") else "",
        f"verified by {entry.get('verified_by')} at {entry.get('checked_at')}",
    ]
    return ", ".join(p for p in parts if p)


def _print_turn(turn: dict[str, Any]) -> None:
    who = f" from {shown(turn['from'])}" if turn.get("from") else ""
    decision = f" decision={turn['decision']}" if turn.get("decision") else ""
    if turn.get("decision_unclear"):
        decision += f" decision_unclear ({shown(turn.get('decision_words'))})"
    held = turn.get("pending")
    if isinstance(held, dict):
        # Read from typed text and held for its correction window: not in effect yet.
        decision += f" read_as={held.get('read_as')} (takes effect {held.get('takes_effect_at')})"
    if turn.get("read_from"):
        decision += f" read_from={turn['read_from']}"
    print(f"\n--- {turn['at']}  {turn['author']}/{turn['kind']}{who}{decision}")
    for line in hide_tokens(shown(turn["body"])).splitlines() or [""]:
        print(f"    {line}")
    proven = _proven_by(turn.get("authenticated_by"))
    if proven:
        print(f"    sender: {shown(proven)}")
    for number, condition in enumerate(turn.get("conditions") or [], 1):
        print(f"    condition {number}: {shown(condition)}")
    for a in turn.get("attachments") or []:
        print(
            f"    attachment: {shown(a.get('name'))} ({a.get('size', 0)} bytes, "
            f"sha256 {str(a.get('sha256', ''))[:12]}){'' if a.get('stored', True) else ' raw only'}"
        )


def cmd_show(args: argparse.Namespace) -> int:
    with named_request(args, write=False) as (_services, session, request):
        if request is None:
            return no_request(args)
        turns = [turn_as_json(t) for t in load_turns(session, request.id)]
        emails = emails_of(session, request.id)
        held = _held(session, request.id)
        recipients = [
            {"address": r.address, "role": r.role}
            for r in session.scalars(select(Recipient).where(Recipient.request_id == request.id))
        ]
    if args.json:
        print_json(
            {
                "request": summary(request),
                "recipients": recipients,
                "turns": turns,
                "emails": emails,
                "held": held,
            }
        )
        return EXIT_OK
    _print_head(request, recipients)
    print("\nTHREAD")
    for turn in turns:
        _print_turn(turn)
    _print_held(held)
    _print_deliveries(emails)
    return EXIT_OK


def _print_deliveries(emails: list[dict[str, Any]]) -> None:
    print("\nDELIVERIES")
    print_table(
        ("id", "channel", "purpose", "to", "state", "tries", "queued", "sent", "last error"),
        [
            (
                e["id"],
                e["channel"],
                e["purpose"],
                e["to"],
                e["state"],
                e["attempts"],
                e["queued_at"][:19],
                (e["sent_at"] or "")[:19],
                e["last_error"] or "",
            )
            for e in emails
        ],
    )


def cmd_close(args: argparse.Namespace) -> int:
    with named_request(args, write=True) as (services, session, request):
        by = operator(args)
        if request is None:
            return no_request(args)
        if request.status == "closed":
            return fail(f"{request.reference} is already closed", EXIT_FAILED)
        now = services.clock.now()
        old = request.status
        close_request(
            services,
            session,
            request,
            at=now,
            reason=f"closed by {by}: {args.reason}",
            actor=f"ops:{by}",
            audit_reason=args.reason,
            decision=args.reason,
            tell=Tell("closed", {"by": f"ops:{by}", "reason": args.reason}),
            push=Push(ahead_of_mail=True),
        )
        reference = request.reference
    print(f"{reference} closed (was {old}); recorded as closed by {by}")
    return EXIT_OK
