"""Replay every table's log and report any whose stored state differs from the replay."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Table
from games.rules import RulesError
from games.services import replay


class Command(BaseCommand):
    help = (
        "Replay each started table's move log from its seed and compare it with the stored state."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_ids", nargs="*", type=int, help="only these tables")

    def handle(self, *args: Any, table_ids: list[int], **options: Any) -> None:
        # A table never started (open, or cancelled before its deal) has no log to replay.
        tables = Table.objects.exclude(
            status__in=[Table.Status.OPEN, Table.Status.CANCELLED]
        ).order_by("id")
        if table_ids:
            tables = tables.filter(pk__in=table_ids)
        checked = 0
        bad: list[str] = []
        for table in tables.iterator(chunk_size=200):
            checked += 1
            try:
                state = replay(table)
            except RulesError as error:
                bad.append(f"table {table.pk}: the log does not replay: {error.message}")
                continue
            if state is None or state.to_json() != table.state:
                bad.append(f"table {table.pk}: the stored state differs from the replay")
            elif table.result != state.result:
                bad.append(f"table {table.pk}: the stored result differs from the replay")
        for line in bad:
            self.stderr.write(line)
        self.stdout.write(f"{checked} tables replayed, {len(bad)} differ")
        if bad:
            raise CommandError(f"{len(bad)} tables differ from their replay")
