"""The contributions' foreign key loses its own index: ``one_contribution_per_seat``
(table, seat) begins with the same column. Only the index is dropped (the foreign key
stays, not validated again).
"""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "fairplay_contribution_table_id_bb951de2"


class Migration(migrations.Migration):
    dependencies = [
        ("fairplay", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{INDEX}"',
                    reverse_sql=(
                        f'CREATE INDEX IF NOT EXISTS "{INDEX}" '
                        'ON "fairplay_contribution" ("table_id")'
                    ),
                )
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="contribution",
                    name="table",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="contributions",
                        to="games.table",
                    ),
                )
            ],
        ),
    ]
