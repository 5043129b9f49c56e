"""An evidence bundle: one thread's files, a manifest of their hashes, signed with the log's key.

The files (see ``verifier.layout`` for their names) are built from what ``collect``
read; those derived from others (the mbox, the request email's bodies, the
senders) are built by the very functions the verifier uses to check them.
``manifest.json`` lists every file with its SHA-256 and what it is;
``manifest.sig`` is a signed note, in the format of the log's checkpoints,
over the manifest's hash, signed with the audit log's newest key. So a change
to any byte of any file is found: in a file, by its hash; in the manifest, by
the signature; in the signature or the keys, by the signature not verifying.
"""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from gateway.clock import iso
from gateway.evidence import verifier as check
from gateway.evidence.collect import Collected, Email
from gateway.store import checkpoint as notes
from gateway.store.audit import leaf_data
from gateway.store.signing import LogKeys

SCRIPT = "verify.py"
# The verifier's modules go in the bundle under this package name, beside verify.py.
PACKAGE = "hfa_verify"
# The script: it runs only the verifier it was shipped with (the modules beside it whose
# SHA-256 it lists, compiled from those very bytes), never code from the bundle it checks.
LAUNCHER = '''"""Check an evidence bundle offline: python3 verify.py BUNDLE.zip|FOLDER [--key KEY].

Needs Python 3.11 or later and the cryptography package; no database, no network.
It runs only the verifier it came with: the modules of @PACKAGE@/ beside this file,
each with the SHA-256 listed below (keep this folder from a bundle you trust, or use
hfa evidence verify). It never runs code from the bundle it checks, nor from a
@PACKAGE@/ whose bytes differ. It checks a bundle's zip, or a bundle unzipped into
another folder; never the folder it runs from (its own code would vouch for itself).
"""

import os
import sys

# Nothing beside this file (nor in the working folder) may stand in for a module it imports.
here, cwd = os.path.dirname(os.path.realpath(__file__)), os.getcwd()
sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") not in (here, cwd)]

import hashlib  # noqa: E402
import importlib.abc  # noqa: E402
import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

TRUSTED = @TRUSTED@
folder = Path(__file__).resolve().parent / "@PACKAGE@"
sources = {}
for name, digest in TRUSTED.items():
    try:
        source = (folder / name).read_bytes()
    except OSError:
        source = b""
    if hashlib.sha256(source).hexdigest() != digest:
        print(
            f"verify.py: no trusted verifier beside it ({folder / name} is missing or not the "
            "one this verify.py lists): unzip a bundle you trust and run its verify.py, or "
            "run hfa evidence verify; nothing was checked"
        )
        sys.exit(2)
    sources[name] = source


class Trusted(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """@PACKAGE@ and its modules from the checked bytes, and from nowhere else."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "@PACKAGE@" and not fullname.startswith("@PACKAGE@."):
            return None
        package = fullname == "@PACKAGE@"
        name = "__init__.py" if package else fullname.partition(".")[2] + ".py"
        if name not in sources:
            raise ImportError(f"{fullname} is not a module of the trusted verifier")
        return importlib.util.spec_from_loader(fullname, self, is_package=package)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        package = module.__name__ == "@PACKAGE@"
        name = "__init__.py" if package else module.__name__.partition(".")[2] + ".py"
        code = compile(sources[name], str(folder / name), "exec", dont_inherit=True)
        exec(code, module.__dict__)


sys.meta_path.insert(0, Trusted())
from @PACKAGE@.cli import main  # noqa: E402

sys.exit(main(here=here))
'''


def launcher(modules: dict[str, bytes]) -> bytes:
    """verify.py, listing the SHA-256 of each module of the verifier it may run."""
    listed = "".join(
        f"    {name!r}: {hashlib.sha256(source).hexdigest()!r},\n"
        for name, source in modules.items()
    )
    text = LAUNCHER.replace("@TRUSTED@", "{\n" + listed + "}").replace("@PACKAGE@", PACKAGE)
    return text.encode()


# A bundle's members all carry the export's time, so one export is one set of bytes.
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass
class Bundle:
    """The bundle's files in the order they are written, each with what it is."""

    reference: str
    files: dict[str, bytes] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)

    def add(self, path: str, content: bytes, role: str) -> None:
        self.files[path] = content
        self.roles[path] = role

    def listing(self) -> list[dict[str, Any]]:
        return [
            {
                "path": p,
                "role": self.roles[p],
                "size": len(c),
                "sha256": hashlib.sha256(c).hexdigest(),
            }
            for p, c in self.files.items()
        ]

    def zipped(self, when: datetime) -> bytes:
        stamp = (when.year, when.month, when.day, when.hour, when.minute, when.second)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path, content in self.files.items():
                info = zipfile.ZipInfo(path, date_time=stamp if when.year >= 1980 else _ZIP_EPOCH)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, content)
        return out.getvalue()


def _email_name(number: int, email: Email) -> str:
    return f"messages/{number:03d}-{email.direction}-{email.purpose.replace('_', '-')}.eml"


