"""What the ops commands share: opening an existing database, tables, exit codes.

Exit codes: 0 done, 1 the check or action failed (e.g. ``audit verify`` found
a bad entry), 2 usage or configuration (including a database that is not
there), 3 the reference or id named does not exist.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import secrets
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import inspect, make_url
from sqlalchemy.exc import SQLAlchemyError

from gateway.cli.common import config_from
from gateway.cli.terminal import escape as shown
from gateway.clock import Clock, iso
from gateway.config import Config
from gateway.errors import ConfigError, StorageError
from gateway.store.db import Database

if TYPE_CHECKING:
    from rich.console import Console

    from gateway.services import Services

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3

# reply+TOKEN@domain and our Message-IDs <hfa.TOKEN.xxx@domain> carry reply tokens, which
# let anyone answer as the lawyer: ops output hides them.
_REPLY_TOKEN = re.compile(r"(\breply\+)[^@\s<>\"',]+(@)", re.IGNORECASE)
_MESSAGE_ID_TOKEN = re.compile(r"(<hfa\.)[^.@\s>]+(\.)", re.IGNORECASE)


def _no_gateway(where: str, config: Config) -> ConfigError:
    return ConfigError(
        f"no gateway database at {where} (HFA_DATA_DIR {config.data_dir}): run 'hfa serve' or "
        "'hfa db upgrade' first, or set HFA_DATA_DIR or HFA_DATABASE_URL (or --config) to "
        "where the gateway keeps its data"
    )


@dataclass
class Reading:
    """What a command that only reads the record needs: no keys, templates or audit writer.

    ``hfa health`` (a container's health check every 30 s) and the lists start
    without loading the rest of the gateway.
    """

    config: Config
    db: Database
    clock: Clock

    def close(self) -> None:
        self.db.dispose()


def _gateway_database(config: Config) -> Database:
    """The gateway's database, checked to be there and to hold the gateway's schema."""
    url = config.database_url
    shown_url = make_url(url).render_as_string(hide_password=True)
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path in ("", ":memory:") or not Path(path).is_file():
            raise _no_gateway(path or url, config)
    db = Database(url)
    try:
        db.ping()
        empty = not inspect(db.engine).has_table("alembic_version")
    except (StorageError, SQLAlchemyError) as exc:
        db.dispose()
        raise ConfigError(f"cannot reach the database at {shown_url} ({exc})") from None
    if empty:
        db.dispose()
        raise _no_gateway(shown_url, config)
    return db


def open_reading(args: argparse.Namespace) -> Reading:
    """The record of a gateway that exists, to read; never creates a database."""
    config = config_from(args)
    return Reading(config, _gateway_database(config), Clock())


def open_database(args: argparse.Namespace, *, signs: bool = False) -> Services:
    """The whole gateway's services over a database that already exists; never creates one.

    Only ``hfa serve`` and ``hfa db upgrade`` make a database: every other command
    refuses where there is none, so a mistyped data directory is never a new, empty
    gateway that nobody serves. ``signs``: the command issues reply tokens or thread
    links, so it needs the gateway's own keys, not a stand-in.
    """
    config = config_from(args)
    _gateway_database(config).dispose()
    has_keys = bool(config.secret_keys) or (config.data_dir / "secret_keys").exists()
    if signs and not has_keys:
        raise ConfigError(
            f"HFA_SECRET_KEYS is not set and {config.data_dir / 'secret_keys'} does not exist: "
            "give this command the gateway's HFA_SECRET_KEYS (or its HFA_DATA_DIR)"
        )
    if not has_keys:
        # Nothing was ever signed with a key here; do not create one just to read.
        config = config.with_overrides(secret_keys=secrets.token_urlsafe(32))
    # The whole gateway, loaded only by the commands that act on it (not by the reads).
    from gateway.services import build_services

    return build_services(config, migrate=False)


def operator(args: argparse.Namespace) -> str:
    """Who ran an ops action: --by NAME, else the login name."""
    by = getattr(args, "by", None)
    if by:
        return str(by)
    try:
        return os.environ.get("USER") or getpass.getuser()
    except OSError:
        return "ops"


def hide_tokens(text: str) -> str:
    return _MESSAGE_ID_TOKEN.sub(r"\1…\2", _REPLY_TOKEN.sub(r"\1…\2", text))


def when(moment: datetime | None) -> str:
    return iso(moment)[:19].replace("T", " ") if moment is not None else ""


def parse_since(text: str, now: datetime) -> datetime:
    """An ISO date/date-time, or an age: 90s, 30m, 2h, 7d."""
    value = text.strip()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if value and value[-1] in units and value[:-1].replace(".", "", 1).isdigit():
        return now - timedelta(seconds=float(value[:-1]) * units[value[-1]])
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"--since: expected an ISO date-time (2026-11-30T09:00Z) or an age (30m, 2h, 7d), "
            f"got {text!r}"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def console() -> Console:
    from rich.console import Console  # only the commands that print a table load rich

    width = shutil.get_terminal_size((160, 24)).columns
    # No colours or styles: every byte goes through the escaping stream, where an escape
    # sequence of rich's own would show as text like any other.
    return Console(
        file=sys.stdout,
        width=max(width, 100),
        highlight=False,
        soft_wrap=False,
        color_system=None,
    )


def print_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str = "") -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title or None, show_edge=False, box=None, pad_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        # Escaped twice over: rich markup ("[red]") and terminal controls are shown, not obeyed.
        table.add_row(*("" if v is None else escape(shown(v)) for v in row))
    console().print(table)


def add_limit(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--limit",
        type=_count,
        default=200,
        help=f"the newest this many {what} (default 200; 0: all of them)",
    )


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 (all) or a positive number, got {text!r}")
    return value


def limited(rows: list[Any], limit: int, what: str) -> list[Any]:
    """The newest ``limit`` rows of ``rows`` (read with one more than the limit), oldest first.

    When rows were left out, stderr says so: a list is never silently cut.
    """
    if limit and len(rows) > limit:
        rows = rows[:limit]
        print(
            f"note: only the newest {limit} {what} are shown; --limit 0 shows all"
            + (
                ", and 'hfa export' writes every request with every turn"
                if what == "requests"
                else ""
            ),
            file=sys.stderr,
        )
    return rows[::-1]


def fail(message: str, code: int) -> int:
    print(f"hfa: {message}", file=sys.stderr)
    return code
