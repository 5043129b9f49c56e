"""Who wrote an audit entry: a MAC the gateway's own transactions put on each one.

The Merkle tree proves an entry unchanged once the sequencer has integrated it;
before that, an entry is a row like any other, and a row inserted into the
``audit`` table by hand (while the gateway is stopped, or by anyone who can
write to the database) would be integrated and signed as the gateway's. So each
entry the gateway appends carries ``mac``: a random nonce and an HMAC-SHA256 of
the nonce and the entry's content (time, event, reference, actor, details) under
a key derived from the gateway's secret keys (``HFA_SECRET_KEYS``; the newest
signs, every one verifies). The sequencer verifies it before integrating and
refuses anything else (``sequencer``). The nonce keeps two genuine entries of
the same content apart, and the column is unique, so a genuine row copied into
a new one cannot be inserted. The key is never in the database: whoever can
write rows but does not hold the secret keys cannot make an entry the
sequencer accepts.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from datetime import datetime
from typing import Any

from gateway.contract import iso
from gateway.store.sqlite_setup import json_text
from gateway.tokens import derived_keys

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stored_form(details: Any) -> Any:
    """``details`` as the database gives it back (its JSON text read again)."""
    return json.loads(json_text(details))


class EntryMacs:
    """The keys that sign and verify audit entries, derived from the secret keys."""

    def __init__(self, secret_keys: tuple[str, ...]) -> None:
        # Newest last.
        self._keys = derived_keys(secret_keys, "hfa.audit-entry")

    @staticmethod
    def _body(
        nonce: str, at: datetime, event: str, reference: str | None, actor: str, details: Any
    ) -> bytes:
        content = {
            "nonce": nonce,
            "at": iso(at),
            "event": event,
            "reference": reference,
            "actor": actor,
            "details": details,
        }
        return _CANONICAL.encode(content).encode()

    def sign(
        self, at: datetime, event: str, reference: str | None, actor: str, details: Any
    ) -> str:
        """The ``mac`` of a new entry; ``details`` in its stored form (:func:`stored_form`)."""
        nonce = secrets.token_hex(8)
        body = self._body(nonce, at, event, reference, actor, details)
        return f"{nonce}:{hmac.new(self._keys[-1], body, hashlib.sha256).hexdigest()}"

    def verify(
        self,
        mac: str | None,
        at: datetime,
        event: str,
        reference: str | None,
        actor: str,
        details: Any,
    ) -> bool:
        """Did the gateway write this entry as it stands? Compared in constant time."""
        if not mac or mac.count(":") != 1:
            return False
        nonce, given = mac.split(":")
        body = self._body(nonce, at, event, reference, actor, details)
        return any(
            hmac.compare_digest(hmac.new(key, body, hashlib.sha256).hexdigest(), given)
            for key in self._keys
        )
