"""The leaderboard API's query and, for the OpenAPI schema, its answers (built by the selectors)."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import QueryIntegerField
from leaderboard.selectors import MAX_PAGE_SIZE, PAGE_SIZE


class LeaderboardQuerySerializer(serializers.Serializer):
    """The page, as the lobby pages: a value that is not what it should be is a 400."""

    page = QueryIntegerField(
        required=False, default=1, min_value=1, help_text="1 is the first; past the last is a 400"
    )
    page_size = QueryIntegerField(
        required=False,
        default=PAGE_SIZE,
        min_value=1,
        max_value=MAX_PAGE_SIZE,
        help_text="players a page",
    )


class RatingFields(serializers.Serializer):
    rating = serializers.IntegerField(
        help_text="the rating shown: 1000 + 48 (mu - 3 sigma); a new player has 1000"
    )
    deviation = serializers.IntegerField(
        help_text="the uncertainty on the same scale: one sigma, 48 points a unit"
    )
    mu = serializers.FloatField(help_text="the skill believed most likely")
    sigma = serializers.FloatField(
        help_text="the uncertainty of mu, widened for the days since the last rated game"
    )
    games = serializers.IntegerField(help_text="rated games of this game")
    last_played = serializers.DateTimeField(help_text="when the last rated game finished")


class LeaderboardRowSerializer(RatingFields):
    rank = serializers.IntegerField(help_text="1 is the best")
    player = serializers.CharField()


class LeaderboardSerializer(serializers.Serializer):
    game = serializers.CharField()
    players = LeaderboardRowSerializer(
        many=True,
        help_text="best first: past the provisional period, a rated game lately, not opted out",
    )
    count = serializers.IntegerField(help_text="players on every page")
    reckoned_at = serializers.DateTimeField(
        allow_null=True,
        help_text="when the board was last reckoned (every minute): its order, count and"
        " figures are as of then; null before its first reckoning",
    )
    page = serializers.IntegerField()
    pages = serializers.IntegerField(help_text="at least 1, even when nobody is listed")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    min_games = serializers.IntegerField(help_text="rated games a listed player has at least")
    max_sigma = serializers.FloatField(help_text="a listed player's sigma is below this")
    active_days = serializers.IntegerField(
        help_text="a listed player finished a rated game within this many days"
    )
    min_opponents = serializers.IntegerField(
        help_text="a listed player has met at least this many distinct established opponents"
    )


class PlayerRatingSerializer(RatingFields):
    game = serializers.CharField()
    opponents = serializers.IntegerField(
        help_text="distinct opponents met at rated tables while they were established"
        " (10 rated games or more and a sigma under 6.5); counted up to 20"
    )
    provisional = serializers.BooleanField(
        help_text="too few rated games, sigma too wide, or too few distinct established"
        " opponents: not on the leaderboard"
    )
    rank = serializers.IntegerField(
        allow_null=True, help_text="the place on the game's leaderboard; null if not on it"
    )


class RatingMoveSerializer(serializers.Serializer):
    before = serializers.IntegerField(help_text="the rating shown just before the table")
    after = serializers.IntegerField()
    change = serializers.IntegerField()


class RecentGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    finished_at = serializers.DateTimeField()
    reason = serializers.CharField(
        help_text="how it ended, as the table's result says: finished, resigned or timeout"
    )
    seat = serializers.IntegerField(help_text="the player's seat")
    place = serializers.IntegerField(allow_null=True, help_text="1 is first")
    players = serializers.ListField(
        child=serializers.CharField(allow_null=True), help_text="by seat"
    )
    rated = serializers.BooleanField(help_text="whether the table changed the player's rating")
    rating = RatingMoveSerializer(allow_null=True)
    replay_url = serializers.CharField(help_text="the replay page")


class PlayerSerializer(serializers.Serializer):
    player = serializers.CharField()
    joined = serializers.DateTimeField()
    on_leaderboards = serializers.BooleanField(
        help_text="false: the player asked to stay off the leaderboards (and has no rank)"
    )
    ratings = PlayerRatingSerializer(many=True)
    recent_games = RecentGameSerializer(many=True, help_text="the last 20 finished, newest first")
