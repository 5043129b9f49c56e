"""The commands a person or a health check runs often load only what they use.

A work budget, not a timing: which modules a command imports does not depend on the
machine's load. The timings themselves (under 0.5 s on a quiet machine) are measured
with ``python -X importtime -m gateway ...`` and ``time``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The gateway's working parts and the libraries only they need.
HEAVY = (
    "gateway.services",
    "gateway.app",
    "gateway.http",
    "gateway.inbound",
    "gateway.replies",
    "gateway.scheduler",
    "gateway.mcp",
    "gateway.render",
    "gateway.store.audit",
    "gateway.outbound.outbox",
    "jinja2",
    "aiosmtpd",
    "aiosmtplib",
    "starlette",
    "uvicorn",
    "mailparser",
    "jsonschema",
    "fastjsonschema",
    "dkim",
    "mcp",
    "alembic",
    "itsdangerous",
)
PROBE = """
import json, sys
from gateway.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.__stdout__.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def loaded(data_dir: Path, *argv: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {"HFA_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = done.stdout.rpartition("\nMODULES ")[2]
    return set(json.loads(line))


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "var"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {"HFA_DATA_DIR": str(path), "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-m", "gateway", "db", "upgrade"], env=env, check=True, timeout=120
    )
    return path


def test_help_loads_no_command_and_no_database_library(data_dir: Path) -> None:
    modules = loaded(data_dir, "--help")
    assert heavy_in(modules) == []
    assert not any(m.startswith(("sqlalchemy", "gateway.store", "rich")) for m in modules)


def test_health_reads_the_heartbeats_without_the_orm(data_dir: Path) -> None:
    """A container runs it every 30 s: the database's own driver reads the rows."""
    modules = loaded(data_dir, "health")
    assert "gateway.store.liveness" in modules and "sqlite3" in modules  # it did read them
    assert heavy_in(modules) == []
    assert not any(m.startswith(("sqlalchemy", "gateway.store.models")) for m in modules)


def test_the_request_list_reads_without_the_orm(data_dir: Path) -> None:
    modules = loaded(data_dir, "requests", "list")
    assert "gateway.store.listing" in modules and "sqlite3" in modules  # it did read
    assert heavy_in(modules) == []
    assert not any(m.startswith(("sqlalchemy", "gateway.store.models")) for m in modules)
