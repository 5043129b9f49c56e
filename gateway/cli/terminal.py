"""What reaches an operator's terminal: no character an agent or a sender wrote can act on it.

Request fields, subjects, sender names and audit details are untrusted text. Printed raw,
ESC starts a terminal escape sequence (clear the screen, set the window title, recolour),
a bidi override reverses what follows ("EVORPPA" reads "APPROVE"), and a zero-width
character makes two different names look alike. Every byte the CLI writes therefore
passes through ``EscapingStream``, which shows each such character as a visible marker,
``[U+202E]``, the way the emails already do. JSON output escapes them the JSON way
(``\\u202e``), so a parser still reads the exact value.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

# C0 controls but tab and newline (CR too: alone it overwrites a line), DEL and C1; the
# bidi embeddings, overrides, isolates and marks; zero-width and invisible format
# characters; the Unicode line and paragraph separators.
HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff]"
)


def escape(text: object) -> str:
    """``text`` with every hidden character shown as ``[U+XXXX]`` (None: empty)."""
    return HIDDEN.sub(lambda m: f"[U+{ord(m.group()):04X}]", "" if text is None else str(text))


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON of ``value`` in which every hidden character is a ``\\uXXXX`` escape."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    # Outside strings JSON has only ASCII, so every match is inside a string value.
    return HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class EscapingStream:
    """A text stream that escapes hidden characters before they reach ``target``."""

    def __init__(self, target: TextIO) -> None:
        self._target = target

    def write(self, text: str) -> int:
        self._target.write(escape(text))
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    @property
    def encoding(self) -> str:
        return str(getattr(self._target, "encoding", "utf-8"))

    def __getattr__(self, name: str) -> Any:
        # Everything else (errors, closed, ...) as the wrapped stream has it.
        return getattr(self._target, name)


@contextlib.contextmanager
def escaped_output(*, stdout: bool = True) -> Iterator[None]:
    """Escape everything written to stderr (and stdout, unless it carries a protocol)."""
    saved = sys.stdout, sys.stderr
    if stdout:
        sys.stdout = EscapingStream(sys.stdout)  # type: ignore[assignment]
    sys.stderr = EscapingStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def silence_stdout() -> None:
    """After the reader of stdout went away (``| head``): no further write can fail.

    Python flushes stdout once more at exit; pointed at /dev/null, that flush cannot
    raise a second BrokenPipeError (the documented recipe, "Note on SIGPIPE").
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
    os.close(devnull)
