"""``python -m bench``: the same as ``hfa bench``, from the root of a checkout."""

from __future__ import annotations

import sys

from gateway.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
