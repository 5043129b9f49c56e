"""Check an hfa-gateway evidence bundle offline: python3 verify.py BUNDLE.zip [--key KEY].

Needs Python 3.11 or later and the ``cryptography`` package; no database, no
network, nothing else of the gateway. This file is copied into every bundle as
``verify.py``; ``hfa evidence verify`` runs the same code.

What it checks, and what each check proves:

1. ``manifest.sig`` is signed by the audit log's Ed25519 key (``keys.txt``,
   or the keys given with ``--key``: compare them with the key the operator
   publishes, ``hfa audit key``) over the SHA-256 of ``manifest.json``;
2. every file has the SHA-256 ``manifest.json`` lists, and no file is extra;
3. ``checkpoint.txt`` is a checkpoint signed by the same key, and every entry
   of ``audit/entries.json`` leads to its root by its inclusion proof
   (RFC 9162), and belongs to this thread;
4. every email in ``messages/`` has the hash its audit entry recorded when it
   was sent or received (``email.sent``, ``inbound.received``);
5. the files derived from others are what they derive to: ``thread.mbox``
   from the emails, ``request-email.html`` and ``.txt`` from the request email
   as relayed, ``senders.json`` from ``thread.json``.

Every problem names the file it is in and what it breaks.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import json
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from email import message_from_bytes
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

FORMAT = "hfa-evidence/1"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
KEYS = "keys.txt"
CHECKPOINT = "checkpoint.txt"
ENTRIES = "audit/entries.json"
MESSAGES = "messages.json"
THREAD = "thread.json"
SENDERS = "senders.json"
MBOX = "thread.mbox"
REQUEST_HTML = "request-email.html"
REQUEST_TEXT = "request-email.txt"
TIMESTAMP = "timestamps/checkpoint.tsr"
# Files outside the manifest: the manifest itself and its signature.
UNLISTED = (MANIFEST, SIGNATURE)
# A bundle is a few megabytes: a member beyond this is not read (a zip bomb).
MAX_MEMBER = 256 * 1024 * 1024
_DASH = "\u2014"
_ALG_ED25519 = 1


@dataclass(frozen=True)
class Problem:
    path: str
    what: str

    def describe(self) -> str:
        return f"{self.path}: {self.what}"


@dataclass
class Verdict:
    reference: str = ""
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, path: str, what: str) -> None:
        self.problems.append(Problem(path, what))


class NoteError(ValueError):
    """A signed note or a key that cannot be read or does not verify."""


# --- Merkle trees (RFC 6962 / 9162), the verifier's side ---------------------------


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: list[bytes]) -> bytes | None:
    """The root ``proof`` leads to from ``leaf`` (RFC 9162 2.1.3.2); None if it is malformed."""
    if not 0 <= index < size or len(leaf) != 32 or any(len(p) != 32 for p in proof):
        return None
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = _node(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def canonical(value: Any) -> bytes:
    """The audit log's canonical JSON: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def entry_leaf(entry: dict[str, Any]) -> bytes:
    return leaf_hash(
        canonical({k: v for k, v in entry.items() if k not in ("leaf_index", "leaf_hash")})
    )


# --- Signed notes (C2SP signed-note, Ed25519) --------------------------------------


