"""``hfa mail list|show``: read the mail written to the local Maildir (no relay set)."""

from __future__ import annotations

import argparse
import sys
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

from gateway.cli.common import config_from, print_json
from gateway.cli.output import EXIT_NOT_FOUND
from gateway.outbound.transports import read_maildir


def _messages(args: argparse.Namespace) -> list[tuple[str, EmailMessage]]:
    config = config_from(args)
    out = []
    for key, raw in read_maildir(config.data_dir / "maildir"):
        msg = message_from_bytes(raw, policy=default_policy)
        assert isinstance(msg, EmailMessage)
        out.append((key, msg))
    return out


def cmd_list(args: argparse.Namespace) -> int:
    messages = _messages(args)
    rows = [
        {"n": n, "date": str(m["Date"]), "to": str(m["To"]), "subject": str(m["Subject"])}
        for n, (_key, m) in enumerate(messages, 1)
    ]
    if args.json:
        print_json(rows)
    elif not rows:
        print("no mail in the Maildir yet")
    else:
        for r in rows:
            print(f"{r['n']:>4}  {r['date']}  {r['to']}  {r['subject']}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    messages = _messages(args)
    if not 1 <= args.number <= len(messages):
        print(
            f"hfa: no message {args.number} in the Maildir; 'hfa mail list' shows "
            + (f"1..{len(messages)}" if messages else "none yet"),
            file=sys.stderr,
        )
        return EXIT_NOT_FOUND
    _key, msg = messages[args.number - 1]
    if args.raw:
        print(msg.as_string())
        return 0
    for name in ("Date", "From", "To", "Reply-To", "Subject", "Message-ID", "In-Reply-To"):
        if msg[name]:
            print(f"{name}: {msg[name]}")
    body = msg.get_body(preferencelist=("plain",))
    print()
    print(body.get_content() if body is not None else "(no text part)")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("mail", help="read mail written to the local Maildir")
    s = p.add_subparsers(dest="mail_command", required=True, metavar="ACTION")
    ls = s.add_parser("list", help="list the messages, oldest first")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=cmd_list)
    show = s.add_parser("show", help="show one message (number from 'hfa mail list')")
    show.add_argument("number", type=int)
    show.add_argument("--raw", action="store_true", help="the whole message as sent")
    show.set_defaults(handler=cmd_show)
