"""``hfa mcp``: the MCP tools over stdio, for desktop agents.

The process opens the gateway's database with the same settings as ``hfa
serve`` (the same HFA_* variables or --config file) and files and reads
requests itself; a running gateway's workers then send the emails and
record the replies. stdout carries the protocol only; logs go to stderr.
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio

from gateway.cli.output import open_database


def cmd_mcp(args: argparse.Namespace) -> int:
    # Imported here: the MCP SDK is some 30 MB that every other command would carry.
    from gateway.mcp import serve_stdio

    # Filing needs the gateway the operator named: never a new, empty one nobody serves.
    services = open_database(args, signs=True)
    try:
        anyio.run(serve_stdio, services)
    finally:
        services.close()
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help="serve the MCP tools over stdio (for desktop agents)")
    p.set_defaults(handler=cmd_mcp)
