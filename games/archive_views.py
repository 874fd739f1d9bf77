"""The archive through the API: ``GET /api/archive/``, finished games anybody may watch,
and with ``status=playing`` the games being played that anybody may watch (games.archive)."""

from __future__ import annotations

from django.utils.decorators import method_decorator
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.names import USERNAME
from config.replica import lagging_reads
from config.schema import refusals
from games import archive
from games.catalogue import find_ruleset
from games.serializers import GameField, QueryIntegerField, ResultSerializer


class ArchiveQuerySerializer(serializers.Serializer):
    """The archive's filters and page; a value that is not what it should be is a 400.

    A filter sent empty (``?result=``) is as if not sent, as a query string's form has it.
    """

    status = serializers.ChoiceField(
        choices=archive.LISTED_STATUSES,
        required=False,
        allow_blank=True,
        default="finished",
        help_text="finished: the archive (newest ended first); playing: the games being"
        " played now (newest started first)",
    )
    game = GameField(required=False, allow_blank=True, max_length=32, help_text="of this game")
    player = serializers.RegexField(
        rf"^(?:{USERNAME.pattern})?$",
        required=False,
        allow_blank=True,
        help_text="with this player seated, any case",
    )
    result = serializers.ChoiceField(
        choices=list(archive.RESULTS),
        required=False,
        allow_blank=True,
        help_text="how it ended: played to its end, a deadline missed, or a resignation",
    )
    cursor = serializers.RegexField(
        rf"^(?:{archive.CURSOR.pattern})?$",
        required=False,
        allow_blank=True,
        help_text="where the page begins: the `next_cursor` of the page before",
    )
    page_size = QueryIntegerField(
        required=False,
        default=archive.ARCHIVE_PAGE_SIZE,
        min_value=1,
        max_value=archive.MAX_ARCHIVE_PAGE_SIZE,
        help_text="games a page",
    )


class ArchiveSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True, help_text="null for a bot")
    bot = serializers.BooleanField()


class PublicGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    ruleset_version = serializers.CharField()
    status = serializers.CharField(help_text="finished, or playing")
    rated = serializers.BooleanField()
    seats = ArchiveSeatSerializer(many=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    result = ResultSerializer(allow_null=True, help_text="places, totals and how it ended")
    table_url = serializers.CharField(help_text="the table's page: watch it, or its end")
    replay_url = serializers.CharField(allow_null=True, help_text="once finished")
    record_url = serializers.CharField(
        allow_null=True, help_text="the signed record, once finished"
    )
    verify_url = serializers.CharField(allow_null=True, help_text="once finished")


class ArchiveSerializer(serializers.Serializer):
    games = PublicGameSerializer(many=True)
    next_cursor = serializers.CharField(allow_null=True, help_text="null on the last page")
    next = serializers.URLField(allow_null=True, help_text="the next page, or null")


class ArchiveView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="archive_list",
        parameters=[ArchiveQuerySerializer],
        responses={
            200: ArchiveSerializer,
            **refusals(
                {
                    400: "`invalid` (`fields` says which): a filter that is not what it should be;"
                    " `unknown_game`"
                }
            ),
        },
    )
    @method_decorator(lagging_reads)
    def get(self, request: Request) -> Response:
        """Finished games anybody may watch, newest first, a page at a time; with
        `status=playing`, the games being played that anybody may watch.

        Private tables are in neither, nor the games of a player who keeps theirs to
        themselves (`games_public` of `GET /api/accounts/me/`).
        """
        query = ArchiveQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        filters = dict(query.validated_data)
        if filters.get("game"):
            find_ruleset(filters["game"])  # an unknown game is a 400, not an empty list
        page = archive.public_games(
            playing=filters.pop("status") == "playing",
            game=filters.get("game") or None,
            player=filters.get("player") or None,
            result=filters.get("result") or None,
            cursor=filters.get("cursor") or None,
            page_size=filters["page_size"],
        )
        here = request.build_absolute_uri()
        following = (
            replace_query_param(here, "cursor", page.next_cursor) if page.next_cursor else None
        )
        return Response({"games": page.games, "next_cursor": page.next_cursor, "next": following})
