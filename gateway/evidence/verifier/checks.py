"""Every check of a bundle, over its files; each problem names the file it is in."""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from collections.abc import Callable
from typing import Any

from .derived import json_bytes, lawyer_view, mbox_of, senders_of
from .layout import (
    CHECKPOINT,
    ENTRIES,
    FORMAT,
    KEYS,
    MANIFEST,
    MAX_MEMBER,
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


def _check_timestamp(files: dict[str, bytes], verdict: Verdict) -> None:
    if TIMESTAMP not in files:
        verdict.notes.append("no trusted timestamp (the gateway had no TSA configured)")
        return
    try:
        stamp = check_timestamp(files[TIMESTAMP], files.get(CHECKPOINT, b""))
    except Exception as exc:  # untrusted DER: whatever it breaks in the reading, it is no stamp
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

    def listed_files() -> None:
        _check_files(files, listed, verdict)

    _guarded(verdict, MANIFEST, listed_files)
    tree = _check_checkpoint(files, keys, verdict)
    index = _json(files, MESSAGES, verdict)
    messages = index if isinstance(index, list) else []
    entries: list[dict[str, Any]] = []

    def proofs() -> None:
        inbound = {m.get("inbound_id") for m in messages if m.get("direction") == "inbound"}
        entries.extend(_check_entries(files, tree, inbound, verdict))

    _guarded(verdict, ENTRIES, proofs)
    _guarded(verdict, ENTRIES, lambda: check_proofs(files, keys, verdict))
    check_witnesses(files, verdict)
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
