"""python3 verify.py BUNDLE.zip|FOLDER [--key KEY] [--max-bytes N]: every check, its findings printed.

A folder is a bundle unzipped into it; ``verify.py`` checks one, never the folder it runs
from: the verifier it runs would be the one it is checking, vouching for itself.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .folder import verify_path
from .layout import MAX_BYTES, MAX_LINES, Verdict

# The exit status when nothing was checked, as verify.py's own refusals.
NOT_CHECKED = 2


def print_verdict(verdict: Verdict) -> None:
    """The notes and problems, at most MAX_LINES of each, then how many more there were."""
    for kind, lines in (
        ("note", verdict.notes),
        ("FAILED", [problem.describe() for problem in verdict.problems]),
    ):
        for line in lines[:MAX_LINES]:
            print(f"{kind} {line}" if kind == "FAILED" else f"{kind}: {line}")
        if len(lines) > MAX_LINES:
            print(f"{kind}{'' if kind == 'FAILED' else ':'} ... and {len(lines) - MAX_LINES} more")
    if verdict.ok:
        print(f"OK: the evidence of {verdict.reference} is whole and proved by the audit log")


def size(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("a number of bytes above 0")
    return value


def runs_from(bundle: str, here: str | None) -> bool:
    """Whether the folder to check holds the verifier that runs (``here``: verify.py's)."""
    if here is None or not os.path.isdir(bundle):
        return False
    return Path(os.path.realpath(here)).is_relative_to(os.path.realpath(bundle))


def main(argv: list[str] | None = None, here: str | None = None) -> int:
    """``here``: the folder of the ``verify.py`` that runs this, which it never checks."""
    parser = argparse.ArgumentParser(description="Check an hfa-gateway evidence bundle offline.")
    parser.add_argument("bundle", help="the bundle (.zip), or another folder it was unzipped into")
    parser.add_argument(
        "--key",
        action="append",
        help="the log's verifier key (name+hash+key) to trust instead of keys.txt",
    )
    parser.add_argument(
        "--max-bytes",
        type=size,
        default=MAX_BYTES,
        help=f"the most the bundle's members may hold uncompressed (default {MAX_BYTES})",
    )
    args = parser.parse_args(argv)
    if runs_from(args.bundle, here):
        print(
            f"verify.py: {args.bundle} holds this verify.py, whose verifier would vouch for "
            "itself: run a verify.py from a bundle you trust (or hfa evidence verify) on "
            "this folder or its zip; nothing was checked"
        )
        return NOT_CHECKED
    verdict = verify_path(args.bundle, args.key, args.max_bytes)
    print_verdict(verdict)
    return 0 if verdict.ok else 1
