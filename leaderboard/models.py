"""Ratings per game, the change each rated table made to them, and each game's ledger.

``Rating`` is where a player stands at a game now; ``RatingChange`` is the
history, one row per player and rated table (the database holds that, so a
table rated twice fails rather than counting twice). ``RatingLedger`` is the
row that serialises the rating work of one game, and remembers the last table
applied, in the order tables finished: docs/ratings.md.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q, Value

from games.models import Table
from leaderboard import skill


class Rating(models.Model):
    """A player's skill at one game: stored as of their last rated table (``last_played_at``).

    What is shown and ranked is ``sigma`` widened for the time since
    (:func:`leaderboard.skill.widened`); the row itself changes only when a table is rated.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=32)
    mu = models.FloatField(default=skill.MU)
    sigma = models.FloatField(default=skill.SIGMA)
    games = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)
    # mu - 3 sigma as stored, kept by the database. Time away only widens sigma, so the
    # rating shown now is never above it: the leaderboard walks this index, best first,
    # and widens only the rows that can still be on the page (leaderboard/selectors.py).
    conservative = models.GeneratedField(
        expression=F("mu") - Value(skill.Z) * F("sigma"),
        output_field=models.FloatField(),
        db_persist=True,
    )

    class Meta:
        ordering = ["game", "player"]
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="rating_one_per_game"),
            models.CheckConstraint(condition=Q(sigma__gt=0), name="rating_sigma_positive"),
        ]
        indexes = [
            # The leaderboard: a game's players who played lately.
            models.Index(fields=["game", "last_played_at"], name="rating_game_recent"),
            # The leaderboard's order, best first, and a player's rank: those above them.
            models.Index(fields=["game", "-conservative"], name="rating_game_conservative"),
        ]

    def __str__(self) -> str:
        return f"{self.game} rating of user {self.player_id}"

    @property
    def skill(self) -> skill.Skill:
        return skill.Skill(self.mu, self.sigma)


class RatingChange(models.Model):
    """What one rated table did to one player's rating: before, after, and the place.

    ``sigma_before`` is the stored sigma; the model was given it widened for
    the days since ``last_played_before``. ``finished_at`` is the table's, so
    that the history reads in the order the tables finished.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.CharField(max_length=32)
    finished_at = models.DateTimeField()
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    last_played_before = models.DateTimeField(null=True, blank=True)
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["finished_at", "table", "player"]
        constraints = [
            models.UniqueConstraint(fields=["player", "table"], name="rating_change_once"),
        ]
        indexes = [
            models.Index(fields=["game", "finished_at", "table"], name="rating_change_order"),
            models.Index(fields=["player", "-finished_at"], name="rating_change_player"),
        ]

    def __str__(self) -> str:
        return f"rating change of user {self.player_id} at table {self.table_id}"


class RatingLedger(models.Model):
    """One game's rating work, one worker at a time, in the order the tables finished.

    Every rating write of a game locks this row first. ``through_*`` is the
    latest table applied, by (finished_at, id): a table that finished before it
    but arrives after it is a late arrival, and the tables after it are
    rewound and applied again in order (leaderboard/services.py).
    """

    game = models.CharField(max_length=32, unique=True)
    through_finished_at = models.DateTimeField(null=True, blank=True)
    through_table_id = models.BigIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"rating ledger of {self.game}"
