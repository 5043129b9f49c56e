"""The structure drawing: gateway's rooms on their floors, and the import arrows between them.

``PYTHONPATH=$PWD python -m bench.walk --floors`` prints it for the checkout on the path.
A *room* here is a top-level part of ``gateway/`` (a package such as ``inbound/``, or a
module such as ``services.py``), plus ``bench/`` above them all. The floors are the
layers the package is built in, top to bottom (``FLOORS``); a module of ``gateway/`` that
is not named there goes one floor above the highest room it imports (``implied``).

The arrows are read from the code with ``ast``: every ``import`` and ``from ... import``
(at module level or inside a function), and ``importlib.import_module`` with a literal
or a module-level string constant, which an import linter does not see. An arrow's count
is the number of distinct (importing file, imported module) pairs. An arrow *points up*
when the room imported is on a higher floor than the room importing it.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import gateway

GATEWAY = Path(gateway.__file__).resolve().parent
BENCH = Path(__file__).resolve().parent
SKIPPED = ("store/migrations",)

# Top to bottom; a package's room is named with a trailing slash.
FLOORS: dict[str, int] = {
    "bench/": 11,
    "cli/": 10,
    "app.py": 9,
    "http/": 8,
    "scheduler.py": 7,
    "evidence/": 7,
    "mcp.py": 7,
    "inbound/": 6,
    "intake/": 6,
    "outbound/": 5,
    "services.py": 4,
    "store/": 3,
    "replies/": 2,
    "settings/": 2,
    "contract/": 2,
    "contract.py": 2,
    "tokens.py": 2,
    "render.py": 2,
    **dict.fromkeys(
        (
            "policy.py",
            "runner.py",
            "throttle.py",
            "clock.py",
            "errors.py",
            "i18n.py",
            "helper_process.py",
        ),
        1,
    ),
}


def skipped(relative: str) -> bool:
    return any(relative.startswith(part) for part in SKIPPED)


def room_of(relative: str) -> str:
    """``inbound/worker.py`` -> ``inbound/``; ``services.py`` -> ``services.py``."""
    head, sep, _rest = relative.partition("/")
    return f"{head}/" if sep else head


def gateway_files(root: Path = GATEWAY) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if not skipped(relative):
            yield relative, path


def _module_of(relative: str) -> str:
    """``inbound/worker.py`` -> ``gateway.inbound.worker``; ``store/__init__.py`` -> ``gateway.store``."""
    parts = relative[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["gateway", *parts])


def _string_constants(tree: ast.Module) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def imported_modules(path: Path, module: str, package: bool) -> set[str]:
    """Every module name ``path`` imports (absolute, relative made absolute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = _string_constants(tree)
    here = module.split(".") if package else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here[: len(here) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # Each name as a module when it is one, else as its module (``_is_module``).
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                names.add(constants[arg.id])
    return names


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )


def target_room(name: str, root: Path = GATEWAY) -> str | None:
    """The room an imported name lands in, or None when it is outside gateway/ and bench/."""
    parts = name.split(".")
    if parts[0] == "bench":
        return "bench/"
    if parts[0] != "gateway" or len(parts) < 2:
        return None
    head = parts[1]
    if (root / head).is_dir():
        return f"{head}/"
    if (root / f"{head}.py").is_file():
        return f"{head}.py"
    return None  # a name, not a module (``from gateway import something``)


@dataclass
class Drawing:
    floors: dict[str, int]
    implied: dict[str, int]
    lines: Counter[str]
    files: Counter[str]
    arrows: Counter[tuple[str, str]] = field(default_factory=Counter)

    def up(self) -> list[tuple[str, str, int]]:
        return [(a, b, n) for (a, b), n in self.arrows.items() if self.floors[b] > self.floors[a]]


def _bench_files() -> Iterator[tuple[str, Path]]:
    for path in sorted(BENCH.glob("*.py")):
        yield f"bench/{path.name}", path


def draw(root: Path = GATEWAY) -> Drawing:
    lines: Counter[str] = Counter()
    files: Counter[str] = Counter()
    pairs: set[tuple[str, str, str]] = set()  # (importing file, room, imported module)
    sources = [(rel, path, room_of(rel), _module_of(rel)) for rel, path in gateway_files(root)]
    sources += [(rel, path, "bench/", "bench." + path.stem) for rel, path in _bench_files()]
    for relative, path, room, module in sources:
        lines[room] += len(path.read_text(encoding="utf-8").splitlines())
        files[room] += 1
        for name in imported_modules(path, module, path.name == "__init__.py"):
            target = target_room(name, root)
            if target is not None and target != room:
                # ``from gateway.x import y`` names gateway.x and gateway.x.y: one module.
                pairs.add(
                    (relative, target, name if _is_module(name, root) else name.rpartition(".")[0])
                )
    arrows: Counter[tuple[str, str]] = Counter()
    for relative, target, _module in pairs:
        arrows[(room_of(relative) if not relative.startswith("bench/") else "bench/", target)] += 1
    floors, implied = _assign(set(lines), arrows)
    return Drawing(floors, implied, lines, files, arrows)


def _is_module(name: str, root: Path) -> bool:
    parts = name.split(".")
    if parts[0] == "bench":
        return (BENCH / f"{'/'.join(parts[1:])}.py").is_file() or len(parts) == 1
    relative = "/".join(parts[1:])
    return (root / f"{relative}.py").is_file() or (root / relative / "__init__.py").is_file()


def _assign(
    rooms: set[str], arrows: Counter[tuple[str, str]]
) -> tuple[dict[str, int], dict[str, int]]:
    """The table's floors, and for the rooms it does not name: one above what they import."""
    floors = {room: FLOORS[room] for room in rooms if room in FLOORS}
    implied: dict[str, int] = {}
    pending = sorted(rooms - set(floors))
    for _ in range(len(pending) + 1):
        for room in list(pending):
            below = [b for (a, b) in arrows if a == room]
            if all(b in floors for b in below):
                implied[room] = floors[room] = 1 + max((floors[b] for b in below), default=0)
                pending.remove(room)
    for room in pending:  # a cycle among unnamed rooms: put them on the ground floor
        implied[room] = floors[room] = 1
    return floors, implied


def drawing_text(drawing: Drawing) -> str:
    out = ["floor  room (files, lines)"]
    for floor in sorted(set(drawing.floors.values()), reverse=True):
        rooms = sorted(r for r, f in drawing.floors.items() if f == floor)
        listed = ", ".join(
            f"{r}{'*' if r in drawing.implied else ''} ({drawing.files[r]}, {drawing.lines[r]:,})"
            for r in rooms
        )
        total = sum(drawing.lines[r] for r in rooms)
        out.append(f"{floor:>5}  {listed}   [{total:,} lines]")
    out.append("* floor implied by its imports (one above the highest room it imports)")
    out.append("")
    out.append(
        f"import arrows between rooms: {len(drawing.arrows)}, "
        f"{sum(drawing.arrows.values())} (file, module) pairs"
    )
    ordered = sorted(
        drawing.arrows.items(),
        key=lambda kv: (-drawing.floors[kv[0][0]], kv[0][0], -kv[1], kv[0][1]),
    )
    for (a, b), n in ordered:
        mark = "  UP" if drawing.floors[b] > drawing.floors[a] else ""
        out.append(
            f"  {a:<18} {drawing.floors[a]:>2} -> {b:<18} {drawing.floors[b]:>2}  x{n}{mark}"
        )
    up = drawing.up()
    out.append("")
    out.append(f"arrows that point up: {len(up)}")
    out.extend(f"  {a} -> {b} x{n}" for a, b, n in up)
    return "\n".join(out)


def drawing_json(drawing: Drawing) -> dict[str, object]:
    return {
        "floors": drawing.floors,
        "implied": drawing.implied,
        "lines": dict(drawing.lines),
        "files": dict(drawing.files),
        "arrows": [
            {"from": a, "to": b, "count": n} for (a, b), n in sorted(drawing.arrows.items())
        ],
        "up": [{"from": a, "to": b, "count": n} for a, b, n in drawing.up()],
    }
