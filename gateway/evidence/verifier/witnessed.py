"""Whether the bundle's checkpoint is witnessed: its cosignatures against ``audit/policy.txt``.

The policy is a C2SP ``tlog-policy`` file: ``log <vkey>`` lines, ``witness <name> <vkey>
[<url>]`` lines, ``group <name> <n|all|any> <member>...`` lines over witnesses and groups
defined before, and one ``quorum <name|none>`` line. A witness has cosigned when
``checkpoint.txt`` carries its C2SP tlog-cosignature (Ed25519, type 0x04: key ID
SHA-256(name || 0x0A || 0x04 || key)[:4], then a big-endian u64 timestamp and the
signature over ``cosignature/v1``, ``time <t>`` and the checkpoint's body). A cosignature
of a policy's witness that does not verify is a problem; a quorum not met is said, not
failed: the checkpoint stays signed by the log.
"""

from __future__ import annotations

import hashlib
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .archive import Reader, Refused
from .layout import CHECKPOINT, DASH, MAX_NOTE, Verdict
from .proofs import NoteError, strict_b64

POLICY = "audit/policy.txt"
COSIGNATURE = 4


def _witness_key(text: str) -> tuple[str, Ed25519PublicKey, bytes]:
    name, _, rest = text.partition("+")
    id_hex, _, encoded = rest.partition("+")
    raw = strict_b64(encoded)
    if not name or len(raw) != 33 or raw[0] != COSIGNATURE:
        raise NoteError(f"not a witness's Ed25519 cosignature key: {text[:80]!r}")
    key = Ed25519PublicKey.from_public_bytes(raw[1:])
    key_id = hashlib.sha256(
        name.encode()
        + b"\n"
        + bytes([COSIGNATURE])
        + key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    ).digest()[:4]
    if key_id.hex() != id_hex:
        raise NoteError(f"the witness key's ID does not match its name and key: {text[:80]!r}")
    return name, key, key_id


def parse_policy(text: str) -> tuple[dict[str, Any], str]:
    """Witness keys and groups by name, and the quorum's name ('none' for no witness)."""
    named: dict[str, Any] = {}
    quorum = ""
    for raw_line in text.splitlines():
        words = raw_line.split()
        if not words or words[0].startswith("#") or words[0] == "log":
            continue
        if words[0] == "witness" and len(words) in (3, 4):
            named[words[1]] = _witness_key(words[2])
        elif words[0] == "group" and len(words) >= 4 and all(m in named for m in words[3:]):
            named[words[1]] = (words[2], words[3:])
        elif words[0] == "quorum" and len(words) == 2 and (words[1] in named or words[1] == "none"):
            quorum = words[1]
        else:
            raise NoteError(f"not a policy line: {raw_line[:80]!r}")
    if not quorum:
        raise NoteError("the policy has no quorum line")
    return named, quorum


def _cosigned(note: str, name: str, key: Ed25519PublicKey, key_id: bytes) -> bool:
    body, _, signatures = note.partition("\n\n")
    for line in signatures.splitlines():
        dash, _, rest = line.partition(" ")
        signer, _, blob_text = rest.partition(" ")
        if dash != DASH or signer != name:
            continue
        blob = strict_b64(blob_text)
        if blob[:4] != key_id:
            continue
        if len(blob) != 76:
            raise NoteError(f"the cosignature of {name} is not a timestamp and a signature")
        stamp = int.from_bytes(blob[4:12], "big")
        try:
            key.verify(blob[12:], f"cosignature/v1\ntime {stamp}\n{body}\n".encode())
        except InvalidSignature as exc:
            raise NoteError(f"the cosignature of {name} does not verify") from exc
        return True
    return False


def _met(name: str, named: dict[str, Any], cosigned: set[str]) -> bool:
    item = named[name]
    if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[1], list):
        return name in cosigned
    threshold, members = item
    count = sum(_met(m, named, cosigned) for m in members)
    need = {"all": len(members), "any": 1}.get(threshold)
    return count >= (need if need is not None else int(threshold))


def check_witnesses(files: Reader, verdict: Verdict) -> None:
    if POLICY not in files:
        verdict.notes.append("no witness policy (a bundle of an earlier release)")
        return
    try:
        named, quorum = parse_policy(files.whole(POLICY, MAX_NOTE).decode("utf-8"))
        note = files.whole(CHECKPOINT, MAX_NOTE).decode("utf-8")
        cosigned = {
            n for n, v in named.items() if not isinstance(v[1], list) and _cosigned(note, *v)
        }
    except (UnicodeDecodeError, KeyError, ValueError, NoteError, Refused) as exc:
        verdict.fail(POLICY, f"the checkpoint's cosignatures cannot be checked: {exc}")
        return
    if quorum == "none":
        verdict.notes.append("the policy asks for no witness")
    elif _met(quorum, named, cosigned):
        verdict.notes.append(f"witnessed: cosigned by {', '.join(sorted(cosigned))} ({quorum})")
    else:
        who = ", ".join(sorted(cosigned)) or "no witness"
        verdict.notes.append(f"NOT witnessed by the policy's quorum {quorum}: cosigned by {who}")
