"""No import cycle between the project's modules, counting the imports made inside functions.

Every module under the project's packages is parsed (never imported) and each of its
``import`` statements, wherever it stands, is an edge to the project modules it names.
A cycle among them is a failure that names its modules in order.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "leaderboard", "fairplay", "config")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                modules[module_name(path)] = path
    return modules


def imported(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The project modules the module ``name`` (at ``path``) imports, at any depth in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def known(candidate: str) -> str | None:
        """``candidate`` or the closest package above it that is a project module."""
        while candidate and candidate not in modules:
            candidate = candidate.rpartition(".")[0]
        return candidate or None

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([base] if base else [])])
            # ``from games import services`` imports games.services; ``from x import f``, x.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            module = known(target)
            if module is not None and module != name:
                found.add(module)
    return found


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imported(path, name, modules) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """A cycle through each module that is in one (a few per tangle of modules that import
    each other, by Tarjan's strongly connected components), each as a path back to its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            found = [cycle for cycle in groups if set(cycle) & set(group)]
            for member in sorted(group) if len(group) > 1 else ():
                if not any(member in cycle for cycle in found):
                    found.append(one_cycle(member, set(group), edges))
                    groups.append(found[-1])

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def one_cycle(start: str, members: set[str], edges: dict[str, set[str]]) -> list[str]:
    """The shortest path from ``start`` back to itself through ``members``."""
    paths = {start: [start]}
    pending = [start]
    while pending:
        node = pending.pop(0)
        for other in sorted(edges[node] & members):
            if other == start:
                return [*paths[node], start]
            if other not in paths:
                paths[other] = [*paths[node], other]
                pending.append(other)
    raise AssertionError(f"{start} is in no cycle")


def test_the_project_has_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path: Path) -> None:
    modules = {name: tmp_path / f"{name}.py" for name in ("a", "b")}
    modules["a"].write_text("import b\n")
    modules["b"].write_text("def later():\n    from a import thing\n")
    edges = {name: imported(path, name, modules) for name, path in modules.items()}
    assert cycles(edges) == [["a", "b", "a"]]
