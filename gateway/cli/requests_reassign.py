"""``hfa requests reassign``: a request moved from one lawyer to another (audited)."""

from __future__ import annotations

import argparse

from gateway.cli.output import EXIT_FAILED, EXIT_OK, fail, operator
from gateway.cli.requests_thread import named_request, no_request
from gateway.errors import NotReassigned
from gateway.intake.reassign import reassign


def cmd_reassign(args: argparse.Namespace) -> int:
    with named_request(args, write=True) as (services, session, request):
        by = operator(args)
        if request is None:
            return no_request(args)
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
    print(
        f"{reference} reassigned from {moved.earlier} to {moved.now} by {by}; "
        f"the policy is now: {moved.rule}"
    )
    return EXIT_OK
