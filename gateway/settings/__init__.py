"""Every setting: one table of rows (``table`` lists them; each row names its setting once,
with its typed default or reader), the readers of the structured ones, and ``config``,
which reads every row by its type into ``Config``.

The surface is a list of public modules, imported by name (``from gateway.settings.config
import Config``); the package loads none of them on its own.

- ``config``: ``Config``, every setting read, checked and typed once; ``load_config``
  and ``read_config_file``;
- ``table``: ``SETTINGS``, every setting's name, default and help (``hfa settings``);
- read on their own where they are used: ``lawyers`` (what lawyers receive, and a
  lawyer's address checked), ``sender_auth`` (the DNS resolver, ``DNS_OFF``), ``guard``
  (``in_networks``: whether a client's address is in networks).

The other modules build ``config`` and are the package's own; import-linter's
``surface`` contract (pyproject.toml) keeps it so.
"""

__all__ = ["config", "guard", "lawyers", "sender_auth", "table"]
