"""What the worker reads out of a message before the write transaction that records it.

It depends on the message's bytes and the gateway's keys only, never on the
database, so it is worked out while the write lock is free (on SQLite, one lock
for every process); under the lock it is only looked up.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.inbound.mailparse import ParsedMail
from gateway.outbound.compose import LOOP_HEADER
from gateway.replies import AutomaticKind, detect_automatic
from gateway.services import Services


@dataclass(frozen=True)
class Ahead:
    """A message's own loop mark, automatic kind, Message-ID and the threads it cites."""

    own_loop: bool
    automatic: AutomaticKind | None
    their_message_id: str | None
    # The recipients whose signed reply tokens its In-Reply-To and References carry, in
    # the order they are tried after the reply addresses it was sent to.
    cited: tuple[int, ...]


def read_ahead(services: Services, mail: ParsedMail) -> Ahead:
    headers = mail.headers
    tokens = services.tokens
    loop = headers.get(LOOP_HEADER.lower(), "").strip().lower() == services.config.reply_domain
    cited: list[int] = []
    for header in ("in-reply-to", "references"):
        for token in tokens.tokens_in_message_ids(headers.get(header, "")):
            verified = tokens.verify(token)
            if verified is not None:
                cited.append(verified.recipient_id)
    return Ahead(
        own_loop=loop,
        automatic=detect_automatic(headers, mail.subject, headers.get("content-type")),
        their_message_id=headers.get("message-id"),
        cited=tuple(cited),
    )