def _b64(text: str) -> bytes:
    """Strict base64: valid characters, and the one encoding of its bytes (no spare bits)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NoteError(f"not base64: {text[:60]!r}") from exc
    if base64.b64encode(raw).decode() != text:
        raise NoteError(f"not the canonical base64 of its bytes: {text[:60]!r}")
    return raw


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_hash(name: str, key: Ed25519PublicKey) -> bytes:
    return hashlib.sha256(
        name.encode() + b"\n" + bytes([_ALG_ED25519]) + _raw_public(key)
    ).digest()[:4]


def parse_key(text: str) -> tuple[str, Ed25519PublicKey]:
    """A verifier key ``name+hexhash+base64(0x01||key)``, as ``hfa audit key`` prints it."""
    name, _, rest = text.strip().partition("+")
    hash_hex, _, encoded = rest.partition("+")
    raw = _b64(encoded)
    if not name or len(raw) != 33 or raw[0] != _ALG_ED25519 or len(hash_hex) != 8:
        raise NoteError(f"not an Ed25519 verifier key (name+hash+key): {text.strip()[:80]!r}")
    key = Ed25519PublicKey.from_public_bytes(raw[1:])
    if key_hash(name, key).hex() != hash_hex:
        raise NoteError("the key's hash does not match its name and key")
    return name, key


def verify_note(note: str, keys: list[tuple[str, Ed25519PublicKey]]) -> tuple[list[str], str]:
    """A signed note's body lines and the key that signed it; NoteError unless one of ``keys`` did."""
    body, sep, signatures = note.partition("\n\n")
    if not sep or not signatures.endswith("\n"):
        raise NoteError("not a signed note (a body, a blank line, signature lines)")
    lines = body.split("\n")
    signed = (body + "\n").encode()
    for line in signatures[:-1].split("\n"):
        dash, _, rest = line.partition(" ")
        name, _, blob_text = rest.partition(" ")
        if dash != _DASH or not name:
            raise NoteError(f"not a signature line: {line[:80]!r}")
        blob = _b64(blob_text)
        for key_name, key in keys:
            if key_name != name or key_hash(name, key) != blob[:4]:
                continue
            try:
                key.verify(blob[4:], signed)
            except InvalidSignature as exc:
                raise NoteError(
                    f"the signature of {name}+{blob[:4].hex()} does not verify"
                ) from exc
            return lines, f"{name}+{blob[:4].hex()}"
    raise NoteError("not signed by any key given")


def checkpoint_of(lines: list[str]) -> tuple[str, int, bytes]:
    """A checkpoint's origin, size and root hash, from its note's body lines."""
    if len(lines) < 3 or not lines[0] or not lines[1].isdigit():
        raise NoteError("a checkpoint has an origin, a size and a root hash")
    if lines[1] != str(int(lines[1])):
        raise NoteError(f"the size is not written plainly: {lines[1]!r}")
    root = _b64(lines[2])
    if len(root) != 32:
        raise NoteError("the root hash is not 32 bytes")
    return lines[0], int(lines[1]), root


# --- Derived files: the exporter builds them with these same functions ---------------


def mbox_of(messages: list[dict[str, Any]], raw: dict[str, bytes]) -> bytes:
    """The thread as one RFC 4155 mbox, oldest first, ``From `` lines quoted (mboxrd)."""
    out = bytearray()
    for message in messages:
        body = raw.get(message["path"], b"").replace(b"\r\n", b"\n")
        out += f"From {message['envelope_from'] or 'MAILER-DAEMON'} {message['asctime']}\n".encode()
        for line in body.split(b"\n"):
            if line.lstrip(b">").startswith(b"From "):
                line = b">" + line
            out += line + b"\n"
        if not body.endswith(b"\n"):
            out += b"\n"
    return bytes(out)


def lawyer_view(raw: bytes) -> tuple[bytes, bytes]:
    """The text and HTML bodies of an email as a mail client shows them: decoded, in UTF-8.

    The first text/plain and text/html parts that are not attachments, as
    ``email.message.EmailMessage.get_body`` picks them for a simple message.
    """
    found: dict[str, bytes] = {}
    for part in message_from_bytes(raw).walk():
        kind = part.get_content_type()
        if kind in ("text/plain", "text/html") and kind not in found:
            if part.get_content_disposition() == "attachment":
                continue
            payload = part.get_payload(decode=True)
            content = payload if isinstance(payload, bytes) else b""
            charset = part.get_content_charset() or "utf-8"
            found[kind] = content.decode(charset, errors="replace").encode()
    return found.get("text/plain", b""), found.get("text/html", b"")


