"""``hfa witness [key]``: run a C2SP tlog-witness for other gateways' audit logs.

The witness cosigns each log of ``HFA_WITNESS_LOGS`` (their ``hfa audit key`` vkeys)
once it has checked the new checkpoint is consistent with the last it cosigned. Its
Ed25519 key is generated once into ``DATA_DIR/witness_key``; ``hfa witness key`` prints
the verifier key to put, with this witness's URL, in the gateway's
``HFA_AUDIT_WITNESSES``.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gateway.cli.common import config_from
from gateway.cli.output import EXIT_OK
from gateway.errors import CheckpointError, ConfigError
from gateway.http.witness import witness_app
from gateway.settings.config import Config
from gateway.store import checkpoint as notes
from gateway.store import signing
from gateway.store.witness import Witness

KEY_FILE = "witness_key"
STATE_FILE = "witness_state.json"
log = logging.getLogger("gateway")


def _key(config: Config) -> Ed25519PrivateKey:
    path = config.data_dir / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(0o600)
        path.write_text(signing.encode_key(Ed25519PrivateKey.generate()) + "\n")
        log.warning("generated the witness key into %s; back it up", path)
    return signing.decode_key(path.read_text().strip(), str(path))


def _logs(config: Config) -> dict[str, list[Ed25519PublicKey]]:
    logs: dict[str, list[Ed25519PublicKey]] = {}
    for text in config.raw.get("witness_logs", "").split(","):
        if text.strip():
            try:
                name, public = notes.parse_verifier_key(text)
            except CheckpointError as exc:
                raise ConfigError(f"HFA_WITNESS_LOGS: {exc}") from None
            logs.setdefault(name, []).append(public)
    return logs


def witness_of(config: Config) -> Witness:
    key = _key(config)
    name = config.raw.get("witness_name", "").strip()
    if not name:
        raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        name = "hfa-witness/" + hashlib.sha256(raw).hexdigest()[:16]
    if " " in name or "+" in name:
        raise ConfigError(f"HFA_WITNESS_NAME: expected a name without spaces or '+', got {name!r}")
    return Witness(name, key, _logs(config), config.data_dir / STATE_FILE)


def cmd_witness(args: argparse.Namespace) -> int:
    config = config_from(args)
    witness = witness_of(config)
    if args.action == "key":
        print(witness.vkey())
        return EXIT_OK
    if not witness.logs:
        raise ConfigError("HFA_WITNESS_LOGS: name at least one log's verifier key to witness")
    import uvicorn

    host, _, port = config.raw.get("witness_bind", "127.0.0.1:8090").rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError("HFA_WITNESS_BIND: expected host:port")
    log.info("witness %s for %s on %s:%s", witness.name, ", ".join(witness.logs), host, port)
    uvicorn.run(witness_app(witness), host=host, port=int(port), log_level="warning")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("witness", help="run a C2SP tlog-witness (cosigns other logs)")
    p.add_argument(
        "action",
        nargs="?",
        choices=("serve", "key"),
        default="serve",
        help="serve (the default), or print this witness's verifier key",
    )
    p.set_defaults(handler=cmd_witness)
