"""``python -m gateway`` is ``hfa``."""

from gateway.cli import main

raise SystemExit(main())
