"""The gateway's exceptions: every one it raises on purpose, in one tree.

Callers see these, never the errors of the libraries underneath: the
boundaries (database, relay, SMTP listener, HTTP) translate with
``raise OurError(...) from exc``. A class that also names a builtin (``+ValueError``)
keeps it so that the callers and libraries that catch the builtin still catch it.

Our exception hierarchy:

    GatewayError
    ├── ConfigError                  a setting is missing or malformed
    │   ├── SchemaMismatch           the database's schema is not this release's
    │   ├── KeyMismatch              this process's keys cannot work with a live one's
    │   └── SigningKeyMismatch       the audit signing keys lack the one that signed the log
    ├── Unavailable                  something needed at start-up is not there yet (try later)
    ├── HarnessMissing               hfa bench without the benchmark harness (a wheel)
    ├── StorageError                 the database failed (connection, constraint, ...)
    ├── BrokenBatch                  a write ended a shared transaction; nothing was committed
    ├── TemplateError                an email template is missing or failed to render
    ├── ApiError                     an agent's call was refused; carries an HTTP status
    │   ├── InvalidRequest           the JSON does not fit the contract (422)
    │   ├── MalformedBody            not JSON, or not an object (400)
    │   ├── BodyTooLarge             over HFA_MAX_REQUEST_BYTES (413)
    │   ├── NotFound                 unknown reference or wrong token: one answer (404)
    │   ├── Conflict                 idempotency key reused with another body (409)
    │   ├── Unauthorized             an API key is required or wrong (401)
    │   └── RateLimited              too many calls (429)
    ├── NotReassigned                a request cannot be moved to another lawyer as asked
    ├── DeliveryError                sending mail or a webhook failed
    │   ├── TransientDelivery        worth retrying (4xx SMTP, network, 5xx HTTP)
    │   └── PermanentDelivery        not worth retrying (5xx SMTP, 410 Gone)
    │       └── Refused              a webhook URL that may not be called
    ├── Unparseable                  an inbound message cannot be read at all
    ├── DnsTempError                 a DNS answer could not be had (timeout, failure, off)
    ├── NotHeld                      ops cannot accept or reprocess that inbound message
    ├── ReplyError        +ValueError    a reply cannot be read (all that replies/ lets out)
    ├── CheckpointError   +ValueError    a malformed checkpoint note or verifier key
    │   └── UnknownKey                   well formed, but signed by none of the keys given
    ├── ProofError        +ValueError    a Merkle proof without the shape its sizes call for
    ├── ProofUnavailable  +LookupError   no such audit entry, not integrated, no checkpoint
    ├── NoSuchTile        +LookupError   a tile path that names no tile the tree has
    ├── EntryTooLong      +ValueError    an entry too long for an entry bundle
    ├── NotProvable       +LookupError   a thread's audit entries not all in a checkpoint yet
    └── TimestampUnavailable         the TSA granted no timestamp

Outside the tree, on purpose:

    gateway.evidence.verifier: NoteError (ValueError), Refused (ValueError)
        The evidence verifier is copied into every bundle and runs offline with
        nothing else of the gateway, so it imports nothing of it: its two errors
        stay in its own package.
    gateway.inbound.protocol: _OverLimit (asyncio.CancelledError)
        Not an error but a cancellation that ends a refused DATA; it must pass every
        ``except Exception`` on its way out, which a GatewayError would not.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


class GatewayError(Exception):
    """Base of every error the gateway raises on purpose."""


# --- Configuration and start-up -------------------------------------------------------


class ConfigError(GatewayError):
    """A setting is missing or malformed; the message names the setting."""


class SchemaMismatch(ConfigError):
    """The database's schema is not the one this release runs on."""


class KeyMismatch(ConfigError):
    """This process's keys cannot work with those of a live process."""


class SigningKeyMismatch(ConfigError):
    """This process's audit signing keys lack the key that signed the log."""


class Unavailable(GatewayError):
    """Something the gateway needs is not there yet; worth trying again later."""


