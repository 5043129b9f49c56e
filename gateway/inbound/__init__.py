"""Receiving replies: the SMTP listener stores each message, the worker parses, matches,
checks the sender, reads and records it.

The surface is a list of public modules, imported by name (``from gateway.inbound import
pending``, ``from gateway.inbound.worker import InboundWorker``); the package loads none
of them on its own.

- receiving: ``listener`` (the SMTP listener, its admission limits, storing a message),
  ``worker`` (the inbound worker);
- a stored message, for ops (``hfa inbound``): ``mailparse`` (read it back), ``ops``
  (accept a held reply, run it through again), ``held`` (the outcomes that hold one);
- what the scheduler settles: ``pending`` (the correction window), ``approvals``
  (approval steps past their deadline);
- the sender challenge and its CONFIRM, with its deliverer: ``challenge``;
- stages that bench/ measures on their own: ``assurance`` (the sender-assurance ladder),
  ``claims`` (a worker's claim of stored messages and their bytes), ``reading`` and
  ``reading_lane`` (reading a stored message, in or out of process).

The other modules are the package's own; import-linter's ``surface`` contract
(pyproject.toml) keeps it so.
"""

__all__ = [
    "approvals",
    "assurance",
    "challenge",
    "claims",
    "held",
    "listener",
    "mailparse",
    "ops",
    "pending",
    "reading",
    "reading_lane",
    "worker",
]
