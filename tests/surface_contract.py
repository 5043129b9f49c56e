"""import-linter's ``surface`` contract: a package is imported from outside only through the
surface its ``__init__.py`` declares in ``__all__``.

A package declares its surface one of two ways (both are read from ``__all__``):

- names re-exported from its ``__init__`` (``gateway.replies``, ``gateway.contract``): then
  only the package itself is public, and every module in it is private;
- modules named in ``__all__`` (``gateway.store``: ``"models"``, ``"thread"`` ...): then those
  modules are public, everything in them, and the others are private.

A module outside the package that imports one of its private modules breaks the contract,
named with its line. A public subpackage is checked in turn against its own ``__all__``.
Every package under the contract's containers that has modules must have an ``__all__``.
Modules inside a package import each other freely. tests/ is not in the import graph
(``root_packages``): a test may import the very module it tests. Which names a module
takes from a package that re-exports them is mypy's to check (``no_implicit_reexport``).
Registered in pyproject.toml (``contract_types``); ``lint-imports`` puts the working
directory on the path, so run it from the repository root.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import grimp
from importlinter import Contract, ContractCheck, fields, output


@dataclass(frozen=True)
class Reach:
    importer: str
    imported: str
    lines: tuple[int, ...]
    package: str


class SurfaceContract(Contract):
    """Options: ``containers``, the packages whose subpackages (at any depth) are checked."""

    type_name = "surface"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        containers: list[str] = self.containers  # type: ignore[assignment]
        undeclared: list[str] = []
        reaches: list[Reach] = []
        for package in _packages(graph, containers):
            surface = _declared_surface(package)
            if surface is None:
                undeclared.append(package)
            reaches.extend(_reaches_past(graph, package, surface or ()))
        return ContractCheck(
            kept=not (undeclared or reaches),
            metadata={"undeclared": undeclared, "reaches": reaches},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        undeclared: list[str] = check.metadata["undeclared"]
        reaches: list[Reach] = check.metadata["reaches"]
        for package in undeclared:
            output.print_error(f"- {package} declares no __all__ (its public surface)")
            output.new_line()
        for reach in reaches:
            lines = ", ".join(str(n) for n in reach.lines)
            output.print_error(
                f"- {reach.importer} -> {reach.imported} (l.{lines}): "
                f"not in {reach.package}.__all__"
            )
            output.new_line()


def _packages(graph: grimp.ImportGraph, containers: list[str]) -> list[str]:
    # A package without modules (``gateway.replies.lexicon``: data files) has nothing to hide.
    found = {
        module
        for container in containers
        for module in graph.find_descendants(container)
        if graph.find_children(module)
    }
    return sorted(found)


def _reaches_past(graph: grimp.ImportGraph, package: str, surface: tuple[str, ...]) -> list[Reach]:
    public = {f"{package}.{name}" for name in surface}
    inside = graph.find_descendants(package) | {package}
    reaches = []
    for imported in sorted(graph.find_descendants(package)):
        # The package's own module on the way to ``imported``: deeper levels are the business
        # of that subpackage's own surface.
        child = ".".join(imported.split(".")[: package.count(".") + 2])
        if child in public:
            continue
        for importer in sorted(graph.find_modules_that_directly_import(imported) - inside):
            details = graph.get_import_details(importer=importer, imported=imported)
            lines = tuple(d["line_number"] for d in details)
            reaches.append(Reach(importer, imported, lines, package))
    return reaches


def _declared_surface(package: str) -> tuple[str, ...] | None:
    """The names in ``package``'s ``__all__``, read without importing it; None without one."""
    root, *rest = package.split(".")
    spec = importlib.util.find_spec(root)
    assert spec is not None and spec.origin is not None, root
    init = Path(spec.origin).parent.joinpath(*rest, "__init__.py")
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return tuple(ast.literal_eval(value))
    return None
