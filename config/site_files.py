"""Where the site's own files are: a checkout's folders, or where the release wheel put them.

A checkout keeps its templates, its static files, Pyodide's core (``npm ci``) and
the verifier's wheels (``make verifier``) in the folders of :data:`IN_CHECKOUT`. The
release wheel (``make release``) carries each of them under ``config/site/<name>``:
``hatch_build.py`` reads this same table, so that the settings find in an installed
site what the build put there. No Django here: the build imports it.
"""

from __future__ import annotations

from pathlib import Path

IN_CHECKOUT = {
    "templates": "templates",
    "static": "static",
    "pyodide": "node_modules/pyodide",
    "wheels": "verifier/dist",
}
IN_WHEEL = "config/site"  # the folder, inside the wheel, that holds each of them by name

CONFIG = Path(__file__).resolve().parent
ROOT = CONFIG.parent


def is_checkout() -> bool:
    """Whether this code runs from a checkout (its ``manage.py`` beside the packages)
    rather than from an installed release."""
    return (ROOT / "manage.py").is_file()


def site_path(name: str) -> Path:
    """The folder of the site's ``name`` (a key of :data:`IN_CHECKOUT`)."""
    if is_checkout():
        return ROOT / IN_CHECKOUT[name]
    return ROOT / IN_WHEEL / name


def home() -> Path:
    """Where ``.env`` and the embedded defaults' ``var/`` are: the checkout, or the
    working directory of an installed release (a service's ``WorkingDirectory``)."""
    return ROOT if is_checkout() else Path.cwd()
