"""Witnesses: the leading sequencer has each new checkpoint cosigned (C2SP tlog-witness).

``HFA_AUDIT_WITNESSES`` names them, comma-separated, each as ``<cosignature vkey>
<submission URL prefix>``. Every ``HFA_AUDIT_WITNESS_SECONDS`` the leader sends the
newest checkpoint to each witness (``POST <prefix>/add-checkpoint``) with a consistency
proof from the size that witness cosigned last (0 the first time); a 409 names the
witness's size, and the request is proved again from there, once. The cosignatures that
verify are kept; when ``HFA_AUDIT_WITNESS_QUORUM`` of them (0: every witness) cosigned
one checkpoint, it becomes the one ``GET /audit/checkpoint`` serves. Each witness's
last size, success and error are kept for ``hfa health`` and the metrics.

This runs beside the sequencer, never in its way: the calls have a timeout, a witness
that is down only leaves the cosigned checkpoint behind, and no agent or lawyer waits
for any of it.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from gateway.clock import iso
from gateway.errors import CheckpointError, ConfigError
from gateway.runner import Runner
from gateway.services import Services
from gateway.store import audit_check, audit_origin, audit_proof, state, witness_report
from gateway.store import checkpoint as notes
from gateway.store.cosign import Cosigner, parse_vkey, verify_line

log = logging.getLogger(__name__)

# {witness name: {"size", "at", "ok_at", "error"}}: what each witness cosigned last.
WITNESSES = witness_report.WITNESSES
COSIGNED = witness_report.COSIGNED
TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Target:
    cosigner: Cosigner
    url: str


@dataclass(frozen=True)
class Policy:
    targets: tuple[Target, ...]
    quorum: int
    seconds: float


def policy_of(raw: Mapping[str, str]) -> Policy:
    """The witnesses and quorum the settings name; ConfigError naming the setting."""
    targets = []
    for part in raw.get("audit_witnesses", "").split(","):
        if not part.strip():
            continue
        vkey, _, url = part.strip().partition(" ")
        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"HFA_AUDIT_WITNESSES: expected '<vkey> <http(s) URL>', got {part!r}")
        try:
            targets.append(Target(parse_vkey(vkey), url))
        except CheckpointError as exc:
            raise ConfigError(f"HFA_AUDIT_WITNESSES: {exc}") from None
    quorum_text = raw.get("audit_witness_quorum", "0").strip() or "0"
    seconds_text = raw.get("audit_witness_seconds", "5").strip() or "5"
    try:
        quorum, seconds = int(quorum_text), float(seconds_text)
    except ValueError:
        quorum, seconds = -1, 0.0
    if not 0 <= quorum <= len(targets):
        raise ConfigError(
            f"HFA_AUDIT_WITNESS_QUORUM: expected 0 (every witness) to {len(targets)}, "
            f"got {quorum_text!r}"
        )
    if not 0 < seconds <= 3600:
        raise ConfigError(
            f"HFA_AUDIT_WITNESS_SECONDS: expected 0 < seconds <= 3600, got {seconds_text!r}"
        )
    return Policy(tuple(targets), quorum or len(targets), seconds)


def _request_body(old: int, proof: list[bytes], note: str) -> str:
    lines = [f"old {old}", *(base64.b64encode(h).decode() for h in proof)]
    return "\n".join(lines) + "\n\n" + note


def _proof(services: Services, old: int, size: int) -> list[bytes]:
    if old in (0, size):
        return []
    with services.db.read_only() as session:
        return audit_proof.consistency(session, old, size)


Proofs = dict[int, "asyncio.Future[list[bytes]]"]


async def _proved(services: Services, proofs: Proofs, old: int, size: int) -> list[bytes]:
    """The proof from ``old`` to ``size``, computed once for the witnesses that hold ``old``
    (it reads every leaf hash up to ``size``)."""
    if old not in proofs:
        proofs[old] = asyncio.ensure_future(services.db.run(_proof, services, old, size))
    return await proofs[old]


async def submit(
    services: Services,
    client: Any,
    target: Target,
    note: str,
    old: int,
    proofs: Proofs | None = None,
) -> tuple[int, str | None, str | None]:
    """(the witness's size now, its cosignature line or None, an error or None)."""
    checkpoint, _ = notes.parse(note)
    shared: Proofs = {} if proofs is None else proofs
    for attempt in (1, 2):
        if old > checkpoint.size:
            return old, None, f"the witness holds size {old}, past this log's {checkpoint.size}"
        proof = await _proved(services, shared, old, checkpoint.size)
        try:
            response = await client.post(
                f"{target.url}/add-checkpoint", content=_request_body(old, proof, note).encode()
            )
        except Exception as exc:
            return old, None, f"{target.url}: {exc.__class__.__name__}: {exc}"[:300]
        text = response.text
        if response.status_code == 409 and attempt == 1 and text.strip().isdigit():
            old = int(text.strip())
            continue
        if response.status_code != 200:
            return old, None, f"{target.url}: {response.status_code} {text.strip()[:200]}"
        body = checkpoint.body()
        for line in text.splitlines():
            try:
                if verify_line(body, line, target.cosigner) is not None:
                    return checkpoint.size, line + "\n", None
            except CheckpointError as exc:
                return old, None, str(exc)
        return old, None, f"{target.url}: no cosignature of {target.cosigner.name} in its answer"
    raise AssertionError("unreachable")


def _newest(services: Services) -> tuple[str | None, dict[str, Any]]:
    with services.db.read_only() as session:
        return audit_origin.newest_note(session), state.get(session, WITNESSES) or {}


def _held(known: dict[str, Any], target: Target) -> int:
    """The size the witness cosigned last, as this log heard it (0 the first time)."""
    return int(known.get(target.cosigner.name, {}).get("size", 0))


def _record(services: Services, report: dict[str, Any], cosigned: dict[str, Any] | None) -> None:
    now = services.clock.now()
    with services.db.transaction() as session:
        state.put(session, WITNESSES, report, now)
        if cosigned is not None:
            state.put(session, COSIGNED, cosigned, now)


async def witness_round(services: Services, policy: Policy, client: Any) -> tuple[int, int]:
    """Send the newest checkpoint to every witness: its size, and how many cosigned it."""
    note, known = await services.db.run(_newest, services)
    if note is None:
        return 0, 0
    proofs: Proofs = {}
    results = await asyncio.gather(
        *(submit(services, client, t, note, _held(known, t), proofs) for t in policy.targets)
    )
    at = iso(services.clock.now())
    report: dict[str, Any] = {}
    lines = []
    for target, (size, line, error) in zip(policy.targets, results, strict=True):
        before = known.get(target.cosigner.name, {})
        report[target.cosigner.name] = {
            "size": size,
            "at": at,
            "ok_at": at if line else before.get("ok_at"),
            "error": error,
        }
        if line:
            lines.append(line)
        else:
            log.warning("witness %s did not cosign: %s", target.cosigner.name, error)
    checkpoint, _ = notes.parse(note)
    cosigned = {"size": checkpoint.size, "note": note + "".join(lines)}
    enough = len(lines) >= policy.quorum
    await services.db.run(_record, services, report, cosigned if enough else None)
    return checkpoint.size, len(lines)


async def run_witnesses(
    services: Services, policy: Policy, leading: Callable[[], bool], stop: asyncio.Event
) -> None:
    """Until ``stop``: while this process leads the sequencer, a round every interval for a
    checkpoint not every witness has cosigned yet."""
    # Imported here, as the webhook deliverer does: a worker without witnesses never
    # loads the HTTP client.
    import httpx

    done = -1

    async def round_if_due(client: httpx.AsyncClient) -> None:
        nonlocal done
        if not leading():
            return
        newest = await services.db.run(_newest_size, services)
        if newest != done:
            size, count = await witness_round(services, policy, client)
            done = size if count == len(policy.targets) else -1

    async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False) as client:
        failure = "witness round failed; trying again"
        rounds = partial(round_if_due, client)
        await Runner(failure, policy.seconds, iteration=rounds, logger=log).run(stop)


def _newest_size(services: Services) -> int:
    with services.db.read_only() as session:
        return audit_check.tree_size(session)


def cosigned_note(services: Services) -> str | None:
    """The newest checkpoint a quorum of witnesses cosigned, with their cosignatures."""
    with services.db.read_only() as session:
        kept = state.get(session, COSIGNED)
    return str(kept["note"]) if kept else None
