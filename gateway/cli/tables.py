"""What the ops commands print and share, without the database: exit codes, tables,
times, limits. Light on purpose: the commands that only read start with it alone.

Exit codes: 0 done, 1 the check or action failed (e.g. ``audit verify`` found
a bad entry), 2 usage or configuration (including a database that is not
there), 3 the reference or id named does not exist.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import shutil
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from gateway.cli.terminal import escape as shown
from gateway.clock import iso
from gateway.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3

# reply+TOKEN@domain and our Message-IDs <hfa.TOKEN.xxx@domain> carry reply tokens, which
# let anyone answer as the lawyer: ops output hides them.
_REPLY_TOKEN = re.compile(r"(\breply\+)[^@\s<>\"',]+(@)", re.IGNORECASE)
_MESSAGE_ID_TOKEN = re.compile(r"(<hfa\.)[^.@\s>]+(\.)", re.IGNORECASE)


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
