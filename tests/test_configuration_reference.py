"""docs/configuration.md lists every environment variable the service reads, and no other.

The variables are found by reading the source, not by running it: the calls of the
settings' ``environ.Env`` (``env.str("X")``, ``env("X")``, ``env.db_url()`` with its own
default name...), ``"X" in env``, and ``os.environ`` / ``os.getenv``, in
``config/settings.py`` and every other module of the service's packages (what the
settings import among them; not the tests' or the benchmarks'). A documented
default that is a plain value in the source (``default=60``, ``default=7 * 24 * 3600``)
must be the one the reference gives.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import environ

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ROOT / "config" / "settings.py"
REFERENCE = ROOT / "docs" / "configuration.md"
# The Env methods that take no variable: they load a file or parse a value given them.
NOT_READS = {"read_env", "parse_value", "escape_proxy", "smart_cast"}
# A row of the reference's tables: | `NAME` | default | in production | what it does |
ROW = re.compile(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|(.*)\|\s*$")


def service_modules() -> list[Path]:
    """Every module of the service: the packages beside manage.py (the settings among
    them, and what they import), not the tests' and the benchmarks'."""
    packages = sorted(
        folder
        for folder in ROOT.iterdir()
        if (folder / "__init__.py").is_file() and folder.name not in ("tests", "bench")
    )
    return [path for package in packages for path in sorted(package.rglob("*.py"))]


def _env_default_name(method: str) -> str | None:
    """The variable an ``Env`` method reads when given none (``db_url``: DATABASE_URL)."""
    parameter = inspect.signature(getattr(environ.Env, method)).parameters.get("var")
    if parameter is not None and isinstance(parameter.default, str):
        return parameter.default
    return None


def _is_os_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def reads(source: str, where: str = "<source>") -> Iterator[tuple[str, ast.expr | None]]:
    """Each variable the source reads from the environment, with its ``default=`` node.

    Raises AssertionError on a read whose name is not a literal: no test could say
    which variable it is."""
    tree = ast.parse(source, where)
    envs = {  # the names bound to environ.Env()
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func) in ("environ.Env", "Env")
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def is_env(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in envs) or _is_os_environ(node)

    def literal(node: ast.expr | None, call: ast.AST) -> str:
        assert isinstance(node, ast.Constant) and isinstance(node.value, str), (
            f"{where}:{call.lineno}: a variable read by a name that is not a literal:"  # type: ignore[attr-defined]
            f" {ast.unparse(call)}"
        )
        return node.value

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            name_node = node.args[0] if node.args else keywords.get("var")
            if isinstance(function, ast.Name) and function.id in envs:  # env("X")
                yield literal(name_node, node), keywords.get("default")
            elif isinstance(function, ast.Attribute) and is_env(function.value):
                if function.attr in NOT_READS:
                    continue
                if name_node is None and not _is_os_environ(function.value):
                    default_name = _env_default_name(function.attr)
                    assert default_name, f"{where}:{node.lineno}: {ast.unparse(node)}"
                    yield default_name, keywords.get("default")
                else:  # env.str("X", default=...), os.environ.get("X", ...)
                    fallback = node.args[1] if len(node.args) > 1 else None
                    yield literal(name_node, node), keywords.get("default", fallback)
            elif ast.unparse(function) == "os.getenv":
                yield literal(name_node, node), node.args[1] if len(node.args) > 1 else None
        elif isinstance(node, ast.Compare) and any(is_env(c) for c in node.comparators):
            yield literal(node.left, node), None  # "X" in env
        elif isinstance(node, ast.Subscript) and is_env(node.value):
            yield literal(node.slice, node), None  # os.environ["X"]


def service_reads() -> dict[str, list[ast.expr | None]]:
    """Every variable the service reads, with the defaults each read gives it."""
    found: dict[str, list[ast.expr | None]] = {}
    for path in service_modules():
        for name, default in reads(path.read_text(), str(path.relative_to(ROOT))):
            found.setdefault(name, []).append(default)
    return found


def reference_rows() -> dict[str, list[str]]:
    """The reference's rows, by variable: its cells after the name."""
    rows: dict[str, list[str]] = {}
    for line in REFERENCE.read_text().splitlines():
        if match := ROW.match(line):
            assert match[1] not in rows, f"{match[1]} is listed twice"
            rows[match[1]] = [cell.strip() for cell in match[2].split("|")]
    return rows


def plain_value(node: ast.expr) -> object:
    """The value of a default written as constants and arithmetic; ValueError otherwise."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Sub):
        left, right = plain_value(node.left), plain_value(node.right)
        if isinstance(left, int | float) and isinstance(right, int | float):
            return {ast.Mult: left * right, ast.Add: left + right, ast.Sub: left - right}[
                type(node.op)
            ]
    raise ValueError(ast.unparse(node))


def spellings(value: object) -> set[str]:
    """How the reference may write a default: `30`, `0.5`, `10` for 10.0, `true`."""
    if isinstance(value, bool):
        return {f"`{str(value).lower()}`"}
    if isinstance(value, float) and value.is_integer():
        return {f"`{int(value)}`", f"`{value}`"}
    return {f"`{value}`"}


def test_the_reference_lists_every_variable_the_service_reads_and_no_other() -> None:
    read, listed = set(service_reads()), set(reference_rows())
    missing, stale = sorted(read - listed), sorted(listed - read)
    assert not missing, f"read by the service, missing from {REFERENCE.name}: {missing}"
    assert not stale, f"in {REFERENCE.name}, no longer read by the service: {stale}"


def test_every_row_gives_a_default_a_production_rule_and_a_meaning() -> None:
    for name, cells in reference_rows().items():
        assert len(cells) == 3 and all(cells), f"{name}: {cells}"


def test_each_plain_default_is_the_one_the_reference_gives() -> None:
    rows = reference_rows()
    checked = 0
    for name, defaults in service_reads().items():
        if name not in rows:
            continue  # the test above names it
        for node in defaults:
            try:
                value = plain_value(node) if node is not None else None
            except ValueError:
                continue  # a default worked out from others (PRODUCTION, BASE_DIR): in words
            if value in (None, ""):
                continue  # unset
            assert spellings(value) & set(re.findall(r"`[^`]*`", rows[name][0])), (
                f"{name}: the settings' default is {value!r}; the reference says {rows[name][0]}"
            )
            checked += 1
    assert checked > 30


SAMPLE = """
import os
import environ
env = environ.Env()
A = env.str("A", default="a")
B = env("B", default=2)
C = env.db_url()
D = env.int(var="D")
E = os.environ.get("E", "e")
F = os.environ["F"]
G = os.getenv("G")
if "H" in env or "I" not in os.environ:
    pass
env.read_env(".env")
"""


def test_the_scan_finds_each_way_of_reading_a_variable() -> None:
    assert {name for name, _ in reads(SAMPLE)} == set("ABDEFGHI") | {"DATABASE_URL"}


def test_the_scan_refuses_a_variable_named_at_run_time() -> None:
    try:
        list(reads("import environ\nenv = environ.Env()\nname = 'X'\nX = env.str(name)\n"))
    except AssertionError as refusal:
        assert "not a literal" in str(refusal)
    else:
        raise AssertionError("a name worked out at run time went unnoticed")


def test_the_scan_reads_the_settings_and_the_rest_of_the_service_not_the_tests() -> None:
    scanned = {path.relative_to(ROOT).as_posix() for path in service_modules()}
    assert {"config/settings.py", "fairplay/keys.py", "config/wsgi.py"} <= scanned
    assert not {path for path in scanned if path.startswith(("tests/", "bench/"))}
