"""The table's row carries what its view shows beside the state (games.models): its
seats as shown, the tail of its log and its seed's receipts, filled here from the rows
they come from for every table there is."""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

RECENT_MOVES = 12  # games.selectors.RECENT_MOVES when this was written


def fill(apps: Any, schema_editor: Any) -> None:
    Table = apps.get_model("games", "Table")
    Seat = apps.get_model("games", "Seat")
    Move = apps.get_model("games", "Move")
    Contribution = apps.get_model("fairplay", "Contribution")
    tables = Table.objects.order_by("pk").only("pk", "version")
    for table in tables.iterator(chunk_size=500):
        seats = Seat.objects.filter(table=table).select_related("user").order_by("number")
        table.seating = [
            {
                "number": seat.number,
                "id": seat.pk,
                "user_id": seat.user_id,
                "username": seat.user.username if seat.user_id is not None else None,
                "bot": seat.is_bot,
                "level": seat.bot_level,
                "deadline": seat.deadline_at.isoformat() if seat.deadline_at else None,
            }
            for seat in seats
        ]
        moves = Move.objects.filter(table=table, seq__gt=table.version - RECENT_MOVES)
        table.log_tail = [
            {"seq": m.seq, "seat": m.seat, "at": m.created_at.isoformat(), "events": m.events}
            for m in moves.order_by("seq")
        ]
        table.receipts = [
            {"seat": c.seat, "receipt": c.receipt, "at": c.created_at.isoformat()}
            for c in Contribution.objects.filter(table=table).order_by("seat")
        ]
        table.save(update_fields=["seating", "log_tail", "receipts"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_fk_indexes_within_unique"),
        ("fairplay", "0002_fk_indexes_within_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="seating",
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.AddField(
            model_name="table",
            name="log_tail",
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.AddField(
            model_name="table",
            name="receipts",
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
