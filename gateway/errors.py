"""The gateway's exceptions.

Callers see these, never the errors of the libraries underneath: the
boundaries (database, relay, SMTP listener, HTTP) translate with
``raise OurError(...) from exc``.

    GatewayError
    ├── ConfigError            a setting is missing or malformed
    ├── StorageError           the database failed (connection, constraint, ...)
    ├── ApiError               an agent's call was refused; carries an HTTP status
    │   ├── InvalidRequest     the JSON does not fit the contract (422)
    │   ├── MalformedBody      not JSON, or not an object (400)
    │   ├── BodyTooLarge       over HFA_MAX_REQUEST_BYTES (413)
    │   ├── NotFound           unknown reference or wrong token: one answer (404)
    │   ├── Conflict           idempotency key reused with another body (409)
    │   ├── Unauthorized       an API key is required or wrong (401)
    │   └── RateLimited        too many calls (429)
    └── DeliveryError          sending mail or a webhook failed
        ├── TransientDelivery  worth retrying (4xx SMTP, network, 5xx HTTP)
        └── PermanentDelivery  not worth retrying (5xx SMTP, 410 Gone)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class GatewayError(Exception):
    """Base of every error the gateway raises on purpose."""


class ConfigError(GatewayError):
    """A setting is missing or malformed; the message names the setting."""


class StorageError(GatewayError):
    """The database could not do what was asked."""


@dataclass(frozen=True)
class FieldProblem:
    """One thing wrong with an input: where (a JSON path) and what was expected."""

    field: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


class ApiError(GatewayError):
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

    def as_json(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "details": [d.as_json() for d in self.details],
            }
        }


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
