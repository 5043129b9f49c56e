"""``hfa inbound list|show|accept|reprocess``: every message the listener took in."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from email.header import decode_header, make_header
from typing import Any, TypeVar

from sqlalchemy import select

from gateway import contract
from gateway.cli.common import print_json
from gateway.cli.output import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    add_limit,
    fail,
    hide_tokens,
    limited,
    open_database,
    operator,
    print_table,
    when,
)
from gateway.errors import NotHeld, Unparseable
from gateway.inbound.mailparse import parse
from gateway.inbound.ops import record_held, reprocess
from gateway.render import shown as escape_controls
from gateway.replies import ReplyError, extract_reply
from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import Attachment, InboundMessage, Turn

# Every outcome the inbound worker gives a message (README, "How it works"); a test keeps
# this list equal to the outcomes the code can give.
OUTCOMES = (
    "recorded",
    "duplicate",
    "auto_reply",
    "bounce",
    "delivery_report",
    "loop",
    "unverified_sender",
    "confirmed",
    "unconfirmed",
    "no_thread",
    "unparseable",
    "failed",
)


def _decoded(value: object) -> str:
    """A header as a person reads it: RFC 2047 words decoded (the raw text if they are bad)."""
    text = str(value)
    try:
        return str(make_header(decode_header(text)))
    except (ValueError, LookupError, UnicodeError):
        return text


SHOWN_HEADERS = (
    "From",
    "To",
    "Cc",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "Auto-Submitted",
    "Authentication-Results",
)


def _row(m: InboundMessage) -> dict[str, Any]:
    return {
        "id": m.id,
        "received_at": contract.iso(m.received_at),
        "peer": m.peer,
        "mail_from": m.mail_from,
        "size": m.size,
        "state": m.state,
        "outcome": m.outcome,
        "outcome_detail": m.outcome_detail,
        "reference": contract.reference_for(m.request_id) if m.request_id else None,
    }


def cmd_list(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.read_only() as session:
            query = select(InboundMessage).order_by(InboundMessage.id.desc())
            if args.limit:
                query = query.limit(args.limit + 1)
            if args.outcome:
                query = query.where(InboundMessage.outcome == args.outcome)
            rows = limited([_row(m) for m in session.scalars(query)], args.limit, "messages")
    finally:
        services.close()
    # The list commands' way of answering (as cli.outbox's): JSON, a line saying nothing
    # matched in its own words, or the table; each reads its own rows before.
    if args.json:
        print_json(rows)
        return EXIT_OK
    if not rows:
        print("no inbound messages match")
        return EXIT_OK
    print_table(
        ("id", "received", "from", "outcome", "reference", "why"),
        [
            (
                r["id"],
                r["received_at"][:19].replace("T", " "),
                r["mail_from"] or "<>",
                r["outcome"] or r["state"],
                r["reference"] or "",
                r["outcome_detail"] or "",
            )
            for r in rows
        ],
    )
    return EXIT_OK


def _captured(raw: bytes, turn: Turn | None) -> dict[str, Any]:
    """Headers, the text recorded (or that would be), and what was set aside."""
    out: dict[str, Any] = {"headers": {}, "text": None, "elided": None, "problem": None}
    try:
        mail = parse(raw)
    except Unparseable as exc:
        out["problem"] = str(exc)
        return out
    for name in SHOWN_HEADERS:
        values = mail.message.get_all(name) or []
        if values:
            out["headers"][name] = hide_tokens(" | ".join(_decoded(v) for v in values))
    if turn is not None:
        out["text"], out["elided"] = turn.body, turn.data.get("elided", "")
        return out
    try:
        reply = extract_reply(mail.text_plain, mail.text_html)
        out["text"], out["elided"] = reply.new_text, reply.elided
    except ReplyError as exc:
        out["problem"] = f"reply text could not be read: {exc}"
    return out


def cmd_show(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.read_only() as session:
            message = session.get(InboundMessage, args.id)
            if message is None:
                return fail(f"no inbound message {args.id}", EXIT_NOT_FOUND)
            turn = session.get(Turn, message.turn_id) if message.turn_id else None
            shown = _row(message) | _captured(blobs.raw_of(session, message), turn)
            shown["rcpt_to"] = [hide_tokens(a) for a in message.rcpt_to]
            shown["attachments"] = [
                {"name": a.filename, "type": a.content_type, "size": a.size}
                for a in session.scalars(
                    select(Attachment).where(Attachment.inbound_id == message.id)
                )
            ]
    finally:
        services.close()
    if args.json:
        print_json(shown)
        return EXIT_OK
    print(f"inbound {shown['id']}  received {when(message.received_at)}Z from {shown['peer']}")
    print(f"  envelope   {shown['mail_from'] or '<>'} -> {', '.join(shown['rcpt_to'])}")
    print(f"  size       {shown['size']} bytes")
    print(f"  outcome    {shown['outcome'] or shown['state']}: {shown['outcome_detail'] or ''}")
    if shown["reference"]:
        print(f"  request    {shown['reference']}")
    print("\nHEADERS")
    for name, value in shown["headers"].items():
        print(f"  {name}: {value}")
    if shown["problem"]:
        print(f"\nPROBLEM\n  {shown['problem']}")
    if shown["text"] is not None:
        print("\nTEXT AS CAPTURED" if turn is not None else "\nTEXT (as it would be recorded)")
        # Quoted gateway mail carries reply addresses (the quick-reply links): tokens hidden.
        for line in hide_tokens(escape_controls(shown["text"])).splitlines() or [""]:
            print(f"    {line}")
        print("\nELIDED (quoted text, signature, disclaimers)")
        for line in hide_tokens(escape_controls(shown["elided"] or "(nothing)")).splitlines():
            print(f"    {line}")
    for a in shown["attachments"]:
        print(f"  attachment {a['name']} ({a['type']}, {a['size']} bytes)")
    return EXIT_OK


T = TypeVar("T")


def _on_held(args: argparse.Namespace, action: Callable[[Services, int, str], T]) -> T | int:
    """Run an ops action on one inbound message; an int is the exit code of a refusal."""
    services = open_database(args)
    try:
        return action(services, args.id, operator(args))
    except LookupError as exc:
        return fail(str(exc), EXIT_NOT_FOUND)
    except NotHeld as exc:
        return fail(str(exc), EXIT_FAILED)
    finally:
        services.close()


def cmd_accept(args: argparse.Namespace) -> int:
    outcome = _on_held(args, record_held)
    if isinstance(outcome, int):
        return outcome
    reference = outcome.request.reference if outcome.request else "?"
    print(
        f"inbound {args.id} recorded on {reference} as the human's {outcome.detail}, "
        f"by {operator(args)}"
    )
    return EXIT_OK


def cmd_reprocess(args: argparse.Namespace) -> int:
    outcome = _on_held(args, reprocess)
    if isinstance(outcome, int):
        return outcome
    print(f"inbound {args.id} reprocessed: {outcome}")
    return EXIT_OK if outcome not in ("retry", "failed") else EXIT_FAILED


# argparse declarations, one block per action: alike in shape, each its own arguments.
def register(sub: Any) -> None:
    p = sub.add_parser("inbound", help="messages the SMTP listener received, and their outcome")
    s = p.add_subparsers(dest="inbound_command", required=True, metavar="ACTION")
    ls = s.add_parser("list", help="messages, newest last")
    ls.add_argument("--outcome", choices=OUTCOMES, help="only messages with this outcome")
    add_limit(ls, "messages")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=cmd_list)
    show = s.add_parser("show", help="headers, the text captured, what was elided, the outcome")
    show.add_argument("id", type=int)
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=cmd_show)
    accept = s.add_parser("accept", help="record a held message as the human's answer (audited)")
    accept.add_argument("id", type=int)
    accept.add_argument("--by", help="who decided (default: $USER)")
    accept.set_defaults(handler=cmd_accept)
    again = s.add_parser("reprocess", help="run a stored message through the worker again")
    again.add_argument("id", type=int)
    again.add_argument("--by", help="who asked (default: $USER)")
    again.set_defaults(handler=cmd_reprocess)