class HarnessMissing(GatewayError):
    """The benchmark harness is not importable (an installed wheel, not a checkout)."""


# --- The database and the templates ---------------------------------------------------


class StorageError(GatewayError):
    """The database could not do what was asked."""


class BrokenBatch(GatewayError):
    """A write failed in a way that ended the whole transaction; nothing was committed."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error
        # The caller's handle on the write that failed (set by whoever ran the batch).
        self.culprit: Any = None


class TemplateError(GatewayError):
    """A template is missing or failed to render."""


# --- An agent's calls -----------------------------------------------------------------


@dataclass(frozen=True)
class FieldProblem:
    """One thing wrong with an input: where (a JSON path) and what was expected."""

    field: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


class ApiError(GatewayError):
    """An agent's call refused; over HTTP, ``http.errors.api_error_response`` answers it."""

    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        details: list[FieldProblem] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []
        self.headers = headers or {}


# One class per refusal, alike on purpose: callers raise and catch each by its name, and
# its status and code are the HTTP answer's; a table could not be caught.
class InvalidRequest(ApiError):
    status = 422
    code = "invalid_request"


class MalformedBody(ApiError):
    status = 400
    code = "malformed_body"


class BodyTooLarge(ApiError):
    status = 413
    code = "body_too_large"


class NotFound(ApiError):
    status = 404
    code = "not_found"


class Conflict(ApiError):
    status = 409
    code = "idempotency_conflict"


class Unauthorized(ApiError):
    status = 401
    code = "unauthorized"


class RateLimited(ApiError):
    status = 429
    code = "rate_limited"


class NotReassigned(GatewayError):
    """The request cannot be moved as asked; the message says why."""


# --- Sending --------------------------------------------------------------------------


class DeliveryError(GatewayError):
    """Sending failed; ``detail`` is what the other side said, safe to record."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class TransientDelivery(DeliveryError):
    """Worth another try later."""

    def __init__(self, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class PermanentDelivery(DeliveryError):
    """Another try would fail the same way."""


class Refused(PermanentDelivery):
    """The URL may not be called (scheme, or an address the guard refuses)."""


# --- Receiving and reading replies ----------------------------------------------------


class Unparseable(GatewayError):
    """The message cannot be read; carries a reason safe to show ops."""


class DnsTempError(GatewayError):
    """The answer could not be had (timeout, server failure, DNS off)."""


class NotHeld(GatewayError):
    """The message is not one ops can accept or reprocess; the text says why."""


class ReplyError(GatewayError, ValueError):
    """A reply that cannot be read at all (the caller records it as unparseable)."""


@contextmanager
def only_reply_errors(step: str) -> Iterator[None]:
    """The replies package's contract: nothing but ReplyError escapes. Any other error
    comes out as one, ``step`` saying what could not be done, and the error's type."""
    try:
        yield
    except ReplyError:
        raise
    except Exception as exc:
        raise ReplyError(f"{step}: {type(exc).__name__}") from exc


# --- The audit log and its proofs -----------------------------------------------------


class CheckpointError(GatewayError, ValueError):
    """A note that is not a well-formed checkpoint, or a verifier key that cannot be read."""


class UnknownKey(CheckpointError):
    """A well-formed note signed by none of the keys given (not a bad signature)."""


class ProofError(GatewayError, ValueError):
    """A proof that does not have the shape its sizes call for."""


class ProofUnavailable(GatewayError, LookupError):
    """No such entry, not integrated yet, or no checkpoint of that size."""


class NoSuchTile(GatewayError, LookupError):
    """A path that names no tile, or a tile the tree has not reached."""


class EntryTooLong(GatewayError, ValueError):
    """An entry longer than an entry bundle's uint16 length prefix can say."""


# --- Evidence bundles -----------------------------------------------------------------


class NotProvable(GatewayError, LookupError):
    """Some of the thread's audit entries are in no signed checkpoint yet."""


class TimestampUnavailable(GatewayError):
    """The configured TSA did not grant a timestamp."""
