"""The live-key snapshot every filing checks: read by two plain statements, never stale
after a change made in this process, and closed once a key has existed."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.intake import apikeys
from gateway.intake.apikeys import KeyCache
from gateway.services import Services


def _no_session(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("the key snapshot opened an ORM session")


def test_a_revoked_key_stops_working_at_once(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = apikeys.key_cache(services)
    assert cache.check(None) == (False, None)  # no key has existed: open
    with services.db.transaction() as session:
        key = apikeys.create_key(services, session, "procurement-bot")
    # The snapshot is two prepared statements, not a read transaction of the ORM.
    monkeypatch.setattr(services.db, "read_only", _no_session)
    assert cache.check(key) == (True, "procurement-bot")
    assert cache.check("hfak_wrong") == (True, None)
    with services.db.transaction() as session:
        apikeys.revoke_key(services, session, "procurement-bot")
    assert cache.check(key) == (True, None)
    # Another process's snapshot, read afresh: still closed with no live key.
    assert KeyCache(services).check(key) == (True, None)
    with services.db.transaction() as session:
        apikeys.open_gateway(services, session, by="ops")
    assert cache.check(None) == (False, None)
    assert KeyCache(services).check(key) == (False, None)
