"""python3 verify.py BUNDLE.zip [--key KEY] [--max-bytes N]: every check, its findings printed."""

from __future__ import annotations

import argparse

from .checks import verify_zip
from .layout import MAX_BYTES, MAX_LINES, Verdict


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check an hfa-gateway evidence bundle offline.")
    parser.add_argument("bundle", help="the bundle (.zip)")
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
    verdict = verify_zip(args.bundle, args.key, args.max_bytes)
    print_verdict(verdict)
    return 0 if verdict.ok else 1
