"""Every check of a bundle, over its files; each problem names the file it is in."""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from collections.abc import Callable, Mapping
from typing import Any

from .archive import InMemory, Members, Reader, Refused, Zipped
from .derived import json_bytes, lawyer_view, mbox_entry, senders_of
from .layout import (
    CHECKPOINT,
    ENTRIES,
    FORMAT,
    KEYS,
    MANIFEST,
    MAX_BYTES,
    MAX_NOTE,
    MAX_STAMP,
    MBOX,
    MESSAGES,
    REQUEST_HTML,
    REQUEST_TEXT,
    SENDERS,
    SIGNATURE,
    THREAD,
    TIMESTAMP,
    UNLISTED,
    Verdict,
)
from .proofs import (
    NoteError,
    checkpoint_of,
    entry_leaf,
    parse_key,
    root_from_inclusion,
    strict_b64,
    verify_note,
)
from .stamps import check_timestamp
from .tlogproof import check_proofs
from .witnessed import check_witnesses


def _check_timestamp(files: Reader, verdict: Verdict) -> None:
    if TIMESTAMP not in files:
        verdict.notes.append("no trusted timestamp (the gateway had no TSA configured)")
        return
    try:
        stamp = check_timestamp(
            files.whole(TIMESTAMP, MAX_STAMP), files.whole(CHECKPOINT, MAX_NOTE)
        )
    except Exception as exc:  # untrusted DER: whatever it breaks in the reading, it is no stamp
        verdict.fail(TIMESTAMP, f"not a valid timestamp of {CHECKPOINT}: {exc}")
        return
    verdict.notes.append(
        f"{CHECKPOINT} existed by {stamp.gen_time}, says the TSA {stamp.tsa} "
        f"(certificate SHA-256 {stamp.fingerprint})"
    )


# --- The checks -----------------------------------------------------------------------


def read_zip(path: str, max_bytes: int = MAX_BYTES) -> dict[str, bytes]:
    """Every member of a bundle, in memory (within the same bounds as the checks)."""
    with Zipped(path, max_bytes) as members:
        return {name: b"".join(members.chunks(name)) for name in members.names()}


def _json(files: Reader, path: str, verdict: Verdict) -> Any:
    if path in files.changed:
        # Named by its hash already; what is not the signed file is not parsed.
        return None
    try:
        return json.loads(files.whole(path).decode("utf-8"))
    except KeyError:
        verdict.fail(path, "missing from the bundle")
    except Refused as exc:
        verdict.fail(path, f"not read: {exc}")
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        verdict.fail(path, f"not valid JSON ({exc.__class__.__name__})")
    return None


def _keys(files: Reader, pinned: list[str], verdict: Verdict) -> list[tuple[str, Any]]:
    if pinned:
        return [parse_key(k) for k in pinned]
    keys = []
    try:
        for line in files.whole(KEYS, MAX_NOTE).decode("ascii").splitlines():
            keys.append(parse_key(line))
    except KeyError:
        verdict.fail(KEYS, "missing: no key to check the signatures with")
    except (UnicodeDecodeError, NoteError, Refused) as exc:
        verdict.fail(KEYS, f"not the log's verifier keys: {exc}; no signature can be checked")
    return keys


def _check_manifest(
    files: Reader, keys: list[tuple[str, Any]], verdict: Verdict
) -> dict[str, Any] | None:
    """The manifest, once its signature and then its hash are checked; parsed only then."""
    try:
        note = files.whole(SIGNATURE, MAX_NOTE).decode("utf-8")
        lines, signer = verify_note(note, keys)
    except KeyError:
        verdict.fail(SIGNATURE, "missing: the manifest is unsigned")
        return None
    except (UnicodeDecodeError, NoteError, Refused) as exc:
        verdict.fail(
            SIGNATURE, f"does not verify ({exc}): the list of files and hashes is not vouched for"
        )
        return None
    try:
        files.admit(MANIFEST)
    except KeyError:
        verdict.fail(MANIFEST, "missing from the bundle")
        return None
    except Refused as exc:
        verdict.fail(MANIFEST, f"not read: {exc}")
        return None
    digest = base64.b64encode(bytes.fromhex(files.sha256(MANIFEST))).decode()
    if len(lines) != 3 or lines[0] != FORMAT or lines[2] != digest:
        verdict.fail(
            MANIFEST, f"is not the manifest {SIGNATURE} signs: no file's hash can be trusted"
        )
        return None
    manifest = _json(files, MANIFEST, verdict)
    if not isinstance(manifest, dict) or lines[1] != manifest.get("reference"):
        verdict.fail(SIGNATURE, "signs another thread's manifest")
        return None
    verdict.reference = lines[1]
    verdict.notes.append(f"manifest signed by {signer}")
    return manifest


