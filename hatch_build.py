"""The release wheel's build hook (hatchling, pyproject.toml): the site's files go in with it.

A wheel holds packages; the site also needs its templates, its static files, Pyodide's
core and the verifier's wheels, which a checkout keeps in folders of their own
(``config/site_files.py``, read here, is the one table of them). The hook puts each
under ``config/site/<name>`` in the wheel, where the installed settings look. An
editable install runs from the checkout and needs none of this.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class SiteFilesHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        root = Path(self.root)
        table = runpy.run_path(str(root / "config" / "site_files.py"))
        missing = [
            source for source in table["IN_CHECKOUT"].values() if not (root / source).is_dir()
        ]
        if missing:
            raise FileNotFoundError(
                f"the release wheel needs {', '.join(missing)}: run `make install` first"
                " (npm ci fetches Pyodide, make verifier builds the verifier's wheel)"
            )
        for name, source in table["IN_CHECKOUT"].items():
            build_data["force_include"][str(root / source)] = f"{table['IN_WHEEL']}/{name}"
