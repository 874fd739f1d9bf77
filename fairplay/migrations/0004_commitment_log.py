"""The commitment log (docs/fairplay.md section 17), and every table made before it in it.

The backfill appends, in table id order, each table's entries as they would have
been written: created; dealt if its cards were dealt; finished, abandoned or
cancelled if it has ended; voided if staff left it out of the ratings. It
sequences them too (the tree's nodes and size); the first run of the sequencer
signs the checkpoint, with the record signing key, which a migration does not load.
"""

from django.db import migrations, models
from django.db.models import Q

from fairplay import tlog
from fairplay.commitments import body

CHUNK = 2000


def backfill(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    UnratedTable = apps.get_model("leaderboard", "UnratedTable")
    LogEntry = apps.get_model("fairplay", "LogEntry")
    LogNode = apps.get_model("fairplay", "LogNode")
    LogHead = apps.get_model("fairplay", "LogHead")
    voided = dict(
        UnratedTable.objects.filter(reason="voided").values_list("table_id", "created_at")
    )
    size, edge = 0, []
    last = 0
    while True:
        tables = list(Table.objects.filter(pk__gt=last).order_by("pk")[:CHUNK])
        if not tables:
            break
        last = tables[-1].pk
        rows = []
        for table in tables:
            common = {
                "table": table.pk,
                "game": table.game,
                "ruleset_version": table.ruleset_version,
                "commitment": table.commitment,
            }
            events = [("created", table.created_at, {})]
            if table.started_at is not None:
                receipts = [shown["receipt"] for shown in table.receipts]
                events.append(("dealt", table.started_at, {"receipts": receipts}))
            if table.status == "finished":
                kind = "finished" if table.result["reason"] == "finished" else "abandoned"
                events.append((kind, table.finished_at, {"result": table.result}))
            elif table.status == "cancelled":
                events.append(("cancelled", table.cancelled_at, {"reason": table.end_reason}))
            if table.pk in voided:
                events.append(("voided", voided[table.pk], {}))
            for kind, at, more in events:
                data = body(kind, at=at, **common, **more)
                rows.append(
                    LogEntry(table=table.pk, kind=kind, at=at, data=data, index=size + len(rows))
                )
        LogEntry.objects.bulk_create(rows, batch_size=CHUNK)
        made, edge = tlog.append(size, edge, [tlog.leaf_hash(r.data.encode()) for r in rows])
        LogNode.objects.bulk_create(
            [LogNode(level=level, index=index, hash=value) for level, index, value in made],
            batch_size=CHUNK,
        )
        size += len(rows)
    LogHead.objects.create(pk=1, size=size, frontier=b"".join(edge))


class Migration(migrations.Migration):
    dependencies = [
        ("fairplay", "0003_signing_keys_and_signed_records"),
        ("games", "0014_record_format_2_holds_and_move_instants"),
        ("leaderboard", "0003_farming_defences"),
    ]

    operations = [
        migrations.CreateModel(
            name="LogEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("table", models.BigIntegerField()),
                ("kind", models.CharField(max_length=16)),
                ("at", models.DateTimeField()),
                ("data", models.TextField()),
                ("index", models.BigIntegerField(blank=True, null=True, unique=True)),
            ],
            options={
                "indexes": [
                    models.Index(fields=["table"], name="log_entry_table"),
                    models.Index(fields=["at", "kind"], name="log_entry_day"),
                    models.Index(
                        condition=Q(("index__isnull", True)),
                        fields=["id"],
                        name="log_entry_pending",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="LogHead",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("size", models.BigIntegerField(default=0)),
                ("frontier", models.BinaryField(default=b"")),
                ("checkpoint", models.TextField(blank=True)),
                ("checkpoint_size", models.BigIntegerField(default=0)),
                ("key_id", models.CharField(blank=True, max_length=16)),
                ("public_key", models.CharField(blank=True, max_length=64)),
                ("signed_at", models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.CreateModel(
            name="LogNode",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("level", models.PositiveSmallIntegerField()),
                ("index", models.BigIntegerField()),
                ("hash", models.BinaryField(max_length=32)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("level", "index"), name="one_log_node_per_place"
                    )
                ],
            },
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
