"""Composing and sending, durably: every email and webhook the gateway sends goes through
the outbox.

The surface is a list of public modules, imported by name (``from gateway.outbound import
outbox``); the package loads none of them on its own.

- queuing and delivering: ``outbox`` (the only way to queue a delivery; its worker and
  the ``Deliverer`` type), ``transports`` (SMTP relay or Maildir), ``dkim`` (the signer),
  ``webhooks`` (signed calls with an SSRF guard), ``compose_lane`` (composing on another
  core);
- what is sent, each with its deliverer: ``push`` (answers to the agent), ``held_notices``
  (to the sender of a held message), ``challenge_mail`` (the sender challenge),
  ``witnesses`` (checkpoints sent to witnesses for cosigning);
- telling the thread: ``tell`` (every human on it), ``closing`` (closing a request:
  status, audit entry, the thread told, the push);
- what inbound reads of what was sent: ``compose`` (``LOOP_HEADER``), ``quickreply``
  (the one-click answers), ``receipts`` (what a receipt says was recorded);
- ``targets``: a delivery target as logs and the thread show it, without its secrets.

The other modules are the package's own; import-linter's ``surface`` contract
(pyproject.toml) keeps it so.
"""

__all__ = [
    "challenge_mail",
    "closing",
    "compose",
    "compose_lane",
    "dkim",
    "held_notices",
    "outbox",
    "push",
    "quickreply",
    "receipts",
    "targets",
    "tell",
    "transports",
    "webhooks",
    "witnesses",
]
