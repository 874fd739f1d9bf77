"""The leaderboards API: thin views over leaderboard.selectors. Public, like a finished game."""

from __future__ import annotations

from django.conf import settings
from django.utils.decorators import method_decorator
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.names import USERNAME
from config.replica import lagging_reads
from config.schema import refusals
from games.catalogue import RULESETS
from games.selectors import iso
from leaderboard import selectors
from leaderboard.serializers import (
    LeaderboardQuerySerializer,
    LeaderboardSerializer,
    PlayerSerializer,
)

GAME = OpenApiParameter(
    "game",
    str,
    OpenApiParameter.PATH,
    description="a game id from GET /api/games/; any other is a 404",
    enum=sorted(RULESETS),
)
NAME = OpenApiParameter(
    "name",
    str,
    OpenApiParameter.PATH,
    description="the player's username, in any case; a name nobody has is a 404",
    pattern=f"^{USERNAME.pattern}$",
)


class LeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="leaderboard",
        parameters=[GAME, LeaderboardQuerySerializer],
        responses={
            200: LeaderboardSerializer,
            **refusals(
                {
                    400: "`invalid` (`fields` says which): a page or page_size that is not what it"
                    " should be; `page_out_of_range`: a page past the last"
                }
            ),
        },
    )
    @method_decorator(lagging_reads)
    def get(self, request: Request, game: str) -> Response:
        """A page of the game's leaderboard, best first by the rating shown (mu - 3 sigma).

        Only players past the provisional period (enough rated games, a narrow
        enough sigma, enough distinct established opponents) who finished a rated
        game lately, and who have not asked to stay off it; docs/ratings.md. The
        order, the count and the figures are as of the board's last reckoning
        (``reckoned_at``, every minute).
        """
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        page = selectors.leaderboard(selectors.check_game(game), **query.validated_data)
        here = request.build_absolute_uri()
        return Response(
            {
                "game": page.game,
                "players": page.rows,
                "count": page.count,
                "reckoned_at": iso(page.reckoned_at),
                "page": page.page,
                "pages": page.pages,
                "next": replace_query_param(here, "page", page.page + 1) if page.has_next else None,
                "previous": (
                    replace_query_param(here, "page", page.page - 1) if page.has_previous else None
                ),
                "min_games": settings.FAIRDEAL_RATING_MIN_GAMES,
                "max_sigma": settings.FAIRDEAL_RATING_MAX_SIGMA,
                "active_days": settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS,
                "min_opponents": selectors.min_opponents(),
            }
        )


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="player",
        parameters=[NAME],
        responses={200: PlayerSerializer},
    )
    @method_decorator(lagging_reads)
    def get(self, request: Request, name: str) -> Response:
        """A player's public page: joined, ratings per game (provisional or ranked), recent games."""
        return Response(selectors.player_profile(name))
