"""A helper process: this interpreter running one of the gateway's modules, beside the
worker, talking to it over a socket pair.

The worker's reading and composing processes start this way: a new interpreter (not a
fork: the worker has threads, and their locks, by then) that inherits its end of the
pair as a file descriptor, given as its first argument, and reads nothing else.
"""

from __future__ import annotations

import socket
import subprocess
import sys


def start_helper(module: str, *args: str) -> tuple[subprocess.Popen[bytes], socket.socket]:
    """``python -m module FD *args``, and the worker's end of the pair; OSError when the
    process cannot be started (the worker's end is closed then)."""
    ours, theirs = socket.socketpair()
    try:
        with theirs:
            process = subprocess.Popen(  # noqa: S603 (our interpreter, our module)
                [sys.executable, "-m", module, str(theirs.fileno()), *args],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
    except BaseException:
        ours.close()
        raise
    return process, ours
