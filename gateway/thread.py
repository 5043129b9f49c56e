"""A request's thread: appending turns, moving its status, reading it back.

Every change of status is also a ``system`` turn, so the thread alone tells
the whole story. Turns are only ever added.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.models import Request, Turn

_NEXT_SEQ = "hfa_next_turn_seq"

HUMAN_ANSWER_KINDS = ("reply", "approval", "rejection", "question", "decline", "close")


def add_turn(
    session: Session,
    request: Request,
    *,
    author: str,
    kind: str,
    at: datetime,
    body: str,
    data: dict[str, Any] | None = None,
) -> Turn:
    # Remembered for the rest of the transaction, so several turns (a reply and its
    # status change, a batch of submits) cost one query, and a new thread none.
    next_seq: dict[int, int] = session.info.setdefault(_NEXT_SEQ, {})
    seq = next_seq.get(request.id)
    if seq is None:
        last = session.scalar(
            select(func.coalesce(func.max(Turn.seq), 0)).where(Turn.request_id == request.id)
        )
        seq = (last or 0) + 1
    next_seq[request.id] = seq + 1
    turn = Turn(
        request_id=request.id,
        seq=seq,
        author=author,
        kind=kind,
        at=at,
        body=body,
        data=data or {},
    )
    session.add(turn)
    request.updated_at = at
    return turn


def start_thread(session: Session, request: Request) -> None:
    """Note that ``request`` was just created: its first turn is number 1, no query needed."""
    session.info.setdefault(_NEXT_SEQ, {})[request.id] = 1


def change_status(
    session: Session, request: Request, new: str, *, at: datetime, reason: str
) -> Turn | None:
    """Move the request to ``new`` and say so in a system turn (None if unchanged)."""
    old = request.status
    if old == new:
        return None
    request.status = new
    return add_turn(
        session,
        request,
        author="system",
        kind="status_changed",
        at=at,
        body=f"Status changed from {old} to {new}: {reason}",
        data={"from": old, "to": new},
    )


def turn_as_json(turn: Turn) -> dict[str, Any]:
    """The contract's four keys first, then the turn's structure."""
    out: dict[str, Any] = {
        "author": turn.author,
        "kind": turn.kind,
        "at": iso(turn.at),
        "body": turn.body,
    }
    for key, value in turn.data.items():
        out.setdefault(key, value)
    return out


def load_turns(session: Session, request_id: int) -> list[Turn]:
    return list(
        session.scalars(select(Turn).where(Turn.request_id == request_id).order_by(Turn.seq))
    )


def human_has_replied(turns: list[Turn]) -> bool:
    return any(t.author == "human" and t.kind in HUMAN_ANSWER_KINDS for t in turns)
