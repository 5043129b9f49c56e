"""python3 verify.py BUNDLE.zip [--key KEY]: every check, its findings printed."""

from __future__ import annotations

import argparse

from .checks import verify_zip
from .layout import Verdict


def print_verdict(verdict: Verdict) -> None:
    for note in verdict.notes:
        print(f"note: {note}")
    for problem in verdict.problems:
        print(f"FAILED {problem.describe()}")
    if verdict.ok:
        print(f"OK: the evidence of {verdict.reference} is whole and proved by the audit log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check an hfa-gateway evidence bundle offline.")
    parser.add_argument("bundle", help="the bundle (.zip)")
    parser.add_argument(
        "--key",
        action="append",
        help="the log's verifier key (name+hash+key) to trust instead of keys.txt",
    )
    args = parser.parse_args(argv)
    verdict = verify_zip(args.bundle, args.key)
    print_verdict(verdict)
    return 0 if verdict.ok else 1
