"""What an agent does with a request: file it, add to it, read it back, wait for it. The
HTTP API, MCP, HumanLayer and A2H all call these.

The surface is a list of public modules, imported by name (``from gateway.intake import
filing``); the package loads none of them on its own.

- the three tools: ``filing`` (file a request, add to it), ``lookup`` (look it up to
  read it back: the access-token check, its status), ``waiting`` (wait for a thread to change);
- the compatibility layers: ``compat`` (HumanLayer and A2H alike), ``a2h_v1`` (A2H v1.0
  intents), ``a2h_push`` (A2H's signed RESPONSE webhooks, with their deliverer), ``jws``
  (the signer of those responses), ``tasks`` (MCP tasks);
- who may call, and how often: ``apikeys``, ``ratelimit``, ``rejections`` (audited failed
  access-token checks);
- ``reassign``: moving a request to another lawyer (``hfa requests reassign``).

The other modules (``following``) are the package's own; import-linter's ``surface``
contract (pyproject.toml) keeps it so.
"""

__all__ = [
    "a2h_push",
    "a2h_v1",
    "apikeys",
    "compat",
    "filing",
    "jws",
    "lookup",
    "ratelimit",
    "reassign",
    "rejections",
    "tasks",
    "waiting",
]
