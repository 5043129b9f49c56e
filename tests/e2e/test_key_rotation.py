"""Reply-key rotation rolled through running roles, one process at a time, as documented.

Three roles (http, smtp, worker) run as separate processes on one data directory.
``hfa keys rotate`` adds a key that every restarted process accepts and none signs
with; once each was restarted, ``hfa keys rotate --sign`` makes it the signer, and
each is restarted again. No restart is refused, and a reply to an address signed
before the rotation and one signed after are both recorded.
"""

from __future__ import annotations

import os
import signal
import smtplib
import subprocess
import time
from collections.abc import Iterator
from email.utils import parseaddr
from pathlib import Path

import httpx
import pytest

from bench.roles import (
    HFA,
    LAWYER,
    ROOT,
    Roles,
    Sink,
    http_up,
    make_reply,
    rebindable_port,
    wait_until,
)
from gateway.tokens import ReplyTokens

pytestmark = pytest.mark.slow

OLD_KEY = "rotation-old-key-0123456789abcdef"
REPLY_DOMAIN = "reply.hfa.test"


@pytest.fixture
def roles(tmp_path: Path) -> Iterator[Roles]:
    sink = Sink(delay=0)
    sink.controller.start()
    data_dir = tmp_path / "var"
    data_dir.mkdir(mode=0o700)
    (data_dir / "secret_keys").write_text(OLD_KEY + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        HFA_DATA_DIR=str(data_dir),
        HFA_WEBHOOK_SECRET="whsec_cm90YXRpb24tdGVzdC13ZWJob29rLXNlY3JldA==",
        HFA_LAWYERS=LAWYER,
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
        HFA_REPLY_DOMAIN=REPLY_DOMAIN,
        HFA_SMTP_RELAY=f"127.0.0.1:{sink.port}",
        HFA_WORKER_POLL_SECONDS="0.2",
        HFA_HEARTBEAT_SECONDS="1",
        HFA_READY_ROLE_SECONDS="10",
        # Each role is restarted on its port.
        HFA_HTTP_BIND=f"127.0.0.1:{rebindable_port()}",
        HFA_SMTP_BIND=f"127.0.0.1:{rebindable_port()}",
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    started = Roles(env, logs)
    started.sink = sink  # type: ignore[attr-defined]
    assert hfa(started, "db", "upgrade").returncode == 0
    yield started
    started.stop_all()
    sink.controller.stop()


def hfa(roles: Roles, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HFA, *argv],
        env={**roles.env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def start(roles: Roles, role: str) -> None:
    roles.start(role, "serve", "--role", role)
    wait_until(
        f"the {role} role's heartbeat",
        lambda: not roles.alive(role) or hfa(roles, "health", "--role", role).returncode == 0,
        time.monotonic() + 60,
    )
    said = (roles.logs / f"{role}.log").read_text(errors="replace")
    assert roles.alive(role), said
    assert "configuration error" not in said


def restart(roles: Roles, role: str) -> None:
    """Stop one role by its PID and start it again, while the others keep running."""
    proc = roles.procs[role]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    start(roles, role)


def file_and_mail(roles: Roles, base: str) -> tuple[str, str]:
    """File a request; its reference and the reply address its email carries."""
    filed = httpx.post(f"{base}/v1/requests", json={"category": "legal_review", "request": "Sign?"})
    assert filed.status_code == 201, filed.text
    reference = filed.json()["reference"]
    sink: Sink = roles.sink  # type: ignore[attr-defined]
    email = wait_until(
        f"the email of {reference}",
        lambda: sink.request_emails().get(reference),
        time.monotonic() + 60,
    )
    return reference, parseaddr(str(email["Reply-To"]))[1]


def test_rotation_rolls_through_three_running_roles(roles: Roles) -> None:
    for role in ("http", "smtp", "worker"):
        start(roles, role)
    base = f"http://{roles.env['HFA_HTTP_BIND']}"
    assert http_up(base)
    before, old_address = file_and_mail(roles, base)

    step1 = hfa(roles, "keys", "rotate")
    assert step1.returncode == 0, step1.stderr
    assert "--sign" in step1.stdout
    # Signing now would issue addresses the running processes cannot verify: refused.
    early = hfa(roles, "keys", "rotate", "--sign")
    assert early.returncode == 1 and "does not accept the new key yet" in early.stderr
    for role in ("smtp", "worker", "http"):
        restart(roles, role)

    step2 = hfa(roles, "keys", "rotate", "--sign")
    assert step2.returncode == 0, step2.stderr
    for role in ("worker", "http", "smtp"):
        restart(roles, role)

    after, new_address = file_and_mail(roles, base)
    domain = REPLY_DOMAIN
    old_only = ReplyTokens((OLD_KEY,))
    assert old_only.verify(old_only.token_from_address(old_address, domain) or "") is not None
    # The address issued after the rotation is signed with the new key, not the old one.
    assert old_only.verify(old_only.token_from_address(new_address, domain) or "") is None

    sink: Sink = roles.sink  # type: ignore[attr-defined]
    host, port = roles.env["HFA_SMTP_BIND"].split(":")
    with smtplib.SMTP(host, int(port), timeout=30) as smtp:
        for reference in (before, after):
            smtp.send_message(make_reply(sink.request_emails()[reference]))

    def answered(reference: str) -> bool:
        shown = hfa(roles, "requests", "show", reference, "--json")
        return '"author": "human"' in shown.stdout

    deadline = time.monotonic() + 60
    wait_until("both replies recorded", lambda: answered(before) and answered(after), deadline)
