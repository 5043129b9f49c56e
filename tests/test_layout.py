"""The layout's rules, checked on every run: the import contract, module and function size,
no imports hidden inside functions, and a wheel without the benchmark harness."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gateway"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_import_contract_holds() -> None:
    # import-linter reads the contracts from pyproject.toml: the layers, the product never
    # importing bench/, and each package imported from outside only through the surface
    # its __all__ declares (tests/surface_contract.py; tests/ itself is outside the graph,
    # so a test may import the module it tests).
    lint = shutil.which("lint-imports")
    assert lint is not None, "import-linter is part of the test extra"
    result = subprocess.run(
        [lint], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_module_is_over_the_size_limit() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_the_size_limit() -> None:
    long: dict[str, int] = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert long == {}


# Imported where they are used, on purpose: gateway.mcp carries the MCP SDK (some 30 MB
# of every process), loaded by the first /mcp call and by ``hfa mcp``. The layers contract
# still sees these imports and checks their direction.
LAZY_IMPORTS = {
    ("gateway/http/mcp_mount.py", "gateway.mcp"),
    ("gateway/cli/mcp.py", "gateway.mcp"),
    # The ops commands that only read (hfa health, the lists) start without the gateway's
    # services (templates, keys, the audit writer): only those that act load them.
    ("gateway/cli/output.py", "gateway.services"),
    ("gateway/cli/requests.py", "gateway.cli"),
    # The word tables of every language (about 3 MB), loaded by the first reply read: the
    # listeners' process and an idle worker never read one.
    ("gateway/replies/__init__.py", "gateway.replies.decision"),
    ("gateway/replies/__init__.py", "gateway.replies.language"),
    ("gateway/replies/__init__.py", "gateway.replies.reading"),
    ("gateway/replies/__init__.py", "gateway.replies.choice"),
}


def test_no_gateway_import_hides_inside_a_function() -> None:
    # An import inside a function is how a cycle gets hidden; the layers contract would
    # see it too, but this names the line.
    hidden: list[str] = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    names = [a.name for a in node.names]
                where = str(path.relative_to(ROOT))
                if all((where, n) in LAZY_IMPORTS for n in names):
                    continue
                if any(n == "gateway" or n.startswith(("gateway.", "bench")) for n in names):
                    hidden.append(f"{where}:{node.lineno}")
    assert hidden == []


@pytest.mark.slow
def test_the_wheel_has_no_benchmark_code(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "gateway/app.py" in names
    harness = [n for n in names if n.split("/")[0] == "bench" or n.startswith("gateway/bench/")]
    assert harness == []
    assert not [n for n in names if n.endswith(("harness.py", "loadgen.py", "audit_bench.py"))]
