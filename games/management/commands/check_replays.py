"""Replay every table's log and report any whose stored state differs from the replay, or
whose row shows its seats, the tail of its log or its receipts otherwise than their rows,
or whose seats' clocks (kept on its row alone: games.models) do not follow its turn."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.holidays import earliest
from games.models import Table
from games.rules import RulesError
from games.services import replay, shown_on_row


def clocks_follow_the_turn(table: Table) -> bool:
    """Whether the clocks on ``table``'s row are those of its turn: a clock runs (or is
    held by a holiday) for each person's seat that owes an action, and for no other
    seat, and the table's deadline is the soonest due of them. Their times themselves
    have no other record to compare with."""
    seats = table.seated()
    owing = {seat.number for seat in seats if seat.number in table.to_act and not seat.is_bot}
    if table.status != Table.Status.PLAYING:
        owing = set()
    timed = {seat.number for seat in seats if seat.deadline_at or seat.held is not None}
    return timed == owing and table.deadline_at == earliest(seats)


class Command(BaseCommand):
    help = (
        "Replay each started table's move log from its seed and compare it with the stored "
        "state; compare what each table's row shows of its seats, moves and receipts with "
        "their rows, and its seats' clocks with its turn."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_ids", nargs="*", type=int, help="only these tables")

    def handle(self, *args: Any, table_ids: list[int], **options: Any) -> None:
        tables = Table.objects.order_by("id")
        if table_ids:
            tables = tables.filter(pk__in=table_ids)
        replayed = 0
        bad: list[str] = []
        for table in tables.iterator(chunk_size=200):
            for name, shown in shown_on_row(table).items():
                if getattr(table, name) != shown:
                    bad.append(f"table {table.pk}: its row's {name} differs from the rows")
            if not clocks_follow_the_turn(table):
                bad.append(f"table {table.pk}: its seats' clocks do not follow its turn")
            # A table never started (open, or cancelled before its deal) has no log to replay.
            if table.status in (Table.Status.OPEN, Table.Status.CANCELLED):
                continue
            replayed += 1
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
        # Every table's row is compared with its rows; the started ones are also replayed.
        differ = len({line.split(":")[0] for line in bad})
        self.stdout.write(f"{replayed} tables replayed, {differ} differ")
        if bad:
            raise CommandError(f"{differ} tables differ from their replay or their rows")
