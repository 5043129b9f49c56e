"""What every command shares: settings, logging, opening the services; ``hfa settings``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gateway.cli.terminal import json_text
from gateway.settings.config import Config, load_config, read_config_file
from gateway.settings.table import SETTINGS
from gateway.throttle import RepeatFilter


def rfc3339(created: float) -> str:
    """A log record's moment as RFC 3339, UTC, to the millisecond: 2026-12-07T10:14:34.512Z."""
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


class TextFormatter(logging.Formatter):
    """Lines for a person, stamped with the same moment as the JSON lines."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return rfc3339(record.created)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "at": rfc3339(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "pid": os.getpid(),
            "message": record.getMessage(),
        }
        # Structured fields a caller passed as extra={"fields": {...}} (audit events do).
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update({k: v for k, v in fields.items() if k not in entry})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def setup_logging(fmt: str, *, serving: bool = True) -> None:
    """Log lines on stderr. A command that is not a running gateway (``serving`` False)
    logs only warnings: its result is what it prints, and each audit entry it writes
    (``api_key.created``) is in the audit log, not a line before that result."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    # A condition that repeats on every connection (no descriptor left, a flood) is one
    # line per interval with a count, not tens of thousands.
    handler.addFilter(RepeatFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # JSON lines are for a collector, which wants every event; a person at a terminal
    # wants a command's result.
    root.setLevel(logging.INFO if serving or fmt == "json" else logging.WARNING)
    # Library chatter (each SMTP command, each HTTP line) is not an event worth a line.
    for noisy in ("mail.log", "aiosmtpd", "uvicorn.access", "mailparser", "httpx", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # Neither format shows threads or processes: each filing logs a few audit lines,
    # and gathering those for every record is work for nothing (logging HOWTO,
    # "Optimization").
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False


def config_from(args: argparse.Namespace) -> Config:
    file_values = read_config_file(Path(args.config)) if getattr(args, "config", None) else None
    return load_config(file_values=file_values)


def print_json(value: Any) -> None:
    print(json_text(value))


def effective_settings(args: argparse.Namespace) -> list[dict[str, str]]:
    """Each setting's value as this command would run with it, and where it came from.

    The same reading as every command (environment over ``--config`` file over
    default, each value checked); secrets are only said to be set or unset.
    """
    path = getattr(args, "config", None)
    file_values = read_config_file(Path(path)) if path else {}
    raw = load_config(env=os.environ, file_values=file_values).raw
    rows = []
    for s in SETTINGS:
        source = (
            "env" if s.env in os.environ else f"file {path}" if s.name in file_values else "default"
        )
        value = raw[s.name]
        shown = ("set" if value else "unset") if s.secret else value
        rows.append({"env": s.env, "value": shown, "source": source, "default": s.text})
    return rows


def cmd_settings(args: argparse.Namespace) -> int:
    rows = effective_settings(args)
    if args.json:
        print_json([row | {"help": s.help} for row, s in zip(rows, SETTINGS, strict=True)])
        return 0
    for row, s in zip(rows, SETTINGS, strict=True):
        value = row["value"] if row["value"] != "" else "(empty)"
        print(f"{row['env']} = {value}  ({row['source']})\n    {s.help}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("settings", help="every setting: its effective value and where it came from")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_settings)
