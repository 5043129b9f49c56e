"""MCP tasks (``io.modelcontextprotocol/tasks``, SEP-2663) over the record.

A client of MCP 2026-07-28 that declares the extension and calls
``request_human_assistance`` gets a task handle instead of the filing result:
the task is a row (``mcp_tasks``) written in the transaction that files the
request, so ``tasks/get`` finds it on any process from the moment the handle is
sent, and after any restart. Its state is read from the thread, never stored
twice:

- ``working`` while nobody has answered (a decision held in its correction
  window included: it is not an answer until it takes effect);
- ``input_required`` when the lawyer asked a question the agent has not answered
  yet: one elicitation, keyed ``question-<turn>``, answered with ``tasks/update``;
- ``completed`` once the request is answered or declined (or closed by its
  deadline), with the thread as ``check_request_status`` returns it as the result;
- ``cancelled`` once the agent withdrew it (``tasks/cancel`` withdraws).

The task id is not a bearer of the answer. Every ``tasks/*`` call must carry the
request's access token in ``_meta["hfa-gateway/access_token"]``; an unknown task
and a wrong token get the same answer, in the same time, as for the status.
The handle itself carries the filing result (reference, access token, thread
link) in ``_meta["hfa-gateway/request"]``, once, as the filing does.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from gateway import contract
from gateway.clock import iso
from gateway.errors import Conflict, FieldProblem, InvalidRequest, NotFound
from gateway.intake import filing, lookup
from gateway.services import Services
from gateway.store.models import Request
from gateway.store.task_models import McpTask
from gateway.tokens import DUMMY_HASH, secret_matches

EXTENSION = "io.modelcontextprotocol/tasks"
TOKEN_META = "hfa-gateway/access_token"  # noqa: S105 (the name of a _meta key)
REQUEST_META = "hfa-gateway/request"
ADD_META = "hfa-gateway/add_to_request"
# How often a client should look, by the request's urgency.
POLL_INTERVAL_MS = {"blocking": 5_000, "soon": 30_000, "routine": 300_000}
# A task with a deadline is kept this long after it, for the agent to read how it ended.
AFTER_DEADLINE = timedelta(days=1)
QUESTION_KEY = "question-"
NOT_FOUND_MESSAGE = "no task with this id and access token"
WITHDRAWN_MESSAGE = "Withdrawn by the agent (MCP tasks/cancel)."


def _not_found() -> NotFound:
    return NotFound(NOT_FOUND_MESSAGE, [FieldProblem("taskId", "a task id with its access token")])


def new_task_id() -> str:
    # 192 random bits: unguessable, though it opens nothing without the access token.
    return "task_" + secrets.token_urlsafe(24)


def _ttl_ms(services: Services, request: Request, now: datetime) -> int:
    if request.deadline_at is not None:
        kept = request.deadline_at + AFTER_DEADLINE - now
        return max(int(kept.total_seconds() * 1000), 0)
    return int(services.config.task_ttl_seconds * 1000)


def create_task(services: Services, session: Session, filed: dict[str, Any]) -> dict[str, Any]:
    """The task of a request just filed in ``session``, as a ``CreateTaskResult``."""
    number = contract.number_from_reference(filed["reference"])
    request = session.get(Request, number)
    assert request is not None, "the request was filed in this transaction"
    now = services.clock.now()
    task = McpTask(
        task_id=new_task_id(),
        request_id=request.id,
        created_at=now,
        ttl_ms=_ttl_ms(services, request, now),
        poll_interval_ms=POLL_INTERVAL_MS.get(request.urgency, POLL_INTERVAL_MS["routine"]),
    )
    session.add(task)
    session.flush()
    return {
        "resultType": "task",
        **_task_fields(task, iso(now)),
        "status": "working",
        "statusMessage": str(filed["notice"]),
        "_meta": {REQUEST_META: filed},
    }


def _task_fields(task: McpTask, last_updated: str) -> dict[str, Any]:
    return {
        "taskId": task.task_id,
        "createdAt": iso(task.created_at),
        "lastUpdatedAt": last_updated,
        "ttlMs": task.ttl_ms,
        "pollIntervalMs": task.poll_interval_ms,
    }


def _authorized(session: Session, task_id: str, token: str) -> tuple[McpTask, dict[str, Any]]:
    """The task and its request's status, if ``token`` is the request's access token."""
    task = session.get(McpTask, task_id) if len(task_id) <= 64 else None
    if task is None:
        # Compared all the same, so an unknown task and a wrong token take one time.
        secret_matches(token, DUMMY_HASH)
        raise _not_found()
    reference = contract.reference_for(task.request_id)
    try:
        status = lookup.check_status(session.connection(), reference, token)
    except NotFound:
        raise _not_found() from None
    return task, status


def outstanding_question(turns: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The lawyer's last question and its key, unless the agent has written since."""
    found: tuple[str, dict[str, Any]] | None = None
    for index, turn in enumerate(turns, start=1):
        if turn["author"] == "human" and turn["kind"] == "question":
            found = (f"{QUESTION_KEY}{index}", turn)
        elif turn["author"] == "sender" and index > 1:
            found = None
    return found


