"""A private Postfix instance for the tests: its own config, queue and data in a temp dir.

Started with ``postfix -c DIR start`` on loopback ports and stopped with
``postfix -c DIR stop`` (then by the PID its master wrote): the system's
Postfix, if any, is never touched.
"""

from __future__ import annotations

import contextlib
import mailbox
import os
import pwd
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

from tests.conftest import LAWYER, REPLY_DOMAIN

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "deploy" / "postfix" / "setup.sh"
MAX_MESSAGE_BYTES = 300_000
TRACE_HEADROOM = 65_536  # what setup.sh keeps for the headers Postfix adds
VICTIM = "victim@lawfirm.example"  # a forged envelope sender: must never get a bounce
QUEUES = ("maildrop", "incoming", "active", "deferred", "hold")


def why_not() -> str | None:
    if shutil.which("postfix") is None or shutil.which("postconf") is None:
        return "Postfix is not installed (Debian package 'postfix'; .ci/run installs it)"
    if os.geteuid() != 0:
        return "a private Postfix instance needs root: its master runs as root"
    for name in ("master.cf.proto",):
        if not (Path("/etc/postfix") / name).is_file():
            return f"/etc/postfix/{name} is missing: cannot build a private master.cf"
    return None


@dataclass
class PrivatePostfix:
    root: Path
    inbound_port: int  # what port 25 is on a real MX
    submission_port: int  # HFA_SMTP_RELAY
    gateway_port: int  # HFA_SMTP_BIND

    @property
    def config_dir(self) -> Path:
        return self.root / "etc"

    def postconf(self, *args: str) -> str:
        return subprocess.run(
            ["postconf", "-c", str(self.config_dir), *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout

    def mailbox(self, name: str) -> list[EmailMessage]:
        messages = []
        for raw in self.raw_mailbox(name):
            msg = message_from_bytes(raw, policy=default_policy)
            assert isinstance(msg, EmailMessage)
            messages.append(msg)
        return messages

    def raw_mailbox(self, name: str) -> list[bytes]:
        path = self.root / "mail" / name
        # Postfix's local delivery makes the Maildir's tmp, new and cur one after another:
        # read while it does, the folder is there before cur is.
        if not all((path / sub).is_dir() for sub in ("tmp", "new", "cur")):
            return []
        box = mailbox.Maildir(str(path), create=False)
        return [box.get_bytes(key) for key in sorted(box.keys())]

    def queued(self) -> list[str]:
        spool = self.root / "spool"
        return [str(p) for q in QUEUES for p in (spool / q).rglob("*") if p.is_file()]

    def log(self) -> str:
        path = self.root / "maillog"
        return path.read_text(errors="replace") if path.exists() else ""


def run_postfix(config_dir: Path, action: str) -> subprocess.CompletedProcess[str]:
    # Postfix reports to syslog, or to stderr only when that is a terminal; its own
    # log file (maillog_file) says what went wrong, and the test shows it.
    return subprocess.run(
        ["postfix", "-c", str(config_dir), action],
        # Postfix creates its queue directories with the caller's umask; whatever the test
        # process has, they must be readable by mail_owner.
        umask=0o022,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def write_base_config(pf: PrivatePostfix) -> None:
    """The private instance itself: paths, loopback, the lawyer's mailboxes. No hfa settings."""
    owner = subprocess.run(
        ["postconf", "-dh", "mail_owner"], capture_output=True, text=True, check=True
    ).stdout.strip()
    account = pwd.getpwnam(owner)
    for sub in ("etc", "spool", "data", "mail"):
        (pf.root / sub).mkdir()
    for sub in ("data", "mail"):
        os.chown(pf.root / sub, account.pw_uid, account.pw_gid)
    shutil.copy("/etc/postfix/master.cf.proto", pf.config_dir / "master.cf")
    root = pf.root
    (pf.config_dir / "main.cf").write_text(
        f"""compatibility_level = 3.6
queue_directory = {root}/spool
data_directory = {root}/data
maillog_file = {root}/maillog
maillog_file_prefixes = {root}
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mx.{REPLY_DOMAIN}
mydestination =
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
virtual_mailbox_domains = lawfirm.example
virtual_mailbox_base = {root}/mail
virtual_mailbox_maps = inline:{{ {LAWYER}=counsel/, {VICTIM}=victim/ }}
virtual_uid_maps = static:{account.pw_uid}
virtual_gid_maps = static:{account.pw_gid}
"""
    )
    # The public smtpd moves from port 25 to a free loopback port.
    pf.postconf("-MX", "smtp/inet")
    inbound = f"127.0.0.1:{pf.inbound_port}"
    pf.postconf("-M", f"{inbound}/inet={inbound} inet n - n - - smtpd")


def wait_listening(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"Postfix does not listen on 127.0.0.1:{port}")
        time.sleep(0.2)


def stop(pf: PrivatePostfix) -> None:
    """Stop this instance only (postfix -c DIR), then make sure its master is gone."""
    pid_file = pf.root / "spool" / "pid" / "master.pid"
    pid = int(pid_file.read_text().split()[0]) if pid_file.exists() else None
    run_postfix(pf.config_dir, "stop")
    deadline = time.monotonic() + 15
    while pid is not None and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)  # our own master, by the PID it wrote
