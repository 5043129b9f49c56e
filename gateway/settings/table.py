"""Every setting the gateway reads, in one table: name, typed default, help, secrecy.

Each row is named once, in the module of its concept; this module lists them in the
order ``hfa settings`` and the README (``markdown_table``) show them. ``gateway.settings.config`` reads
each row's text by the row's type and builds ``Config`` from the rows.
"""

from __future__ import annotations

from gateway.settings.agent_table import AGENTS, REPLY_KEYS
from gateway.settings.audit_table import AUDIT_SETTINGS
from gateway.settings.http_table import HTTP_SETTINGS
from gateway.settings.lawyer_table import FOLLOW_UP, LAWYER_MAIL, LAWYERS
from gateway.settings.limits_table import LIMITS
from gateway.settings.mail_table import PLACES, RELAY, SENDERS
from gateway.settings.setting import NO_FIELD, Setting

SETTINGS: tuple[Setting, ...] = (
    *PLACES,
    *LAWYER_MAIL,
    *RELAY,
    *LAWYERS,
    *REPLY_KEYS,
    *LIMITS,
    *SENDERS,
    *FOLLOW_UP,
    *AGENTS,
    *AUDIT_SETTINGS,
    Setting(
        "tsa_url",
        "",
        "An RFC 3161 time-stamping authority (http(s) URL): 'hfa evidence export' has it "
        "timestamp the bundle's checkpoint. Empty: bundles carry no trusted time.",
        into=NO_FIELD,
    ),
    *HTTP_SETTINGS,
)

BY_NAME = {s.name: s for s in SETTINGS}


def markdown_table() -> str:
    """The README's settings table, row by row from ``SETTINGS`` (a test keeps them equal)."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for s in SETTINGS:
        default = f"`{s.text}`" if s.text else "(empty)"
        cell = s.help.replace("|", "\\|")  # a | inside a cell would end it
        lines.append(f"| `{s.env}` | {default} | {cell} |")
    return "\n".join(lines) + "\n"
