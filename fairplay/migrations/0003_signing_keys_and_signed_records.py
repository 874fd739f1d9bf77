"""The key list (every public key that signed records, and when) and the records signed
once, when their game ended (issue 34, item 4)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("fairplay", "0002_fk_indexes_within_unique"),
        ("games", "0014_record_format_2_holds_and_move_instants"),
    ]

    operations = [
        migrations.CreateModel(
            name="SigningKey",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key_id", models.CharField(max_length=16, unique=True)),
                ("public_key", models.CharField(max_length=64, unique=True)),
                ("signed_from", models.DateTimeField()),
                ("signed_until", models.DateTimeField(blank=True, null=True)),
                ("revoked_from", models.DateTimeField(blank=True, null=True)),
                ("revoked_reason", models.TextField(blank=True, default="")),
            ],
            options={
                "ordering": ["signed_from", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        models.Value(True),
                        condition=models.Q(("signed_until__isnull", True)),
                        name="one_signing_key_in_force",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="SignedRecord",
            fields=[
                (
                    "table",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="signed_record",
                        serialize=False,
                        to="games.table",
                    ),
                ),
                ("envelope", models.TextField()),
                ("signed_at", models.DateTimeField()),
                (
                    "key",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="records",
                        to="fairplay.signingkey",
                    ),
                ),
            ],
        ),
    ]
