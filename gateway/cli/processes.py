"""``hfa serve`` on two cores: HTTP and SMTP in this process, the workers in a second one.

The inbound worker (parsing and recording replies) and the outbox worker
(rendering and sending mail) are CPU work that would otherwise share one
core with the listeners. When the database can be shared between processes
(SQLite in WAL mode, which the gateway always sets, or PostgreSQL), ``hfa
serve`` forks a worker process once everything is in place (schema migrated,
keys created), so the user still runs one command.

The two are tied by a pipe: the listeners write a byte whenever they commit
new work, which wakes the worker at once (no polling delay); when the pipe
closes because the parent died, the worker stops too. SIGTERM or SIGINT to
the parent stops the listeners first, then the worker (SIGTERM, waited for),
then integrates into the audit log what either left un-integrated;
a worker that dies on its own takes the gateway down with an error, for the
supervisor to restart, rather than leave a gateway that accepts replies and
never records them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import pickle
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.orm import configure_mappers

from gateway.app import Gateway
from gateway.cli.preflight import EXIT_CONFIG
from gateway.errors import ConfigError, GatewayError
from gateway.outbound.dkim import load_signer
from gateway.outbound.webhooks import load_or_create_secrets
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store import signing
from gateway.store.sequencer import Sequencer

log = logging.getLogger("gateway")

LISTENER_ROLES = ("http", "smtp")
WORKER_ROLES = ("worker",)
# The worker finishes the batch it holds; past this it is killed (its leases expire).
WORKER_STOP_SECONDS = 20.0
_INBOUND, _OUTBOX = b"i", b"o"


def keep_what_started() -> None:
    """Once serving has started, what was built to start it is kept for the life of the
    process, out of the collector's sight.

    A full collection walks every object the collector tracks: on a serving process,
    mostly the app, its routes, the templates and the ORM's tables, built once and
    never freed. Under load one such collection held the HTTP process for some 60 ms,
    felt by every request waiting meanwhile; frozen, it walks only what serving has
    made since, about 1 ms. Each process calls this after its own start.
    """
    gc.freeze()


def can_split(config: Config) -> bool:
    """Whether a second process sees the same database (not an in-memory SQLite)."""
    url = config.database_url
    return not (url.startswith("sqlite") and (":memory:" in url or url.rstrip("/") == "sqlite:"))


def _poke(fd: int, what: bytes) -> Callable[[], None]:
    def poke() -> None:
        # A full pipe already holds a wake-up; a closed one means the worker is gone,
        # which the parent notices on its own.
        with contextlib.suppress(BlockingIOError, BrokenPipeError):
            os.write(fd, what)

    return poke


@dataclass
class _Stop:
    """Why the listeners stop: a signal (exit 0) or the worker died (exit 1)."""

    event: asyncio.Event
    worker_died: bool = False
    worker_code: int = 1


def prepare(config: Config) -> None:
    """Everything both processes read and one of them would otherwise create: the schema,
    the reply keys, the webhook secret. Done once, before the fork, so they cannot race.

    Done in a short-lived child process: looking at the schema loads the migration
    tools (alembic, mako, pygments: about 10 MB), which neither serving process uses
    again. Its failure is raised here as it was raised there.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            _prepare_here(config)
        except BaseException as exc:
            code = 1
            with contextlib.suppress(Exception), os.fdopen(write_end, "wb") as out:
                out.write(_as_report(exc))
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        report = pipe.read()
    _pid, status = os.waitpid(pid, 0)
    if report:
        raise _from_report(report)
    if status != 0:
        raise GatewayError(
            f"the start-up checks ended without a word (status {os.waitstatus_to_exitcode(status)})"
        )


def _as_report(exc: BaseException) -> bytes:
    """The exception and its cause, pickled; or, failing that, its class and words."""
    cause = exc.__cause__
    for candidate in ((exc, cause), (exc, None)):
        with contextlib.suppress(Exception):
            payload = pickle.dumps(candidate)
            pickle.loads(payload)  # noqa: S301 (our own bytes, just written)
            return payload
    kind = ConfigError if isinstance(exc, ConfigError) else GatewayError
    return pickle.dumps((kind(f"{exc}" or type(exc).__name__), None))


def _from_report(report: bytes) -> BaseException:
    # Written by our own child process through a pipe only the two of them hold.
    exc, cause = pickle.loads(report)  # noqa: S301
    if cause is not None:
        exc.__cause__ = cause
    assert isinstance(exc, BaseException)
    return exc


