"""``hfa serve`` and ``hfa demo``."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import tempfile
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import aiosmtplib

from gateway.app import ROLES, Gateway, ensure_open_files
from gateway.cli import preflight, processes
from gateway.cli.common import config_from
from gateway.errors import ConfigError, Unavailable
from gateway.outbound.dkim import load_signer
from gateway.outbound.transports import read_maildir
from gateway.services import build_services
from gateway.settings.config import Config, load_config

log = logging.getLogger("gateway")


async def _serve(config: Config, roles: tuple[str, ...]) -> int:
    services = build_services(config, roles=roles)
    gateway = Gateway(services, roles=roles)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await gateway.start()
    processes.keep_what_started()
    log.info("hfa-gateway running (roles: %s); Ctrl-C stops it", ", ".join(roles))
    await stop.wait()
    log.info("stopping")
    await gateway.stop()
    services.close()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve until stopped; a start refused is one sentence and a status systemd tells apart
    (``preflight``: 75 try again later, 78 a setting to correct, 1 anything else)."""
    try:
        return _checked_serve(args)
    except ConfigError as exc:
        print(f"hfa: configuration error: {exc}", file=sys.stderr)
        return preflight.EXIT_CONFIG
    except Unavailable as exc:
        print(f"hfa: {exc}", file=sys.stderr)
        return preflight.EXIT_TEMPFAIL
    except Exception as exc:
        # The database went away between the check and the start (or answers oddly).
        found = exc if preflight.from_the_database(exc) else exc.__cause__
        if found is None or not preflight.is_connection_failure(found):
            raise
        refusal = preflight.database_refusal(found, config_from(args).database_url)
        print(f"hfa: {refusal}", file=sys.stderr)
        return preflight.exit_status(refusal)


def _checked_serve(args: argparse.Namespace) -> int:
    config = config_from(args)
    roles = tuple(args.role) if args.role else ROLES
    # Before anything is written or forked: refused in one sentence, or the limit raised.
    ensure_open_files(config, roles)
    preflight.check(config, roles)
    if "worker" in roles:
        # The worker's DKIM key, read before any key is generated or entry written.
        load_signer(config)
    if config.smtp_relay is None and "worker" in roles:
        log.info(
            "no HFA_SMTP_RELAY: outgoing mail goes to %s (read it with 'hfa mail list')",
            config.data_dir / "maildir",
        )
    if not args.role and not args.single_process and processes.can_split(config):
        # The workers get the second core; --role or --single-process keep one process.
        return processes.serve_split(config)
    return asyncio.run(_serve(config, roles))


def _step(n: int, title: str) -> None:
    print(f"\n=== {n}. {title} " + "=" * max(0, 60 - len(title)))


