"""TLS and DKIM settings, read and checked as pairs: a half-configured pair fails at start.

``gateway.settings.config`` spreads the result into ``Config``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gateway.errors import ConfigError


def _path(values: Mapping[str, str], name: str) -> Path | None:
    text = values[name].strip()
    return Path(text).expanduser() if text else None


def mail_auth_fields(values: Mapping[str, str], mail_from: str) -> dict[str, Any]:
    """TLS files and DKIM signing: each pair set together or not at all (no half setup)."""
    tls_cert, tls_key = _path(values, "smtp_tls_cert_file"), _path(values, "smtp_tls_key_file")
    if (tls_cert is None) != (tls_key is None):
        raise ConfigError("HFA_SMTP_TLS_CERT_FILE and HFA_SMTP_TLS_KEY_FILE go together: set both")
    selector, key = values["dkim_selector"].strip(), _path(values, "dkim_private_key_file")
    if bool(selector) != (key is not None):
        raise ConfigError(
            "HFA_DKIM_SELECTOR and HFA_DKIM_PRIVATE_KEY_FILE go together: set both to sign mail"
        )
    domain = values["dkim_domain"].strip().lower() or mail_from.rpartition("@")[2].lower()
    return {
        "smtp_relay_ca_file": _path(values, "smtp_relay_ca_file"),
        "smtp_tls_cert_file": tls_cert,
        "smtp_tls_key_file": tls_key,
        "dkim_selector": selector,
        "dkim_domain": domain,
        "dkim_private_key_file": key,
    }
