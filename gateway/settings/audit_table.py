"""The audit log's settings: its keys and name, how it is served, its witnesses, the witness role.

Rows of the settings table (``gateway.settings.table`` lists them in place). They are read
from ``Config.raw`` by the audit and witness roles, which check them where they use them.
"""

from __future__ import annotations

from gateway.settings.setting import NO_FIELD, Setting

AUDIT_SETTINGS: tuple[Setting, ...] = (
    Setting(
        "audit_signing_key",
        "",
        "Ed25519 keys that sign the audit log's checkpoints (ed25519:<base64 seed>), "
        "comma-separated, newest last: the newest signs, all verify. Empty: generated once "
        "into DATA_DIR/audit_signing_key ('hfa audit key --rotate' adds one).",
        secret=True,
        into=NO_FIELD,
    ),
    Setting(
        "audit_log_origin",
        "",
        "The audit log's name: its checkpoints' origin and its key's name (no spaces or "
        "'+'; a schema-less URL such as example.com/hfa-audit). Empty: the name the log's "
        "newest checkpoint carries, or for a new log hfa-gateway/audit/<id of its first key>; "
        "never taken from HFA_PUBLIC_URL or HFA_HTTP_BIND. Changing it renames the log.",
        into=NO_FIELD,
    ),
    Setting(
        "audit_public",
        "tiles",
        "What of /audit is served without a credential: tiles (the checkpoint, the key and "
        "the hash tiles: hashes and the log's size only), all (the entry bundles too: the "
        "entries name lawyers' and clients' addresses and references) or none.",
        into=NO_FIELD,
    ),
    Setting(
        "audit_read_token",
        "",
        "Bearer tokens (comma-separated) that read what HFA_AUDIT_PUBLIC does not serve "
        "openly (Authorization: Bearer TOKEN). Empty: nobody reads it over HTTP.",
        secret=True,
        into=NO_FIELD,
    ),
    Setting(
        "audit_witnesses",
        "",
        "Witnesses that cosign the audit log's checkpoints (C2SP tlog-witness), "
        "comma-separated, each '<cosignature vkey> <submission URL prefix>' ('hfa witness "
        "key' prints a witness's vkey). Empty: no witness.",
        into=NO_FIELD,
    ),
    Setting(
        "audit_witness_quorum",
        "0",
        "How many witnesses must cosign a checkpoint before GET /audit/checkpoint serves it "
        "(0: every witness named).",
        into=NO_FIELD,
    ),
    Setting(
        "audit_witness_seconds",
        "5",
        "How often the leading sequencer sends the newest checkpoint to the witnesses.",
        into=NO_FIELD,
    ),
    Setting(
        "witness_bind",
        "127.0.0.1:8090",
        "host:port of 'hfa witness', the witness role (POST /add-checkpoint).",
        into=NO_FIELD,
    ),
    Setting(
        "witness_name",
        "",
        "The witness role's key name. Empty: hfa-witness/<16 hex digits of its public key>.",
        into=NO_FIELD,
    ),
    Setting(
        "witness_logs",
        "",
        "The logs the witness role cosigns: their verifier keys ('hfa audit key'), "
        "comma-separated.",
        into=NO_FIELD,
    ),
    Setting(
        "audit_integrate_seconds",
        "0.25",
        "How often the sequencer integrates newly committed audit entries and signs a "
        "checkpoint (the longest an entry waits for its leaf, plus one batch).",
        into=NO_FIELD,
    ),
)