def senders_of(thread: dict[str, Any]) -> list[dict[str, Any]]:
    """Each human turn's sender and how it was verified when the reply arrived."""
    out = []
    for number, turn in enumerate(thread.get("turns", []), start=1):
        if turn.get("author") != "human":
            continue
        verified = turn.get("authenticated_by")
        if isinstance(verified, str):
            verified = {"method": "recorded text", "result": verified}
        out.append(
            {
                "turn": number,
                "at": turn.get("at"),
                "from": turn.get("from"),
                "kind": turn.get("kind"),
                "decision": turn.get("decision"),
                "authenticated_by": verified,
            }
        )
    return out


def json_bytes(value: Any) -> bytes:
    """How the bundle writes its JSON files: indented, sorted, UTF-8, one final newline."""
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


# --- RFC 3161 timestamps: DER read just far enough to check one -----------------------

_OID_MESSAGE_DIGEST = bytes.fromhex("2a864886f70d010904")
_HASHES = {
    bytes.fromhex("608648016503040201"): hashes.SHA256,
    bytes.fromhex("608648016503040202"): hashes.SHA384,
    bytes.fromhex("608648016503040203"): hashes.SHA512,
}


def _tlv(data: bytes, pos: int = 0) -> tuple[int, int, int]:
    """(tag, start of content, end of content) of the DER element at ``pos``."""
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if not 0 < count <= 4:
            raise ValueError("a DER length of an unsupported size")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise ValueError("a DER element runs past its end")
    return tag, pos, pos + length


def _children(data: bytes, start: int, end: int) -> list[tuple[int, int, int, int]]:
    """(tag, element start, content start, content end) of each element in [start, end)."""
    out = []
    while start < end:
        tag, content, stop = _tlv(data, start)
        out.append((tag, start, content, stop))
        start = stop
    return out


def _only(data: bytes, element: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    return _children(data, element[2], element[3])


@dataclass(frozen=True)
class Stamp:
    gen_time: str
    tsa: str
    fingerprint: str


def check_timestamp(response: bytes, stamped: bytes) -> Stamp:
    """The time a TSA vouched that ``stamped`` existed; ValueError unless its signature holds.

    TimeStampResp -> ContentInfo -> SignedData (RFC 5652): the TSTInfo's message
    imprint must be the hash of ``stamped``; the signer's messageDigest attribute
    the hash of the TSTInfo; and the signature over the signed attributes must
    verify with one of the enclosed certificates, marked for time-stamping.
    """
    resp = _children(response, *_tlv(response)[1:])
    status = _only(response, resp[0])[0]
    if len(resp) < 2 or int.from_bytes(response[status[2] : status[3]], "big") not in (0, 1):
        raise ValueError("no timestamp was granted")
    content_info = _only(response, resp[1])
    signed = _only(response, _only(response, content_info[1])[0])
    enclosed = [c for c in signed if response[c[1]] == 0xA0]
    encap = _only(response, signed[2])
    tst = _only(response, _only(response, encap[1])[0])[0]
    tst_der = response[tst[1] : tst[3]]
    tst_fields = _children(tst_der, *_tlv(tst_der)[1:])
    imprint = _only(tst_der, tst_fields[2])
    algorithm = _HASHES[
        tst_der[_only(tst_der, imprint[0])[0][2] : _only(tst_der, imprint[0])[0][3]]
    ]
    wanted = hashes.Hash(algorithm())
    wanted.update(stamped)
    if tst_der[imprint[1][2] : imprint[1][3]] != wanted.finalize():
        raise ValueError("it stamps something other than this file")
    gen_time = tst_der[tst_fields[4][2] : tst_fields[4][3]].decode("ascii")
    certificates = [
        x509.load_der_x509_certificate(response[c[1] : c[3]])
        for c in (_only(response, enclosed[0]) if enclosed else [])
    ]
    signer = _only(response, signed[-1])[0]
    parts = _only(response, signer)
    digest_alg = _HASHES[
        response[_only(response, parts[2])[0][2] : _only(response, parts[2])[0][3]]
    ]
    attrs = parts[3]
    if response[attrs[1]] != 0xA0:
        raise ValueError("the signer has no signed attributes")
    content_hash = hashes.Hash(digest_alg())
    content_hash.update(tst_der)
    digest = None
    for attr in _only(response, attrs):
        oid, values = _only(response, attr)
        if response[oid[2] : oid[3]] == _OID_MESSAGE_DIGEST:
            value = _only(response, values)[0]
            digest = response[value[2] : value[3]]
    if digest != content_hash.finalize():
        raise ValueError("its signed digest is not the digest of its content")
    signed_attrs = b"\x31" + response[attrs[1] + 1 : attrs[3]]
    signature = response[parts[5][2] : parts[5][3]]
    for certificate in certificates:
        if _signed_by(certificate, signature, signed_attrs, digest_alg()):
            usage = certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
            if x509.ExtendedKeyUsageOID.TIME_STAMPING not in usage:
                raise ValueError("its signer's certificate is not for time-stamping")
            print_ = certificate.fingerprint(hashes.SHA256()).hex()
            return Stamp(gen_time, certificate.subject.rfc4514_string(), print_)
    raise ValueError("its signature does not verify with the certificate it carries")


def _signed_by(
    certificate: x509.Certificate, signature: bytes, data: bytes, algorithm: Any
) -> bool:
    key = certificate.public_key()
    try:
        if isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, data, padding.PKCS1v15(), algorithm)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, data, ec.ECDSA(algorithm))
        else:
            return False
    except InvalidSignature:
        return False
    return True


