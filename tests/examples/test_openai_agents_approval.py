"""examples/openai_agents_approval.py against a running gateway: the lawyer settles the tool call.

The SDK's own scripted model (``agents.testing.ScriptedModel``) plays the model: it
calls ``wire_transfer`` (``needs_approval=True``), so the real Runner stops with an
interruption; the example files it with the gateway, the lawyer answers the email over
SMTP, and the run resumes approved (the tool runs) or rejected (it does not, and the
model reads the lawyer's words). No model is called.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send

example = pytest.importorskip(
    "examples.openai_agents_approval", reason="the examples extra: pip install -e '.[examples]'"
)
agents = pytest.importorskip("agents")
scripted = pytest.importorskip("agents.testing")

IBAN = "DE89 3704 0044 0532 0130 00"


@pytest.fixture(autouse=True)
def no_tracing() -> None:
    # The SDK exports traces to its platform by default: nothing leaves this machine.
    agents.set_tracing_disabled(True)


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(tmp_path, database_url=database_url)
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def script() -> Any:
    return scripted.ScriptedModel(
        [
            [
                scripted.function_call(
                    "wire_transfer", {"iban": IBAN, "amount_eur": 48500.0}, call_id="call_1"
                )
            ],
            [scripted.assistant_message("Done as the lawyer said.")],
        ]
    )


def tool_outputs(result: Any) -> list[str]:
    return [str(i.output) for i in result.new_items if type(i).__name__ == "ToolCallOutputItem"]


@pytest.mark.parametrize(
    ("answer", "ran"),
    [("Approved.", True), ("Rejected. The IBAN change was not confirmed by phone.", False)],
)
async def test_the_lawyers_answer_approves_or_rejects_the_tool_call(
    gateway: Running, answer: str, ran: bool
) -> None:
    model = script()
    agent = example.build_agent(model)
    base = f"http://127.0.0.1:{gateway.gateway.http_port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        run = asyncio.create_task(
            example.run_with_lawyer(agent, "Pay invoice 2291.", example.Gateway(client))
        )
        [email] = await gateway.sink.wait_for(1)
        assert "wire_transfer(iban='DE89 3704 0044 0532 0130 00', amount_eur=48500.0)" in " ".join(
            str(email.get_body(preferencelist=("plain",)).get_content()).split()  # type: ignore[union-attr]
        )
        # The run waits on the gateway's long-poll while the lawyer has not answered.
        await asyncio.sleep(0.5)
        assert not run.done()
        await send(reply_to(email, answer), gateway.smtp_port)
        result = await asyncio.wait_for(run, 60)
    outputs = tool_outputs(result)
    if ran:
        assert outputs == [f"Transferred EUR 48,500.00 to {IBAN}."]
    else:
        assert len(outputs) == 1 and "Transferred" not in outputs[0]
        assert "The IBAN change was not confirmed by phone." in outputs[0]
    assert result.final_output == "Done as the lawyer said."
    assert model.remaining_steps == 0


def test_only_a_bare_approval_approves() -> None:
    def thread(**turn: Any) -> dict[str, Any]:
        human = {"author": "human", "kind": "reply", "body": "x", **turn}
        return {"reference": "HFA-00001", "status": "answered", "turns": [human]}

    assert example.verdict(thread(decision="approval")).approved
    assert not example.verdict(thread(decision="approval", conditions=["cap 10k"])).approved
    assert not example.verdict(thread(decision="rejection")).approved
    assert not example.verdict(thread(decision=None)).approved
