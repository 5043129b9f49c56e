"""C2SP ``tlog-proof`` files: one per audit entry of the bundle, each checkable on its own.

A ``.tlog-proof`` holds, one item a line: ``c2sp.org/tlog-proof@v1``, ``extra`` and
the base64 of the entry's leaf bytes (its canonical JSON, so the leaf hash is
recomputed from the file alone), ``index`` and the entry's leaf index, the inclusion
path (base64, leaf side first), a blank line, and the signed checkpoint verbatim. Any
C2SP verifier (Go's ``sumdb/tlog``: ``RecordHash`` of the extra bytes, ``CheckRecord``)
checks it with the log's verifier key; here each one must also be the proof of the
entry ``audit/entries.json`` lists at that index.
"""

from __future__ import annotations

import base64
from typing import Any

from .archive import Reader, Refused
from .layout import ENTRIES, Verdict
from .proofs import (
    NoteError,
    canonical,
    checkpoint_of,
    leaf_hash,
    root_from_inclusion,
    strict_b64,
    verify_note,
)

HEADER = "c2sp.org/tlog-proof@v1"
FOLDER = "audit/proofs/"
SUFFIX = ".tlog-proof"


def proof_path(leaf_index: int) -> str:
    return f"{FOLDER}{leaf_index}{SUFFIX}"


def tlog_proof(leaf_data: bytes, index: int, path: list[bytes], checkpoint: str) -> str:
    lines = [HEADER, "extra " + base64.b64encode(leaf_data).decode(), f"index {index}"]
    lines += [base64.b64encode(h).decode() for h in path]
    return "\n".join(lines) + "\n\n" + checkpoint


def parse(text: str) -> tuple[bytes | None, int, list[bytes], str]:
    """The extra bytes, the index, the inclusion path and the checkpoint; NoteError if not."""
    head, sep, checkpoint = text.partition("\n\n")
    lines = head.split("\n")
    if not sep or lines[0] != HEADER:
        raise NoteError(f"not a tlog-proof: it starts {lines[0][:40]!r}, not {HEADER}")
    lines = lines[1:]
    extra = None
    if lines and lines[0].startswith("extra "):
        extra = strict_b64(lines.pop(0).removeprefix("extra "))
    if not lines or not lines[0].startswith("index "):
        raise NoteError("no 'index N' line")
    index_text = lines.pop(0).removeprefix("index ")
    if not index_text.isascii() or not index_text.isdigit() or index_text != str(int(index_text)):
        raise NoteError("the index is not a decimal without leading zeros")
    path = [strict_b64(line) for line in lines]
    if any(len(h) != 32 for h in path):
        raise NoteError("an inclusion path hash is not 32 bytes")
    return extra, int(index_text), path, checkpoint


def check_one(text: str, keys: list[tuple[str, Any]]) -> tuple[int, bytes]:
    """Whether the proof stands alone: signed checkpoint, extra bytes proved at the index."""
    extra, index, path, checkpoint = parse(text)
    lines, _signer = verify_note(checkpoint, keys)
    _origin, size, root = checkpoint_of(lines)
    if extra is None:
        raise NoteError("no extra line: the entry's bytes are not in the proof")
    if root_from_inclusion(index, size, leaf_hash(extra), path) != root:
        raise NoteError(f"entry {index} does not lead to the checkpoint's root")
    return index, extra


def _listed(listed: Any) -> list[Any]:
    """The entries of entries.json, parsed (its own check names what is wrong with it)."""
    entries = listed.get("entries", []) if isinstance(listed, dict) else []
    return [item for item in entries if isinstance(item, dict)] if isinstance(entries, list) else []


def check_proofs(files: Reader, listed: Any, keys: list[tuple[str, Any]], verdict: Verdict) -> None:
    """Every ``.tlog-proof`` stands alone, and each entry of entries.json (``listed``,
    parsed) has its own. Each is read whole, within the budget of what is parsed."""
    found = sorted(p for p in files.present if p.startswith(FOLDER) and p.endswith(SUFFIX))
    if not found:
        verdict.notes.append("no .tlog-proof files (a bundle of an earlier release)")
        return
    proved: dict[int, bytes] = {}
    for path in found:
        try:
            index, extra = check_one(files.whole(path).decode("utf-8"), keys)
        except (UnicodeDecodeError, NoteError, Refused) as exc:
            verdict.fail(path, f"not a tlog-proof of the log ({exc})")
            continue
        if path != proof_path(index):
            verdict.fail(path, f"proves entry {index}, not the one its name says")
            continue
        proved[index] = extra
    for item in _listed(listed):
        index, entry = item.get("leaf_index"), item.get("entry", {})
        leaf = {k: v for k, v in entry.items() if k not in ("leaf_index", "leaf_hash")}
        if not isinstance(index, int) or proved.get(index) != canonical(leaf):
            verdict.fail(
                proof_path(index if isinstance(index, int) else -1),
                (f"missing, or not the proof of the entry {ENTRIES} lists at leaf {index}"),
            )
    verdict.notes.append(f"{len(proved)} .tlog-proof files verified on their own")
