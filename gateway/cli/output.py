"""What the ops commands share: opening an existing gateway database (never a new one).

Tables, exit codes and times are in ``gateway.cli.tables`` (re-exported here).

Exit codes: 0 done, 1 the check or action failed (e.g. ``audit verify`` found
a bad entry), 2 usage or configuration (including a database that is not
there), 3 the reference or id named does not exist.
"""

from __future__ import annotations

import argparse
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, make_url
from sqlalchemy.exc import SQLAlchemyError

from gateway.cli.common import config_from
from gateway.cli.tables import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    add_limit,
    console,
    fail,
    hide_tokens,
    limited,
    operator,
    parse_since,
    print_table,
    when,
)
from gateway.clock import Clock
from gateway.errors import ConfigError, StorageError
from gateway.settings.config import Config
from gateway.store.db import Database
from gateway.store.direct import no_gateway

if TYPE_CHECKING:
    from gateway.services import Services

# The tables' names too: the commands import what they share from here.
__all__ = [
    "EXIT_FAILED",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_USAGE",
    "RecordView",
    "add_limit",
    "console",
    "fail",
    "hide_tokens",
    "limited",
    "open_database",
    "open_record",
    "operator",
    "parse_since",
    "print_table",
    "when",
]


@dataclass
class RecordView:
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
            raise no_gateway(path or url, config.data_dir)
    db = Database(url)
    try:
        db.ping()
        empty = not inspect(db.engine).has_table("alembic_version")
    except (StorageError, SQLAlchemyError) as exc:
        db.dispose()
        raise ConfigError(f"cannot reach the database at {shown_url} ({exc})") from None
    if empty:
        db.dispose()
        raise no_gateway(shown_url, config.data_dir)
    return db


def open_record(args: argparse.Namespace) -> RecordView:
    """The record of a gateway that exists, to read; never creates a database."""
    config = config_from(args)
    return RecordView(config, _gateway_database(config), Clock())


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
