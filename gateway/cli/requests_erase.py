"""``hfa requests erase REF --reason``: the right to erasure, applied to a closed or declined request.

The content goes (``store.erasure``); the thread says what was erased, when, by whom
and why; the audit log keeps its tree, so ``hfa audit verify`` and evidence bundles
made before still verify. This host's audit.jsonl (and the copies rotated away beside
it) are rewritten, and the database's freed space reclaimed, so no copy of the text is
left in what a backup made afterwards would hold.
"""

from __future__ import annotations

import argparse

from gateway.cli.output import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK, fail, open_database, operator
from gateway.cli.requests_thread import find_request
from gateway.store import erasure
from gateway.store.mirror import apply_erasures

ENDED = ("closed", "declined")


def cmd_erase(args: argparse.Namespace) -> int:
    reason = args.reason.strip()
    if not reason:
        return fail("--reason: expected why the content is erased (it is recorded)", EXIT_FAILED)
    services = open_database(args)
    by = f"ops:{operator(args)}"
    try:
        with services.db.transaction() as session:
            request = find_request(session, args.reference)
            if request is None:
                return fail(f"no request {args.reference}", EXIT_NOT_FOUND)
            earlier = erasure.erased_marker(request)
            # An open thread may still get an answer: it is closed (recorded) first.
            if earlier is None and request.status not in ENDED:
                return fail(
                    f"{request.reference} is {request.status}: close it first "
                    f"(hfa requests close {request.reference} --reason ...)",
                    EXIT_FAILED,
                )
            reference = request.reference
            done = (
                None
                if earlier is not None
                else erasure.erase_request(
                    session, services.audit, request, at=services.clock.now(), by=by, reason=reason
                )
            )
        # Run again after an erasure, it finishes what the first run could not.
        mirror = services.audit.mirror
        lines = apply_erasures(mirror, services.db.engine) if mirror is not None else 0
        reclaimed = erasure.reclaim(services.db)
    finally:
        services.close()
    if done is None:
        assert earlier is not None
        print(f"{reference} was already erased ({earlier['at']}, by {earlier['by']})", end="")
    else:
        print(
            f"{reference} erased: {done.turns} turns, {done.messages} messages, "
            f"{done.attachments} attachments, {done.emails} emails; {len(done.entries)} audit "
            "entries reduced to their hashes",
            end="",
        )
    print(f"; {lines} audit.jsonl lines rewritten")
    if not reclaimed:
        print(
            "the database was busy: its freed space still holds the erased bytes until the "
            f"next retention run, or 'hfa requests erase {reference}' run again"
        )
    return EXIT_OK
