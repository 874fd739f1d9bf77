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


class SigningKey(models.Model):
    """A public key that has signed records, and the period it signed them: the key list.

    Written when a key is first used (``fairplay.key_list.key_in_force``), which closes
    the period of the key before it; revoked by ``manage.py revoke_signing_key``. Only the
    public half is here: the private key comes from the environment, never the database.
    """

    key_id = models.CharField(max_length=16, unique=True)
    public_key = models.CharField(max_length=64, unique=True)  # raw 32 bytes, lowercase hex
    signed_from = models.DateTimeField()
    signed_until = models.DateTimeField(null=True, blank=True)  # null: the key in force
    revoked_from = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["signed_from", "id"]
        constraints = [
            # At most one key in force: two processes that each first sign with a new key
            # of their own cannot both take over.
            models.UniqueConstraint(
                models.Value(True),
                condition=models.Q(signed_until__isnull=True),
                name="one_signing_key_in_force",
            ),
        ]

    def __str__(self) -> str:
        return f"signing key {self.key_id}"


class SignedRecord(models.Model):
    """An ended table's record, signed once, when its game ended: the same bytes forever.

    ``envelope`` is the RFC 8785 canonical JSON of ``{"record", "signature"}``;
    ``key`` and ``signed_at`` say who signed it and when, for a revocation to find.
    """

    table = models.OneToOneField(
        "games.Table", on_delete=models.CASCADE, primary_key=True, related_name="signed_record"
    )
    envelope = models.TextField()
    key = models.ForeignKey(SigningKey, on_delete=models.PROTECT, related_name="records")
    signed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"signed record of table {self.table_id}"
