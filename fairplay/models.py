"""Players' contributions to a table's seed."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


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


class LogEntry(models.Model):
    """An entry of the commitment log (:mod:`fairplay.tlog`, ``docs/fairplay.md`` section 17).

    Written in the transaction of the event it records (a table created, dealt, ended,
    voided), so that it commits with it or not at all; given its place in the tree
    (``index``) afterwards by the one sequencer (:func:`fairplay.commitments.sequence`),
    so that no write waits on the log.
    """

    # A table's id, not a key to it: the log outlives anything, and nothing cascades into it.
    table = models.BigIntegerField()
    kind = models.CharField(max_length=16)
    # The event's instant: the day the log's page counts it under.
    at = models.DateTimeField()
    # The entry's RFC 8785 canonical JSON: the bytes its leaf hashes.
    data = models.TextField()
    index = models.BigIntegerField(null=True, blank=True, unique=True)

    class Meta:
        indexes = [
            models.Index(fields=["table"], name="log_entry_table"),
            models.Index(fields=["at", "kind"], name="log_entry_day"),
            # The sequencer's queue: the entries not yet in the tree, oldest first.
            models.Index(fields=["id"], name="log_entry_pending", condition=Q(index__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"log entry {self.index} ({self.kind} of table {self.table})"


class LogNode(models.Model):
    """The hash of a complete subtree of the log: leaves ``[index * 2**level, (index + 1) *
    2**level)``; what proofs are made of (O(log n) of them a proof)."""

    level = models.PositiveSmallIntegerField()
    index = models.BigIntegerField()
    hash = models.BinaryField(max_length=32)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["level", "index"], name="one_log_node_per_place")
        ]

    def __str__(self) -> str:
        return f"log node {self.level}/{self.index}"


class LogHead(models.Model):
    """The log's one head row (pk 1): its size, right edge and latest signed checkpoint.
    The sequencer holds its row lock while it appends: one tree, whoever runs it."""

    size = models.BigIntegerField(default=0)
    # The hashes of the tree's largest complete subtrees, left to right, concatenated.
    frontier = models.BinaryField(default=b"")
    checkpoint = models.TextField(blank=True)
    checkpoint_size = models.BigIntegerField(default=0)
    # The key that signed the checkpoint (the key in force then): its id, and its raw 32
    # bytes in lowercase hex, as a record's transparency section names it.
    key_id = models.CharField(max_length=16, blank=True)
    public_key = models.CharField(max_length=64, blank=True)
    signed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"the commitment log, {self.size} entries"


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
