"""PostgreSQL connections per role: after a burst, each process keeps what its roles use.

The roles run as separate processes on one database, 200 requests are filed by 16
clients at once (every one answered), then the processes idle: each keeps open no more
connections than its roles' share (``services.KEPT_PER_ROLE``), plus the one the leading
sequencer holds for its lock. Before, every process kept up to ten (20 for 4 processes).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from bench.roles import Roles, file_requests, free_port, http_up, port_open, wait_until
from gateway.services import KEPT_PER_ROLE
from tests.conftest import _create_postgres_database, _drop_postgres_database
from tests.dnskit import empty_dns

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def pg() -> Iterator[str]:
    url = _create_postgres_database()
    yield url
    _drop_postgres_database(url)


def _plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def _by_process(url: str) -> dict[str, list[str]]:
    """The database's connections, by application_name: each one's state."""
    plain = _plain(url)
    with psycopg.connect(plain, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT application_name, state FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (plain.rsplit("/", 1)[1],),
        ).fetchall()
    found: dict[str, list[str]] = {}
    for name, state in rows:
        found.setdefault(name, []).append(state)
    return found


def test_each_role_keeps_its_share_of_connections_after_a_burst(tmp_path: Path, pg: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        HFA_DATABASE_URL=pg,
        HFA_DATA_DIR=str(tmp_path / "var"),
        HFA_SECRET_KEYS="pool-test-key-0123456789abcdef",
        HFA_WEBHOOK_SECRET="whsec_b3BzLXRlc3Qtd2ViaG9vay1zZWNyZXQ=",
        HFA_LAWYERS="counsel@lawfirm.example",
        HFA_REPLY_DOMAIN="reply.hfa.test",
        HFA_DNS_RESOLVER=empty_dns(),
        HFA_WORKER_POLL_SECONDS="0.2",
        HFA_RATE_LIMIT_PER_MINUTE="100000",
    )
    roles = Roles(env, tmp_path)
    http, smtp = free_port(), free_port()
    try:
        roles.start("http", "serve", "--role", "http", extra={"HFA_HTTP_BIND": f"127.0.0.1:{http}"})
        roles.start("smtp", "serve", "--role", "smtp", extra={"HFA_SMTP_BIND": f"127.0.0.1:{smtp}"})
        roles.start("worker", "serve", "--role", "worker")
        deadline = time.monotonic() + 90
        wait_until("the http role", lambda: http_up(f"http://127.0.0.1:{http}"), deadline)
        wait_until("the smtp role", lambda: port_open(smtp), deadline)
        filed = file_requests(f"http://127.0.0.1:{http}", 200, 16)
        assert len(filed) == 200
        # The burst's extra connections close as they come back; the worker sends 200 emails.
        time.sleep(5)
        held = _by_process(pg)
        for role, kept in KEPT_PER_ROLE.items():
            states = held.get(f"hfa {role}", [])
            assert states, (role, held)
            # The leading sequencer's lock holds one more, in the worker.
            assert len(states) <= kept + (role == "worker"), (role, held)
        assert sum(len(s) for s in held.values()) <= sum(KEPT_PER_ROLE.values()) + 1, held
    finally:
        roles.stop_all()
