"""``hfa serve`` in a subprocess, as users run it, and a lawyer's round trip through it.

For end-to-end tests about the processes themselves (their limits, what each has
loaded): the gateway is started with ``HFA_*`` settings on free loopback ports,
mail goes to its Maildir, and a request is filed and answered over HTTP and SMTP.
"""

from __future__ import annotations

import contextlib
import os
import resource
import smtplib
import subprocess
import time
from collections.abc import Callable, Iterator
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import httpx

from bench.roles import HFA, ROOT, free_port, http_up, wait_until
from gateway.outbound.transports import read_maildir
from tests.dnskit import empty_dns

LAWYER = "counsel@lawfirm.example"


def limited(soft: int, hard: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return apply


def serve_env(tmp_path: Path, http_port: int, smtp_port: int, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        PYTHONPATH=str(ROOT),
        HFA_DATA_DIR=str(tmp_path / "var"),
        HFA_HTTP_BIND=f"127.0.0.1:{http_port}",
        HFA_SMTP_BIND=f"127.0.0.1:{smtp_port}",
        HFA_SECRET_KEYS="open-files-key-0123456789abcdef",
        HFA_LAWYERS=LAWYER,
        HFA_REPLY_DOMAIN="reply.hfa.test",
        HFA_WORKER_POLL_SECONDS="0.1",
        # DNS at a loopback server that knows no names: fast, never a missing resolver.
        HFA_DNS_RESOLVER=empty_dns(),
        # The reply is typed text: recorded as an answer at once, not after a window.
        HFA_CORRECTION_WINDOW="0",
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
        **extra,
    )
    return env


@contextlib.contextmanager
def serving(tmp_path: Path, soft: int, hard: int, **extra: str) -> Iterator[tuple[str, int, Path]]:
    """``hfa serve`` under the given open-file limit: (HTTP base, SMTP port, log file)."""
    http_port, smtp_port = free_port(), free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*HFA, "serve"],
            env=serve_env(tmp_path, http_port, smtp_port, **extra),
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limited(soft, hard),
        )
    base = f"http://127.0.0.1:{http_port}"
    try:
        wait_until("the gateway", lambda: http_up(base), time.monotonic() + 60)
        yield base, smtp_port, log
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``hfa serve`` as a service manager does: SIGTERM, then SIGKILL after 30 s."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def file_request(base: str, data_dir: Path) -> tuple[dict[str, Any], EmailMessage]:
    """A request filed over HTTP, and the email it sent to the lawyer (from the Maildir)."""
    filed = httpx.post(
        base + "/v1/requests", json={"category": "legal_review", "request": "Clause 7?"}
    ).json()
    maildir = data_dir / "maildir"
    raw = wait_until("the email", lambda: read_maildir(maildir), time.monotonic() + 30)[0][1]
    email = message_from_bytes(raw, policy=default_policy)
    assert isinstance(email, EmailMessage)
    return filed, email


def send_reply(smtp_port: int, reply: EmailMessage, source: str | None = None) -> None:
    """``reply`` over SMTP, from the lawyer; every recipient accepted."""
    address = (source, 0) if source else None
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=10, source_address=address) as smtp:
        assert smtp.sendmail(LAWYER, [str(reply["To"])], reply.as_bytes()) == {}


def wait_for_reply_on_record(base: str, filed: dict[str, Any], timeout: float = 30) -> None:
    """Until the request's thread says a human has replied."""
    headers = {"Authorization": f"Bearer {filed['access_token']}"}

    def answered() -> bool:
        thread = httpx.get(f"{base}/v1/requests/{filed['reference']}", headers=headers)
        return bool(thread.json()["human_has_replied"])

    wait_until("the reply on record", answered, time.monotonic() + timeout)
