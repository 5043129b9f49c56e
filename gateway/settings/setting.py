"""One row of the settings table, and how a row's text becomes its typed value.

A row names its setting once: its name, its default (typed: int, float, bool or str),
its help, whether it is a secret, and where ``Config`` keeps it. The default's type
says how the environment's or the file's text is read, as Datasette's settings do;
a structured setting (lawyers, policies, retention ...) names its own reader, and its
default is then the text an operator would write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.errors import ConfigError

# (the text, the setting's HFA_ name) -> the value; refuses with a ConfigError that names it.
Reader = Callable[[str, str], Any]

# ``into`` for a row that is no Config attribute of its own: Config keeps its text in
# ``Config.raw``, and ``gateway.settings.combined`` or the room that uses it reads it.
NO_FIELD = None


@dataclass(frozen=True)
class Setting:
    """One row of the settings table."""

    name: str
    default: int | float | bool | str
    help: str
    secret: bool = False
    # How the text is read; None: by the default's type (``read_typed``).
    read: Reader | None = None
    # The Config attribute that holds the value: "" the setting's own name, a dotted
    # ``group.field`` for a part of a composite value, NO_FIELD for none.
    into: str | None = ""

    @property
    def env(self) -> str:
        return "HFA_" + self.name.upper()

    @property
    def text(self) -> str:
        """The default as an operator writes it (``hfa settings``, the README, Config.raw)."""
        return text_of(self.default)

    @property
    def field(self) -> str | None:
        return self.name if self.into == "" else self.into

    def parse(self, text: str) -> Any:
        if self.read is not None:
            return self.read(text, self.env)
        return read_typed(type(self.default), text, self.env)


def text_of(value: int | float | bool | str) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def whole_number(text: str, setting: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{setting}: expected a whole number, got {text!r}") from None


def number(text: str, setting: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"{setting}: expected a number, got {text!r}") from None


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def flag(text: str, setting: str) -> bool:
    """The one reading of an on/off setting; anything else is refused, not guessed."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{setting}: expected 1 or 0 (true/false, yes/no), got {value!r}")


def switch(text: str, setting: str) -> bool:
    """An on/off setting of the connection guards, whose refusal names 1 or 0 only."""
    value = text.strip().lower()
    if value not in _TRUE + _FALSE:
        raise ConfigError(f"{setting}: expected 1 or 0, got {value!r}")
    return value in _TRUE


def read_typed(kind: type, text: str, setting: str) -> Any:
    """Read ``text`` as the type of the setting's default."""
    if kind is bool:
        return flag(text, setting)
    if kind is int:
        return whole_number(text, setting)
    if kind is float:
        return number(text, setting)
    return text


def above_zero(kind: type[int] | type[float]) -> Reader:
    """A count or a period that must be above 0 (a cap of 0 would refuse everyone)."""

    def read(text: str, setting: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise ConfigError(f"{setting}: expected a number, got {text!r}") from None
        if value <= 0:
            raise ConfigError(f"{setting}: expected a number above 0")
        return value

    return read


def stripped(text: str, _setting: str) -> str:
    return text.strip()


def lowered(text: str, _setting: str) -> str:
    return text.strip().lower()


def optional_path(text: str, _setting: str) -> Path | None:
    text = text.strip()
    return Path(text).expanduser() if text else None


def directory(text: str, _setting: str) -> Path:
    return Path(text).expanduser()


def by_text(parse: Callable[[str], Any]) -> Reader:
    """A reader whose refusals already name their setting (HFA_RETENTION, HFA_LAWYERS ...)."""
    return lambda text, _setting: parse(text)
