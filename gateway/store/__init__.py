"""The record: requests and their threads, the mail in and out, the audit log.

It knows nothing of mail or HTTP. Its surface is a list of public modules, imported by
name (``from gateway.store import thread``, ``from gateway.store.models import Request``):
some forty modules are used from outside, with hundreds of names between them, so the
modules are the unit, and the package loads none of them on its own.

- the database: ``db`` (engine, transactions, migrations), ``schema`` (its revision),
  ``pool`` (connections per process), ``prepared`` (statements compiled once, the hot
  paths), ``direct`` (read with the driver, no ORM), ``utc_time``, ``writelock`` (SQLite's
  one writer at a time);
- the tables: ``models``, ``policy_models``, ``reading_models``, ``a2h_models``,
  ``task_models``;
- the record: ``thread`` (turns, the status and its audit entry), ``votes`` (approval
  policies), ``recording`` (a reply's statements), ``queue`` (work rows claimed with a
  lease), ``blobs``, ``arrivals``, ``erasure``, ``listing``, ``state``;
- processes: ``heartbeats``, ``liveness``, ``metrics``;
- the audit log: ``audit`` (write side), ``audit_check`` (read side, verify),
  ``audit_mac``, ``audit_origin``, ``audit_proof``, ``mirror`` (audit.jsonl), ``sequencer``,
  ``signing``, ``checkpoint``, ``merkle``, ``tiles``;
- witnesses: ``cosign``, ``witness``, ``witness_report``.

The other modules (``audit_faults``, ``audit_mirror_check``, ``audit_refusal``,
``savepoints``, ``sqlite_setup``) are the package's own; import-linter's ``surface``
contract (pyproject.toml) keeps it so.
"""

__all__ = [
    "a2h_models",
    "arrivals",
    "audit",
    "audit_check",
    "audit_mac",
    "audit_origin",
    "audit_proof",
    "blobs",
    "checkpoint",
    "cosign",
    "db",
    "direct",
    "erasure",
    "heartbeats",
    "listing",
    "liveness",
    "merkle",
    "metrics",
    "mirror",
    "models",
    "policy_models",
    "pool",
    "prepared",
    "queue",
    "reading_models",
    "recording",
    "schema",
    "sequencer",
    "signing",
    "state",
    "task_models",
    "thread",
    "tiles",
    "utc_time",
    "votes",
    "witness",
    "witness_report",
    "writelock",
]
