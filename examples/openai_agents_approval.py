"""An OpenAI Agents SDK tool with ``needs_approval``, approved or rejected by a lawyer.

When the agent calls a tool marked ``needs_approval=True``, the SDK stops the run and
hands back its interruptions. For each one this program files a request with the
gateway (the tool call as the proposed action), waits for the lawyer's answer with the
status long-poll (``GET /v1/requests/{reference}?wait=60``: no polling loop on the
agent's side, an answer within a second of taking effect), then approves or rejects
the call in the run's state and resumes the run. Only a bare approval approves; an
approval with conditions, a rejection or anything else rejects, with the lawyer's
words as the message the model reads.

Run it against a gateway (``hfa serve``) with a model configured for the SDK
(``OPENAI_API_KEY``)::

    python examples/openai_agents_approval.py --gateway http://127.0.0.1:8080

The tests drive it with the SDK's own scripted model (``agents.testing``), so no
model is called there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from dataclasses import dataclass
from typing import Any

import httpx
from agents import Agent, Runner, RunResult, ToolApprovalItem, function_tool

# Statuses at which the lawyer's answer is on the record and in effect.
SETTLED = ("answered", "declined", "closed")


@function_tool(needs_approval=True)
def wire_transfer(iban: str, amount_eur: float) -> str:
    """Transfer money to a bank account (needs a lawyer's approval first)."""
    return f"Transferred EUR {amount_eur:,.2f} to {iban}."


def build_agent(model: Any = None) -> Agent[Any]:
    """The agent; ``model`` is the SDK's default (from the environment) unless given."""
    return Agent(
        name="payments",
        instructions="Pay suppliers' invoices with wire_transfer when asked to.",
        tools=[wire_transfer],
        **({"model": model} if model is not None else {}),
    )


@dataclass(frozen=True)
class Verdict:
    """The lawyer's answer to one tool call, as the run needs it."""

    reference: str
    approved: bool
    message: str


class Gateway:
    """The gateway's agent API: file a request, then wait for its answer."""

    def __init__(self, client: httpx.AsyncClient, api_key: str = "") -> None:
        self.client = client
        self.headers = {"X-API-Key": api_key} if api_key else {}

    async def ask(self, item: ToolApprovalItem, wait: float = 60, rounds: int = 60) -> Verdict:
        arguments = json.loads(item.arguments or "{}")
        shown = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
        filed = await self.client.post(
            "/v1/requests",
            json={
                "category": "human_confirmation",
                "request": f"The payments agent wants to call {item.name}. May it?",
                "proposed_action": f"{item.name}({shown})",
                "agent_name": "openai-agents-example",
                "urgency": "blocking",
            },
            headers=self.headers,
        )
        filed.raise_for_status()
        body = filed.json()
        return await self.answer(body["reference"], body["access_token"], wait, rounds)

    async def answer(self, reference: str, token: str, wait: float, rounds: int) -> Verdict:
        """Long-poll the status until the answer is in effect (``rounds`` waits at most)."""
        headers = {"Authorization": f"Bearer {token}"}
        etag = ""
        for _ in range(rounds):
            got = await self.client.get(
                f"/v1/requests/{reference}",
                params={"wait": str(wait)},
                headers={**headers, **({"If-None-Match": etag} if etag else {})},
                timeout=wait + 30,
            )
            got.raise_for_status()
            etag = got.headers.get("ETag", "")
            thread = got.json()
            if thread["status"] in SETTLED:
                return verdict(thread)
        raise TimeoutError(f"{reference}: no answer after {rounds} waits")


def verdict(thread: dict[str, Any]) -> Verdict:
    """Approve only a bare approval; anything else rejects, in the lawyer's words."""
    humans = [t for t in thread["turns"] if t["author"] == "human" and t.get("decision")]
    last = humans[-1] if humans else {}
    decision, conditions = last.get("decision"), last.get("conditions") or []
    said = str(last.get("body") or thread.get("notice", ""))
    if decision == "approval" and not conditions:
        return Verdict(thread["reference"], True, said)
    if decision == "approval":
        reason = "approved only within conditions the agent cannot check: " + "; ".join(conditions)
    else:
        reason = f"not approved ({decision or thread['status']})"
    return Verdict(thread["reference"], False, f"The lawyer {reason}. They wrote: {said}")


async def run_with_lawyer(agent: Agent[Any], task: str, gateway: Gateway) -> RunResult:
    """Run the agent; every tool call that needs approval waits for the lawyer's answer."""
    result = await Runner.run(agent, task)
    while result.interruptions:
        state = result.to_state()
        for item in result.interruptions:
            answer = await gateway.ask(item)
            if answer.approved:
                state.approve(item)
            else:
                state.reject(item, rejection_message=answer.message)
        result = await Runner.run(agent, state)
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gateway", default="http://127.0.0.1:8080")
    parser.add_argument("--api-key", default=os.environ.get("HFA_API_KEY", ""))
    args = parser.parse_args()
    async with httpx.AsyncClient(base_url=args.gateway, timeout=30) as client:
        result = await run_with_lawyer(
            build_agent(),
            "Pay Northwind's invoice 2291: EUR 48,500.00 to DE89 3704 0044 0532 0130 00.",
            Gateway(client, args.api_key),
        )
        print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