def _check_timestamp(files: dict[str, bytes], verdict: Verdict) -> None:
    if TIMESTAMP not in files:
        verdict.notes.append("no trusted timestamp (the gateway had no TSA configured)")
        return
    try:
        stamp = check_timestamp(files[TIMESTAMP], files.get(CHECKPOINT, b""))
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
        verdict.fail(TIMESTAMP, f"not a valid timestamp of {CHECKPOINT}: {exc}")
        return
    verdict.notes.append(
        f"{CHECKPOINT} existed by {stamp.gen_time}, says the TSA {stamp.tsa} "
        f"(certificate SHA-256 {stamp.fingerprint})"
    )


# --- The checks -----------------------------------------------------------------------


def read_zip(path: str) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    with zipfile.ZipFile(path) as bundle:
        for info in bundle.infolist():
            if info.is_dir():
                continue
            if info.filename in files or info.file_size > MAX_MEMBER:
                raise ValueError(f"{info.filename}: repeated or too large a member")
            files[info.filename] = bundle.read(info)
    return files


def _json(files: dict[str, bytes], path: str, verdict: Verdict) -> Any:
    try:
        return json.loads(files[path].decode("utf-8"))
    except KeyError:
        verdict.fail(path, "missing from the bundle")
    except (UnicodeDecodeError, ValueError) as exc:
        verdict.fail(path, f"not valid JSON ({exc.__class__.__name__})")
    return None


def _keys(files: dict[str, bytes], pinned: list[str], verdict: Verdict) -> list[tuple[str, Any]]:
    if pinned:
        return [parse_key(k) for k in pinned]
    keys = []
    try:
        for line in files[KEYS].decode("ascii").splitlines():
            keys.append(parse_key(line))
    except KeyError:
        verdict.fail(KEYS, "missing: no key to check the signatures with")
    except (UnicodeDecodeError, NoteError) as exc:
        verdict.fail(KEYS, f"not the log's verifier keys: {exc}; no signature can be checked")
    return keys


def _check_manifest(
    files: dict[str, bytes], keys: list[tuple[str, Any]], verdict: Verdict
) -> dict[str, Any] | None:
    manifest = _json(files, MANIFEST, verdict)
    try:
        note = files[SIGNATURE].decode("utf-8")
        lines, signer = verify_note(note, keys)
    except KeyError:
        verdict.fail(SIGNATURE, "missing: the manifest is unsigned")
        return None
    except (UnicodeDecodeError, NoteError) as exc:
        verdict.fail(
            SIGNATURE, f"does not verify ({exc}): the list of files and hashes is not vouched for"
        )
        return None
    digest = base64.b64encode(hashlib.sha256(files.get(MANIFEST, b"")).digest()).decode()
    if len(lines) != 3 or lines[0] != FORMAT or lines[2] != digest:
        verdict.fail(
            MANIFEST, f"is not the manifest {SIGNATURE} signs: no file's hash can be trusted"
        )
        return None
    if not isinstance(manifest, dict) or lines[1] != manifest.get("reference"):
        verdict.fail(SIGNATURE, "signs another thread's manifest")
        return None
    verdict.reference = lines[1]
    verdict.notes.append(f"manifest signed by {signer}")
    return manifest


