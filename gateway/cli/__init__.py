"""``hfa``: run the gateway and look after it.

Each command group lives in its own module and registers its subcommands
here; a command returns its exit code (0 ok, 1 failure, 2 usage or config).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from gateway import __version__
from gateway.cli import (
    audit,
    backup,
    bench,
    common,
    db,
    health,
    inbound,
    keys,
    mail,
    mcp,
    outbox,
    requests,
    run,
)
from gateway.errors import ConfigError, GatewayError

GROUPS = [run, db, health, requests, outbox, inbound, audit, backup, mail, keys, mcp, bench, common]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hfa", description="hfa-gateway: agents ask a human lawyer by email."
    )
    parser.add_argument("--version", action="version", version=f"hfa-gateway {__version__}")
    parser.add_argument("--config", metavar="FILE", help="TOML file of settings (env wins)")
    parser.add_argument(
        "--log-format", choices=("text", "json"), default="text", help="log line format"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    common.setup_logging(args.log_format)
    try:
        code: int = args.handler(args)
    except ConfigError as exc:
        print(f"hfa: configuration error: {exc}", file=sys.stderr)
        return 2
    except GatewayError as exc:
        print(f"hfa: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        logging.shutdown()
    return code
