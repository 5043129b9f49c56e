"""What no single row decides: defaults taken from another setting, settings that must
agree, and values that join several settings.

``gateway.settings.config`` calls ``combine`` once every row has been read by its own
type; what it returns fills or overrides Config attributes (a dotted name is a part of a
composite value, as in the table's ``into``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gateway.errors import ConfigError
from gateway.settings.lawyers import approval_aliases, parse_aliases
from gateway.settings.mail_auth import mail_auth
from gateway.settings.policies import approval_settings


def combine(read: Mapping[str, Any], raw: Mapping[str, str]) -> dict[str, Any]:
    """``read``: each setting's typed value; ``raw``: each setting's text."""
    if not any(read["lawyers"].values()):
        raise ConfigError("HFA_LAWYERS: at least one lawyer address is required")
    http_host, http_port = read["http_bind"]
    smtp_host, smtp_port = read["smtp_bind"]
    mail_from = read["mail_from"] or f"hfa-gateway@{read['reply_domain']}"
    database_url = (
        read["database_url"] or f"sqlite:///{(read['data_dir'] / 'gateway.db').as_posix()}"
    )
    _check_sender_rule(read)
    _check_liveness(read)
    return {
        "http_host": http_host,
        "http_port": http_port,
        "smtp_host": smtp_host,
        "smtp_port": smtp_port,
        "public_url": read["public_url"] or f"http://{http_host}:{http_port}",
        "mail_from": mail_from,
        "database_url": database_url,
        **mail_auth(read, mail_from),
        # A lawyer's other addresses, written a@x|a2@y in any setting that names people.
        "lawyer_aliases": approval_aliases(raw)
        | parse_aliases(f"{raw['escalation']};{raw['lawyers']}"),
        "lawyer.approval": approval_settings(
            raw["policies"], read["approver_groups"], read["delegates"], read["lawyers"]
        ),
    }


def _check_sender_rule(read: Mapping[str, Any]) -> None:
    if read["require_authenticated_sender"] and not read["trusted_authserv_id"]:
        raise ConfigError(
            "HFA_REQUIRE_AUTHENTICATED_SENDER=1 needs HFA_TRUSTED_AUTHSERV_ID: without a "
            "trusted server no reply could ever be recorded"
        )


def _check_liveness(read: Mapping[str, Any]) -> None:
    if read["heartbeat_seconds"] * 2 > read["ready_role_seconds"]:
        raise ConfigError(
            "HFA_HEARTBEAT_SECONDS must be at most half of HFA_READY_ROLE_SECONDS, or a live "
            "process would be taken for a dead one between two heartbeats"
        )
