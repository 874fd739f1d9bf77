"""Players' contributions to a table's seed."""

from __future__ import annotations

from django.db import models


class Contribution(models.Model):
    """Entropy a seated player adds before the deal; mixed into the game seed in seat order."""

    # No index of its own: one_contribution_per_seat (table, seat) begins with it.
    table = models.ForeignKey(
        "games.Table", on_delete=models.CASCADE, related_name="contributions", db_index=False
    )
    seat = models.PositiveSmallIntegerField()
    entropy = models.BinaryField(max_length=64)
    # sha256 of the entropy, hex: the receipt the player keeps and the record repeats.
    receipt = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="one_contribution_per_seat"),
            models.UniqueConstraint(fields=["table", "receipt"], name="contribution_not_repeated"),
        ]

    def __str__(self) -> str:
        return f"contribution of seat {self.seat} to table {self.table_id}"
