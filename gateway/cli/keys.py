"""``hfa keys``: agent API keys (create, list, revoke) and reply-token key rotation."""

from __future__ import annotations

import argparse
from typing import Any

from gateway.cli.common import config_from, print_json
from gateway.cli.output import open_database, operator
from gateway.contract import iso
from gateway.intake import apikeys
from gateway.tokens import rotate_stored_keys


def cmd_create(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.transaction() as session:
            key = apikeys.create_key(services, session, args.name)
    finally:
        services.close()
    print(key)
    print(f"# the key of {args.name!r}: shown once, stored only as a hash", flush=True)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.reading() as session:
            keys = apikeys.list_keys(services, session)
            state_line = apikeys.access_state(services, session)
    finally:
        services.close()
    rows = [
        {
            "name": k.name,
            "source": k.source,
            "created_at": iso(k.created_at) if k.created_at else None,
            "revoked_at": iso(k.revoked_at) if k.revoked_at else None,
        }
        for k in keys
    ]
    if args.json:
        print_json(rows)
        return 0
    for row in rows:
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else "live"
        print(f"{row['name']}\t{row['source']}\t{row['created_at'] or '-'}\t{state}")
    if not any(r["revoked_at"] is None for r in rows):
        print(state_line)
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.transaction() as session:
            apikeys.revoke_key(services, session, args.name)
            now_state = apikeys.access_state(services, session)
    finally:
        services.close()
    print(f"revoked {args.name}; {now_state}")
    return 0


def cmd_open(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.transaction() as session:
            apikeys.open_gateway(services, session, operator(args))
    finally:
        services.close()
    print("the gateway is now OPEN: anyone who can reach it may file requests (audited)")
    return 0


def cmd_rotate(args: argparse.Namespace) -> int:
    config = config_from(args)
    if config.secret_keys:
        print(
            "HFA_SECRET_KEYS is set: add a new key at the end of that list instead "
            "(the newest signs, all verify)"
        )
        return 1
    services = open_database(args)
    count = rotate_stored_keys(config.data_dir)
    try:
        with services.db.transaction() as session:
            services.audit.append(
                session,
                "reply_key.rotated",
                at=services.clock.now(),
                actor="ops",
                details={"keys": count},
            )
    finally:
        services.close()
    print(
        f"added a new reply-token key to {config.data_dir / 'secret_keys'} ({count} keys); "
        "restart the gateway to sign with it. Older keys still verify replies in flight."
    )
    return 0


def register(sub: Any) -> None:
    keys = sub.add_parser("keys", help="agent API keys; reply-token key rotation")
    ksub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    p = ksub.add_parser("create", help="create an agent API key (printed once)")
    p.add_argument("name", help="the agent's name, recorded on each request it files")
    p.set_defaults(handler=cmd_create)
    p = ksub.add_parser("list", help="list agent API keys (names only)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)
    p = ksub.add_parser("revoke", help="revoke a stored agent API key")
    p.add_argument("name")
    p.set_defaults(handler=cmd_revoke)
    p = ksub.add_parser(
        "open", help="let anyone file again once no key is live (audited; the default is closed)"
    )
    p.add_argument("--by", help="who decided (default: $USER)")
    p.set_defaults(handler=cmd_open)
    p = ksub.add_parser("rotate", help="add a new secret key for reply tokens")
    p.set_defaults(handler=cmd_rotate)
