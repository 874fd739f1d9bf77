"""The web worker's application is ready before its first request, its start-up objects
kept out of the garbage collector's full collections (config/wsgi.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import gc, sys
import config.wsgi
print(gc.get_freeze_count())
print("games.views" in sys.modules and "games.catalogue.dodo.rules" in sys.modules)
"""


def test_importing_the_application_loads_the_views_and_freezes_what_start_up_made() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, views_loaded = done.stdout.split()
    # Django, DRF and the rules make about a hundred thousand objects as they load.
    assert int(frozen) > 50_000
    assert views_loaded == "True"
