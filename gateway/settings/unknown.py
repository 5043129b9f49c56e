"""The settings file, and settings this release does not know: ignored with a warning.

A later release's settings must not stop this one from starting (a rollback keeps the
newer configuration), and a typo is named with the setting it resembles.
"""

from __future__ import annotations

import difflib
import logging
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gateway import __version__
from gateway.errors import ConfigError
from gateway.settings.table import SETTINGS

log = logging.getLogger("gateway.settings")


def warn_unknown(where: str, name: str, known: Iterable[str]) -> None:
    """Log that ``where`` (an HFA_ variable, a key of a file) names no setting: ignored."""
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean HFA_{close[0].upper()}?" if close else "; see 'hfa settings'"
    log.warning("%s is not a setting of hfa-gateway %s: ignored%s", where, __version__, hint)


def read_config_file(path: Path) -> dict[str, str]:
    """Read a TOML file whose keys are setting names (``reply_domain = "x"``)."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    known = {s.name for s in SETTINGS}
    out: dict[str, str] = {}
    for key, value in data.items():
        name = key.lower().removeprefix("hfa_")
        if name not in known:
            warn_unknown(f"{path}: {key!r}", name, known)
            continue
        out[name] = str(value) if not isinstance(value, bool) else ("1" if value else "0")
    return out
