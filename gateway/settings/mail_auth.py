"""TLS and DKIM settings, checked as pairs: a half-configured pair fails at start.

``gateway.settings.combined`` applies this once every row has been read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gateway.errors import ConfigError


def mail_auth(read: Mapping[str, Any], mail_from: str) -> dict[str, Any]:
    """TLS files and DKIM signing: each pair set together or not at all (no half setup);
    the DKIM domain, when not set, is that of HFA_MAIL_FROM."""
    if (read["smtp_tls_cert_file"] is None) != (read["smtp_tls_key_file"] is None):
        raise ConfigError("HFA_SMTP_TLS_CERT_FILE and HFA_SMTP_TLS_KEY_FILE go together: set both")
    if bool(read["dkim_selector"]) != (read["dkim_private_key_file"] is not None):
        raise ConfigError(
            "HFA_DKIM_SELECTOR and HFA_DKIM_PRIVATE_KEY_FILE go together: set both to sign mail"
        )
    return {"dkim_domain": read["dkim_domain"] or mail_from.rpartition("@")[2].lower()}