def _prepare_here(config: Config) -> None:
    services = build_services(config)
    try:
        load_or_create_secrets(config.webhook_secrets, config.data_dir)
        # What the worker process reads at its start, read here first: a setting it
        # cannot use (a DKIM key not there yet) is one sentence and exit 2 before the
        # fork, not a traceback after "running" was announced.
        load_signer(config)
    finally:
        services.close()


def serve_split(config: Config) -> int:
    """Fork the worker process, then serve the listeners here; returns the exit code."""
    prepare(config)
    # Built once, before the fork, for both processes: built in each after it, the
    # engine's and the rest's making touched (and so copied) megabytes of shared pages.
    # Nothing here holds a connection or an open file yet.
    services = build_services(config, migrate=False)
    # The ORM's mappers are configured by the first query of a process: done here once,
    # not in each process after the fork.
    configure_mappers()
    read_end, write_end = os.pipe()
    # Objects that exist now are never collected, so the fork's shared pages stay shared.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        os.close(write_end)
        code = 1
        try:
            code = asyncio.run(_worker(services, read_end))
        except ConfigError as exc:
            log.error("the worker process cannot start: configuration error: %s", exc)
            code = EXIT_CONFIG
        except BaseException:
            log.exception("the worker process failed")
        finally:
            logging.shutdown()
            os._exit(code)
    os.close(read_end)
    os.set_blocking(write_end, False)
    try:
        return asyncio.run(_listeners(services, write_end, pid))
    finally:
        os.close(write_end)


async def _worker(services: Services, read_end: int) -> int:
    # The pool of the process that built it is not this process's: it starts empty here.
    services.db.engine.dispose(close=False)
    gateway = Gateway(services, roles=WORKER_ROLES)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    def on_poke() -> None:
        try:
            data = os.read(read_end, 4096)
        except BlockingIOError:
            return
        if not data:
            log.error("the listener process is gone; the worker process stops")
            loop.remove_reader(read_end)
            stop.set()
            return
        if _INBOUND in data:
            services.inbound_ready.set()
        if _OUTBOX in data:
            services.outbox_ready.set()

    os.set_blocking(read_end, False)
    loop.add_reader(read_end, on_poke)
    await gateway.start()
    keep_what_started()
    log.info("worker process %s running (roles: %s)", os.getpid(), ", ".join(WORKER_ROLES))
    await stop.wait()
    with contextlib.suppress(ValueError, OSError):
        loop.remove_reader(read_end)
    await gateway.stop()
    services.close()
    return 0


async def _listeners(services: Services, write_end: int, worker: int) -> int:
    services.inbound_ready.also(_poke(write_end, _INBOUND))
    services.outbox_ready.also(_poke(write_end, _OUTBOX))
    gateway = Gateway(services, roles=LISTENER_ROLES)
    stop = _Stop(asyncio.Event())
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.event.set)
    watcher = asyncio.create_task(_watch_worker(worker, stop))
    try:
        await gateway.start()
        keep_what_started()
        log.info(
            "hfa-gateway running (roles: %s here, worker in process %s); Ctrl-C stops it",
            ", ".join(LISTENER_ROLES),
            worker,
        )
        await stop.event.wait()
        log.info("stopping")
        await gateway.stop()
    finally:
        watcher.cancel()
        try:
            await _stop_worker(worker)
            # The worker's last batch may have come before this process's last entries
            # (it stopped first, or faster): integrated here, nothing is left unsigned.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(_last_batch, services)
        finally:
            services.close()
    return stop.worker_code if stop.worker_died else 0


def _last_batch(services: Services) -> None:
    """Integrate what is committed into the audit log, unless another process leads."""
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    sequencer = Sequencer(services.db, keys, services.audit.mirror, macs=services.audit.macs)
    try:
        if sequencer.lead():
            sequencer.step(services.clock.now())
    finally:
        sequencer.let_go()


def _exited(pid: int) -> int | None:
    """The worker's exit status once it has ended, else None."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return 0
    return os.waitstatus_to_exitcode(status) if done else None


async def _watch_worker(pid: int, stop: _Stop) -> None:
    while not stop.event.is_set():
        code = _exited(pid)
        if code is not None:
            log.error("the worker process %s exited (status %s); stopping the gateway", pid, code)
            stop.worker_died = True
            stop.worker_code = EXIT_CONFIG if code == EXIT_CONFIG else 1
            stop.event.set()
            return
        await asyncio.sleep(0.5)


async def _stop_worker(pid: int) -> None:
    if _exited(pid) is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = asyncio.get_running_loop().time() + WORKER_STOP_SECONDS
    while _exited(pid) is None:
        if asyncio.get_running_loop().time() > deadline:
            log.error("the worker process %s did not stop in time; killed", pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            return
        await asyncio.sleep(0.05)