def _check_files(files: Reader, manifest: dict[str, Any], verdict: Verdict) -> dict[str, str]:
    """Every listed file has its hash; returns path -> what the file is."""
    roles: dict[str, str] = {}
    for item in manifest.get("files", []):
        path, role = item["path"], item["role"]
        roles[path] = role
        if path not in files:
            verdict.fail(path, f"missing: {role} is not in the bundle")
        elif files.sha256(path) != item["sha256"]:
            files.changed.add(path)
            verdict.fail(
                path, f"its SHA-256 is not the one the signed manifest lists: {role} was changed"
            )
    for path in sorted(files.present - set(roles) - set(UNLISTED)):
        verdict.fail(path, "not in the signed manifest: added after the export")
    return roles


# Alike in shape to _check_manifest (a signed note read, its failures said), kept apart:
# each judges its own file, parses what it vouches for inside the same try, and says in
# its own words what the bundle loses when it fails.
def _check_checkpoint(
    files: Reader, keys: list[tuple[str, Any]], verdict: Verdict
) -> tuple[int, bytes] | None:
    try:
        lines, signer = verify_note(files.whole(CHECKPOINT, MAX_NOTE).decode("utf-8"), keys)
        origin, size, root = checkpoint_of(lines)
    except KeyError:
        verdict.fail(CHECKPOINT, "missing: the audit entries cannot be proved")
        return None
    except (UnicodeDecodeError, NoteError, Refused) as exc:
        verdict.fail(
            CHECKPOINT, f"not a checkpoint signed by the log ({exc}): no audit entry is proved"
        )
        return None
    verdict.notes.append(f"checkpoint of {origin}: {size} entries, signed by {signer}")
    return size, root


def _check_entries(
    proofs: Any, tree: tuple[int, bytes] | None, inbound_ids: set[int], verdict: Verdict
) -> list[dict[str, Any]]:
    """The entries of ``audit/entries.json`` (``proofs``, parsed) proved in the checkpoint."""
    if not isinstance(proofs, dict) or tree is None:
        return []
    size, root = tree
    proved = []
    for item in proofs.get("entries", []):
        entry = item.get("entry", {})
        name = f"entry #{entry.get('seq')} ({entry.get('event')})"
        try:
            path = [strict_b64(h) for h in item["inclusion_path"]]
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


def _check_mbox(files: Reader, messages: list[dict[str, Any]], verdict: Verdict) -> None:
    """The mbox against the emails, one email at a time: hashed, never held whole."""
    rebuilt = hashlib.sha256()
    for message in messages:
        path = message["path"]
        rebuilt.update(mbox_entry(message, files.email(path)))
    if MBOX not in files or files.sha256(MBOX) != rebuilt.hexdigest():
        verdict.fail(
            MBOX, "is not the thread's emails in order: it differs from messages/ and messages.json"
        )


def _check_request(files: Reader, messages: list[dict[str, Any]], verdict: Verdict) -> None:
    request = next((m for m in messages if m.get("purpose") == "request"), None)
    if request is None or request["path"] not in files:
        return
    try:
        text, html = lawyer_view(files.whole(request["path"]))
    except Exception:  # a changed email may not parse: reported by its hash
        text = html = b""
    if files.get(REQUEST_TEXT) != text:
        verdict.fail(
            REQUEST_TEXT, f"is not the text of the request email as relayed ({request['path']})"
        )
    if files.get(REQUEST_HTML) != html:
        verdict.fail(
            REQUEST_HTML, f"is not the HTML of the request email as relayed ({request['path']})"
        )


