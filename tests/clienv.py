"""The CLI as an operator runs it: the gateway's settings in the environment, one command.

Tests that call ``hfa`` in-process share these: the environment holds the settings
given and nothing else of the caller's (``HFA_TEST_*`` stays, it is the suite's own),
and a command's output is captured with the root logger left as it was, since
``main`` configures logging for the process it thinks it owns.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

import pytest

from gateway.cli import main


def clear_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No HFA_ setting of the caller's reaches the command (the suite's HFA_TEST_ ones stay)."""
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)


def use_settings(monkeypatch: pytest.MonkeyPatch, settings: Mapping[str, str]) -> None:
    """These settings (names without the prefix) and nothing else, as on the gateway's host."""
    clear_settings(monkeypatch)
    for name, value in settings.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``hfa ARGV``: its exit code, stdout and stderr."""
    capsys.readouterr()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        code = main(list(argv))
    finally:
        root.handlers[:] = handlers
        # setLevel, not the attribute: it also forgets each logger's cached answer to
        # isEnabledFor, which the command's own level would otherwise leave behind.
        root.setLevel(level)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def hfa(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``hfa ARGV``: its exit code and everything it printed, stdout then stderr."""
    code, out, err = run(capsys, *argv)
    return code, out + err
