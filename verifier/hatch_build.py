"""The wheel's files: every module the verifier imports, mapped in from the repository.

Starting from the entry modules (``entries`` in pyproject.toml: paths relative to the
repository, globs allowed), each module's imports are read (parsed, never run), at any
depth in it, and every module of the repository they name is shipped too, until none is
left. A package's ``__init__.py`` ships when it imports nothing beyond what is shipped
already; otherwise the package is left a namespace package in the wheel (the catalogue,
whose ``__init__`` registers every game with its bot and its look, which the verifier
does not need). An import of anything else than the standard library, the repository's
modules and the ``dependencies`` named in pyproject.toml stops the build, naming it: the
verifier holds nothing of Django, and nothing compiled.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

REPOSITORY = Path(__file__).resolve().parent.parent


class VerifierFiles(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        entries = [
            path for pattern in self.config["entries"] for path in sorted(REPOSITORY.glob(pattern))
        ]
        if not entries:
            raise RuntimeError(f"no entry module found for {self.config['entries']}")
        allowed = set(self.config.get("dependencies", ())) | set(sys.stdlib_module_names)
        for path in shipped(entries, allowed):
            relative = path.relative_to(REPOSITORY).as_posix()
            build_data["force_include"][str(path)] = relative
        build_data["pure_python"] = True


def module_path(name: str) -> Path | None:
    """The repository's file of the module ``name``, or None if it is not the repository's."""
    base = REPOSITORY.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPOSITORY).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, wherever the import stands in it: ``from p import m``
    imports the module p.m when there is one (p is then only its package), else p."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if module_path(submodule) is not None else base)
    return found - {"__future__"}


def shipped(entries: list[Path], allowed: set[str]) -> list[Path]:
    """The entry modules, the repository's modules they import, on and on, and the
    ``__init__.py`` of each package on the way that imports nothing else."""
    modules: dict[str, Path] = {}
    waiting = list(entries)
    while waiting:
        path = waiting.pop()
        if module_name(path) in modules:
            continue
        modules[module_name(path)] = path
        for imported in sorted(imports(path)):
            own = module_path(imported)
            if own is not None:
                waiting.append(own)
            elif imported.split(".")[0] not in allowed:
                raise RuntimeError(
                    f"{path.relative_to(REPOSITORY)} imports {imported}, which the stand-alone "
                    "verifier cannot ship: it ships the standard library, "
                    f"{', '.join(sorted(allowed - set(sys.stdlib_module_names)))} and the "
                    "repository's own modules"
                )
    packages = {
        ".".join(parts[:depth])
        for name in modules
        for parts in [name.split(".")]
        for depth in range(1, len(parts))
    }
    for package in sorted(packages - set(modules)):
        init = module_path(package)
        if init is None:
            continue
        needed = {module_path(name) for name in imports(init)} - {None}
        if all(module_name(path) in modules for path in needed if path is not None):
            modules[package] = init
    return sorted(modules.values())
