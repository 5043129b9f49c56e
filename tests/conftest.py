"""Shared fixtures: settings on a temp data dir, databases, a running gateway, a relay sink.

Every end-to-end fixture uses real sockets on 127.0.0.1: the gateway's own
HTTP and SMTP listeners on free ports, and an aiosmtpd sink as the relay.
Tests marked ``postgres`` run against ``HFA_TEST_POSTGRES_URL`` in a fresh
database of their own, and are skipped with the reason when it is unset.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import select

from gateway.app import Gateway
from gateway.services import Services, build_services
from gateway.settings.config import Config, load_config
from gateway.store.models import InboundMessage
from tests.dnskit import empty_dns

LAWYER = "counsel@lawfirm.example"
SECOND_LAWYER = "partner@lawfirm.example"
REPLY_DOMAIN = "hfa.example"
POSTGRES_URL = os.environ.get("HFA_TEST_POSTGRES_URL", "")


# Test processes for a run of the whole suite or of several files (pyproject's addopts ask
# for ``--numprocesses=auto``). Most tests wait on sockets, subprocesses and timers more than
# they compute, so more processes than cores pay, but not many more: at four on two cores,
# tests that wait on a subprocess's start or a timer were late now and then. ``-n N`` or
# PYTEST_XDIST_AUTO_NUM_WORKERS choose another count, ``-n 0`` runs in this process.
WORKERS = 3


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Without pytest-xdist (not installed, or ``-p no:xdist``) its options in addopts are
    accepted and the suite runs in one process."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist", "tests in parallel (pytest-xdist is not loaded)")
    group.addoption("--numprocesses", dest="numprocesses_ignored", help="ignored")
    group.addoption("--dist", dest="dist_ignored", help="ignored")


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): tests run in one process")
    worker: dict[str, Any] | None = getattr(config, "workerinput", None)
    if worker is not None:
        # A worker process is started with COLUMNS=80: the width commands print tables
        # for would differ from a run in one process. Keep the one the run was started with.
        os.environ.pop("COLUMNS", None)
        if worker.get("hfa_columns") is not None:
            os.environ["COLUMNS"] = worker["hfa_columns"]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    node.workerinput["hfa_columns"] = os.environ.get("COLUMNS")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many processes ``--numprocesses=auto`` starts: WORKERS for the suite or a
    directory of it, none for test files named one by one (each process imports and
    collects on its own, which costs more than a few files take)."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if chosen:
        return int(chosen)
    if all(Path(arg.split("::")[0]).is_file() for arg in config.args):
        return 0
    return WORKERS


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _shares_a_module_fixture(item) and item.get_closest_marker("xdist_group") is None:
            # A module's Chromium, private Postfix or data dir is set up once, in the one
            # process that runs the module, not once in each.
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    if POSTGRES_URL:
        return
    skip = pytest.mark.skip(reason="HFA_TEST_POSTGRES_URL is not set: PostgreSQL tests skipped")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _root_logging_restored() -> Iterator[None]:
    """An ``hfa`` command run in-process sets logging up as for a terminal: the root logger
    at INFO, its one handler on the stderr pytest captured for that test and closes after
    it. Left so, every later test's log line would be a "Logging error" traceback."""
    root = logging.getLogger()
    level = root.level
    yield
    for handler in list(root.handlers):
        if type(handler) is logging.StreamHandler:
            root.removeHandler(handler)
    root.setLevel(level)


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        fixture.scope in ("module", "package")
        for defs in info.name2fixturedefs.values()
        for fixture in defs
    )


def _create_postgres_database() -> str:
    import psycopg

    name = f"hfa_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{POSTGRES_URL.rpartition('/')[0]}/{name}"


def _admin_url() -> str:
    return POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")


def _drop_postgres_database(url: str) -> None:
    import psycopg

    name = url.rpartition("/")[2]
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class _Drops:
    """Drops this process's test databases in the background: a drop waits for the
    server's disk, and nothing uses a test's database once the test is over."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="drop-database")
        atexit.register(self.pool.shutdown, wait=True)

    def later(self, url: str) -> None:
        self.pool.submit(_drop_postgres_database, url)


_drops = _Drops()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    if not POSTGRES_URL:
        pytest.skip("HFA_TEST_POSTGRES_URL is not set")
    url = _create_postgres_database()
    yield url
    _drops.later(url)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test that uses it runs on SQLite and, when configured, on PostgreSQL (in a
    fresh, empty database of its own)."""
    if request.param == "sqlite":
        yield ""
        return
    url = _create_postgres_database()
    yield url
    _drops.later(url)


def make_config(data_dir: Path, **overrides: str) -> Config:
    env = {
        "HFA_DATA_DIR": str(data_dir),
        "HFA_HTTP_BIND": "127.0.0.1:0",
        "HFA_SMTP_BIND": "127.0.0.1:0",
        "HFA_LAWYERS": LAWYER,
        "HFA_REPLY_DOMAIN": REPLY_DOMAIN,
        "HFA_MAIL_FROM": f"gateway@{REPLY_DOMAIN}",
        "HFA_SECRET_KEYS": "test-key-one-0123456789abcdef",
        "HFA_WORKER_POLL_SECONDS": "0.05",
        "HFA_OUTBOX_BACKOFF_SECONDS": "0.05",
        # Typed decisions take effect at once unless a test asks for a correction window
        # (tests/e2e/test_correction_window.py); the default's two minutes would only wait.
        "HFA_CORRECTION_WINDOW": "0",
        # Replies here carry no DKIM signature: a decision is recorded on the reply address
        # alone unless a test asks for the default, confirm (tests/e2e/test_weak_senders.py).
        "HFA_WEAK_SENDER_DECISIONS": "record",
        # DKIM keys and DMARC policies are looked up at a loopback server that knows no
        # names: as in production, and never waiting on a resolver that is not there.
        "HFA_DNS_RESOLVER": empty_dns(),
    }
    env.update({f"HFA_{k.upper()}": v for k, v in overrides.items()})
    return load_config(env=env)


