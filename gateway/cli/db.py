"""``hfa db``: bring the schema up to date once, and say where it stands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gateway.cli.common import config_from, print_json
from gateway.cli.output import EXIT_FAILED, EXIT_OK
from gateway.store import schema
from gateway.store.db import Database


def cmd_upgrade(args: argparse.Namespace) -> int:
    config = config_from(args)
    db = Database(config.database_url)
    try:
        before, after = db.migrate()
    finally:
        db.dispose()
    if before == after:
        print(f"the database schema is already at {after}")
    else:
        print(f"upgraded the database schema from {before or 'empty'} to {after}")
    return EXIT_OK


def _revision(url: str) -> str | None:
    path = url.removeprefix("sqlite:///")
    if url.startswith("sqlite") and not Path(path).is_file():
        return None  # looking must not create an empty database
    db = Database(url)
    try:
        return schema.current_revision(db.engine)
    finally:
        db.dispose()


def cmd_status(args: argparse.Namespace) -> int:
    config = config_from(args)
    current = _revision(config.database_url)
    head = schema.code_revision()
    state = (
        "up to date"
        if current == head
        else "empty: run 'hfa db upgrade'"
        if current is None
        else "older than this release: run 'hfa db upgrade'"
        if schema.knows(current)
        else "newer than this release: run the release that upgraded it"
    )
    if args.json:
        print_json({"database": current, "release": head, "state": state})
    else:
        print(f"database schema: {current or '(none)'}\nthis release:    {head}\n{state}")
    return EXIT_OK if current == head else EXIT_FAILED


def register(sub: Any) -> None:
    p = sub.add_parser("db", help="the database schema: upgrade, status")
    s = p.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    up = s.add_parser(
        "upgrade", help="apply the schema migrations of this release (safe to repeat)"
    )
    up.set_defaults(handler=cmd_upgrade)
    st = s.add_parser("status", help="the database's schema revision against this release's")
    st.add_argument("--json", action="store_true")
    st.set_defaults(handler=cmd_status)
