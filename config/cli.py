"""``fairdeal``: Django's management commands with Fairdeal's settings, wherever it is installed.

The release wheel installs it as a command (``[project.scripts]`` in pyproject.toml):
``fairdeal migrate``, ``fairdeal collectstatic``, ``fairdeal check --deploy``... In a
checkout, ``python manage.py`` is the same function.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
