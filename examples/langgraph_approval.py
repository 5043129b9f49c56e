"""A LangGraph interrupt resumed by the gateway's webhook: the lawyer's answer, no polling.

The graph files a request with the gateway (``POST /v1/requests``, ``reply_to`` this
program's webhook, naming the graph's thread), then stops at ``interrupt()``; its state
stays in the checkpointer under that thread. When the lawyer's answer takes effect, the gateway POSTs
the thread to the webhook, signed as Standard Webhooks; the receiver verifies it and
resumes the graph with ``Command(resume=...)``. The last node acts only on an approval.

Run it against a gateway (``hfa serve`` with ``HFA_WEBHOOK_SECRET`` set and, on one
machine, ``HFA_WEBHOOK_ALLOW_PRIVATE=1``)::

    HFA_WEBHOOK_SECRET=whsec_... python examples/langgraph_approval.py \\
        --gateway http://127.0.0.1:8080 --listen 127.0.0.1:8091

then answer the request email as the lawyer. Nothing here calls a model: the graph's
nodes are plain functions, as a real agent's tool-calling nodes would be around them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import uuid
from collections.abc import Callable
from typing import Any, TypedDict

import httpx
import uvicorn
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt
from standardwebhooks import Webhook, WebhookVerificationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

# Statuses at which the lawyer's answer is on the record and in effect.
SETTLED = ("answered", "declined", "closed")


class Matter(TypedDict, total=False):
    """The graph's state: what to ask, the request filed, and the lawyer's answer."""

    thread: str
    request: str
    proposed_action: str
    reference: str
    access_token: str
    answer: dict[str, Any]
    outcome: str


def the_answer(event: dict[str, Any]) -> dict[str, Any] | None:
    """The lawyer's answer in a gateway push, once it is in effect; None before."""
    data = event.get("data") or {}
    if data.get("status") not in SETTLED:
        return None
    humans = [t for t in data.get("turns") or [] if t.get("author") == "human"]
    decided = [t for t in humans if t.get("decision") or t.get("choice")]
    last = (decided or humans or [{}])[-1]
    return {
        "reference": data.get("reference"),
        "status": data["status"],
        "decision": last.get("decision"),
        "conditions": last.get("conditions") or [],
        "choice": last.get("choice"),
        "said": last.get("body", ""),
    }


def build_graph(
    gateway: httpx.Client, webhook_url: str, headers: dict[str, str] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """file_request -> wait_for_lawyer (interrupt) -> act, with an in-memory checkpointer."""

    def file_request(state: Matter) -> Matter:
        filed = gateway.post(
            "/v1/requests",
            json={
                "category": "human_confirmation",
                "request": state["request"],
                "proposed_action": state["proposed_action"],
                "agent_name": "langgraph-example",
                # The thread rides in the webhook's URL: the push names what to resume.
                "reply_to": f"{webhook_url}?thread={state['thread']}",
            },
            headers=headers or {},
        )
        filed.raise_for_status()
        body = filed.json()
        return {"reference": body["reference"], "access_token": body["access_token"]}

    def wait_for_lawyer(state: Matter) -> Matter:
        # Stops here; the webhook's resume value is what interrupt() returns on the rerun.
        answer = interrupt({"reference": state["reference"]})
        return {"answer": answer}

    def act(state: Matter) -> Matter:
        answer = state["answer"]
        if answer.get("decision") == "approval" and not answer.get("conditions"):
            return {"outcome": f"carried out: {state['proposed_action']}"}
        if answer.get("decision") == "approval":
            return {"outcome": "carried out within: " + "; ".join(answer["conditions"])}
        return {"outcome": f"not carried out ({answer.get('decision') or 'no decision'})"}

    graph = StateGraph(Matter)
    graph.add_node("file_request", file_request)
    graph.add_node("wait_for_lawyer", wait_for_lawyer)
    graph.add_node("act", act)
    graph.add_edge(START, "file_request")
    graph.add_edge("file_request", "wait_for_lawyer")
    graph.add_edge("wait_for_lawyer", "act")
    graph.add_edge("act", END)
    return graph.compile(checkpointer=InMemorySaver())


def resume_with(
    graph: CompiledStateGraph[Any, Any, Any, Any],
) -> Callable[[Command[Any], RunnableConfig], dict[str, Any]]:
    """``graph.invoke`` as the webhook calls it: a resume, and the state it ends with."""

    def resume(command: Command[Any], config: RunnableConfig) -> dict[str, Any]:
        return dict(graph.invoke(command, config))

    return resume


def start(graph: CompiledStateGraph[Any, Any, Any, Any], matter: Matter) -> tuple[str, str]:
    """Run the graph up to its interrupt: (its thread, the request's reference)."""
    thread = uuid.uuid4().hex
    state = graph.invoke({**matter, "thread": thread}, {"configurable": {"thread_id": thread}})
    return thread, str(state["reference"])


def webhook_app(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    secret: str,
    on_done: Callable[[str, dict[str, Any]], None] | None = None,
) -> Starlette:
    """The receiver: verify the gateway's signature, then resume the graph it names."""
    verifier = Webhook(secret)
    resume = resume_with(graph)
    # One resume at a time: two deliveries of one push must not both resume the graph.
    resuming = asyncio.Lock()

    async def hook(request: Request) -> Response:
        async with resuming:
            return await handle(request)

    async def handle(request: Request) -> Response:
        body = await request.body()
        try:
            event = verifier.verify(body, dict(request.headers))
        except WebhookVerificationError:
            return Response(status_code=401)
        answer = the_answer(event)
        config: RunnableConfig = {
            "configurable": {"thread_id": request.query_params.get("thread", "")}
        }
        waiting = graph.get_state(config)
        if answer is None or waiting.next != ("wait_for_lawyer",):
            # A turn that settles nothing yet (an acknowledgement, a question), a push
            # delivered again (webhooks are at-least-once) or not ours: nothing to resume.
            return Response(status_code=204)
        if waiting.values.get("reference") != answer["reference"]:
            return Response(status_code=409)
        final = await asyncio.to_thread(resume, Command(resume=answer), config)
        if on_done is not None:
            on_done(str(answer["reference"]), final)
        return Response(status_code=204)

    return Starlette(routes=[Route("/hook", hook, methods=["POST"])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gateway", default="http://127.0.0.1:8080")
    parser.add_argument("--listen", default="127.0.0.1:8091")
    parser.add_argument("--api-key", default=os.environ.get("HFA_API_KEY", ""))
    args = parser.parse_args()
    host, port = args.listen.rsplit(":", 1)
    headers = {"X-API-Key": args.api_key} if args.api_key else {}
    with httpx.Client(base_url=args.gateway, timeout=30) as client:
        graph = build_graph(client, f"http://{args.listen}/hook", headers)
        matter: Matter = {
            "request": "May we sign the NDA with Northwind as sent?",
            "proposed_action": "Sign the Northwind NDA (v3, as sent on Monday).",
        }
        _thread, reference = start(graph, matter)
        print(f"Filed {reference}; waiting for the lawyer's answer at {args.listen}/hook")

        def done(reference: str, final: dict[str, Any]) -> None:
            print(f"{reference}: {final['outcome']}")

        app = webhook_app(graph, os.environ["HFA_WEBHOOK_SECRET"], done)
        uvicorn.run(app, host=host, port=int(port), log_level="warning")


if __name__ == "__main__":
    main()
