"""``hfa serve``'s two processes hold only what serving needs, not what starting needed.

A work budget, not a measurement of memory: which modules a process imported does
not depend on the machine. The memory itself (the listeners' RSS plus the worker's
private pages, about 100 MB) is measured by ``hfa bench --paths memory``.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.serve_probe import held_by_each_process

# Loaded by looking at the schema (the migration tools), by the first reply read (the word
# tables of every language, the DKIM and DNS libraries that check its sender), or by a
# WebSocket no route speaks: none while serving idle.
NOT_WHILE_IDLE = (
    "alembic",
    "mako",
    "pygments",
    "gateway.replies.lexicon",
    "gateway.replies.decision",
    "py3langid",
    "dkim",
    "dns",
    "websockets",
)


def _modules_of_an_idle_serve(tmp_path: Path) -> dict[str, set[str]]:
    held = held_by_each_process(tmp_path)
    return {name: set(held[name]["modules"]) for name in ("listeners", "worker")}


def test_an_idle_serve_holds_no_migration_tool_word_table_or_sender_check_library(
    tmp_path: Path,
) -> None:
    modules = _modules_of_an_idle_serve(tmp_path)
    for name, loaded in modules.items():
        # They did serve: the listeners their HTTP app, the worker its loop.
        assert "gateway.app" in loaded and "gateway.inbound.worker" in loaded, name
        held = sorted(m for m in loaded if m.split(".")[0] in NOT_WHILE_IDLE)
        held += sorted(m for m in loaded if m.startswith(NOT_WHILE_IDLE) and m not in held)
        assert held == [], name
    # The schema was looked at all the same (in a process of its own), and is current.
    assert (tmp_path / "var" / "gateway.db").exists()
