"""Failed access-token checks, audited at most once a minute per client.

Throttled, so a scan of guessed references cannot flood the log; the next
entry for that client says how many failures went unrecorded meanwhile. The
HTTP API and the MCP tools report to the same recorder.
"""

from __future__ import annotations

import contextlib
from typing import Any

from gateway.errors import StorageError
from gateway.services import Services
from gateway.throttle import Throttle

TOKEN_AUDIT_INTERVAL = 60.0


class TokenRejections:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.throttle = Throttle(TOKEN_AUDIT_INTERVAL)

    async def note(self, actor: str, reference: str | None, method: str) -> None:
        held_back = self.throttle.let_through(actor)
        if held_back is None:
            return
        details: dict[str, Any] = {
            "client": actor.partition(":")[2] or actor,
            "method": method,
            "not_audited_before": held_back,
        }
        services = self.services

        def work() -> None:
            with services.db.transaction() as session:
                services.audit.append(
                    session,
                    "request.token_rejected",
                    at=services.clock.now(),
                    actor=actor,
                    reference=reference,
                    details=details,
                )

        # The caller gets its refusal either way; when storage fails the audit cannot be written.
        with contextlib.suppress(StorageError):
            await services.db.run(work)


def rejections_for(services: Services) -> TokenRejections:
    """One recorder per Services, shared by every interface."""
    return services.shared(TokenRejections)
