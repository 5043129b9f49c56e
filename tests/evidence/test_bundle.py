"""A thread's evidence bundle, exported from a gateway running on loopback, checked offline."""

from __future__ import annotations

import ast
import asyncio
import hashlib
import json
import subprocess
import sys
import zipfile
from email import message_from_bytes
from email import policy as email_policy
from email.message import EmailMessage
from pathlib import Path

import dkim
import httpx
from sqlalchemy import update

from gateway.app import Gateway
from gateway.evidence import verifier
from gateway.evidence.export import verify
from gateway.outbound.transports import read_maildir
from gateway.services import build_services
from gateway.store.models import OutboxItem
from tests.conftest import REPLY_DOMAIN, Running, SmtpSink, make_config, stop_running
from tests.e2e.deploykit import SELECTOR, dns_for, write_dkim_key
from tests.evidence.kit import all_sent, answered, export_of
from tests.mailkit import reply_to, send

ASK = "May we sign the NDA with ACME Rockets for two years?"
ANSWER = "Approved, on condition that the term is one year only.\n\nDana"


async def test_a_bundle_holds_the_thread_and_verifies_with_its_own_script_alone(
    running: Running, tmp_path: Path
) -> None:
    filed = await answered(running, ASK, ANSWER)
    await all_sent(running)
    out = tmp_path / "bundle.zip"
    done = await asyncio.to_thread(export_of, running, filed["reference"], out)
    files = done.bundle.files

    # Every email as it left and as it came in: the bytes the relay took, line endings aside.
    relayed = [raw.replace(b"\r\n", b"\n") for _f, _t, raw in running.sink.received]
    index = json.loads(files["messages.json"])
    outbound = [files[m["path"]] for m in index if m["direction"] == "outbound"]
    assert sorted(outbound) == sorted(relayed) and len(outbound) == 2
    (inbound,) = [files[m["path"]] for m in index if m["direction"] == "inbound"]
    assert b"on condition that the term is one year" in inbound
    # The thread as the API shows it, and the request email as the lawyer saw it.
    assert json.loads(files["thread.json"]) == await running.status(filed)
    assert ASK.encode() in files["request-email.txt"] and b"<html" in files["request-email.html"]
    # The mbox: one "From " line per email, in order.
    assert files["thread.mbox"].count(b"\nFrom ") + 1 == len(index) == 3
    assert files["thread.mbox"].startswith(f"From gateway@{REPLY_DOMAIN} ".encode())
    assert b"\nFrom counsel@lawfirm.example " in files["thread.mbox"]
    senders = json.loads(files["senders.json"])
    assert [s["from"] for s in senders] == ["counsel@lawfirm.example"]
    assert senders[0]["authenticated_by"]["result"]
    report = files["report.html"].decode()
    assert "conditional_approval" in report and "counsel@lawfirm.example" in report
    # Every email is vouched for by the hash its audit entry recorded.
    checked_here = verify(out)
    assert checked_here.ok and not [n for n in checked_here.notes if "no hash" in n]
    for name, content in files.items():
        if name not in ("manifest.json", "manifest.sig", "certification.html"):
            assert hashlib.sha256(content).hexdigest() in files["certification.html"].decode()

    # An outsider: only the bundle, Python and cryptography; not the gateway (-I: no
    # PYTHONPATH, no user site, not even the script's directory on the path), with the
    # bundle unzipped. verify.py alone beside the zip has no verifier it trusts: it says
    # so in one sentence and checks nothing (it never runs the zip's own code).
    alone, unzipped = tmp_path / "alone", tmp_path / "unzipped"
    alone.mkdir()
    with zipfile.ZipFile(out) as bundle:
        (alone / "verify.py").write_bytes(bundle.read("verify.py"))
        bundle.extractall(unzipped)
    for where in (alone, unzipped):
        (where / "bundle.zip").write_bytes(out.read_bytes())
        checked = subprocess.run(
            [sys.executable, "-I", "verify.py", "bundle.zip"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if where == alone:
            assert checked.returncode == 2, checked.stdout + checked.stderr
            assert "no trusted verifier beside it" in checked.stdout
            assert len(checked.stdout.splitlines()) == 1 and not checked.stderr
            continue
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert f"OK: the evidence of {filed['reference']} is whole" in checked.stdout
    # A module beside verify.py that is not the one it lists is not run.
    (unzipped / "hfa_verify" / "cli.py").write_text("raise SystemExit('ran')\n")
    swapped = subprocess.run(
        [sys.executable, "-I", "verify.py", "bundle.zip"],
        cwd=unzipped,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert swapped.returncode == 2 and "no trusted verifier" in swapped.stdout, swapped
    (unzipped / "hfa_verify" / "cli.py").write_bytes(files["hfa_verify/cli.py"])
    # And it finds a change, from outside too.
    (unzipped / "bundle.zip").write_bytes(out.read_bytes().replace(b"verify.py", b"verifx.py"))
    changed = subprocess.run(
        [sys.executable, "-I", "verify.py", "bundle.zip"],
        cwd=unzipped,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert changed.returncode == 1 and "FAILED verifx.py" in changed.stdout, changed.stdout


def test_the_verifier_imports_only_the_standard_library_and_cryptography() -> None:
    imported = set()
    for module in Path(verifier.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    outside = {name for name in imported if name not in sys.stdlib_module_names}
    assert outside == {"cryptography"}, outside


async def test_a_bundle_holds_nothing_of_another_thread(running: Running, tmp_path: Path) -> None:
    mine = await answered(
        running, "Marker-ALPHA: may we sign with Northwind?", "Approved. ALPHA-REPLY"
    )
    other = await answered(
        running, "Marker-BRAVO: may we sue Contoso?", "Rejected. BRAVO-REPLY", sent=2
    )
    await all_sent(running)
    out = tmp_path / "mine.zip"
    await asyncio.to_thread(export_of, running, mine["reference"], out)
    with zipfile.ZipFile(out) as bundle:
        everything = b"".join(bundle.read(name) for name in bundle.namelist())
    assert b"Marker-ALPHA" in everything and b"ALPHA-REPLY" in everything
    for marker in (b"Marker-BRAVO", b"BRAVO-REPLY", b"Contoso", other["reference"].encode()):
        assert marker not in everything, marker
    # Nor the other thread's emails' identities.
    for _f, _t, raw in running.sink.received:
        message = message_from_bytes(raw, policy=email_policy.default)
        if other["reference"] in str(message["Subject"]):
            assert str(message["Message-ID"]).encode() not in everything
    assert verify(out).ok


async def test_emails_are_kept_as_written_to_the_maildir_with_their_dkim_signature(
    tmp_path: Path,
) -> None:
    key_file, record = write_dkim_key(tmp_path)
    config = make_config(
        tmp_path / "var", dkim_selector=SELECTOR, dkim_private_key_file=str(key_file)
    )
    services = build_services(config)  # no relay: the Maildir
    gateway = Gateway(services)
    await gateway.start()
    http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}", timeout=10)
    running = Running(gateway, services, SmtpSink(), http)
    maildir = config.data_dir / "maildir"
    try:
        filed = await running.file(request=ASK)
        while not read_maildir(maildir):
            await asyncio.sleep(0.05)
        (_key, raw), *_ = read_maildir(maildir)
        request_email = message_from_bytes(raw, policy=email_policy.default)
        assert isinstance(request_email, EmailMessage)
        await send(reply_to(request_email, ANSWER), gateway.smtp_port or 0)
        await running.wait_status(filed, lambda s: s["human_has_replied"])
        await all_sent(running)
        done = await asyncio.to_thread(export_of, running, filed["reference"], tmp_path / "b.zip")
    finally:
        await stop_running(running)
    files = done.bundle.files
    written = sorted(raw for _key, raw in read_maildir(maildir))
    index = json.loads(files["messages.json"])
    kept = sorted(files[m["path"]] for m in index if m["direction"] == "outbound")
    assert kept == written and len(kept) == 2  # byte for byte
    for raw in kept:
        assert raw.startswith(b"DKIM-Signature:")
        assert dkim.verify(raw, dnsfunc=dns_for(REPLY_DOMAIN, record))
    assert verify(done.path).ok


async def test_emails_sent_before_the_bytes_were_kept_are_counted_not_invented(
    running: Running, tmp_path: Path
) -> None:
    filed = await answered(running, ASK, ANSWER)
    await all_sent(running)
    with running.services.db.transaction() as session:
        # As a row sent by the release before: no bytes kept.
        session.execute(
            update(OutboxItem)
            .where(OutboxItem.purpose == "receipt")
            .values(relayed=None, relayed_sha256=None)
        )
    done = await asyncio.to_thread(export_of, running, filed["reference"], tmp_path / "b.zip")
    assert done.unsent == 1 and done.emails == 2
    assert b"1 email(s) were sent before" in done.bundle.files["report.html"]
    assert verify(done.path).ok