async def _wait_for(predicate: Any, timeout: float = 15.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the demo step did not complete in time")
        await asyncio.sleep(0.1)


DEMO_LAWYER = "counsel@lawfirm.example"
DEMO_SETTINGS = {
    "HFA_HTTP_BIND": "127.0.0.1:0",
    "HFA_SMTP_BIND": "127.0.0.1:0",
    "HFA_LAWYERS": DEMO_LAWYER,
    "HFA_REPLY_DOMAIN": "hfa.localhost",
    "HFA_WORKER_POLL_SECONDS": "0.1",
    # A short correction window, so the walk-through shows the typed answer
    # taking effect without the default's two-minute wait.
    "HFA_CORRECTION_WINDOW": "2s",
    # The walk-through's lawyer writes from a domain that signs nothing: its answer
    # is taken on the reply address, not held for a confirmation by email.
    "HFA_WEAK_SENDER_DECISIONS": "record",
}


async def _demo(data_dir: Path) -> int:
    lawyer = DEMO_LAWYER
    config = load_config(env={"HFA_DATA_DIR": str(data_dir), **DEMO_SETTINGS})
    services = build_services(config)
    async with Gateway(services) as gateway:
        base = f"http://127.0.0.1:{gateway.http_port}"
        _step(1, "An agent files a request (POST /v1/requests)")
        body = {
            "category": "human_confirmation",
            "request": "May I send the signed supplier contract to ACME today?",
            "context": "The contract was reviewed last week; the only change is the delivery date.",
            "proposed_action": "Email contract-v3.pdf to legal@acme.example and mark it sent.",
            "urgency": "blocking",
            "agent_name": "procurement-bot",
            "operator": "Example Corp procurement",
        }
        print(json.dumps(body, indent=2))
        import httpx  # only this walk-through needs an HTTP client

        async with httpx.AsyncClient(base_url=base) as http:
            filed = (await http.post("/v1/requests", json=body)).json()
            print("->", json.dumps(filed, indent=2))
            maildir = data_dir / "maildir"

            _step(2, "The email as the lawyer receives it")
            raw = (await _wait_for(lambda: read_maildir(maildir)))[0][1]
            email = message_from_bytes(raw, policy=default_policy)
            assert isinstance(email, EmailMessage)
            for name in ("From", "To", "Reply-To", "Subject", "Message-ID"):
                print(f"{name}: {email[name]}")
            text_part = email.get_body(preferencelist=("plain",))
            print("\n" + (text_part.get_content() if text_part is not None else ""))

            _step(3, "The lawyer replies from a mail client (SMTP to the gateway)")
            reply = EmailMessage()
            reply["From"] = f"Dana Counsel <{lawyer}>"
            reply["To"] = str(email["Reply-To"])
            reply["Subject"] = "Re: " + str(email["Subject"])
            reply["In-Reply-To"] = str(email["Message-ID"])
            reply["Message-ID"] = "<demo-reply-1@lawfirm.example>"
            reply.set_content(
                "Approved, subject to:\n- attach the signed NDA\n- copy me on the email\n\n"
                "Dana\n\nOn Mon, 30 Nov 2026 at 09:12, Human for AI <hfa-gateway@localhost> wrote:\n"
                "> May I send the signed supplier contract?\n"
            )
            print(reply.as_string())
            await aiosmtplib.send(reply, hostname="127.0.0.1", port=gateway.smtp_port)

            _step(4, "The agent reads the thread back (GET /v1/requests/{reference})")
            headers = {"Authorization": f"Bearer {filed['access_token']}"}

            async def answered() -> dict[str, Any] | None:
                got = (await http.get(f"/v1/requests/{filed['reference']}", headers=headers)).json()
                return got if got["human_has_replied"] else None

            thread = None
            for _ in range(150):
                thread = await answered()
                if thread:
                    break
                await asyncio.sleep(0.1)
            if thread is None:
                print("the reply was not recorded in time")
                return 1
            print(json.dumps(thread, indent=2, ensure_ascii=False))
    services.close()
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    if args.data_dir:
        code = asyncio.run(_demo(Path(args.data_dir)))
        print(f"\nDone. The data of this demo is in {args.data_dir}.")
        return code
    # Without --data-dir, nothing of the demo is left behind.
    with tempfile.TemporaryDirectory(prefix="hfa-demo-") as data_dir:
        code = asyncio.run(_demo(Path(data_dir)))
    print("\nDone. The demo's data was removed (--data-dir DIR keeps it).")
    return code


# argparse declarations: alike in shape to other commands' (cli.witness), not logic.
def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run HTTP, SMTP and the workers")
    p.add_argument(
        "--role",
        action="append",
        choices=ROLES,
        help="run only this role (repeatable), in this one process; default: all, with "
        "the workers in a second process",
    )
    p.add_argument(
        "--single-process",
        action="store_true",
        help="run every role in this one process (default: the workers get their own)",
    )
    p.set_defaults(handler=cmd_serve)
    d = sub.add_parser("demo", help="run a full round trip locally and show each step")
    d.add_argument(
        "--data-dir", help="where to keep the demo's data (default: a temporary directory, removed)"
    )
    d.set_defaults(handler=cmd_demo)
