"""The ASGI app: agent API, thread_url, health, OpenAPI (and, mounted, MCP and compat layers).

The surface is a list of public modules, imported by name by the composition root
(``gateway.app``) and the witness role; the package loads none of them on its own.

- ``app``: ``build_app``, the ASGI app around the services;
- ``mounts``: the interfaces mounted beside the agent API (MCP, compatibility layers);
- ``connections`` and ``head_limits``: uvicorn's HTTP/1.1 protocol with a public
  listener's limits;
- ``witness``: the witness role's own HTTP API (``hfa witness``).

The other modules (one per endpoint group, and their helpers) are the package's own;
import-linter's ``surface`` contract (pyproject.toml) keeps it so.
"""

__all__ = ["app", "connections", "head_limits", "mounts", "witness"]