def _check_messages(
    files: Reader,
    messages: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    verdict: Verdict,
) -> None:
    for message in messages:
        path = message["path"]
        found = _vouched(message, entries)
        if found is None or found[1] is None:
            verdict.notes.append(
                f"{path}: no hash of it in the audit log (kept before the log recorded one)"
            )
        elif path not in files or files.sha256(path) != found[1]:
            verdict.fail(
                path,
                f"not the email audit entry #{found[0]} recorded as {message['direction']}: its bytes differ",
            )
    _check_mbox(files, messages, verdict)
    _check_request(files, messages, verdict)


def _guarded(verdict: Verdict, path: str, check: Callable[[], None]) -> None:
    """Run one check; a file so changed that it breaks the check's reading is named."""
    try:
        check()
    except Refused as exc:
        verdict.fail(path, f"not checked: a file it needs is {exc}")
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        verdict.fail(
            path, f"not in the shape the bundle writes ({type(exc).__name__}): it was changed"
        )


def verify_files(files: Mapping[str, bytes], pinned: list[str] | None = None) -> Verdict:
    """Every check, over a bundle's files (path -> bytes)."""
    return verify_members(InMemory(files), pinned)


def verify_members(
    members: Members, pinned: list[str] | None = None, max_bytes: int | None = None
) -> Verdict:
    """Every check, over a bundle's members; with ``max_bytes``, what is parsed is bounded."""
    files = Reader(members, max_bytes)
    verdict = Verdict()
    try:
        keys = _keys(files, pinned or [], verdict)
    except NoteError as exc:
        verdict.fail("--key", str(exc))
        return verdict
    if not keys:
        return verdict
    manifest: dict[str, Any] | None = None

    def signed() -> None:
        nonlocal manifest
        manifest = _check_manifest(files, keys, verdict)

    _guarded(verdict, MANIFEST, signed)
    if manifest is None:
        return verdict
    listed: dict[str, Any] = manifest

    def listed_files() -> None:
        _check_files(files, listed, verdict)

    _guarded(verdict, MANIFEST, listed_files)
    tree = _check_checkpoint(files, keys, verdict)
    index = _json(files, MESSAGES, verdict)
    messages = index if isinstance(index, list) else []
    entries: list[dict[str, Any]] = []
    listed_entries = _json(files, ENTRIES, verdict)

    def proofs() -> None:
        inbound = {m.get("inbound_id") for m in messages if m.get("direction") == "inbound"}
        entries.extend(_check_entries(listed_entries, tree, inbound, verdict))

    _guarded(verdict, ENTRIES, proofs)
    _guarded(verdict, ENTRIES, lambda: check_proofs(files, listed_entries, keys, verdict))
    check_witnesses(files, verdict)
    _guarded(verdict, MESSAGES, lambda: _check_messages(files, messages, entries, verdict))
    thread = _json(files, THREAD, verdict)

    def senders() -> None:
        if isinstance(thread, dict) and files.get(SENDERS) != json_bytes(senders_of(thread)):
            verdict.fail(SENDERS, f"is not how {THREAD} records each reply's sender")

    _guarded(verdict, THREAD, senders)
    _guarded(verdict, TIMESTAMP, lambda: _check_timestamp(files, verdict))
    return verdict


def verify_zip(path: str, pinned: list[str] | None = None, max_bytes: int = MAX_BYTES) -> Verdict:
    """Every check of a bundle (.zip), refused in one sentence if it is past the bounds."""
    try:
        with Zipped(path, max_bytes) as members:
            return verify_members(members, pinned, max_bytes)
    except (OSError, Refused, zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        verdict = Verdict()
        verdict.fail(path, f"not a readable bundle: {exc}")
        return verdict
