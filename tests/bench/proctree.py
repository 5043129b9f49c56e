"""A Python process started for a test, killed with every process it started when done."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from bench import cpu


@contextmanager
def running(*argv: str) -> Iterator[subprocess.Popen[bytes]]:
    """``python ARGV...``; on the way out it and its descendants get SIGKILL."""
    process = subprocess.Popen([sys.executable, *argv])
    try:
        yield process
    finally:
        for pid in cpu.descendants(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.kill()
        process.wait()
