"""Kill -9s of ``hfa serve`` at random moments of bursts of filings: which request emails
the relay never got, and which it got twice once every hold had ended.

    python -m bench.kills [--db sqlite|postgres] [--kills 15] [--dot-timeout 20] [--seed N]

Each round starts the gateway on the same database, files a burst of 40 requests and
kills the gateway's process group 0.2-2.5 s later (wherever its deliveries are); a last
start then runs for the wait for a dot's answer (``--dot-timeout``, shortened from the
600 s deployed so that every hold ends within the run), the lease and 5 s more. Every
part runs on loopback: the relay is aiosmtpd in this process, answering at once.
PostgreSQL runs use a database of their own on ``HFA_BENCH_POSTGRES_URL`` (by default
the local server's ``postgres`` database), dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from email import message_from_bytes
from pathlib import Path
from typing import IO

import httpx
from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import create_engine, text

from bench.roles import HFA, ROOT, rebindable_port

BURST = 40
LEASE_SECONDS = 20  # the default
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


class Relay:
    """Keeps the Message-ID of every message it takes."""

    def __init__(self) -> None:
        self.message_ids: list[str] = []

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        self.message_ids.append(str(message_from_bytes(raw)["Message-ID"]).strip())
        return "250 OK"


@contextlib.contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'gateway.db'}"
        return
    admin_url = os.environ.get("HFA_BENCH_POSTGRES_URL", POSTGRES)
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"hfa_kills_{uuid.uuid4().hex[:10]}"
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


class Gateway:
    """``hfa serve`` in its own process group, started and killed by PID."""

    def __init__(self, env: dict[str, str], log: IO[bytes]) -> None:
        self.env, self.log = env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 (our interpreter, our module)
            [*HFA, "serve"],
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


async def up(http: httpx.AsyncClient) -> None:
    for _ in range(600):
        with contextlib.suppress(httpx.HTTPError):
            if (await http.get("/healthz")).status_code == 200:
                return
        await asyncio.sleep(0.05)
    raise RuntimeError("the gateway did not start")


async def file(http: httpx.AsyncClient) -> int:
    """One filing; 1 if it was acknowledged (201)."""
    with contextlib.suppress(httpx.HTTPError):
        answer = await http.post("/v1/requests", json={"category": "legal_review", "request": "?"})
        return int(answer.status_code == 201)
    return 0


async def run(
    kind: str, kills: int, dot_timeout: float, folder: Path, seed: int | None
) -> dict[str, int]:
    # Its own generator: the ports are chosen with the module's, unseeded.
    moments = random.Random(seed)
    relay = Relay()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(relay, hostname="relay.test", loop=loop), host="127.0.0.1", port=0
    )
    http_port = rebindable_port()
    with database(kind, folder) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
        env |= {
            "HFA_DATA_DIR": str(folder / "var"),
            "HFA_DATABASE_URL": url,
            "HFA_HTTP_BIND": f"127.0.0.1:{http_port}",
            "HFA_SMTP_BIND": "127.0.0.1:0",
            "HFA_SMTP_RELAY": f"127.0.0.1:{server.sockets[0].getsockname()[1]}",
            "HFA_LAWYERS": "counsel@lawfirm.example",
            "HFA_REPLY_DOMAIN": "hfa.example",
            "HFA_RATE_LIMIT_PER_MINUTE": "1000000",
            "HFA_WORKER_POLL_SECONDS": "0.5",
            "HFA_SMTP_RELAY_DOT_TIMEOUT_SECONDS": str(dot_timeout),
            "PYTHONPATH": str(ROOT),
        }
        with (folder / "serve.log").open("wb") as log:
            gateway = Gateway(env, log)
            try:
                async with httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{http_port}", timeout=10
                ) as http:
                    for _kill in range(kills):
                        gateway.start()
                        await up(http)
                        burst = [asyncio.create_task(file(http)) for _ in range(BURST)]
                        await asyncio.sleep(moments.uniform(0.2, 2.5))
                        gateway.kill()
                        await asyncio.gather(*burst)
                    gateway.start()
                    await up(http)
                    await asyncio.sleep(dot_timeout + LEASE_SECONDS + 5)
            finally:
                gateway.kill()
        engine = create_engine(url)
        try:
            with engine.connect() as connection:
                query = "SELECT message_id FROM outbox WHERE purpose = 'request'"
                wanted = {str(row[0]).strip() for row in connection.execute(text(query))}
        finally:
            engine.dispose()
    server.close()
    copies = Counter(relay.message_ids)
    return {
        "kills": kills,
        "request_emails": len(wanted),
        "never_received": len(wanted - set(copies)),
        "received_twice_or_more": sum(1 for n in copies.values() if n > 1),
        "extra_copies": sum(n - 1 for n in copies.values()),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.kills", description=__doc__)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--kills", type=int, default=15)
    parser.add_argument("--dot-timeout", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hfa-kills-") as folder:
        found = asyncio.run(run(args.db, args.kills, args.dot_timeout, Path(folder), args.seed))
    found["seconds"] = round(time.monotonic() - started)
    print(" ".join(f"{key}={value}" for key, value in found.items()))


if __name__ == "__main__":
    main()
