"""HumanLayer and A2H calls filed by their own ids: once, whoever races for an id."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, select

from gateway.errors import NotFound
from gateway.intake import compat, filing
from gateway.services import Services
from gateway.store.models import CompatCall, Request

PROTOCOL = "function_call"


def _file(services: Services, key: str) -> bool | str:
    """One filing of the call ``race-1`` as the API key ``key``: created, or why not."""
    try:
        return compat.file_call(
            services,
            protocol=PROTOCOL,
            external_id="race-1",
            arguments={"category": "human_confirmation", "request": "May I send it?"},
            document={"call_id": "race-1"},
            api_key_name=key,
        )
    except NotFound:
        return "not found"


def _on_record(services: Services) -> tuple[int, int]:
    with services.db.read_only() as session:
        calls = session.scalar(select(func.count()).select_from(CompatCall))
        requests = session.scalar(select(func.count()).select_from(Request))
    return int(calls or 0), int(requests or 0)


def _racing(services: Services, monkeypatch: pytest.MonkeyPatch, keys: list[str]) -> list[Any]:
    """File the call as each key at the same moment: every filing has looked for the id,
    and found none, before any of them files it."""
    if services.db.is_sqlite:
        pytest.skip("SQLite has one writer at a time: a second filing looks only after the first")
    looked = threading.Barrier(len(keys), timeout=10)
    original = filing.file_request

    def file_after_all_looked(*args: Any, **kwargs: Any) -> filing.Filed:
        looked.wait()
        return original(*args, **kwargs)

    monkeypatch.setattr(filing, "file_request", file_after_all_looked)
    with ThreadPoolExecutor(len(keys)) as pool:
        return list(pool.map(lambda key: _file(services, key), keys))


def test_two_keys_racing_for_one_id_file_it_once_and_the_other_is_not_found(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcomes = _racing(services, monkeypatch, ["agent-one", "agent-two"])
    assert sorted(map(str, outcomes)) == ["True", "not found"]
    assert _on_record(services) == (1, 1)


def test_one_key_racing_itself_files_it_once_and_the_repeat_finds_it(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcomes = _racing(services, monkeypatch, ["agent-one", "agent-one"])
    assert sorted(outcomes) == [False, True]
    assert _on_record(services) == (1, 1)


def test_a_repeat_of_an_id_is_the_first_call_and_another_keys_id_is_not_found(
    services: Services,
) -> None:
    assert _file(services, "agent-one") is True
    assert _file(services, "agent-one") is False
    assert _file(services, "agent-two") == "not found"
    assert _on_record(services) == (1, 1)
