"""Print the health report as JSON; exit 1 when something is wrong (a dead beat, say)."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games import health


class Command(BaseCommand):
    help = (
        "Report the database, the broker, the last completed deadline sweep and the outbox, "
        "as JSON; exit status 1 when any is unhealthy (the sweep is late when beat is down)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--quiet", action="store_true", help="print nothing; only the exit status tells"
        )

    def handle(self, *args: Any, quiet: bool, **options: Any) -> None:
        report = health.status()
        if not quiet:
            self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
        if not report["ok"]:
            sys.exit(1)
