"""Ratings per game, the change each rated table made to them, and each game's ledger.

``Rating`` is where a player stands at a game now; ``RatingChange`` is the
history, one row per player and rated table (the database holds that, so a
table rated twice fails rather than counting twice). ``RatingLedger`` is the
row that serialises the rating work of one game, and remembers the last table
applied, in the order tables finished: docs/ratings.md. ``RatingOpponent``
holds whom each player has met while that opponent was established, for the
leaderboards' distinct established opponents.

``UnratedTable`` is a table marked rated that the ratings leave out: a seat
holder who could not play rated, or voided by staff. ``StaffAction`` is the
log of what staff did to tables and ratings, who, when and why.
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
    # How many distinct opponents the player has met at a rated table while the opponent
    # was established (leaderboard.skill.established): the RatingOpponent rows, counted
    # (at most OPPONENTS_KEPT).
    opponents = models.PositiveIntegerField(default=0)
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


class Board(models.Model):
    """A game's leaderboard as last reckoned: when, and how many it listed (its
    :class:`BoardPlace` rows, ranked 1 to ``count``).

    The rating shown moves with the time since each player's last rated game, so
    no index can hold the board's order: beat reckons every board every
    ``FAIRDEAL_BOARD_SECONDS`` (:func:`leaderboard.boards.reckon`), and a page,
    its count and a player's rank are then reads by key, whatever the number of
    players (docs/scale.md).
    """

    game = models.CharField(max_length=32, unique=True)
    reckoned_at = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.game} leaderboard as of {self.reckoned_at:%Y-%m-%d %H:%M:%S}"


class BoardPlace(models.Model):
    """A player's place on a game's board as last reckoned, with the rating shown then
    (``shown_sigma`` is the sigma widened to the board's ``reckoned_at``)."""

    game = models.CharField(max_length=32)
    rank = models.PositiveIntegerField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    mu = models.FloatField()
    shown_sigma = models.FloatField()
    games = models.PositiveIntegerField()
    last_played_at = models.DateTimeField()

    class Meta:
        ordering = ["game", "rank"]
        constraints = [
            # A page of the board: a range of ranks.
            models.UniqueConstraint(fields=["game", "rank"], name="board_place_rank"),
            # A player's rank on each board.
            models.UniqueConstraint(fields=["player", "game"], name="board_place_player"),
        ]

    def __str__(self) -> str:
        return f"user {self.player_id} {self.rank} on the {self.game} board"


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


# Distinct established opponents kept for each player and game (RatingOpponent rows): the
# leaderboards ask for FAIRDEAL_RATING_MIN_OPPONENTS of them, never more than this.
OPPONENTS_KEPT = 20


class RatingOpponent(models.Model):
    """``player`` met ``opponent`` at a rated table of ``game`` while ``opponent`` was
    established, first at ``table``: one row a pair, the earliest, in the ratings' order."""

    game = models.CharField(max_length=32)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["game", "player", "finished_at", "table"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "game", "opponent"], name="rating_opponent_once"
            ),
        ]
        indexes = [
            # A rewind forgets the meetings after a point in a game's order.
            models.Index(fields=["game", "finished_at", "table"], name="rating_opponent_order"),
        ]

    def __str__(self) -> str:
        return f"user {self.player_id} met user {self.opponent_id} at {self.game}"


class StaffAction(models.Model):
    """One thing staff did to a table or to ratings: who, when, what and why, and what it
    changed. Written by the service that did it, in its transaction; never edited."""

    class Kind(models.TextChoices):
        VOID_PLAYER = "void_player", "voided a player's rated games"
        VOID_TABLE = "void_table", "voided a rated table"
        CANCEL_TABLE = "cancel_table", "cancelled a table"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="staff_actions",
    )
    # The name as it was: the log still says who if the account goes.
    staff_name = models.CharField(max_length=150)
    table = models.ForeignKey(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="staff_actions"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="staff_actions_about",
    )
    reason = models.TextField()
    # What it did: the tables voided, the games re-rated, the players whose ratings moved.
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["void_player", "void_table", "cancel_table"]),
                name="staff_action_kind_known",
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="staff_action_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.staff_name} {self.get_kind_display()} ({self.created_at:%Y-%m-%d %H:%M})"


class UnratedTable(models.Model):
    """A table marked rated that the ratings leave out, and why: a seat holder who could
    not play rated when it was rated (``accounts.rated_play``), or staff voided it."""

    class Reason(models.TextChoices):
        INELIGIBLE = "ineligible", "a seat holder could not play rated"
        VOIDED = "voided", "voided by staff"

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="unrated")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    detail = models.TextField(blank=True)
    action = models.ForeignKey(
        StaffAction, null=True, blank=True, on_delete=models.PROTECT, related_name="unrated"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(reason__in=["ineligible", "voided"]), name="unrated_reason_known"
            ),
            models.CheckConstraint(
                condition=Q(reason="ineligible", action__isnull=True)
                | Q(reason="voided", action__isnull=False),
                name="unrated_voided_by_staff",
            ),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} unrated ({self.reason})"
