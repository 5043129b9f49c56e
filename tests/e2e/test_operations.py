"""Running it for real: the roles as separate processes on one PostgreSQL, faults injected.

Each test starts ``python -m gateway serve --role ...`` processes of this
checkout on free loopback ports against a fresh database, with an aiosmtpd
relay, and stops every process it started by PID. Bounded in count and time.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from bench import pg_load
from bench.roles import (
    HFA,
    LAWYER,
    ROOT,
    Roles,
    Sink,
    file_requests,
    free_port,
    http_up,
    port_open,
    wait_until,
)
from gateway.store import schema
from tests.conftest import _create_postgres_database, _drop_postgres_database
from tests.dnskit import empty_dns

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

SECRET = "ops-test-key-0123456789abcdef"


@pytest.fixture
def pg() -> Iterator[str]:
    url = _create_postgres_database()
    yield url
    _drop_postgres_database(url)


def plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture
def roles(tmp_path: Path, pg: str) -> Iterator[Roles]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        HFA_DATABASE_URL=pg,
        HFA_DATA_DIR=str(tmp_path / "var"),
        HFA_SECRET_KEYS=SECRET,
        HFA_WEBHOOK_SECRET="whsec_b3BzLXRlc3Qtd2ViaG9vay1zZWNyZXQ=",
        HFA_LAWYERS=LAWYER,
        HFA_REPLY_DOMAIN="reply.hfa.test",
        HFA_WORKER_POLL_SECONDS="0.2",
        # DNS at a loopback server that knows no names: fast, never a missing resolver.
        HFA_DNS_RESOLVER=empty_dns(),
        HFA_HEARTBEAT_SECONDS="1",
        HFA_READY_ROLE_SECONDS="4",
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    started = Roles(env, logs)
    yield started
    started.stop_all()


def hfa(roles: Roles, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HFA, *argv],
        env={**roles.env, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def sql(url: str, statement: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(plain(url), autocommit=True) as conn:
        cursor = conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def test_pg_load_with_two_workers_answers_no_451_and_has_no_deadlock() -> None:
    # Replies arrive while reminders go out every few seconds: before the write lock,
    # this load gave 451s at DATA and deadlocks in every worker.
    result = pg_load.run(
        pg_load.options(
            [
                "--requests=60",
                "--connections=8",
                "--workers=2",
                "--reply-after=4",
                "--reminder-every=3s",
                "--scheduler-seconds=1",
                "--relay-delay=0.05",
                "--timeout=240",
                "--admin-url=" + plain(os.environ["HFA_TEST_POSTGRES_URL"]),
            ]
        )
    )
    assert result["recorded"] == 60 and result["inbound_failed"] == 0, result
    assert result["answers_451"] == 0, result
    assert result["pg_deadlocks"] == 0 and result["deadlock_log_records"] == 0, result
    assert result["requests_with_two_human_turns"] == 0, result


def test_five_roles_started_at_once_on_a_fresh_database(roles: Roles, pg: str) -> None:
    http1, http2, smtp = free_port(), free_port(), free_port()
    roles.start("http1", "serve", "--role", "http", extra={"HFA_HTTP_BIND": f"127.0.0.1:{http1}"})
    roles.start("http2", "serve", "--role", "http", extra={"HFA_HTTP_BIND": f"127.0.0.1:{http2}"})
    roles.start("smtp", "serve", "--role", "smtp", extra={"HFA_SMTP_BIND": f"127.0.0.1:{smtp}"})
    roles.start("worker1", "serve", "--role", "worker")
    roles.start("worker2", "serve", "--role", "worker")
    deadline = time.monotonic() + 60
    wait_until("both http roles", lambda: http_up(f"http://127.0.0.1:{http1}"), deadline)
    wait_until("the second", lambda: http_up(f"http://127.0.0.1:{http2}"), deadline)
    wait_until("the smtp role", lambda: port_open(smtp), deadline)
    health = wait_until(
        "every role's heartbeat",
        lambda: (r := hfa(roles, "health")).returncode == 0 and r,
        deadline,
    )
    assert "NONE LIVE" not in health.stdout
    for name in ("http1", "http2", "smtp", "worker1", "worker2"):
        assert roles.alive(name), (roles.logs / f"{name}.log").read_text()[-2000:]
    assert sql(pg, "SELECT version_num FROM alembic_version") == [(schema.code_revision(),)]
    status = hfa(roles, "db", "status")
    assert status.returncode == 0 and "up to date" in status.stdout


def test_a_role_with_other_keys_refuses_to_start(roles: Roles) -> None:
    roles.start("worker", "serve", "--role", "worker")
    deadline = time.monotonic() + 60
    wait_until(
        "the worker's heartbeat",
        lambda: hfa(roles, "health", "--role", "worker").returncode == 0,
        deadline,
    )
    smtp = free_port()
    roles.start(
        "smtp",
        "serve",
        "--role",
        "smtp",
        extra={
            "HFA_SMTP_BIND": f"127.0.0.1:{smtp}",
            "HFA_SECRET_KEYS": "another-key-abcdef0123456789",
        },
    )
    code = roles.procs["smtp"].wait(60)
    said = (roles.logs / "smtp.log").read_text()
    assert code == 78, said  # EX_CONFIG
    assert "HFA_SECRET_KEYS" in said and "Traceback" not in said
    assert not port_open(smtp)
    assert roles.alive("worker")


def test_readyz_fails_within_the_configured_time_after_the_last_worker_is_killed(
    roles: Roles,
) -> None:
    http, smtp = free_port(), free_port()
    roles.start("http", "serve", "--role", "http", extra={"HFA_HTTP_BIND": f"127.0.0.1:{http}"})
    deadline = time.monotonic() + 60
    wait_until("the http role", lambda: http_up(f"http://127.0.0.1:{http}"), deadline)
    roles.start("smtp", "serve", "--role", "smtp", extra={"HFA_SMTP_BIND": f"127.0.0.1:{smtp}"})
    roles.start("worker", "serve", "--role", "worker")
    ready = f"http://127.0.0.1:{http}/readyz"
    wait_until("ready", lambda: httpx.get(ready, timeout=5).status_code == 200, deadline)
    roles.kill9("worker")
    # HFA_READY_ROLE_SECONDS=4, and on this host the dead worker's PID tells at once: the
    # wait is bounded well below the default window (60 s), with room for a loaded machine.
    answer = wait_until(
        "not ready",
        lambda: (r := httpx.get(ready, timeout=5)).status_code == 503 and r,
        time.monotonic() + 4 + 20,
    )
    checks = answer.json()["checks"]
    assert (
        checks["workers"].startswith("no live worker process") and checks["smtp_listeners"] == "ok"
    )
    health = hfa(roles, "health", "--json")
    assert health.returncode == 1 and '"worker"' in health.stdout


def test_a_killed_workers_claims_are_taken_over_within_30_seconds(roles: Roles, pg: str) -> None:
    sink = Sink(delay=1.0)  # deliveries are in flight when the worker dies
    sink.controller.start()
    http = free_port()
    try:
        roles.env["HFA_SMTP_RELAY"] = f"127.0.0.1:{sink.port}"
        # An email whose DATA was sent before the kill is held until the relay could no
        # longer be answering (10 minutes by default), not just for the 20 s lease; the kill
        # lands before or after that hold by a few milliseconds. With a 3 s wait for the dot
        # every claim the worker held is due again within 23 s, whichever it was.
        roles.env["HFA_SMTP_RELAY_DOT_TIMEOUT_SECONDS"] = "3"
        roles.env["HFA_RATE_LIMIT_PER_MINUTE"] = "100000"
        roles.start("http", "serve", "--role", "http", extra={"HFA_HTTP_BIND": f"127.0.0.1:{http}"})
        deadline = time.monotonic() + 120
        wait_until("the http role", lambda: http_up(f"http://127.0.0.1:{http}"), deadline)
        file_requests(f"http://127.0.0.1:{http}", 40, 8)
        roles.start("worker1", "serve", "--role", "worker")
        wait_until(
            "worker1 holding deliveries", lambda: len(pg_load.leased_now(plain(pg))) >= 10, deadline
        )
        roles.start("worker2", "serve", "--role", "worker")
        roles.kill9("worker1")
        takeover = pg_load.Takeover(plain(pg))
        # Watched for a minute from the kill, whatever a slow start left of ``deadline``: the
        # promise is 30 s (a 20 s lease), and a miss must show how long it took, not None.
        takeover.start(time.monotonic() + 60)
        seconds = takeover.seconds()
        assert takeover.held and seconds is not None and seconds < 30, (len(takeover.held), seconds)
        wait_until(
            "every request email",
            lambda: len(sink.request_emails()) == 40,
            max(deadline, time.monotonic() + 30),
        )
        # A delivery resent after the takeover keeps its Message-ID.
        queued = {m for (m,) in sql(pg, "SELECT message_id FROM outbox WHERE purpose = 'request'")}
        sent: dict[str, set[str]] = {}
        with sink.lock:
            for msg in sink.messages:
                if not str(msg["Subject"]).startswith("Re:"):
                    sent.setdefault(str(msg["X-HFA-Reference"]), set()).add(str(msg["Message-ID"]))
        assert len(sent) == 40 and all(len(ids) == 1 for ids in sent.values())
        assert set().union(*sent.values()) <= queued
    finally:
        sink.controller.stop()


def test_five_processes_write_side_by_side_and_one_sequencer_integrates_them(
    roles: Roles, pg: str
) -> None:
    assert hfa(roles, "db", "upgrade").returncode == 0
    writer = (
        "import sys\n"
        "from gateway.settings.config import load_config\n"
        "from gateway.services import build_services\n"
        "s = build_services(load_config())\n"
        "for n in range(150):\n"
        "    with s.db.transaction() as session:\n"
        "        s.audit.append(session, 'gateway.started', at=s.clock.now(),\n"
        "                       details={'writer': sys.argv[1], 'n': n})\n"
        "s.close()\n"
    )
    # A sequencer beside the writers, as a worker runs it, until all 750 are in.
    sequencer = (
        "import time\n"
        "from gateway.settings.config import load_config\n"
        "from gateway.services import build_services\n"
        "from gateway.store import signing\n"
        "from gateway.store.sequencer import Sequencer\n"
        "c = load_config()\n"
        "s = build_services(c)\n"
        "q = Sequencer(s.db, signing.load_keys(c.raw, c.data_dir), s.audit.mirror, macs=s.audit.macs)\n"
        "assert q.lead()\n"
        "done = 0\n"
        "while done < 750:\n"
        "    done += q.step(s.clock.now())\n"
        "    time.sleep(0.05)\n"
        "q.let_go()\n"
        "s.close()\n"
    )
    env = {**roles.env, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([HFA[0], "-c", writer, str(w)], env=env) for w in range(5)]
    procs.append(subprocess.Popen([HFA[0], "-c", sequencer], env=env))
    assert [p.wait(120) for p in procs] == [0] * 6
    mirror = Path(roles.env["HFA_DATA_DIR"]) / "audit.jsonl"
    lines = [json.loads(line) for line in mirror.read_text().splitlines()]
    assert [line["leaf_index"] for line in lines] == list(range(750))
    assert sorted(line["seq"] for line in lines) == list(range(1, 751))
    verified = hfa(roles, "audit", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # A real tampering is still caught.
    sql(pg, "UPDATE audit SET actor = 'mallory' WHERE seq = 300")
    tampered = hfa(roles, "audit", "verify")
    assert tampered.returncode == 1 and "entry 300" in tampered.stdout + tampered.stderr
