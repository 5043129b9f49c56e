"""The ASGI app: agent API, thread_url, health, OpenAPI (and, mounted, MCP and compat layers)."""
