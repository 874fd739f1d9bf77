"""The log's and the seats' foreign keys lose their own indexes: the unique constraints
``move_seq_unique`` (table, seq) and ``seat_number_unique`` (table, number) begin with
the same column and serve every lookup by table, so each move inserted an index entry
that nothing read. Only the indexes are dropped (the foreign keys stay as they are,
not dropped and validated again over the whole log).
"""

import django.db.models.deletion
from django.db import migrations, models

DROPPED = {"games_move": "games_move_table_id_b227484b", "games_seat": "games_seat_table_id_4192d6ae"}


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_seat_deadline_unindexed"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{index}"',
                    reverse_sql=f'CREATE INDEX IF NOT EXISTS "{index}" ON "{table}" ("table_id")',
                )
                for table, index in DROPPED.items()
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="move",
                    name="table",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="moves",
                        to="games.table",
                    ),
                ),
                migrations.AlterField(
                    model_name="seat",
                    name="table",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="seats",
                        to="games.table",
                    ),
                ),
            ],
        ),
    ]
