"""The tables API: thin views over games.services (writes) and games.selectors (reads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from config.schema import refusals
from games import archive, health, invitations, privacy, selectors, services
from games.catalogue import GAMES, find_ruleset
from games.models import Table
from games.serializers import (
    CatalogueSerializer,
    InvitationViewSerializer,
    InviteLinkSerializer,
    InviteSerializer,
    JoinSerializer,
    MoveSerializer,
    TableCreateSerializer,
    TableListQuerySerializer,
    TableListSerializer,
    TableViewSerializer,
)


def _table_view(table_id: int, request: Request) -> dict[str, Any]:
    table = selectors.table_for_view(table_id)
    if table is None or not privacy.may_see(table, request.user):  # a private table: 404
        raise services.TableNotFound(f"there is no table {table_id}")
    if not archive.may_watch(table, request.user):  # a game its players keep to themselves
        raise services.TableNotFound(f"there is no table {table_id}")
    return selectors.table_view(table, request.user)


def _table_response(table_id: int, request: Request, code: int = status.HTTP_200_OK) -> Response:
    return Response(_table_view(table_id, request), status=code)


def _written(
    request: Request,
    write: Callable[[], Table],
    code: int = status.HTTP_200_OK,
    *,
    current: bool = False,
) -> Response:
    """Run a write service and answer with the caller's view of the table, read before the
    commit: once the write has committed, nothing is left that can fail, so a
    committed write is never answered as a failure (and a failure means nothing changed).
    A refusal that stands written (a late move's forfeit) commits, then is raised.

    ``current``: the service returns the table as it locked and wrote it, with its
    seats and their players (a move, a resignation), so the view is made from it instead of
    reading the table again.
    """
    refusal: services.RefusedAfterWriting | None = None
    with transaction.atomic():
        try:
            table = write()
        except services.RefusedAfterWriting as error:
            refusal = error
        else:
            if current:
                view = selectors.table_view(table, request.user)
            else:
                view = _table_view(table.pk, request)
    if refusal is not None:
        raise refusal
    return Response(view, status=code)


@require_safe
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """The database, the broker and the last sweep: 200 when all is well, else 503.

    For load balancers and monitoring; open to anybody, and it tells nothing secret.
    """
    report = health.status()
    return JsonResponse(report, status=200 if report["ok"] else 503)


class CatalogueView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: CatalogueSerializer})
    def get(self, request: Request) -> Response:
        """Every game: its seats, version, preset and the options a host may set."""
        return Response(
            {
                "games": [
                    {**game.ruleset.describe(), "bot_levels": list(game.bot_levels)}
                    for game in GAMES.values()
                ]
            }
        )


class TableListView(APIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        operation_id="tables_list",
        parameters=[TableListQuerySerializer],
        responses={
            200: TableListSerializer,
            **refusals(
                {
                    400: "`invalid` (`fields` says which): a filter that is not what it should be;"
                    " `unknown_game`; `page_out_of_range`: a page past the last"
                }
            ),
        },
    )
    def get(self, request: Request) -> Response:
        """A page of open tables the caller could join, and the caller's own tables.

        Open tables come oldest first, a host at a time; the caller's own, those
        waiting on them first; their cancelled tables, newest first, apart.
        """
        query = TableListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        filters = dict(query.validated_data)
        if filters.get("game"):
            find_ruleset(filters["game"])  # an unknown game is a 400, not an empty list
        page = selectors.open_tables(request.user, **filters)
        here = request.build_absolute_uri()
        return Response(
            {
                "open": page.tables,
                "open_count": page.count,
                "page": page.page,
                "pages": page.pages,
                "next": replace_query_param(here, "page", page.page + 1) if page.has_next else None,
                "previous": (
                    replace_query_param(here, "page", page.page - 1) if page.has_previous else None
                ),
                "mine": selectors.my_tables(request.user),
                "mine_cancelled": selectors.my_cancelled_tables(request.user),
            }
        )

    @extend_schema(
        request=TableCreateSerializer,
        responses={
            201: TableViewSerializer,
            **refusals(
                {
                    400: "`invalid_seats`, `invalid_options`: seats or options the game does not"
                    " take; `invalid`: bots in a seat the table has not, twice in one seat, at a"
                    " game or size that takes none, at a rated table, or a bot_fill with no seat"
                    " left to fill",
                    403: "`not_eligible_for_rated`: a rated table from an account that may not"
                    " play rated yet (docs/ratings.md)",
                    409: "`too_many_open_tables`, `too_many_bot_tables`: the host has as many as"
                    " one account may",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """Open a table; the creator takes seat 0 and the game starts when every seat is taken."""
        serializer = TableCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _written(
            request,
            lambda: services.table_create(user=request.user, **serializer.validated_data),
            status.HTTP_201_CREATED,
        )


class TableDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: TableViewSerializer})
    def get(self, request: Request, table_id: int) -> Response:
        """The table as the caller may see it: their own hand and legal actions, nobody else's."""
        return _table_response(table_id, request)


class JoinView(APIView):
    @extend_schema(
        request=JoinSerializer,
        responses={
            200: TableViewSerializer,
            **refusals(
                {
                    403: "`not_eligible_for_rated`: a rated table, and an account that may not"
                    " play rated yet",
                    409: "`not_open`, `table_full`, `already_seated`; `duplicate_entropy`:"
                    " entropy already given at this table",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Take a free seat, optionally adding entropy; the deal comes when the last seat is taken."""
        serializer = JoinSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _written(
            request,
            lambda: services.table_join(
                table_id=table_id, user=request.user, **serializer.validated_data
            ),
        )


class MoveView(APIView):
    @extend_schema(
        request=MoveSerializer,
        responses={
            200: TableViewSerializer,
            **refusals(
                {
                    400: "`illegal_action` (its `reason` as data), `malformed_action`,"
                    " `not_your_turn`, `game_over`: an action the rules refuse in the table's"
                    " state",
                    403: "`not_seated`: you have no seat at this table",
                    409: "`stale_version`: the table has moved on since the version sent;"
                    " `not_playing`, `game_finished`; `deadline_passed`: the move came at or"
                    " after a deadline, and the late seat has forfeited",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Apply one of your legal actions, chosen on the version you post."""
        serializer = MoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _written(
            request,
            lambda: services.move_apply(
                table_id=table_id, user=request.user, savepoint=False, **serializer.validated_data
            ),
            current=True,
        )


class ResignView(APIView):
    @extend_schema(
        request=None,
        responses={
            200: TableViewSerializer,
            **refusals(
                {
                    403: "`not_seated`: you have no seat at this table",
                    409: "`not_playing`, `game_finished`",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Resign, on your turn or not: your seat finishes last and the game ends."""
        return _written(
            request,
            lambda: services.table_resign(table_id=table_id, user=request.user),
            current=True,
        )


class CancelView(APIView):
    @extend_schema(
        request=None,
        responses={
            200: TableViewSerializer,
            **refusals(
                {
                    403: "`not_host`: only the player who opened the table may cancel it",
                    409: "`not_open`: its game has started, or it has ended",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Call off your table before its game starts: only its host, only while it is open."""
        return _written(
            request, lambda: services.table_cancel(table_id=table_id, user=request.user)
        )


# -- invitations and rematches ----------------------------------------------------------


class InvitationsView(APIView):
    @extend_schema(
        operation_id="tables_invitations_create",
        request=InviteSerializer,
        responses={
            201: InvitationViewSerializer,
            **refusals(
                {
                    400: "`unknown_player`: no player of that name",
                    403: "`not_host`: only the table's host invites",
                    409: "`not_private`: a table in the lobby needs no invitation; `not_open`;"
                    " `already_seated`: the player sits there; `too_many_invited`",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Invite a player by name to your private table: they are mailed, and may decline."""
        serializer = InviteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitation = invitations.invite(
            table_id=table_id, user=request.user, **serializer.validated_data
        )
        return Response(
            {
                "table": invitation.table_id,
                "username": invitation.user.get_username(),
                "declined": invitation.declined_at is not None,
            },
            status=status.HTTP_201_CREATED,
        )


class InviteLinkView(APIView):
    _refusals = refusals(
        {
            403: "`not_host`: only the table's host holds its link",
            409: "`not_private`: a table in the lobby has no link; `not_open`: its game has"
            " started or ended",
        }
    )

    @extend_schema(
        operation_id="tables_invite_link_create",
        request=None,
        responses={201: InviteLinkSerializer, **_refusals},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """A new invitation link for your private table: the old one joins nobody any more."""
        table = invitations.new_link(table_id=table_id, user=request.user)
        return Response(
            {"token": table.invite_token, "url": invitations.invite_path(table)},
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        operation_id="tables_invite_link_destroy",
        request=None,
        responses={200: InviteLinkSerializer, **_refusals},
    )
    def delete(self, request: Request, table_id: int) -> Response:
        """Revoke your private table's link: whoever holds it finds no table (404)."""
        invitations.revoke_link(table_id=table_id, user=request.user)
        return Response({"token": None, "url": None})


class DeclineView(APIView):
    @extend_schema(
        request=None,
        responses={
            200: InvitationViewSerializer,
            **refusals({409: "`not_invited`: no invitation of yours waits for an answer here"}),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Decline your invitation: to a private table, or to a rematch (then it is called off)."""
        table = invitations.decline(table_id=table_id, user=request.user)
        return Response(
            {"table": table.pk, "username": request.user.get_username(), "declined": True}
        )


class AgainView(APIView):
    @extend_schema(
        request=JoinSerializer,
        responses={
            200: TableViewSerializer,
            201: TableViewSerializer,
            **refusals(
                {
                    403: "`not_seated`: only the table's players may play it again;"
                    " `not_eligible_for_rated`",
                    409: "`not_finished`: its game is not over; `too_many_open_tables`,"
                    " `too_many_bot_tables`",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Offer the players of this finished table a rematch (201, the rematch made), or
        accept the one offered (200): the answer is the rematch's table. It deals when every
        player has accepted."""
        serializer = JoinSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entropy = serializer.validated_data.get("entropy")
        made = False

        def write() -> Table:
            nonlocal made
            again, made = services.table_again(
                table_id=table_id, user=request.user, entropy=entropy
            )
            return again

        response = _written(request, write)
        if made:  # the rematch was made by this request: 201, as a new table's is
            response.status_code = status.HTTP_201_CREATED
        return response
