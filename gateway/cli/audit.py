"""``hfa audit tail|verify|proof|anchor|key|mirror``: read the audit log and prove it.

``verify`` only reads; ``mirror`` is the one command here that writes (it copies
integrated entries that audit.jsonl lacks); ``key --rotate`` adds a signing key.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

from gateway.cli.common import config_from, print_json
from gateway.cli.output import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    open_database,
    open_record,
    parse_since,
    when,
)
from gateway.errors import CheckpointError, ConfigError, ProofUnavailable
from gateway.evidence.verifier import CHECKPOINT as BUNDLE_CHECKPOINT
from gateway.store import audit, audit_check, audit_origin, audit_proof, mirror, signing
from gateway.store import checkpoint as notes
from gateway.store.audit_check import Verdict
from gateway.store.models import AuditEntry

SUMMARY_CHARS = 110

EXIT_INTERRUPTED = 130  # stopped with Ctrl-C, as the README's table says


def summary(details: dict[str, Any]) -> str:
    text = " ".join(
        f"{k}={json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}"
        for k, v in details.items()
        if k != "settings" and v not in (None, "", [], {})
    )
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def line_for(entry: AuditEntry) -> str:
    leaf = f"@{entry.leaf_index}" if entry.leaf_index is not None else "@-"
    return (
        f"{when(entry.at)}Z  #{entry.seq:<6} {leaf:<8} {entry.event:<28} "
        f"{entry.reference or '-':<11} {entry.actor:<26} {summary(entry.details)}"
    )


def _print(entries: list[AuditEntry], as_json: bool) -> None:
    for entry in entries:
        if as_json:
            print(json.dumps(audit.entry_as_json(entry), ensure_ascii=False), flush=True)
        else:
            print(line_for(entry), flush=True)


def cmd_tail(args: argparse.Namespace) -> int:
    services = open_database(args)
    since = parse_since(args.since, services.clock.now()) if args.since else None
    filters: dict[str, Any] = {"reference": args.reference, "event": args.event, "since": since}

    def read(after: int, last: int | None) -> list[AuditEntry]:
        with services.db.read_only() as session:
            return audit_check.select_entries(session, after_seq=after, last=last, **filters)

    try:
        entries = read(0, None if since and not args.follow else args.lines)
        _print(entries, args.json)
        if not args.follow:
            return EXIT_OK
        # Follow the database, not a file: entries from every gateway process show up,
        # as they are written (their leaf follows within a second).
        last_seq = entries[-1].seq if entries else 0
        while True:
            time.sleep(args.interval)
            fresh = read(last_seq, None)
            _print(fresh, args.json)
            if fresh:
                last_seq = fresh[-1].seq
    except KeyboardInterrupt:
        # Ctrl-C is how a follow ends: the CLI's status for it, as for every command.
        return EXIT_INTERRUPTED
    finally:
        services.close()


def _verify_keys(args: argparse.Namespace) -> list[tuple[str, Any]]:
    config = config_from(args)
    keys = signing.verifying_keys(config.raw, config.data_dir)
    for text in args.key or []:
        keys.append(notes.parse_verifier_key(text))
    return keys


def _report(verdict: Verdict, seconds: float, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "ok": not verdict.problems,
                "leaves": verdict.leaves,
                "pending": verdict.pending,
                "checkpoints": verdict.checkpoints,
                "tree_size": verdict.tree_size,
                "root": verdict.root.hex(),
                "mirror_lines": verdict.mirror_lines,
                "mirror_behind": verdict.mirror_behind,
                "mirror_start": verdict.mirror_start,
                "erased": len(verdict.erased),
                "seconds": round(seconds, 3),
                "problems": [
                    {
                        "source": p.source,
                        "where": p.where,
                        "line": p.line,
                        "kind": p.kind,
                        "detail": p.detail,
                    }
                    for p in verdict.problems
                ],
            }
        )
        return
    for problem in verdict.problems:
        print(f"FAILED {problem.describe()}")
    if verdict.mirror_start:
        print(
            f"note: the mirror starts at leaf {verdict.mirror_start} (the lines before were "
            "rotated away)",
            file=sys.stderr,
        )
    if verdict.mirror_behind:
        print(
            f"note: the mirror lacks the last {verdict.mirror_behind} leaves "
            "('hfa audit mirror' copies them)",
            file=sys.stderr,
        )
    if not verdict.problems:
        mirrored = f", {verdict.mirror_lines} mirror lines" if verdict.mirror_lines else ""
        print(
            f"OK: {verdict.leaves} leaves and {verdict.checkpoints} signed checkpoints agree"
            f"{mirrored}; tree size {verdict.tree_size}, root {verdict.root.hex()}"
            + (f"; {verdict.pending} entries wait for the sequencer" if verdict.pending else "")
            + (
                f"; {len(verdict.erased)} erased entries checked by their leaf hashes"
                if verdict.erased
                else ""
            )
        )
    rate = verdict.leaves / seconds if seconds > 0 else 0.0
    print(f"checked in {seconds:.2f}s ({rate:,.0f} entries/s)")


def _saved_checkpoint(path: Path) -> str:
    """A checkpoint saved by 'hfa audit anchor', or the one an evidence bundle carries
    (zipped or unzipped)."""
    if path.is_dir():
        return (path / BUNDLE_CHECKPOINT).read_text(encoding="utf-8")
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as bundle:
            return bundle.read(BUNDLE_CHECKPOINT).decode("utf-8")
    return path.read_text(encoding="utf-8")


def cmd_verify(args: argparse.Namespace) -> int:
    saved = None
    if args.checkpoint:
        try:
            saved = _saved_checkpoint(Path(args.checkpoint))
        except (OSError, UnicodeDecodeError, KeyError, zipfile.BadZipFile) as exc:
            return fail(f"--checkpoint: cannot read {args.checkpoint}: {exc}", EXIT_USAGE)
    services = open_database(args)
    try:
        keys = _verify_keys(args)
    except CheckpointError as exc:
        services.close()
        return fail(f"--key: {exc}", EXIT_USAGE)
    path = None if args.no_mirror else services.config.data_dir / "audit.jsonl"
    if path is not None and not path.is_file():
        print(f"note: no JSON-lines mirror at {path}; checking the database only", file=sys.stderr)
        path = None
    started = time.perf_counter()
    try:
        with services.db.read_only() as session:
            verdict = audit_check.verify(
                session, keys, mirror=path, saved=saved, macs=services.audit.macs
            )
    finally:
        services.close()
    _report(verdict, time.perf_counter() - started, args.json)
    return EXIT_FAILED if verdict.problems else EXIT_OK


def cmd_proof(args: argparse.Namespace) -> int:
    services = open_database(args)
    try:
        with services.db.read_only() as session:
            if session.get(AuditEntry, args.entry) is None:
                return fail(f"no audit entry {args.entry}", EXIT_NOT_FOUND)
            proof = audit_proof.inclusion(session, args.entry, args.size)
    except ProofUnavailable as exc:
        return fail(f"no proof: {exc}", EXIT_FAILED)
    finally:
        services.close()
    print_json(proof.as_json())
    return EXIT_OK


def cmd_anchor(args: argparse.Namespace) -> int:
    """Print (or save) the newest signed checkpoint: what 'verify --checkpoint' takes."""
    services = open_database(args)
    try:
        with services.db.read_only() as session:
            newest = audit_proof.newest_note(session)
    finally:
        services.close()
    if newest is None:
        return fail(
            "the audit log has no checkpoint yet: start a worker, which signs one", EXIT_FAILED
        )
    if args.out:
        Path(args.out).write_text(newest, encoding="utf-8")
        print(
            f"saved the checkpoint to {args.out}; later: hfa audit verify --checkpoint {args.out}"
        )
    else:
        sys.stdout.write(newest)
    return EXIT_OK


def cmd_key(args: argparse.Namespace) -> int:
    config = config_from(args)
    if args.rotate:
        if config.raw.get("audit_signing_key", "").strip():
            return fail(
                "HFA_AUDIT_SIGNING_KEY is set: add a new key at its end to rotate", EXIT_USAGE
            )
        count = signing.rotate_stored_key(config.data_dir)
        print(
            f"added a signing key: {count} keys, the newest signs (restart the workers)",
            file=sys.stderr,
        )
    keys = _named_as_the_log(args, signing.load_keys(config.raw, config.data_dir, create=False))
    verifier = keys.verifier_keys()
    print(verifier[-1])
    if args.all:
        for older in verifier[:-1]:
            print(older)
    return EXIT_OK


def _named_as_the_log(args: argparse.Namespace, keys: signing.LogKeys) -> signing.LogKeys:
    """The keys under the log's own name (its newest checkpoint's, or the setting); with no
    database yet, the name its first checkpoint will carry."""
    try:
        record = open_record(args)
    except ConfigError:
        return keys
    try:
        with record.db.read_only() as session:
            return audit_origin.resolve(keys, audit_origin.newest_note(session))
    finally:
        record.close()


def cmd_mirror(args: argparse.Namespace) -> int:
    services = open_database(args)
    path = services.config.data_dir / "audit.jsonl"
    try:
        copied = mirror.complete(path, services.db.engine)
        # Lines of entries erased since they were written (on another host, say).
        rewritten = mirror.apply_erasures(path, services.db.engine)
    except ValueError as exc:
        return fail(str(exc), EXIT_FAILED)
    finally:
        services.close()
    print(f"copied {copied} integrated entries to {path}; {rewritten} erased lines rewritten")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("audit", help="tail, verify and prove the audit log (a Merkle tree)")
    s = p.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    tail = s.add_parser("tail", help="show the latest entries; -f follows new ones")
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new entries")
    tail.add_argument("-n", "--lines", type=int, default=20, help="how many to show (default 20)")
    tail.add_argument("--reference", help="only this request (HFA-00042)")
    tail.add_argument("--event", help="only this event type; 'email.*' matches a prefix")
    tail.add_argument("--since", help="ISO time or age (30m, 2h, 7d); all entries since then")
    tail.add_argument("--json", action="store_true", help="one JSON object per line")
    tail.add_argument("--interval", type=float, default=1.0, help=argparse.SUPPRESS)
    tail.set_defaults(handler=cmd_tail)
    verify = s.add_parser(
        "verify", help="check every leaf, every checkpoint and the mirror (reads only)"
    )
    verify.add_argument(
        "--checkpoint",
        help="a checkpoint the log must still contain: saved by 'hfa audit anchor', "
        "or an evidence bundle (.zip, or its unzipped folder)",
    )
    verify.add_argument(
        "--key", action="append", help="another verifier key (name+hash+key) to accept; repeatable"
    )
    verify.add_argument("--no-mirror", action="store_true", help="check the database only")
    verify.add_argument("--json", action="store_true")
    verify.set_defaults(handler=cmd_verify)
    proof = s.add_parser("proof", help="print an entry's inclusion proof and its signed checkpoint")
    proof.add_argument("entry", type=int, help="the entry's number (#N in 'hfa audit tail')")
    proof.add_argument("--size", type=int, help="prove against the checkpoint of this size")
    proof.set_defaults(handler=cmd_proof)
    anchor = s.add_parser(
        "anchor", help="print or save the newest signed checkpoint, to keep elsewhere"
    )
    anchor.add_argument("--out", help="write it to this file")
    anchor.set_defaults(handler=cmd_anchor)
    key = s.add_parser("key", help="print the log's verifier key (for witnesses and auditors)")
    key.add_argument("--rotate", action="store_true", help="add a new signing key first")
    key.add_argument(
        "--all", action="store_true", help="also print the older keys, which still verify"
    )
    key.set_defaults(handler=cmd_key)
    complete = s.add_parser("mirror", help="copy integrated entries audit.jsonl lacks (writes)")
    complete.set_defaults(handler=cmd_mirror)
