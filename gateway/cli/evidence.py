"""``hfa evidence export|verify``: one thread's evidence bundle, and its offline check."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gateway.cli.output import EXIT_FAILED, EXIT_OK, fail, open_record, operator
from gateway.errors import NotProvable
from gateway.evidence.export import export, verify
from gateway.evidence.verifier import MAX_BYTES, print_verdict
from gateway.evidence.verifier import size as verifier_size


def cmd_export(args: argparse.Namespace) -> int:
    record = open_record(args)
    try:
        done = export(
            record.config,
            record.db,
            record.clock,
            args.reference,
            Path(args.out),
            pdf=not args.no_pdf,
            actor=f"ops:{operator(args)}",
        )
    except NotProvable as exc:
        return fail(f"no bundle: {exc}", EXIT_FAILED)
    finally:
        record.close()
    files = done.bundle.files
    print(
        f"wrote {done.path}: {len(files)} files, {done.emails} emails, "
        f"{done.entries} audit entries with their proofs"
        + ("" if "report.pdf" in files or args.no_pdf else "; no PDF (Chromium is not installed)")
    )
    if done.unsent:
        print(
            f"note: {done.unsent} email(s) are not in it: their bytes were not kept (sent before "
            "the gateway kept what it relayed, or removed past HFA_RETENTION's raw period)",
            file=sys.stderr,
        )
    print(
        f"check it anywhere: hfa evidence verify {done.path.name}, or unzip it and run "
        f"python3 verify.py {done.path.name} in that folder (Python and cryptography only)"
    )
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    verdict = verify(Path(args.bundle), args.key, args.max_bytes)
    print_verdict(verdict)
    return EXIT_OK if verdict.ok else EXIT_FAILED


def register(sub: Any) -> None:
    p = sub.add_parser("evidence", help="export a thread's evidence bundle, or check one offline")
    s = p.add_subparsers(dest="evidence_command", required=True, metavar="ACTION")
    out = s.add_parser("export", help="write one thread's bundle: emails, proofs, report (.zip)")
    out.add_argument("reference", help="the request (HFA-00042)")
    out.add_argument("-o", "--out", required=True, help="the bundle to write (FILE.zip)")
    out.add_argument("--no-pdf", action="store_true", help="skip the report's PDF (Chromium)")
    out.set_defaults(handler=cmd_export)
    check = s.add_parser("verify", help="check a bundle offline: hashes, signatures, proofs")
    check.add_argument("bundle", help="the bundle (FILE.zip), or the folder it was unzipped into")
    check.add_argument(
        "--key", action="append", help="the log's verifier key to trust instead of the bundle's"
    )
    check.add_argument(
        "--max-bytes",
        type=verifier_size,
        default=MAX_BYTES,
        help=f"the most the bundle's members may hold uncompressed (default {MAX_BYTES})",
    )
    check.set_defaults(handler=cmd_verify)
