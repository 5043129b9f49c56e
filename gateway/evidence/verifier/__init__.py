"""Check an hfa-gateway evidence bundle offline: the verifier of evidence bundles.

Needs Python 3.11 or later and the ``cryptography`` package; no database, no
network, nothing else of the gateway. This package is copied into every bundle as
``hfa_verify/``, run by ``verify.py``; ``hfa evidence verify`` runs the same code.

What it checks, and what each check proves:

1. ``manifest.sig`` is signed by the audit log's Ed25519 key (``keys.txt``,
   or the keys given with ``--key``: compare them with the key the operator
   publishes, ``hfa audit key``) over the SHA-256 of ``manifest.json``;
2. every file has the SHA-256 ``manifest.json`` lists, and no file is extra;
3. ``checkpoint.txt`` is a checkpoint signed by the same key, and every entry
   of ``audit/entries.json`` leads to its root by its inclusion proof
   (RFC 9162), and belongs to this thread; each entry also has its own C2SP
   ``audit/proofs/<index>.tlog-proof``, which verifies on its own, and the
   checkpoint's witness cosignatures are checked against ``audit/policy.txt``;
4. every email in ``messages/`` has the hash its audit entry recorded when it
   was sent or received (``email.sent``, ``inbound.received``);
5. the files derived from others are what they derive to: ``thread.mbox``
   from the emails, ``request-email.html`` and ``.txt`` from the request email
   as relayed, ``senders.json`` from ``thread.json``.

Every problem names the file it is in and what it breaks. A zip, or a bundle unzipped
into a folder (``folder``), is checked within bounds (``archive``): members in all,
their number, what is parsed; one that is past them is refused in one sentence before
it costs memory or time.
"""

from .archive import InMemory, Refused, Zipped
from .checks import read_zip, verify_files, verify_members, verify_zip
from .cli import main, print_verdict, size
from .derived import json_bytes, lawyer_view, mbox_of, senders_of
from .folder import Unzipped, read_folder, verify_folder, verify_path

# The same names checks.py imports: here they are re-exported (``__all__``), named one by
# one so that the surface reads in this file and mypy checks each.
from .layout import (
    CHECKPOINT,
    ENTRIES,
    FORMAT,
    KEYS,
    MANIFEST,
    MAX_BYTES,
    MBOX,
    MESSAGES,
    REQUEST_HTML,
    REQUEST_TEXT,
    SENDERS,
    SIGNATURE,
    THREAD,
    TIMESTAMP,
    Problem,
    Verdict,
)
from .proofs import checkpoint_of
from .stamps import Stamp, check_timestamp
from .tlogproof import proof_path, tlog_proof
from .witnessed import POLICY

__all__ = [
    "CHECKPOINT",
    "ENTRIES",
    "FORMAT",
    "KEYS",
    "MANIFEST",
    "MAX_BYTES",
    "MBOX",
    "MESSAGES",
    "POLICY",
    "REQUEST_HTML",
    "REQUEST_TEXT",
    "SENDERS",
    "SIGNATURE",
    "THREAD",
    "TIMESTAMP",
    "InMemory",
    "Problem",
    "Refused",
    "Stamp",
    "Unzipped",
    "Verdict",
    "Zipped",
    "check_timestamp",
    "checkpoint_of",
    "json_bytes",
    "lawyer_view",
    "main",
    "mbox_of",
    "print_verdict",
    "proof_path",
    "read_folder",
    "read_zip",
    "senders_of",
    "size",
    "tlog_proof",
    "verify_files",
    "verify_folder",
    "verify_members",
    "verify_path",
    "verify_zip",
]
