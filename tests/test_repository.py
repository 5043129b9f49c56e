"""What the repository holds besides code: nothing stray, and install steps that fit the docs."""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Callable
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


def _is_stamp(node: ast.AST) -> bool:
    """A moment read from the record or a clock: ``row.processed_at``, ``sent_at``, ``now()``."""
    if isinstance(node, ast.Attribute):
        return node.attr.endswith("_at")
    if isinstance(node, ast.Name):
        return node.id.endswith("_at")
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("now", "utcnow")
    )


_READ_MOMENT = ("now", "utcnow", "fromisoformat")


def _moments(func: ast.AST) -> set[str]:
    """Names a test assigns a moment to: ``returned = datetime.now(UTC)``,
    ``took_effect = datetime.fromisoformat(turn["at"])``."""
    return {
        name
        for node in ast.walk(func)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr in _READ_MOMENT
        for target in node.targets
        for name in _names(target)
    }


def _stamp_difference(node: ast.AST, moments: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` holds the time between two moments (``b.done_at - a.received_at``)."""

    def stamp(side: ast.AST) -> bool:
        return _is_stamp(side) or (isinstance(side, ast.Name) and side.id in moments)

    return any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and (stamp(n.left) or stamp(n.right))
        for n in ast.walk(node)
    )


def _bounded_above(test: ast.AST, measured: Callable[[ast.AST], bool]) -> bool:
    """Whether ``test`` says that something ``measured`` is below a bound."""
    for cmp in (n for n in ast.walk(test) if isinstance(n, ast.Compare)):
        sides = [cmp.left, *cmp.comparators]
        for op, left, right in zip(cmp.ops, sides, sides[1:], strict=False):
            if isinstance(op, ast.Lt | ast.LtE) and measured(left):
                return True
            if isinstance(op, ast.Gt | ast.GtE) and measured(right):
                return True
    return False


def _fake_clock(func: ast.AST) -> bool:
    """Whether the test moves a clock of its own (``FrozenClock``, ``clock.advance``):
    the moments it records are then exact, not wall time."""
    return any(
        (isinstance(n, ast.Name) and n.id == "FrozenClock")
        or (isinstance(n, ast.Attribute) and n.attr == "advance")
        for n in ast.walk(func)
    )


def _stamp_difference_asserts(tree: ast.AST) -> list[str]:
    """Test functions that bound the time between two recorded moments from above: the
    gateway's own clock read twice (received, then processed) is wall time all the same,
    and a loaded machine stretches it (5.70 s against a bound of 5.0 s)."""
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or _fake_clock(func):
            continue
        moments = frozenset(_moments(func))
        durations: set[str] = set()
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and _stamp_difference(node.value, moments):
                for target in node.targets:
                    durations |= _names(target)

        def measured(
            side: ast.AST, durations: set[str] = durations, moments: frozenset[str] = moments
        ) -> bool:
            return _stamp_difference(side, moments) or bool(_names(side) & durations)

        if any(
            isinstance(node, ast.Assert) and _bounded_above(node.test, measured)
            for node in ast.walk(func)
        ):
            found.append(func.name)
    return found


def test_no_test_bounds_the_time_between_two_recorded_moments() -> None:
    """``(row.processed_at - row.received_at).total_seconds() < 5.0`` is a timing: "fast
    enough" is a work budget (tests/budget.py, attempts, CPU seconds)."""
    bounded: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        where = str(path.relative_to(ROOT))
        for name in _stamp_difference_asserts(ast.parse(path.read_text(encoding="utf-8"))):
            bounded.add(f"{where}::{name}")
    assert bounded == set()


def test_the_guard_sees_a_bound_on_recorded_moments() -> None:
    caught = """
def test_a(row):
    assert (row.processed_at - row.received_at).total_seconds() < 5.0

def test_b(row):
    took = row.done_at - row.received_at
    assert timedelta(seconds=5) > took

def test_e(turn):
    returned = datetime.now(UTC)
    took_effect = datetime.fromisoformat(turn["at"])
    assert (returned - took_effect).total_seconds() < 1.0
"""
    allowed = """
def test_c(row, clock):
    assert row.due_at - row.filed_at == timedelta(hours=2)
    assert (row.processed_at - row.received_at).total_seconds() >= 0

def test_d(row, clock):
    clock.advance(timedelta(seconds=60))
    assert (row.next_attempt_at - clock.now()).total_seconds() <= 60
"""
    assert _stamp_difference_asserts(ast.parse(caught)) == ["test_a", "test_b", "test_e"]
    assert _stamp_difference_asserts(ast.parse(allowed)) == []


def test_no_test_asserts_on_wall_clock_time() -> None:
    """A bound on wall time fails on a busy machine: "fast" is a work budget
    (tests/budget.py, a count of steps or round trips); timings go in hfa bench."""
    timed: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        where = str(path.relative_to(ROOT))
        for name in _wall_clock_asserts(ast.parse(path.read_text(encoding="utf-8"))):
            timed.add(f"{where}::{name}")
    assert timed == set()


def test_the_quick_start_says_how_the_postgresql_half_runs() -> None:
    """A newcomer's plain ``pytest`` skips the PostgreSQL tests: the Quick start, where that
    command is, says how to run them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("\n## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "HFA_TEST_POSTGRES_URL=postgresql+psycopg://" in quick_start
    assert "skips the PostgreSQL half" in quick_start
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert "PostgreSQL tests skipped: run them with" in conftest


def test_every_audit_event_the_code_writes_is_in_the_readmes_audit_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| event | when | details |") :]
    listed = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", table[: table.index("\n\n")]))
    written = {
        match.group(1)
        for path in (ROOT / "gateway").rglob("*.py")
        for match in re.finditer(
            r'append\(\s*\w+,\s*"([a-z_]+\.[a-z_]+)"', path.read_text(encoding="utf-8")
        )
    }
    assert len(written) > 20
    assert written - listed == set()
