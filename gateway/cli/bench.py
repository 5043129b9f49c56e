"""``hfa bench``: every hot path beside its physical limit, measured in the same run."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from gateway.errors import HarnessMissing

# The harness lives in bench/ at the repository root and is not part of the wheel, so it
# is looked up when the command runs, by name: the product itself never imports it.
HARNESS = "bench.harness"
# The paths, named here so that `hfa bench --help` works without the harness.
PATHS = ("submit", "status", "accepted", "recorded", "outbound", "scale", "memory")
# Run apart from the table: the roles against PostgreSQL, next door and 1 ms away.
SCALE_OUT = "scale-out"


def load_harness() -> ModuleType:
    try:
        return importlib.import_module(HARNESS)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (missing == HARNESS or HARNESS.startswith(missing + ".")):
            raise  # the harness is there, and something it needs is not: say that
        raise HarnessMissing(
            "hfa bench needs the benchmark harness, which ships with the source, not the "
            "wheel: run it from a checkout of hfa-gateway (`pip install -e .` there, or "
            "`python -m bench` from its root)"
        ) from exc


def _stop_on_sigterm(signum: int, frame: object) -> None:
    # SystemExit unwinds the harness, whose blocks stop every child process.
    raise SystemExit(128 + signum)


def cmd_scale_out(args: argparse.Namespace) -> int:
    """``hfa bench --paths scale-out``: bench/scale_out.py, its JSON on stdout."""
    try:
        scale_out = importlib.import_module("bench.scale_out")
    except ModuleNotFoundError as exc:
        print(f"hfa: the benchmark harness is missing ({exc.name})", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    argv = ["--code", args.code] if args.code else []
    code: int = scale_out.main(argv + (["--keep-logs"] if args.keep else []))
    return code


def cmd_bench(args: argparse.Namespace) -> int:
    if args.paths and SCALE_OUT in args.paths:
        if len(args.paths) > 1:
            print(f"hfa: --paths {SCALE_OUT} runs alone (it needs PostgreSQL)", file=sys.stderr)
            return 2
        return cmd_scale_out(args)
    try:
        harness = load_harness()
    except HarnessMissing as exc:
        print(f"hfa: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    options = harness.Options(
        quick=args.quick,
        runs=args.runs if args.runs is not None else (1 if args.quick else 3),
        paths=args.paths or list(PATHS),
        builtin_only=args.builtin,
        work_dir=Path(args.work_dir) if args.work_dir else None,
        cache_dir=Path(args.cache_dir) if args.cache_dir else None,
        keep=args.keep,
        peer=args.peer,
    )

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    print(harness.run(options, say))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="measure each hot path beside its limit (127.0.0.1 only, bounded)",
        description="Start the gateway and reference servers on free loopback ports, drive "
        "load with wrk and smtp-source when installed (else a built-in generator), and print "
        "a table of medians, then where each rate row's CPU went beside what the machine's "
        "cores allow at its target.",
    )
    p.add_argument("--quick", action="store_true", help="short, small runs (under a minute)")
    p.add_argument("--runs", type=int, help="runs to take medians over (default 3; quick 1)")
    p.add_argument(
        "--paths",
        nargs="+",
        choices=(*PATHS, SCALE_OUT),
        metavar="PATH",
        help=f"only these: {', '.join(PATHS)}; or {SCALE_OUT} alone (PostgreSQL scale-out, "
        "next door and through a 1 ms latency proxy; HFA_BENCH_PG_ADMIN names the server)",
    )
    p.add_argument("--code", help=f"{SCALE_OUT}: run the gateway of this checkout instead")
    p.add_argument("--builtin", action="store_true", help="use the built-in load generators only")
    p.add_argument("--work-dir", help="where the data directories go (default: a temp dir)")
    p.add_argument(
        "--cache-dir", help="where the bulk-loaded scale database is kept (default: a temp dir)"
    )
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs, databases)")
    p.add_argument(
        "--peer",
        choices=("awaithumans",),
        help="also measure this peer's filing and reading beside the same bare endpoint "
        "(its command from $BENCH_AWAITHUMANS or PATH; skipped, saying why, without it)",
    )
    p.set_defaults(handler=cmd_bench)