def _messages(bundle: Bundle, emails: list[Email]) -> list[dict[str, Any]]:
    index = []
    for number, email in enumerate(emails, start=1):
        path = _email_name(number, email)
        if email.direction == "outbound":
            role = f"the {email.purpose.replace('_', ' ')} email to {', '.join(email.to)}, byte for byte as relayed"
        else:
            role = f"a reply from {email.envelope_from or '<>'}, byte for byte as the gateway received it"
        bundle.add(path, email.raw, role)
        index.append(
            {
                "path": path,
                "direction": email.direction,
                "purpose": email.purpose,
                "at": iso(email.at),
                # The mbox "From " line's date: asctime, as RFC 4155 asks.
                "asctime": asctime(email.at),
                "envelope_from": email.envelope_from,
                "to": email.to,
                "outbox_id": email.outbox_id,
                "inbound_id": email.inbound_id,
                "outcome": email.outcome,
                "sha256": hashlib.sha256(email.raw).hexdigest(),
            }
        )
    return index


def _proofs(collected: Collected) -> dict[str, Any]:
    return {
        "tree_size": collected.tree_size,
        "checkpoint": check.CHECKPOINT,
        "entries": [
            {
                "entry": p.entry,
                "leaf_index": p.leaf_index,
                "inclusion_path": [base64.b64encode(h).decode() for h in p.path],
            }
            for p in collected.entries
        ],
    }


def sign_manifest(manifest: bytes, reference: str, keys: LogKeys) -> str:
    """The signed note over the manifest's hash, signed as checkpoints are."""
    digest = base64.b64encode(hashlib.sha256(manifest).digest()).decode()
    body = f"{check.FORMAT}\n{reference}\n{digest}\n"
    signature = keys.signer.sign(body.encode())
    blob = base64.b64encode(
        notes.key_hash(keys.origin, keys.signer.public_key()) + signature
    ).decode()
    return f"{body}\n\u2014 {keys.origin} {blob}\n"


Render = Callable[[str, dict[str, Any]], bytes]


def build(
    collected: Collected,
    keys: LogKeys,
    *,
    exported_at: datetime,
    render: Render,
    pdf: Callable[[bytes], bytes | None] | None = None,
    extra: list[tuple[str, bytes, str]] | None = None,
) -> Bundle:
    """Every file of the bundle, then its manifest and the manifest's signature."""
    bundle = Bundle(collected.reference)
    modules = {m.name: m.read_bytes() for m in sorted(Path(check.__file__).parent.glob("*.py"))}
    bundle.add(SCRIPT, launcher(modules), "the verification script (Python + cryptography)")
    for name, source in modules.items():
        bundle.add(f"{PACKAGE}/{name}", source, "a module of the verifier")
    bundle.add(
        check.KEYS, ("\n".join(keys.verifier_keys()) + "\n").encode(), "the audit log's public keys"
    )
    bundle.add(check.CHECKPOINT, collected.checkpoint.encode(), "the audit log's signed checkpoint")
    bundle.add(
        check.ENTRIES,
        check.json_bytes(_proofs(collected)),
        "the thread's audit entries with inclusion proofs",
    )
    for proved in collected.entries:
        bundle.add(
            check.proof_path(proved.leaf_index),
            check.tlog_proof(
                leaf_data(proved.entry), proved.leaf_index, proved.path, collected.checkpoint
            ).encode(),
            "an audit entry's C2SP tlog-proof",
        )
    index = _messages(bundle, collected.emails)
    bundle.add(check.MESSAGES, check.json_bytes(index), "the index of the thread's emails")
    bundle.add(
        check.MBOX, check.mbox_of(index, bundle.files), "the thread's emails as one mbox (RFC 4155)"
    )
    bundle.add(check.THREAD, check.json_bytes(collected.thread), "the thread as the API shows it")
    bundle.add(
        check.SENDERS,
        check.json_bytes(check.senders_of(collected.thread)),
        "how each reply's sender was verified",
    )
    request = next((m for m in index if m["purpose"] == "request"), None)
    if request is not None:
        text, html = check.lawyer_view(bundle.files[request["path"]])
        bundle.add(check.REQUEST_HTML, html, "the request email as the lawyer saw it (HTML)")
        bundle.add(check.REQUEST_TEXT, text, "the request email as the lawyer saw it (text)")
    for path, content, role in extra or []:
        bundle.add(path, content, role)
    context = {
        "collected": collected,
        "messages": index,
        "files": bundle.listing(),
        "keys": keys.verifier_keys(),
    }
    context["exported_at"] = iso(exported_at)
    context["checkpoint"] = check.checkpoint_of(collected.checkpoint.split("\n"))
    report = render("report.html", context)
    bundle.add("report.html", report, "the human-readable report")
    printed = pdf(report) if pdf is not None else None
    if printed is not None:
        bundle.add("report.pdf", printed, "the human-readable report, printed to PDF")
    context["files"] = bundle.listing()
    bundle.add(
        "certification.html",
        render("certification.html", context),
        "a certification page to fill in and sign",
    )
    manifest = check.json_bytes(
        {
            "format": check.FORMAT,
            "reference": collected.reference,
            "exported_at": iso(exported_at),
            "files": bundle.listing(),
        }
    )
    bundle.files[check.MANIFEST] = manifest
    bundle.files[check.SIGNATURE] = sign_manifest(manifest, collected.reference, keys).encode()
    return bundle


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def asctime(moment: datetime) -> str:
    """``Thu Dec  3 09:30:00 2026`` in UTC, whatever the locale."""
    return (
        f"{_DAYS[moment.weekday()]} {_MONTHS[moment.month - 1]} {moment.day:2d} "
        f"{moment:%H:%M:%S} {moment.year}"
    )
