"""The values the reply path passes on: one reply on its way to the record, one answer in effect.

The worker builds a :class:`Reply` once it knows which request a message answers;
every later step (who sent it, a delegation, recording) takes it whole rather than
the stored row, its parse, the request, the recipient and the time one by one, so
they cannot drift apart on the way. The message's bytes travel in ``mail.raw``,
read from the store once.

A human turn that takes effect, at once or when its correction window ends, is an
:class:`Answer`: what the vote, the status, the receipt, the thread's other humans
and the push all act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.sender import SenderCheck
from gateway.store.models import InboundMessage, Recipient, Request, Turn


@dataclass
class Reply:
    """A stored message read as a reply to ``request``, sent to ``recipient``'s address.

    ``check``: who sent it and how well that is proven, once :func:`proven_sender
    <gateway.inbound.assurance.proven_sender>` (or an operator, or a CONFIRM) said so.
    """

    row: InboundMessage
    mail: ParsedMail
    request: Request
    recipient: Recipient
    now: datetime
    check: SenderCheck | None = None

    @property
    def sender(self) -> SenderCheck:
        """The sender as proven; only asked for after the proof."""
        if self.check is None:
            raise ValueError(f"inbound {self.row.id}: the sender is asked for before it was proven")
        return self.check

    def answer(self, turn: Turn) -> Answer:
        """The human turn this reply added, as it takes effect now."""
        return Answer(self.request, self.recipient, turn, self.now)


@dataclass(frozen=True)
class Answer:
    """A human turn on ``request`` by ``recipient``, taking effect ``at``."""

    request: Request
    recipient: Recipient
    turn: Turn
    at: datetime
