"""What the repository holds besides code: nothing stray, and install steps that fit the docs."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY_SUFFIXES = (".whl", ".tar.gz", ".zip", ".egg", ".so", ".pyc")


def test_no_build_artefact_is_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert tracked, "not a git checkout"
    assert [name for name in tracked if name.endswith(BINARY_SUFFIXES)] == []


def test_install_steps_create_the_backup_directory_the_readme_uses() -> None:
    """The README's backups go under one directory; INSTALL.md makes it, owned by hfa."""
    readme = (ROOT / "README.md").read_text()
    install = (ROOT / "deploy" / "INSTALL.md").read_text()
    used = {m.rstrip("/") for m in re.findall(r"(/var/backups/hfa)/[\w.$()%+-]+", readme)}
    assert used == {"/var/backups/hfa"}
    made = re.search(r"^install -d -o hfa -g hfa -m 0700 (.*/var/backups/hfa)\b", install, re.M)
    assert made, "INSTALL.md creates no backup directory owned by hfa"


_CLOCKS = {"monotonic", "perf_counter", "time"}


def _reads_a_clock(node: ast.AST) -> bool:
    """A reading of a wall clock: time.monotonic(), time.time(), loop.time() and the like."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _CLOCKS
        for n in ast.walk(node)
    )


def _elapsed(node: ast.AST) -> bool:
    """Whether ``node`` measures a duration: a clock reading minus something.

    A deadline (a reading plus a timeout) only bounds a wait for some state; a
    duration compared with a bound is the assertion on wall time this looks for.
    """
    return any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and _reads_a_clock(n)
        for n in ast.walk(node)
    )


def _timing_functions(tree: ast.AST) -> set[str]:
    """Functions that measure a duration (a helper that times a probe, say): what they
    return is as much a wall-clock figure as the difference they compute."""
    return {
        func.name
        for func in ast.walk(tree)
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(_elapsed(node) for node in ast.walk(func) if isinstance(node, ast.Assign))
    }


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _wall_clock_asserts(tree: ast.AST) -> list[str]:
    """Test functions that assert on a difference of wall-clock readings, computed in the
    test or returned by a function that times something (called, or handed to an executor)."""
    timing = _timing_functions(tree)
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        timed: set[str] = set()
        for node in ast.walk(func):
            if not isinstance(node, ast.Assign):
                continue
            calls_timing = any(
                isinstance(n, ast.Call) and (_names(n.func) | _names(ast.Tuple(n.args))) & timing
                for n in ast.walk(node.value)
            )
            if _elapsed(node.value) or calls_timing:
                for target in node.targets:
                    timed |= _names(target)
        for node in ast.walk(func):
            if isinstance(node, ast.Assert) and (_elapsed(node.test) or _names(node.test) & timed):
                found.append(func.name)
                break
    return found


def test_no_test_asserts_on_wall_clock_time() -> None:
    """A bound on wall time fails on a busy machine: "fast" is a work budget
    (tests/budget.py, a count of steps or round trips); timings go in hfa bench."""
    timed: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        where = str(path.relative_to(ROOT))
        for name in _wall_clock_asserts(ast.parse(path.read_text(encoding="utf-8"))):
            timed.add(f"{where}::{name}")
    assert timed == set()
