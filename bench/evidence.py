"""Time an evidence bundle: ``python -m bench.evidence [--turns 50] [--log-entries N]``.

A gateway runs in this process on loopback, its mail written to the Maildir;
a thread of at least ``--turns`` turns is made as in life (filed over HTTP,
the lawyer's questions sent over SMTP to the gateway's listener, the agent's
answers over HTTP). ``--log-entries`` first fills the audit log with that many
entries of other threads, so proofs are taken in a log of that size. Then the
thread is exported (without and with the PDF) and verified, each ``--rounds``
times; the figures are printed as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from email import message_from_bytes
from email import policy as email_policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiosmtplib
import httpx

from bench.audit import generate
from gateway.app import Gateway
from gateway.evidence import verifier
from gateway.evidence.export import export
from gateway.outbound.transports import read_maildir
from gateway.services import Services, build_services
from gateway.settings.config import load_config
from gateway.store import signing
from gateway.store.models import Request

LAWYER = "counsel@lawfirm.example"


def _services(directory: Path, database_url: str) -> Services:
    env = {
        "HFA_DATA_DIR": str(directory),
        "HFA_DATABASE_URL": database_url,
        "HFA_HTTP_BIND": "127.0.0.1:0",
        "HFA_SMTP_BIND": "127.0.0.1:0",
        "HFA_LAWYERS": LAWYER,
        "HFA_REPLY_DOMAIN": "hfa.example",
        "HFA_MAIL_FROM": "gateway@hfa.example",
        "HFA_SECRET_KEYS": "bench-key-0123456789abcdef",
        "HFA_WORKER_POLL_SECONDS": "0.05",
        "HFA_CORRECTION_WINDOW": "0",
        # Unsigned replies: a decision is recorded on the reply address alone.
        "HFA_WEAK_SENDER_DECISIONS": "record",
    }
    return build_services(load_config(env=env))


def _placeholder(entries: int, at: datetime) -> Request:
    return Request(
        id=entries,
        category="legal_review",
        urgency="routine",
        status="closed",
        fields={},
        access_token_hash="0" * 64,
        read_capability_hash="1" * 64,
        received_at=at,
        updated_at=at,
    )


def _question(request_email: EmailMessage, text: str) -> EmailMessage:
    reply = EmailMessage()
    reply["From"] = f"Dana Counsel <{LAWYER}>"
    reply["To"] = str(request_email["Reply-To"])
    reply["Subject"] = "Re: " + str(request_email["Subject"])
    reply["Message-ID"] = f"<{uuid.uuid4().hex}@lawfirm.example>"
    reply["In-Reply-To"] = str(request_email["Message-ID"])
    reply.set_content(text + "\n")
    return reply


async def _wait(predicate: Any, what: str) -> Any:
    for _ in range(400):
        got = await predicate()
        if got:
            return got
        await asyncio.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


async def make_thread(services: Services, gateway: Gateway, turns: int) -> str:
    maildir = services.config.data_dir / "maildir"
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as http:
        ask = {"category": "legal_review", "request": "May we renew?"}
        for _attempt in range(60):
            response = await http.post("/v1/requests", json=ask)
            if response.status_code != 503:  # SQLite busy under the workers: asked again
                break
            await asyncio.sleep(0.5)
        if response.status_code != 201:
            raise RuntimeError(f"filing failed: {response.status_code} {response.text}")
        filed = response.json()
        headers = {"Authorization": f"Bearer {filed['access_token']}"}
        url = f"/v1/requests/{filed['reference']}"

        async def first_email() -> EmailMessage | None:
            mail = read_maildir(maildir)
            return message_from_bytes(mail[0][1], policy=email_policy.default) if mail else None  # type: ignore[return-value]

        request_email = await _wait(first_email, "the request email")
        n = 0
        while len((await http.get(url, headers=headers)).json()["turns"]) < turns:
            n += 1
            await aiosmtplib.send(
                _question(request_email, f"Question {n}: what does clause {n} say?"),
                hostname="127.0.0.1",
                port=gateway.smtp_port,
            )

            async def asked(k: int = n) -> bool:
                thread = (await http.get(url, headers=headers)).json()
                return any(f"Question {k}:" in t["body"] for t in thread["turns"])

            await _wait(asked, f"question {n}")
            await http.post(
                f"{url}/messages", json={"message": f"Clause {n}: {n} years."}, headers=headers
            )
        await asyncio.sleep(1.0)  # the last emails go out
        return str(filed["reference"])


def _timed(rounds: int, work: Any) -> list[float]:
    out = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        out.append(time.perf_counter() - started)
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    directory = Path(args.dir or tempfile.mkdtemp(prefix="hfa-evidence-bench-"))
    services = _services(directory, args.database_url)
    if args.log_entries:
        keys = signing.load_keys(services.config.raw, services.config.data_dir)
        start = datetime(2026, 1, 1, tzinfo=UTC)
        with services.db.transaction() as session:
            mirror = services.config.data_dir / "audit.jsonl"
            generate(session, args.log_entries, start=start, keys=keys, mirror=mirror)
            # The generated entries name references from HFA-00001 up: the measured thread
            # is numbered past them, so its bundle proves its own entries only.
            session.add(_placeholder(args.log_entries, start))
    gateway = Gateway(services)
    await gateway.start()
    try:
        reference = await make_thread(services, gateway, args.turns)
    finally:
        await gateway.stop()
    out = directory / f"{reference}.zip"
    config, db, clock = services.config, services.db, services.clock
    result: dict[str, Any] = {"reference": reference, "log_entries_before": args.log_entries}
    plain = _timed(args.rounds, lambda: export(config, db, clock, reference, out, pdf=False))
    checks = _timed(args.rounds, lambda: verifier.verify_zip(str(out)))
    verdict = verifier.verify_zip(str(out))
    assert verdict.ok, verdict.problems
    files = verifier.read_zip(str(out))
    result |= {
        "turns": len(json.loads(files["thread.json"])["turns"]),
        "emails": len(json.loads(files["messages.json"])),
        "audit_entries": len(json.loads(files["audit/entries.json"])["entries"]),
        "bundle_bytes": out.stat().st_size,
        "export_seconds_median": round(statistics.median(plain), 3),
        "verify_seconds_median": round(statistics.median(checks), 3),
        "export_and_verify_seconds_median": round(
            statistics.median(plain) + statistics.median(checks), 3
        ),
    }
    if not args.no_pdf:
        with_pdf = _timed(1, lambda: export(config, db, clock, reference, out, pdf=True))
        result["export_with_pdf_seconds"] = round(with_pdf[0], 3)
        result["pdf_made"] = "report.pdf" in verifier.read_zip(str(out))
    services.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--log-entries", type=int, default=0, help="other threads' entries first")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-pdf", action="store_true")
    parser.add_argument("--dir", help="work directory (default: a temp dir)")
    parser.add_argument("--database-url", default="", help="default: SQLite in the work dir")
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2))


if __name__ == "__main__":
    main()
