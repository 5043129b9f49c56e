"""python3 verify.py [BUNDLE.zip | FOLDER] [--key KEY]: every check, its findings printed.

Run from an unzipped bundle with no argument, it checks the folder it is in.
"""

from __future__ import annotations

import argparse

from .folder import verify_path
from .layout import Verdict


def print_verdict(verdict: Verdict) -> None:
    for note in verdict.notes:
        print(f"note: {note}")
    for problem in verdict.problems:
        print(f"FAILED {problem.describe()}")
    if verdict.ok:
        print(f"OK: the evidence of {verdict.reference} is whole and proved by the audit log")


def main(argv: list[str] | None = None, here: str | None = None) -> int:
    """``here``: the unzipped bundle ``verify.py`` runs from, checked when none is named."""
    parser = argparse.ArgumentParser(description="Check an hfa-gateway evidence bundle offline.")
    parser.add_argument(
        "bundle", nargs="?" if here else None, help="the bundle (.zip) or its unzipped folder"
    )
    parser.add_argument(
        "--key",
        action="append",
        help="the log's verifier key (name+hash+key) to trust instead of keys.txt",
    )
    args = parser.parse_args(argv)
    verdict = verify_path(str(args.bundle or here), args.key)
    print_verdict(verdict)
    return 0 if verdict.ok else 1
