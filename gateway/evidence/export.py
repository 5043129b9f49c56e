"""``hfa evidence export``'s work: settle, collect, build, write; and the verifier's entry."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from gateway import contract
from gateway.clock import Clock
from gateway.errors import ConfigError, NotFound, NotProvable
from gateway.evidence import collect, report
from gateway.evidence import verifier as check
from gateway.evidence.bundle import Bundle, build
from gateway.evidence.timestamps import stamp_checkpoint
from gateway.outbound import witnesses
from gateway.settings.config import Config
from gateway.store import audit_origin, signing
from gateway.store.audit import AuditLog
from gateway.store.audit_mac import EntryMacs
from gateway.store.db import Database
from gateway.tokens import load_or_create_keys

ATTEMPTS = 3


@dataclass(frozen=True)
class Exported:
    path: Path
    bundle: Bundle
    entries: int
    emails: int
    unsent: int


def entry_macs(config: Config) -> EntryMacs:
    """What signs this process's audit entries as the gateway's: the gateway's secret keys."""
    return EntryMacs(load_or_create_keys(config.secret_keys, config.data_dir))


def export(
    config: Config,
    db: Database,
    clock: Clock,
    reference: str,
    out: Path,
    *,
    pdf: bool = True,
    actor: str = "ops",
) -> Exported:
    """Write REFERENCE's bundle to ``out``; NotFound, NotProvable or ConfigError say why not.

    The export is audited on the thread (``evidence.exported``, with the manifest's hash),
    so the log says who handed out which bundle; the next bundle carries that entry.
    """
    number = contract.number_from_reference(reference)
    if number is None:
        raise NotFound(f"not a reference (HFA-00042 is one): {reference!r}")
    reference = contract.reference_for(number)
    with db.read_only() as session:
        # Named as the log is, whatever the HTTP settings say; refused if not the log's key.
        keys = audit_origin.log_keys(session, config.raw, config.data_dir, create=False)
    collected = _collected(db, keys, config, reference, clock)
    # keys.txt and manifest.sig name the key as the bundle's checkpoint does.
    keys = keys.named(audit_origin.origin_of(collected.checkpoint))
    stamps = stamp_checkpoint(config, collected.checkpoint)
    policy = policy_text(keys, witnesses.policy_of(config.raw))
    extra = [*stamps, (check.POLICY, policy, "the witness policy (tlog-policy)")]
    bundle = build(
        collected,
        keys,
        exported_at=clock.now(),
        render=report.render,
        pdf=report.print_to_pdf if pdf else None,
        extra=extra,
    )
    try:
        out.write_bytes(bundle.zipped(clock.now()))
    except OSError as exc:
        raise ConfigError(f"-o: cannot write {out}: {exc}") from None
    with db.transaction() as session:
        AuditLog(None, entry_macs(config)).append(
            session,
            "evidence.exported",
            at=clock.now(),
            actor=actor,
            reference=reference,
            details={
                "manifest_sha256": hashlib.sha256(bundle.files[check.MANIFEST]).hexdigest(),
                "files": len(bundle.files),
                "timestamped": bool(stamps),
            },
        )
    return Exported(out, bundle, len(collected.entries), len(collected.emails), collected.unsent)


def policy_text(keys: signing.LogKeys, policy: witnesses.Policy) -> bytes:
    """The C2SP tlog-policy a bundle's checkpoint is judged witnessed by: the log's keys,
    the witnesses named, and how many of them must cosign."""
    lines = [f"log {vkey}" for vkey in keys.verifier_keys()]
    for target in policy.targets:
        lines.append(f"witness {target.cosigner.name} {target.cosigner.vkey()} {target.url}")
    if policy.targets:
        names = " ".join(t.cosigner.name for t in policy.targets)
        lines += [f"group witnesses {policy.quorum} {names}", "quorum witnesses"]
    else:
        lines.append("quorum none")
    return ("\n".join(lines) + "\n").encode()


def _collected(
    db: Database, keys: signing.LogKeys, config: Config, reference: str, clock: Clock
) -> collect.Collected:
    """The thread once a checkpoint covers its entries; an entry written meanwhile (a reply
    arriving during the export) is waited for too. The gateway's emails left with its
    MAIL FROM as their envelope sender."""
    mirror, sender = config.data_dir / "audit.jsonl", config.mail_from
    witnessed = bool(witnesses.policy_of(config.raw).targets)
    for attempt in range(ATTEMPTS):
        collect.settle(db, keys, mirror, reference, clock.now, macs=entry_macs(config))
        try:
            with db.read_only() as session:
                return collect.collect(session, reference, sender, witnessed=witnessed)
        except NotProvable:
            if attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def verify(
    path: Path, keys: list[str] | None = None, max_bytes: int = check.MAX_BYTES
) -> check.Verdict:
    """A bundle's zip, or a bundle unzipped into a folder, checked within the same bounds."""
    return check.verify_path(str(path), keys, max_bytes)