def _elicitation(question: dict[str, Any]) -> dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": question["body"],
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "message": {
                        "type": "string",
                        "description": "The answer to the lawyer's question, "
                        "recorded on the thread as add_to_request.",
                    }
                },
                "required": ["message"],
            },
        },
    }


def task_state(task: McpTask, status: dict[str, Any]) -> dict[str, Any]:
    """The task as ``tasks/get`` returns it (a ``DetailedTask``)."""
    turns = status["turns"]
    state = {
        **_task_fields(task, max(t["at"] for t in turns)),
        "statusMessage": status["notice"],
    }
    withdrawn = any(t["kind"] == "withdrawal" for t in turns)
    if status["status"] == "closed" and withdrawn:
        return {**state, "status": "cancelled"}
    if status["status"] in ("answered", "declined", "closed"):
        result = {
            "content": [{"type": "text", "text": json.dumps(status, ensure_ascii=False)}],
            "structuredContent": status,
            "isError": False,
        }
        return {**state, "status": "completed", "result": result}
    question = outstanding_question(turns)
    if question is not None:
        key, turn = question
        return {**state, "status": "input_required", "inputRequests": {key: _elicitation(turn)}}
    return {**state, "status": "working"}


def get_task(session: Session, task_id: str, token: str) -> dict[str, Any]:
    task, status = _authorized(session, task_id, token)
    return task_state(task, status)


def _answers(
    outstanding: str | None, responses: dict[str, Any], added: Any
) -> list[dict[str, Any]]:
    """What ``tasks/update`` adds to the thread: the answer to the outstanding question,
    then a message under ``_meta["hfa-gateway/add_to_request"]``. Responses to keys that
    are not outstanding are ignored, as the extension says."""
    out: list[dict[str, Any]] = []
    response = responses.get(outstanding) if outstanding else None
    if isinstance(response, dict) and response.get("action") == "accept":
        content = response.get("content")
        text = content.get("message") if isinstance(content, dict) else None
        if not isinstance(text, str):
            raise InvalidRequest(
                "the answer to a question needs content.message",
                [FieldProblem(f"inputResponses.{outstanding}.content.message", "a string")],
            )
        out.append({"message": text, "in_reply_to": outstanding})
    if added is not None:
        if not isinstance(added, dict):
            raise InvalidRequest(
                f"_meta.{ADD_META} must be an object like add_to_request's arguments",
                [FieldProblem(f"_meta.{ADD_META}", "an object with a message")],
            )
        out.append({k: v for k, v in added.items() if k not in ("reference", "access_token")})
    return out


def update_task(
    services: Services,
    session: Session,
    task_id: str,
    token: str,
    responses: dict[str, Any],
    added: Any = None,
) -> None:
    """``tasks/update``: the agent's answers, each recorded as ``add_to_request``."""
    _task, status = _authorized(session, task_id, token)
    question = outstanding_question(status["turns"])
    for message in _answers(question[0] if question else None, responses, added):
        arguments = {**message, "reference": status["reference"], "access_token": token}
        filing.add_to_request(services, session, arguments)


def cancel_task(services: Services, session: Session, task_id: str, token: str) -> None:
    """``tasks/cancel``: the request is withdrawn, unless it is closed already."""
    _task, status = _authorized(session, task_id, token)
    if status["status"] == "closed":
        return
    arguments = {
        "reference": status["reference"],
        "access_token": token,
        "message": WITHDRAWN_MESSAGE,
        "withdraw": True,
    }
    try:
        filing.add_to_request(services, session, arguments)
    except Conflict:
        # Closed meanwhile: cancellation is cooperative, the ack stands.
        return
