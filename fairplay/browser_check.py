"""The files the check in the browser loads, served by Fairdeal as static files.

The verify pages' button "Check it in this browser" (``static/fairdeal/verify.js``)
runs the verifier itself, ``fairplay.verify``, in the player's browser through
Pyodide (CPython compiled to WebAssembly); there is no second implementation of
the rules in JavaScript. It loads, only when asked:

- Pyodide's core (:data:`PYODIDE_FILES`) from the npm package ``pyodide``, which
  ``package.json`` pins and ``make browser-verifier`` installs with ``npm ci``
  into ``node_modules/pyodide`` (``FAIRDEAL_PYODIDE_DIR``);
- two wheels from ``FAIRDEAL_VERIFIER_WHEELS`` (``verifier/dist``): the
  verifier's own (``make verifier``) and ``rfc8785``'s, the one pure-Python
  package the verifier needs, downloaded there by ``make browser-verifier`` at the
  version the server runs.

:class:`Finder` serves them under ``fairplay/pyodide/`` and ``fairplay/wheels/``,
and nothing else of those folders (no CDN, never the package's other files).
``collectstatic`` gathers them like any other static file; WhiteNoise serves the
``.wasm`` as ``application/wasm``, gzipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PYODIDE = "fairplay/pyodide"
WHEELS = "fairplay/wheels"
# Pyodide's core: the loader, the interpreter (its JavaScript and WebAssembly), the
# standard library and the lock file it reads at start. No package from its CDN.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# The wheels, in the order they are unpacked: the verifier's dependency, then the verifier.
WHEEL_PROJECTS = ("rfc8785", "fairdeal_verify")


def pyodide_dir() -> Path:
    return Path(settings.FAIRDEAL_PYODIDE_DIR)


def wheels_dir() -> Path:
    return Path(settings.FAIRDEAL_VERIFIER_WHEELS)


def wheels() -> list[Path]:
    """The wheel of each of :data:`WHEEL_PROJECTS` (its newest file when the folder holds
    several), in order; a project with no wheel is left out."""
    found = []
    folder = wheels_dir()
    for project in WHEEL_PROJECTS:
        candidates = sorted(
            folder.glob(f"{project}-*-py3-none-any.whl"), key=lambda path: path.stat().st_mtime
        )
        if candidates:
            found.append(candidates[-1])
    return found


def missing() -> list[str]:
    """What the check in the browser needs and this server does not have, in words."""
    absent = [name for name in PYODIDE_FILES if not (pyodide_dir() / name).is_file()]
    have = {path.name.partition("-")[0] for path in wheels()}
    absent += [f"the {project} wheel" for project in WHEEL_PROJECTS if project not in have]
    return absent


def served() -> dict[str, Path]:
    """Every file served, by its static path."""
    files = {f"{PYODIDE}/{name}": pyodide_dir() / name for name in PYODIDE_FILES}
    files.update({f"{WHEELS}/{path.name}": path for path in wheels()})
    return {name: path for name, path in files.items() if path.is_file()}


class Finder(BaseFinder):
    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str]:
        """Only the files of :func:`served`, by their static path."""
        found = served().get(path)
        if find_all:
            return [str(found)] if found else []
        return str(found) if found else []

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, FileSystemStorage]]:
        for name, path in served().items():
            storage = FileSystemStorage(location=path.parent)
            storage.prefix = name.rpartition("/")[0]  # type: ignore[attr-defined]
            yield path.name, storage
