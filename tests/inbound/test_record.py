"""A reply that is only thanks is recorded, and sets off no receipt and no notice.

Over real SMTP to a running gateway with two lawyers: counsel approves (a receipt
to counsel, a notice to partner), then answers the receipt with "Thanks!". That
reply is recorded as a turn, and no further email is queued for either lawyer.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import func, select

from gateway.store.models import InboundMessage, OutboxItem, Turn
from tests.conftest import LAWYER, SECOND_LAWYER, Running, SmtpSink, make_config, start_running
from tests.conftest import stop_running as stop
from tests.mailkit import reply_to, send


def _count(running: Running, what: type[OutboxItem] | type[Turn]) -> int:
    with running.services.db.read_only() as session:
        return int(session.scalar(select(func.count()).select_from(what)) or 0)


async def _processed(running: Running, count: int) -> None:
    for _ in range(400):
        with running.services.db.read_only() as session:
            done = session.scalar(
                select(func.count())
                .select_from(InboundMessage)
                .where(InboundMessage.state == "done")
            )
        if (done or 0) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the reply was not processed")


async def test_a_thanks_to_a_receipt_sets_off_no_more_emails(
    tmp_path: Path, sink: SmtpSink
) -> None:
    config = make_config(tmp_path, lawyers=f"{LAWYER},{SECOND_LAWYER}")
    running = await start_running(config, sink)
    try:
        await running.file(proposed_action="Sign the NDA.")
        request_mail = next(m for m in await sink.wait_for(2) if str(m["To"]) == LAWYER)
        await send(reply_to(request_mail, "APPROVE"), running.smtp_port)
        mails = await sink.wait_for(4)  # the receipt to counsel, the notice to partner
        receipt = next(m for m in mails if str(m["X-HFA-Kind"]) == "receipt")
        queued, turns = _count(running, OutboxItem), _count(running, Turn)
        await send(reply_to(receipt, "Thanks!"), running.smtp_port)
        await _processed(running, 2)
        assert _count(running, Turn) == turns + 1  # recorded ...
        assert _count(running, OutboxItem) == queued  # ... and nobody is mailed
    finally:
        await stop(running)
    assert len(sink.received) == 4