def _check_files(
    files: dict[str, bytes], manifest: dict[str, Any], verdict: Verdict
) -> dict[str, str]:
    """Every listed file has its hash; returns path -> what the file is."""
    roles: dict[str, str] = {}
    for item in manifest.get("files", []):
        path, role = item["path"], item["role"]
        roles[path] = role
        content = files.get(path)
        if content is None:
            verdict.fail(path, f"missing: {role} is not in the bundle")
        elif hashlib.sha256(content).hexdigest() != item["sha256"]:
            verdict.fail(
                path, f"its SHA-256 is not the one the signed manifest lists: {role} was changed"
            )
    for path in sorted(set(files) - set(roles) - set(UNLISTED)):
        verdict.fail(path, "not in the signed manifest: added after the export")
    return roles


def _check_checkpoint(
    files: dict[str, bytes], keys: list[tuple[str, Any]], verdict: Verdict
) -> tuple[int, bytes] | None:
    try:
        lines, signer = verify_note(files[CHECKPOINT].decode("utf-8"), keys)
        origin, size, root = checkpoint_of(lines)
    except KeyError:
        verdict.fail(CHECKPOINT, "missing: the audit entries cannot be proved")
        return None
    except (UnicodeDecodeError, NoteError) as exc:
        verdict.fail(
            CHECKPOINT, f"not a checkpoint signed by the log ({exc}): no audit entry is proved"
        )
        return None
    verdict.notes.append(f"checkpoint of {origin}: {size} entries, signed by {signer}")
    return size, root


def _check_entries(
    files: dict[str, bytes], tree: tuple[int, bytes] | None, inbound_ids: set[int], verdict: Verdict
) -> list[dict[str, Any]]:
    proofs = _json(files, ENTRIES, verdict)
    if not isinstance(proofs, dict) or tree is None:
        return []
    size, root = tree
    proved = []
    for item in proofs.get("entries", []):
        entry = item.get("entry", {})
        name = f"entry #{entry.get('seq')} ({entry.get('event')})"
        try:
            path = [_b64(h) for h in item["inclusion_path"]]
        except (KeyError, TypeError, NoteError):
            path = []
        if (
            proofs.get("tree_size") != size
            or root_from_inclusion(item.get("leaf_index", -1), size, entry_leaf(entry), path)
            != root
        ):
            verdict.fail(
                ENTRIES,
                f"{name} does not lead to the signed checkpoint's root: it is not in the log as shown",
            )
            continue
        mine = entry.get("reference") == verdict.reference or (
            entry.get("event") == "inbound.received"
            and entry.get("details", {}).get("inbound_id") in inbound_ids
        )
        if not mine:
            verdict.fail(ENTRIES, f"{name} belongs to another thread")
            continue
        proved.append(entry)
    verdict.notes.append(f"{len(proved)} audit entries proved in the checkpoint")
    return proved


def _vouched(
    message: dict[str, Any], entries: list[dict[str, Any]]
) -> tuple[int, str | None] | None:
    """The audit entry that recorded this email, and the hash it recorded (if it did)."""
    if message["direction"] == "outbound":
        event, key, wanted = "email.sent", "outbox_id", message.get("outbox_id")
    else:
        event, key, wanted = "inbound.received", "inbound_id", message.get("inbound_id")
    for entry in entries:
        details = entry.get("details") or {}
        if entry.get("event") == event and details.get(key) == wanted:
            return entry["seq"], details.get("sha256")
    return None


