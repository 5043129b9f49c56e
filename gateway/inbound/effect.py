"""A decision taking effect: the status moved, reminders settled, the thread told, the push.

A reply whose decision acts at once takes effect as it is recorded; one read
from typed text takes effect when its correction window ends (``pending``).
Both go through here, so the agent hears of a decision exactly when it counts,
and an approval or rejection is a vote under the request's approval policy
only from then on: a held reading that is corrected in its window never counts.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from gateway.contract import AWAITING_ANSWER
from gateway.inbound.approvals import Counted, cast_vote
from gateway.inbound.reply import Answer
from gateway.outbound import push
from gateway.outbound.receipts import recorded_as
from gateway.outbound.tell import tell_thread
from gateway.replies import Ask, Reading
from gateway.services import Services
from gateway.store.models import Request
from gateway.store.recording import anyone_else_on
from gateway.store.thread import change_status

# What a reading in effect makes of the request, by its kind (``replies.Reading.kind``).
STATUS_OF: dict[str, str] = {
    "approval": "answered",
    "conditional_approval": "answered",
    "rejection": "answered",
    "decline": "declined",
    "question": "reviewed",
    "close": "closed",
    # "I'M ON IT": read but not answered; reminders pause for a while.
    "acknowledgement": "reviewed",
}


def status_after(reading: Reading, request: Request) -> str:
    """The status a reply proposes (the approval policy has the last word).

    A reply without a decision is one rule for every reader: while the request asks
    for a decision on a proposed action and has none, it is ``reviewed`` (read, not
    answered: its reminders go on); on a request that asks no decision, the reply is
    the answer; a request already answered, declined or closed keeps its status.
    """
    if reading.decides:
        return STATUS_OF[reading.kind]
    if request.status not in AWAITING_ANSWER:
        return request.status
    if reading.choice is not None:
        # A pick of the agent's choices answers what was asked.
        return "answered"
    return "reviewed" if ask_of(request).proposed_action else "answered"


# How long an "I'M ON IT" holds reminders back (never past the deadline).
ACKNOWLEDGE_PAUSE = timedelta(days=1)


def ask_of(request: Request) -> Ask:
    """What the lawyer was asked, for reading their answer against it."""
    fields = request.fields or {}
    asked, action = fields.get("request"), fields.get("proposed_action")
    return Ask(
        asked if isinstance(asked, str) else "",
        action if isinstance(action, str) and action.strip() else None,
        request.reference,
    )


def put_into_effect(
    services: Services, session: Session, answer: Answer, new_status: str, *, actor: str
) -> Counted:
    """The request moves as the human turn says: its vote, reminders, first answer, status.

    ``new_status`` is what the turn alone says; the policy decides what it comes to
    (a first approval of two needed leaves the request read, not answered).
    """
    request, turn, now = answer.request, answer.turn, answer.at
    counted = cast_vote(services, session, answer)
    if turn.kind == "acknowledgement":
        pause_reminders(request, now)
    elif request.first_human_reply_at is None:
        request.first_human_reply_at = now
    if turn.data.get("late"):
        # A late answer on a closed thread is kept, marked, and does not reopen it.
        return counted
    change_status(
        session,
        services.audit,
        request,
        counted.status(new_status, request.status),
        at=now,
        reason=f"{turn.kind} from {actor}",
        actor=actor,
        audit_reason=turn.kind,
    )
    return counted


def tell_and_push(services: Services, session: Session, answer: Answer, counted: Counted) -> None:
    """The thread's other humans hear of it (so two people do not answer the same
    request), and the agent's reply_to gets the push.

    The others are stood down only by an outcome (or a close), never by a vote
    that leaves the policy waiting or a reply that decided nothing; the agent
    hears of a vote only when it reached the outcome or disagrees with it.
    """
    request, recipient, turn = answer.request, answer.recipient, answer.turn
    # Asked first by one compiled statement: on most threads the one who answered is the
    # only human, and there is nobody to tell.
    if (counted.tells_others or turn.kind == "close") and anyone_else_on(
        session, request.id, recipient.id
    ):
        tell_thread(
            services,
            session,
            request,
            "answered_by_other",
            {
                "who": turn.data["from"],
                "decision_label": recorded_as(turn),
                "body": turn.body,
                "outcome": counted.policy(),
            },
            at=answer.at,
            skip=frozenset({recipient.id}),
        )
    if counted.pushes:
        push.enqueue_for_turn(services, session, request, turn, policy=counted.policy())


def pause_reminders(request: Request, now: datetime) -> None:
    pause = now + ACKNOWLEDGE_PAUSE
    if request.deadline_at is not None and now < request.deadline_at < pause:
        pause = request.deadline_at
    request.next_reminder_at = max(request.next_reminder_at or pause, pause)
