"""One row of the settings table: a setting's name, default, help, and whether it is a secret."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """One row of the settings table."""

    name: str
    default: str
    help: str
    secret: bool = False

    @property
    def env(self) -> str:
        return "HFA_" + self.name.upper()