def _check_messages(
    files: dict[str, bytes],
    messages: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    verdict: Verdict,
) -> None:
    for message in messages:
        path = message["path"]
        content = files.get(path, b"")
        found = _vouched(message, entries)
        if found is None or found[1] is None:
            verdict.notes.append(
                f"{path}: no hash of it in the audit log (kept before the log recorded one)"
            )
        elif hashlib.sha256(content).hexdigest() != found[1]:
            verdict.fail(
                path,
                f"not the email audit entry #{found[0]} recorded as {message['direction']}: its bytes differ",
            )
    if files.get(MBOX) != mbox_of(messages, files):
        verdict.fail(
            MBOX, "is not the thread's emails in order: it differs from messages/ and messages.json"
        )
    request = next((m for m in messages if m.get("purpose") == "request"), None)
    if request is not None and request["path"] in files:
        try:
            text, html = lawyer_view(files[request["path"]])
        except Exception:  # a changed email may not parse: reported by its hash above
            text = html = b""
        if files.get(REQUEST_TEXT) != text:
            verdict.fail(
                REQUEST_TEXT, f"is not the text of the request email as relayed ({request['path']})"
            )
        if files.get(REQUEST_HTML) != html:
            verdict.fail(
                REQUEST_HTML, f"is not the HTML of the request email as relayed ({request['path']})"
            )


def _guarded(verdict: Verdict, path: str, check: Callable[[], None]) -> None:
    """Run one check; a file so changed that it breaks the check's reading is named."""
    try:
        check()
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        verdict.fail(
            path, f"not in the shape the bundle writes ({type(exc).__name__}): it was changed"
        )


def verify_files(files: dict[str, bytes], pinned: list[str] | None = None) -> Verdict:
    """Every check, over a bundle's files (path -> bytes)."""
    verdict = Verdict()
    try:
        keys = _keys(files, pinned or [], verdict)
    except NoteError as exc:
        verdict.fail("--key", str(exc))
        return verdict
    manifest: dict[str, Any] | None = None

    def signed() -> None:
        nonlocal manifest
        manifest = _check_manifest(files, keys, verdict)

    _guarded(verdict, MANIFEST, signed)
    if manifest is None:
        return verdict
    listed: dict[str, Any] = manifest
    _guarded(verdict, MANIFEST, lambda: _check_files(files, listed, verdict))
    tree = _check_checkpoint(files, keys, verdict)
    index = _json(files, MESSAGES, verdict)
    messages = index if isinstance(index, list) else []
    entries: list[dict[str, Any]] = []

    def proofs() -> None:
        inbound = {m.get("inbound_id") for m in messages if m.get("direction") == "inbound"}
        entries.extend(_check_entries(files, tree, inbound, verdict))

    _guarded(verdict, ENTRIES, proofs)
    _guarded(verdict, MESSAGES, lambda: _check_messages(files, messages, entries, verdict))
    thread = _json(files, THREAD, verdict)

    def senders() -> None:
        if isinstance(thread, dict) and files.get(SENDERS) != json_bytes(senders_of(thread)):
            verdict.fail(SENDERS, f"is not how {THREAD} records each reply's sender")

    _guarded(verdict, THREAD, senders)
    _check_timestamp(files, verdict)
    return verdict


def verify_zip(path: str, pinned: list[str] | None = None) -> Verdict:
    try:
        files = read_zip(path)
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        verdict = Verdict()
        verdict.fail(path, f"not a readable bundle: {exc}")
        return verdict
    return verify_files(files, pinned)


def print_verdict(verdict: Verdict) -> None:
    for note in verdict.notes:
        print(f"note: {note}")
    for problem in verdict.problems:
        print(f"FAILED {problem.describe()}")
    if verdict.ok:
        print(f"OK: the evidence of {verdict.reference} is whole and proved by the audit log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check an hfa-gateway evidence bundle offline.")
    parser.add_argument("bundle", help="the bundle (.zip)")
    parser.add_argument(
        "--key",
        action="append",
        help="the log's verifier key (name+hash+key) to trust instead of keys.txt",
    )
    args = parser.parse_args(argv)
    verdict = verify_zip(args.bundle, args.key)
    print_verdict(verdict)
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
