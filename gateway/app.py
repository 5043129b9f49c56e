"""Run the gateway: HTTP, the SMTP listener and the workers on one event loop.

``Gateway`` is used by ``hfa serve``, ``hfa demo`` and the end-to-end tests
alike, so what is tested is what runs. Each role can also run alone
(``--role http|smtp|worker``) against a shared PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import uvicorn
from sqlalchemy.orm import Session

from gateway import __version__, retention, scheduler
from gateway.errors import ConfigError
from gateway.http import mounts
from gateway.http.app import build_app
from gateway.http.connections import guarded_protocol
from gateway.http.head_limits import MAX_HEAD
from gateway.inbound import challenge
from gateway.inbound.listener import smtp_admission, start_listener
from gateway.inbound.worker import InboundWorker
from gateway.intake import a2h_push, apikeys
from gateway.intake.waiting import waiting_for
from gateway.outbound import held_notices, push, witnesses
from gateway.outbound.compose_lane import ComposeLane, worth_a_process
from gateway.outbound.outbox import Deliverer, OutboxWorker, email_deliverer
from gateway.outbound.transports import MailTransport, close_transport, mail_transport
from gateway.outbound.webhooks import load_or_create_secrets
from gateway.runner import Runner
from gateway.services import Services
from gateway.settings.config import Config
from gateway.store import audit_origin, heartbeats, signing
from gateway.store.sequencer import Sequencer, run_sequencer
from gateway.throttle import ConnectionGuard

log = logging.getLogger(__name__)

ROLES = ("http", "smtp", "worker")
# Descriptors a process needs besides its listeners' connections: database connections,
# the relay's pooled connections and webhook clients (the worker keeps up to 32 in
# flight), log, key and audit files, the listening sockets, the pipe between processes.
SPARE_DESCRIPTORS = 256


def descriptors_needed(config: Config, roles: tuple[str, ...]) -> int:
    """Open files a process with ``roles`` needs when its listeners are full."""
    listeners = config.listeners
    need = SPARE_DESCRIPTORS
    if "smtp" in roles:
        need += listeners.smtp.max_connections + listeners.smtp_reserve()
    if "http" in roles:
        need += listeners.http.max_connections
    return need


def ensure_open_files(config: Config, roles: tuple[str, ...]) -> None:
    """Make the open-file limit fit the connection caps, or refuse to start.

    Past the limit, accept() fails on every connection attempt, and filings fail for
    want of a database connection, while the caps say there is room. The soft limit is
    raised up to the hard one where that suffices (systemd's default soft limit, 1024,
    is below the default caps); otherwise the gateway does not start.
    """
    need = descriptors_needed(config, roles)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return
    if hard == resource.RLIM_INFINITY or hard >= need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
        log.info("open-file limit raised from %s to %s, what the connection caps need", soft, need)
        return
    raise ConfigError(
        f"the open-file limit is {hard}, below the {need} the connection caps need "
        f"({_descriptor_sum(config, roles)}): raise LimitNOFILE (ulimit -n) or lower "
        "HFA_HTTP_MAX_CONNECTIONS / HFA_SMTP_MAX_CONNECTIONS"
    )


def _descriptor_sum(config: Config, roles: tuple[str, ...]) -> str:
    listeners, parts = config.listeners, []
    if "http" in roles:
        parts.append(f"{listeners.http.max_connections} HTTP")
    if "smtp" in roles:
        parts.append(f"{listeners.smtp.max_connections + listeners.smtp_reserve()} SMTP")
    return " + ".join([*parts, f"{SPARE_DESCRIPTORS} spare"])


def deliverers(
    services: Services, mail: MailTransport, lane: ComposeLane | None = None
) -> dict[str, Deliverer]:
    """The one table of deliverers: each outbox channel and what sends it."""
    table: dict[str, Deliverer] = {"email": email_deliverer(mail, lane)}
    table.update(push.deliverers(services))
    table.update(held_notices.deliverers(services))
    table.update(challenge.deliverers(services))
    table.update(a2h_push.deliverers(services))
    return table


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named explicitly: asyncio sets TCP_NODELAY only on sockets that say so,
    # and without it each response waits ~40 ms on the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


class _HttpServer(uvicorn.Server):
    """uvicorn without its signal handling: ``hfa serve`` owns SIGINT/SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Gateway:
    services: Services
    roles: tuple[str, ...] = ROLES
    http_port: int | None = None
    smtp_port: int | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _smtp: asyncio.Server | None = None
    _http: uvicorn.Server | None = None
    _mail: MailTransport | None = None
    # The worker's composing process (None on one core, or in other roles).
    compose_lane: ComposeLane | None = None
    _process: str = field(default_factory=heartbeats.process_name)
    # The listeners' admission counts, for ops and tests (None until started).
    smtp_guard: ConnectionGuard | None = None
    http_guard: ConnectionGuard | None = None
    _sequencer_of_worker: Sequencer | None = None
    _log_keys: signing.LogKeys | None = None
    _witnessing: witnesses.Policy = field(default_factory=lambda: witnesses.Policy((), 0, 5.0))

    async def start(self) -> None:
        config = self.services.config
        ensure_open_files(config, self.roles)
        self._stop.clear()
        if "worker" in self.roles:
            # Before anything is written: a worker whose audit key did not sign the log
            # would sign checkpoints that the log's published keys do not verify.
            self._log_keys = await self.services.db.run(self._audit_keys)
            self._witnessing = witnesses.policy_of(config.raw)
        # Before anything is served: a process whose keys the others cannot verify
        # must not issue a single reply address.
        await self.services.db.run(self._register)
        self._tasks.append(asyncio.create_task(self._heartbeat().run(self._stop)))
        if "smtp" in self.roles:
            self.smtp_guard = smtp_admission(config)
            self._smtp = await start_listener(
                self.services, config.smtp_host, config.smtp_port, self.smtp_guard
            )
            self.smtp_port = self._smtp.sockets[0].getsockname()[1]
            log.info("SMTP listener on %s:%s", config.smtp_host, self.smtp_port)
        if "http" in self.roles:
            sock = bind_socket(config.http_host, config.http_port)
            self.http_port = sock.getsockname()[1]
            if not config.raw["public_url"].strip() and config.http_port == 0:
                # Bound to a free port: thread_url must name the port actually in use.
                config = config.with_overrides(
                    public_url=f"http://{config.http_host}:{self.http_port}"
                )
                self.services.config = config
            app = build_app(
                self.services,
                extra_routes=mounts.routes(self.services),
                lifespan_parts=mounts.lifespan_parts(self.services),
            )
            # /readyz asks whether this process's SMTP listener is still bound.
            app.state.smtp_bound = self.smtp_bound
            guard = self.http_guard = ConnectionGuard(
                config.listeners.http.max_connections,
                config.listeners.http.max_connections_per_client,
            )
            server = _HttpServer(
                uvicorn.Config(
                    app,
                    log_level="warning",
                    lifespan="on",
                    access_log=False,
                    # X-Forwarded-For is read by the app, from HFA_TRUSTED_PROXIES only;
                    # uvicorn's own reading would believe any caller on 127.0.0.1.
                    proxy_headers=False,
                    http=guarded_protocol(
                        guard,
                        config.listeners.http.timeout_seconds,
                        config.listeners.is_trusted_proxy
                        if config.listeners.trusted_proxies
                        else None,
                    ),
                    # Used only where httptools is missing; head_limits bounds it otherwise.
                    h11_max_incomplete_event_size=MAX_HEAD,
                    # No route speaks WebSocket: "auto" would load a WebSocket library
                    # (about 20 modules) into the listeners' process for nothing.
                    ws="none",
                )
            )
            self._http = server
            self._tasks.append(asyncio.create_task(server.serve(sockets=[sock])))
            while not server.started:
                if self._tasks[-1].done():
                    await self._tasks[-1]
                await asyncio.sleep(0.01)
            log.info("HTTP API on http://%s:%s", config.http_host, self.http_port)
        if "worker" in self.roles:
            self._start_worker(config)
        await self.services.db.run(self._audit_start)

    def _start_worker(self, config: Config) -> None:
        """The worker's loops: outbox, inbound, schedules, callbacks, sequencer, witnesses."""
        self._mail = mail_transport(config)
        self.compose_lane = ComposeLane() if worth_a_process() else None
        outbox = OutboxWorker(
            self.services, deliverers(self.services, self._mail, self.compose_lane)
        )
        inbound = InboundWorker(self.services)
        self._tasks.append(asyncio.create_task(outbox.run_forever(self._stop)))
        self._tasks.append(asyncio.create_task(inbound.run_forever(self._stop)))
        self._tasks.extend(scheduler.start(self.services, self._stop))
        self._tasks.append(retention.start(self.services, self._stop))
        self._tasks.append(asyncio.create_task(a2h_push.run_callbacks(self.services, self._stop)))
        self._tasks.append(asyncio.create_task(self._sequencer()))
        if self._witnessing.targets:
            self._tasks.append(
                asyncio.create_task(
                    witnesses.run_witnesses(
                        self.services, self._witnessing, self._leading, self._stop
                    )
                )
            )

    def _sequencer(self) -> Coroutine[Any, Any, None]:
        """The audit sequencer: every worker stands by, one per cluster integrates.

        The keys and the interval are read here, so a bad setting stops the start.
        """
        services = self.services
        assert self._log_keys is not None
        poll = signing.integrate_seconds(services.config.raw)
        sequencer = Sequencer.for_log(services.db, self._log_keys, services.audit)
        self._sequencer_of_worker = sequencer
        return run_sequencer(sequencer, services.clock.now, self._stop, poll)

    def _audit_keys(self) -> signing.LogKeys:
        config = self.services.config
        with self.services.db.read_only() as session:
            return audit_origin.log_keys(session, config.raw, config.data_dir)

    def _leading(self) -> bool:
        return self._sequencer_of_worker is not None and self._sequencer_of_worker.leading

    def _last_batch(self, sequencer: Sequencer) -> None:
        try:
            if sequencer.lead():
                sequencer.step(self.services.clock.now())
        finally:
            sequencer.let_go()

    def _keys(self) -> heartbeats.ProcessKeys:
        services = self.services
        reply = services.tokens.fingerprints()
        webhook: tuple[str, ...] = ()
        if "worker" in self.roles:
            # Only workers sign pushes; the secret is the one the push deliverer loads.
            secrets = load_or_create_secrets(
                services.config.webhook_secrets, services.config.data_dir
            )
            webhook = tuple(heartbeats.fingerprint(s, "webhook") for s in secrets)
        return heartbeats.ProcessKeys(reply[-1], reply, webhook)

    def _register(self) -> None:
        services = self.services
        with services.db.transaction() as session:
            heartbeats.register(
                session,
                name=self._process,
                roles=self.roles,
                version=__version__,
                keys=self._keys(),
                now=services.clock.now(),
                within=services.config.ready_role_seconds,
            )
            if services.config.api_keys:
                apikeys.note_keys_exist(services, session)

    def _beat(self, *, stopped: bool = False) -> None:
        services = self.services
        with services.db.transaction() as session:
            heartbeats.beat(session, self._process, services.clock.now(), stopped=stopped)

    async def beat_once(self) -> None:
        """Record that this process is alive, through the group commit: while another
        writer holds SQLite's write lock (the worker, a large message's pieces), the
        beat waits for it in a thread. Run on the loop, it held every filing and SMTP
        client of the process meanwhile, up to 150 ms."""
        services = self.services

        def beat(session: Session) -> None:
            heartbeats.beat(session, self._process, services.clock.now())

        await services.db.write(beat)

    def _heartbeat(self) -> Runner:
        # Registering was the first beat: the next is one interval later.
        return Runner(
            "could not record this process's heartbeat",
            self.services.config.heartbeat_seconds,
            iteration=self.beat_once,
            logger=log,
            failure_level=logging.WARNING,
            snooze_first=True,
        )

    def smtp_bound(self) -> bool | None:
        """Whether the SMTP listener is serving; None when this process runs none."""
        if "smtp" not in self.roles:
            return None
        return self._smtp is not None and self._smtp.is_serving()

    def _audit_start(self) -> None:
        self._audit_life(
            "gateway.started",
            roles=list(self.roles),
            settings=self.services.config.public_settings(),
        )

    def _audit_stop(self) -> None:
        self._audit_life("gateway.stopped")

    def _audit_life(self, event: str, **details: Any) -> None:
        """A start or stop of this process in the audit log, with the version running."""
        services = self.services
        with services.db.transaction() as session:
            services.audit.append(
                session,
                event,
                at=services.clock.now(),
                details={"version": __version__, **details},
            )

    async def stop(self) -> None:
        self._stop.set()
        self.services.outbox_ready.set()
        self.services.inbound_ready.set()
        if self._http is not None:
            # Long-polls and event streams end now, not at their bound: uvicorn waits for them.
            waiting_for(self.services).close()
            self._http.should_exit = True
        if self._smtp is not None:
            self._smtp.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._smtp.wait_closed(), timeout=2)
        for task in self._tasks:
            try:
                await asyncio.wait_for(task, timeout=10)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        self._tasks.clear()
        if self._mail is not None:
            # Relay connections kept open for reuse are closed with a QUIT.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(close_transport(self._mail), timeout=5)
        if self.compose_lane is not None:
            with contextlib.suppress(Exception):
                await self.compose_lane.close()
        with contextlib.suppress(Exception):
            await self.services.db.run(self._audit_stop)
        if self._sequencer_of_worker is not None:
            # A worker that stops integrates what is committed (its own last entries too),
            # unless another process leads.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self._last_batch, self._sequencer_of_worker)
        with contextlib.suppress(Exception):
            await self.services.db.run(partial(self._beat, stopped=True))

    async def __aenter__(self) -> Gateway:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
