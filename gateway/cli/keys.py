"""``hfa keys``: agent API keys (create, list, revoke) and reply-token key rotation."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gateway.cli.common import config_from, print_json
from gateway.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, open_database, operator
from gateway.contract import iso
from gateway.intake import apikeys
from gateway.services import Services
from gateway.store import heartbeats
from gateway.tokens import NEXT_KEY_FILE, add_next_key, next_key_fingerprint, sign_with_next_key


def cmd_create(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.transaction() as session:
            key = apikeys.create_key(
                services, session, args.name, client=args.client, matter=args.matter
            )
    finally:
        services.close()
    print(key)
    print(f"# the key of {args.name!r}: shown once, stored only as a hash", flush=True)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.read_only() as session:
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
            "client": k.client,
            "matter": k.matter,
        }
        for k in keys
    ]
    if args.json:
        print_json(rows)
        return 0
    for row in rows:
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else "live"
        party = " · ".join(
            f"{label}: {row[key]}"
            for key, label in (("client", "For"), ("matter", "Matter"))
            if row[key]
        )
        print(
            f"{row['name']}\t{row['source']}\t{row['created_at'] or '-'}\t{state}"
            + (f"\t{party}" if party else "")
        )
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


ENV_ROTATION = (
    "HFA_SECRET_KEYS is set: rotate it in two steps, so that no running process meets a "
    "reply address it cannot verify: 1) put the new key FIRST in the list everywhere "
    "(HFA_SECRET_KEYS=NEW,OLD) and restart every process: all accept it, none signs with it; "
    "2) move it to the END (HFA_SECRET_KEYS=OLD,NEW) and restart every process again: it signs"
)


def cmd_rotate(args: argparse.Namespace) -> int:
    config = config_from(args)
    if config.secret_keys:
        print(ENV_ROTATION, file=sys.stderr)
        return EXIT_FAILED
    services = open_database(args)
    try:
        if args.sign:
            return _sign_with_the_new_key(services)
        add_next_key(config.data_dir)
        _audit_rotation(services, "accepted")
    finally:
        services.close()
    print(
        f"step 1 of 2: added a new reply-token key to {config.data_dir / NEXT_KEY_FILE}; every "
        "process accepts it once restarted, none signs with it yet. Restart every gateway "
        "process (one at a time is fine), then run 'hfa keys rotate --sign'."
    )
    return EXIT_OK


def _sign_with_the_new_key(services: Services) -> int:
    data_dir = services.config.data_dir
    waiting = next_key_fingerprint(data_dir)
    if waiting is None:
        return fail("no new key waits to sign: run 'hfa keys rotate' first", EXIT_USAGE)
    now = services.clock.now()
    with services.db.read_only() as session:
        live = heartbeats.live_rows(session, now, services.config.ready_role_seconds)
    for row in live:
        if waiting not in heartbeats.ProcessKeys.from_json(row.keys).reply_verifying:
            return fail(
                f"the {row.roles} process on {row.host} (pid {row.pid}) does not accept the new "
                "key yet: restart it (and every process started before 'hfa keys rotate'), "
                "then run 'hfa keys rotate --sign' again",
                EXIT_FAILED,
            )
    count = sign_with_next_key(data_dir)
    _audit_rotation(services, "signing", keys=count)
    print(
        f"step 2 of 2: the new key signs from each process's next start ({count} keys; the "
        "older ones still verify replies in flight). Restart every gateway process."
    )
    return EXIT_OK


def _audit_rotation(services: Services, stage: str, **details: int) -> None:
    with services.db.transaction() as session:
        services.audit.append(
            session,
            "reply_key.rotated",
            at=services.clock.now(),
            actor="ops",
            details={"stage": stage, **details},
        )


def register(sub: Any) -> None:
    keys = sub.add_parser("keys", help="agent API keys; reply-token key rotation")
    ksub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    p = ksub.add_parser("create", help="create an agent API key (printed once)")
    p.add_argument("name", help="the agent's name, recorded on each request it files")
    p.add_argument("--client", help="the client the key's agent works for (shown to the lawyer)")
    p.add_argument("--matter", help="the matter the key's agent works on (shown to the lawyer)")
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
    p = ksub.add_parser(
        "rotate",
        help="add a new reply-token key that every process accepts; --sign: make it the signer",
    )
    p.add_argument(
        "--sign",
        action="store_true",
        help="step 2, once every process was restarted after step 1: the new key signs",
    )
    p.set_defaults(handler=cmd_rotate)
