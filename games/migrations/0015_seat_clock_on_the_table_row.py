"""A seat's clock (its deadline, its player's holiday, its reserve of time) is kept on its
table's row alone (``Table.seating``), so that a move writes no seat's row. Every write
of these columns wrote the same values into the seating in its own transaction, so
nothing is carried over: the seating already holds them (``manage.py check_replays``
compared the two).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_record_format_2_holds_and_move_instants"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="seat",
            name="away_until",
        ),
        migrations.RemoveField(
            model_name="seat",
            name="deadline_at",
        ),
        migrations.RemoveField(
            model_name="seat",
            name="held",
        ),
        migrations.RemoveField(
            model_name="seat",
            name="reserve",
        ),
    ]
