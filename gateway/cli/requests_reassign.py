"""``hfa requests reassign``: a request moved from one lawyer to another (audited)."""

from __future__ import annotations

import argparse

from gateway.cli.output import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK, fail, open_database, operator
from gateway.cli.requests_thread import find_request
from gateway.errors import NotReassigned
from gateway.intake.reassign import reassign


def cmd_reassign(args: argparse.Namespace) -> int:
    services = open_database(args)
    by = operator(args)
    try:
        with services.db.transaction() as session:
            request = find_request(session, args.reference)
            if request is None:
                return fail(f"no request {args.reference}", EXIT_NOT_FOUND)
            try:
                moved = reassign(
                    services,
                    session,
                    request,
                    to=args.to,
                    earlier=args.earlier,
                    by=by,
                    reason=args.reason,
                )
            except NotReassigned as exc:
                return fail(str(exc), EXIT_FAILED)
            reference = request.reference
    finally:
        services.close()
    print(
        f"{reference} reassigned from {moved.earlier} to {moved.now} by {by}; "
        f"the policy is now: {moved.rule}"
    )
    return EXIT_OK
