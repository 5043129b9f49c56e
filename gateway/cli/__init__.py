"""``hfa``: run the gateway and look after it.

Each command group lives in its own module and registers its subcommands;
a command returns its exit code (0 ok, 1 failure, 2 usage or config, 3 no
such reference or id). Only the module of the command being run is
imported: ``hfa health`` (a container's health check every 30 s) must not
load the SMTP server, the HTTP app and the reply judgement to read one table.
The CLI is the top layer, so loading a module by name here cannot hide an
import cycle.

Its surface is ``main``, the ``hfa`` command (also ``python -m gateway``); the
command modules are the package's own (import-linter's ``surface`` contract).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from gateway import __version__
from gateway.cli.terminal import escaped_output, silence_stdout
from gateway.errors import ConfigError, GatewayError, NotFound

__all__ = ["main"]

# Command -> (the module that registers it, its one-line help for ``hfa --help``).
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("run", "run HTTP, SMTP and the workers"),
    "demo": ("run", "run a full round trip locally and show each step"),
    "db": ("db", "the database schema: upgrade, status"),
    "health": ("health", "each role's live processes and last heartbeat"),
    "requests": ("requests", "list, show and close requests"),
    "export": ("export", "every request with every turn, as JSON Lines"),
    "outbox": ("outbox", "list and retry outgoing email and webhook deliveries"),
    "inbound": ("inbound", "messages the SMTP listener received, and their outcome"),
    "audit": ("audit", "tail, verify and anchor the tamper-evident audit log"),
    "evidence": ("evidence", "one thread's evidence bundle, verifiable offline"),
    "witness": ("witness", "run a C2SP tlog-witness that cosigns other gateways' audit logs"),
    "backup": ("backup", "copy database, audit mirror and keys, consistently"),
    "restore": ("backup", "restore a backup into a fresh HFA_DATA_DIR"),
    "mail": ("mail", "read mail written to the local Maildir"),
    "keys": ("keys", "agent API keys; reply-token key rotation"),
    "mcp": ("mcp", "serve the MCP tools over stdio (for desktop agents)"),
    "bench": ("bench", "measure each hot path beside its limit (127.0.0.1 only, bounded)"),
    "settings": ("common", "every setting: its effective value and where it came from"),
}
# Commands that run the gateway and log what it does (the others print their result only).
SERVING = {"serve", "mcp"}
# Commands whose stdout is a protocol, not text for a person: written as it is.
PROTOCOL_STDOUT = {"mcp"}
# Top-level options that take a value (the command is the first word after them).
_VALUED_OPTIONS = {"--config", "--log-format"}
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell shows for a reader that went away


def _command_in(argv: Sequence[str]) -> str | None:
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _VALUED_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser, with ``command``'s module fully registered; the others are named only.

    Without a known command (``hfa --help``, a typo) no command module is loaded.
    """
    parser = argparse.ArgumentParser(
        prog="hfa", description="hfa-gateway: agents ask a human lawyer by email."
    )
    parser.add_argument("--version", action="version", version=f"hfa-gateway {__version__}")
    parser.add_argument("--config", metavar="FILE", help="TOML file of settings (env wins)")
    parser.add_argument(
        "--log-format", choices=("text", "json"), default="text", help="log line format"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = COMMANDS[command][0] if command in COMMANDS else None
    registered: set[str] = set()
    for name, (module, help_line) in COMMANDS.items():
        if module != wanted:
            # Named in the help only; never chosen, since the command is another one.
            sub.add_parser(name, help=help_line)
        elif module not in registered:
            registered.add(module)
            importlib.import_module(f"gateway.cli.{module}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    command = _command_in(words)
    with escaped_output(stdout=command not in PROTOCOL_STDOUT):
        try:
            return _run(build_parser(command if command in COMMANDS else None), words)
        except BrokenPipeError:
            # The reader went away (``| head``): what it wanted, it has.
            silence_stdout()
            return EXIT_BROKEN_PIPE


def _run(parser: argparse.ArgumentParser, words: list[str]) -> int:
    args = parser.parse_args(words)
    importlib.import_module("gateway.cli.common").setup_logging(
        args.log_format, serving=args.command in SERVING
    )
    try:
        code: int = args.handler(args)
        sys.stdout.flush()
    except ConfigError as exc:
        print(f"hfa: configuration error: {exc}", file=sys.stderr)
        return 2
    except NotFound as exc:
        print(f"hfa: {exc}", file=sys.stderr)
        return 3
    except GatewayError as exc:
        cause = exc.__cause__
        said = _database_sentence(cause) if cause and _from_the_database(cause) else str(exc)
        print(f"hfa: {said}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if not _from_the_database(exc):
            raise
        print(f"hfa: {_database_sentence(exc)}", file=sys.stderr)
        return 1
    finally:
        logging.shutdown()
    return code


def _from_the_database(exc: BaseException) -> bool:
    return any(
        klass.__module__.startswith(("sqlalchemy.", "psycopg")) for klass in type(exc).__mro__
    )


def _database_sentence(exc: BaseException) -> str:
    """One sentence for a database that cannot be reached, or does not hold what this
    release expects."""
    # Loaded for this sentence only: ``hfa --help`` and the health check never need it.
    preflight = importlib.import_module("gateway.cli.preflight")
    if preflight.is_connection_failure(exc):
        return str(preflight.database_refusal(exc))
    cause = getattr(exc, "orig", None) or exc
    first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    return (
        f"database error ({type(cause).__name__}: {first}): the database does not hold what "
        "this release expects; 'hfa db status' says which schema it has (an empty one: load "
        "the backup with pg_restore, or run 'hfa db upgrade')"
    )
