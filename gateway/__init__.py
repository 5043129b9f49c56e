"""hfa-gateway: agents ask a human lawyer by email; every answer is recorded."""

__version__ = "0.2.0"
