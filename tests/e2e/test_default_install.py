"""The Quick start's gateway: ``hfa serve`` with no settings at all, as a new install runs it.

Only the two listening addresses are set (free loopback ports instead of 8080 and 2525, so
the test runs beside others); the secret keys, the lawyers, the reply domain and the data
directory are the defaults (keys generated into ``./var``, mail written to
``./var/maildir``). A reply held for its sender must reach the lawyer as a challenge, and
nothing the lawyer sends may sit unsent in the outbox.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import httpx
import pytest

from bench.roles import HFA, ROOT, free_port, http_up, wait_until
from gateway.outbound.transports import read_maildir
from tests.e2e.servekit import send_reply
from tests.mailkit import reply_to

# The Quick start's lawyer (``HFA_LAWYERS``' default).
LAWYER = "lawyer@localhost"


@pytest.fixture
def quick_start(tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    """(HTTP base, SMTP port, ./var) of ``hfa serve`` run in an empty directory."""
    http_port, smtp_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        PYTHONPATH=str(ROOT),
        HFA_HTTP_BIND=f"127.0.0.1:{http_port}",
        HFA_SMTP_BIND=f"127.0.0.1:{smtp_port}",
    )
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*HFA, "serve"], cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{http_port}"
    try:
        wait_until("the gateway", lambda: http_up(base), time.monotonic() + 60)
        yield base, smtp_port, tmp_path / "var"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    assert "Traceback" not in log.read_text(errors="replace")


def emails(data_dir: Path) -> list[EmailMessage]:
    found = []
    for _name, raw in read_maildir(data_dir / "maildir"):
        message = message_from_bytes(raw, policy=default_policy)
        assert isinstance(message, EmailMessage)
        found.append(message)
    return found


def of_kind(data_dir: Path, kind: str) -> list[EmailMessage]:
    return [m for m in emails(data_dir) if m["X-HFA-Kind"] == kind]


@pytest.mark.slow
def test_a_held_reply_is_challenged_on_the_quick_start_gateway(
    quick_start: tuple[str, int, Path],
) -> None:
    base, smtp_port, data_dir = quick_start
    filed = httpx.post(
        base + "/v1/requests",
        json={
            "category": "legal_review",
            "request": "May I delete the access logs of 2019-2024?",
            "proposed_action": "Delete the access logs of 2019-2024.",
        },
        timeout=10,
    ).json()
    request_email = wait_until(
        "the request email", lambda: of_kind(data_dir, "request"), time.monotonic() + 30
    )[0]
    # An assistant answers from her own address for the lawyer: held, the lawyer challenged.
    held = reply_to(
        request_email,
        "Non. Un contentieux est en cours : obligation de conservation. Ne supprimez rien.",
        sender="assistant@localhost",
        display_name="Assistante",
    )
    send_reply(smtp_port, held)
    challenge = wait_until(
        "the sender challenge", lambda: of_kind(data_dir, "sender_challenge"), time.monotonic() + 60
    )[0]
    assert str(challenge["To"]) == LAWYER
    assert "confirm+" in str(challenge["Reply-To"])
    # Nothing is left pending in the outbox: every email queued was written.
    listing = subprocess.run(
        [*HFA, "outbox", "list"],
        cwd=data_dir.parent,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("HFA_")},
            "PYTHONPATH": str(ROOT),
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listing.returncode == 0, listing.stderr
    assert "pending" not in listing.stdout, listing.stdout
    thread = httpx.get(
        f"{base}/v1/requests/{filed['reference']}",
        headers={"Authorization": f"Bearer {filed['access_token']}"},
        timeout=10,
    ).json()
    # Held, not recorded: no human turn until the lawyer confirms.
    assert [t for t in thread["turns"] if t["author"] == "human"] == []
