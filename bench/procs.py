"""The processes a benchmark runs: the gateway as users run it, and the reference servers.

Each is a child process on 127.0.0.1 and free ports, stopped with SIGTERM
(then SIGKILL after a bound) when its block ends, so nothing outlives a run.
Memory is read from ``/proc``: VmRSS now, VmHWM the peak.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.cpu import children, descendants

SECRET_KEY = "bench-secret-key-0123456789abcdef"  # noqa: S105 (the benchmark's own key)
REPLY_DOMAIN = "hfa.bench"
LAWYER = "counsel@lawfirm.example"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _proc_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _private_kb(pid: int) -> int:
    """Private_Clean + Private_Dirty of a process (its USS), from smaps_rollup."""
    total = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1])
    except OSError:
        pass
    return total


@dataclass
class Child:
    """A running child process and where it logs."""

    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_mb(self) -> float:
        return _proc_kb(self.pid, "VmRSS") / 1024

    def total_rss_mb(self) -> float:
        """This process's RSS plus what its children (hfa serve's worker) hold privately.

        A forked worker shares most pages with its parent; counting its full RSS
        again would count them twice, so only its private (unshared) memory is added.
        """
        return self.rss_mb() + sum(_private_kb(pid) for pid in children(self.pid)) / 1024

    def peak_rss_mb(self) -> float:
        return _proc_kb(self.pid, "VmHWM") / 1024

    def reset_peak(self) -> None:
        # Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
        with contextlib.suppress(OSError):
            Path(f"/proc/{self.pid}/clear_refs").write_text("5")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_TIMEOUT)


@contextmanager
def paused(root: int) -> Iterator[None]:
    """``root`` and every process it started, stopped (SIGSTOP) for the block, then let
    go on (SIGCONT): they spend no CPU meanwhile, and take up where they were.

    The root is stopped first, so it starts no process while its children are found.
    """
    stopped: list[int] = []
    try:
        os.kill(root, signal.SIGSTOP)
        stopped.append(root)
        # Again until none is new: a child may have been starting one of its own.
        while found := [pid for pid in descendants(root) if pid not in stopped]:
            for pid in found:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
        _until_stopped(stopped)
        yield
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _until_stopped(pids: list[int], timeout: float = 5.0) -> None:
    """Until each of ``pids`` has stopped (or is gone): a signal is delivered when the
    process is next scheduled, not when ``kill`` returns."""
    deadline = time.monotonic() + timeout
    for pid in pids:
        while process_state(pid) not in ("T", "t", None) and time.monotonic() < deadline:
            time.sleep(0.001)


def process_state(pid: int) -> str | None:
    """The state letter of ``pid`` (R running, S sleeping, T stopped...); None once gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # "pid (comm) STATE ...": the command may hold spaces, so split after its ")".
    return stat.rpartition(")")[2].split()[0]


def spawn(argv: list[str], log: Path, env: dict[str, str] | None = None) -> Child:
    """Start ``argv`` with its output in ``log`` and ``env`` over this environment."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        # Our own interpreter and modules, with arguments the harness built.
        process = subprocess.Popen(  # noqa: S603
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
    return Child(process, log)


def _wait_for(check: Path | tuple[str, int], child: Child) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if child.process.poll() is not None:
            raise RuntimeError(f"{child.log.name} exited early; see {child.log}")
        if isinstance(check, Path):
            if check.exists() and "hfa-gateway running" in check.read_text(errors="replace"):
                return
        else:
            try:
                with socket.create_connection(check, timeout=0.5):
                    return
            except OSError:
                pass
        time.sleep(0.05)
    child.stop()
    raise RuntimeError(
        f"{child.log.name} did not start within {START_TIMEOUT:.0f}s; see {child.log}"
    )


@dataclass(frozen=True)
class GatewayPorts:
    http: int
    smtp: int


def gateway_env(
    data_dir: Path, ports: GatewayPorts, relay_port: int | None, **extra: str
) -> dict[str, str]:
    env = {
        "HFA_DATA_DIR": str(data_dir),
        "HFA_DATABASE_URL": "",
        "HFA_HTTP_BIND": f"127.0.0.1:{ports.http}",
        "HFA_SMTP_BIND": f"127.0.0.1:{ports.smtp}",
        "HFA_LAWYERS": LAWYER,
        "HFA_REPLY_DOMAIN": REPLY_DOMAIN,
        "HFA_MAIL_FROM": f"gateway@{REPLY_DOMAIN}",
        "HFA_SECRET_KEYS": SECRET_KEY,
        "HFA_WORKER_POLL_SECONDS": "0.05",
        # The filing rate limit protects a deployment; here it would cap the load itself.
        "HFA_RATE_LIMIT_PER_MINUTE": "1000000000",
        # Every load comes from one loopback address: the per-client connection caps that
        # protect a deployment would be the limit measured, so they are lifted here.
        "HFA_SMTP_MAX_CONNECTIONS": "5000",
        "HFA_SMTP_MAX_CONNECTIONS_PER_CLIENT": "5000",
        "HFA_HTTP_MAX_CONNECTIONS": "5000",
        "HFA_HTTP_MAX_CONNECTIONS_PER_CLIENT": "5000",
        "HFA_SMTP_RELAY": f"127.0.0.1:{relay_port}" if relay_port else "",
        # The load's replies come unsigned from a lawyer on loopback: recorded as the
        # lawyer's answer, as before the safe default held them for confirmation.
        "HFA_WEAK_SENDER_DECISIONS": "record",
    }
    env.update({f"HFA_{k.upper()}": v for k, v in extra.items()})
    return env


@contextmanager
def gateway(
    data_dir: Path,
    *,
    roles: tuple[str, ...] = (),
    relay_port: int | None = None,
    name: str = "gateway",
    **extra: str,
) -> Iterator[tuple[Child, GatewayPorts]]:
    """``python -m gateway serve [--role ...]``: what users run, with HFA_* settings."""
    ports = GatewayPorts(free_port(), free_port())
    log = data_dir / f"{name}.log"
    argv = [sys.executable, "-m", "gateway", "serve"]
    for role in roles:
        argv += ["--role", role]
    child = spawn(argv, log, gateway_env(data_dir, ports, relay_port, **extra))
    try:
        _wait_for(log, child)
        yield child, ports
    finally:
        child.stop()


@contextmanager
def reference(kind: str, work: Path, **options: Path) -> Iterator[tuple[Child, int]]:
    """A reference server (``bench.reference``) on a free port."""
    port = free_port()
    ready = work / f"{kind}-{port}.ready"
    argv = [sys.executable, "-m", "bench.reference", kind, "--port", str(port)]
    argv += ["--ready", str(ready)]
    for key, value in options.items():
        argv += [f"--{key}", str(value)]
    child = spawn(argv, work / f"reference-{kind}-{port}.log")
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not ready.exists():
            if child.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"reference {kind} server did not start; see {child.log}")
            time.sleep(0.02)
        yield child, port
    finally:
        child.stop()