@pytest.fixture
def config(tmp_path: Path, database_url: str) -> Config:
    return make_config(tmp_path, database_url=database_url)


@pytest.fixture
def services(config: Config) -> Iterator[Services]:
    built = build_services(config)
    yield built
    built.close()


@dataclass
class SmtpSink:
    """A real SMTP server (aiosmtpd) that keeps what it receives: the test relay."""

    port: int = 0
    received: list[tuple[str, list[str], bytes]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    # Set to e.g. "451 4.3.0 Try later" to make the relay refuse.
    answer: str | None = None

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        if self.answer:
            return self.answer
        raw = envelope.original_content or b""
        self.received.append((envelope.mail_from or "", list(envelope.rcpt_tos), raw))
        self.arrived.set()
        return "250 OK"

    def messages(self) -> list[EmailMessage]:
        out = []
        for _sender, _rcpts, raw in self.received:
            msg = message_from_bytes(raw, policy=default_policy)
            assert isinstance(msg, EmailMessage)
            out.append(msg)
        return out

    async def wait_for(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        async def until() -> None:
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(until(), timeout)
        return self.messages()

    async def request_email(self, reference: str, timeout: float = 10.0) -> EmailMessage:
        """The request email of ``reference``, whatever else the relay got before or after
        it (a notice or receipt of an earlier thread may arrive at any moment)."""

        def found() -> EmailMessage | None:
            for message in self.messages():
                if (message["X-HFA-Reference"], message["X-HFA-Kind"]) == (reference, "request"):
                    return message
            return None

        async def until() -> EmailMessage:
            while (message := found()) is None:
                self.arrived.clear()
                await self.arrived.wait()
            return message

        return await asyncio.wait_for(until(), timeout)


@pytest.fixture
async def sink() -> AsyncIterator[SmtpSink]:
    handler = SmtpSink()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="relay.test", loop=loop), host="127.0.0.1", port=0
    )
    handler.port = server.sockets[0].getsockname()[1]
    yield handler
    server.close()
    await server.wait_closed()


@dataclass
class Running:
    """A gateway running in-process on free loopback ports, with its relay sink."""

    gateway: Gateway
    services: Services
    sink: SmtpSink
    http: httpx.AsyncClient

    @property
    def smtp_port(self) -> int:
        assert self.gateway.smtp_port is not None
        return self.gateway.smtp_port

    async def file(self, **fields: Any) -> dict[str, Any]:
        body = {"category": "legal_review", "request": "Please review clause 7."} | fields
        response = await self.http.post("/v1/requests", json=body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    async def status(self, filed: dict[str, Any]) -> dict[str, Any]:
        response = await self.http.get(
            f"/v1/requests/{filed['reference']}",
            headers={"Authorization": f"Bearer {filed['access_token']}"},
        )
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    async def wait_status(
        self, filed: dict[str, Any], predicate: Any, timeout: float = 10.0
    ) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            got = await self.status(filed)
            if predicate(got):
                return got
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"condition not met; last thread: {got}")
            await asyncio.sleep(0.05)


async def wait_outcomes(running: Running, count: int, timeout: float = 10.0) -> list[str | None]:
    """The stored messages' outcomes, once ``count`` are stored and all processed."""

    def read() -> list[str | None]:
        with running.services.db.read_only() as session:
            return list(session.scalars(select(InboundMessage.outcome).order_by(InboundMessage.id)))

    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got = read()
        if len(got) >= count and None not in got:
            return got
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"outcomes not ready: {got}")
        await asyncio.sleep(0.05)


async def start_running(config: Config, sink: SmtpSink) -> Running:
    config = config.with_overrides(smtp_relay=f"127.0.0.1:{sink.port}")
    services = build_services(config)
    gateway = Gateway(services)
    await gateway.start()
    return Running(gateway, services, sink, gateway_client(gateway))


def gateway_client(gateway: Gateway) -> httpx.AsyncClient:
    """A client of the gateway's HTTP API. It lets an idle connection go after 2 s, before
    the server's keep-alive (5 s) does: a request sent on a connection the server closes at
    that moment fails ("Server disconnected"), as it did after a long wait on a busy machine."""
    return httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{gateway.http_port}",
        timeout=10,
        limits=httpx.Limits(keepalive_expiry=2.0),
    )


async def stop_running(running: Running) -> None:
    await running.http.aclose()
    await running.gateway.stop()
    running.services.close()


@pytest.fixture
async def running(config: Config, sink: SmtpSink) -> AsyncIterator[Running]:
    r = await start_running(config, sink)
    yield r
    await stop_running(r)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Say how to run the PostgreSQL half when it was skipped: a green run of half the suite
    should not pass for a run of all of it."""
    skipped = [
        r
        for r in terminalreporter.stats.get("skipped", [])
        if "HFA_TEST_POSTGRES_URL" in str(getattr(r, "longrepr", ""))
    ]
    if skipped and not POSTGRES_URL:
        terminalreporter.write_line(
            f"{len(skipped)} PostgreSQL tests skipped: run them with "
            "HFA_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres pytest "
            "(a server where this user may create databases; README, Quick start)"
        )
