"""The tables API: thin views over games.services (writes) and games.selectors (reads)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, services
from games.rules import RULESETS, find_ruleset
from games.serializers import (
    CatalogueSerializer,
    ErrorSerializer,
    JoinSerializer,
    MoveSerializer,
    TableCreateSerializer,
    TableListSerializer,
    TableViewSerializer,
)


def _table_response(table_id: int, request: Request, code: int = status.HTTP_200_OK) -> Response:
    table = selectors.table_for_view(table_id)
    if table is None:
        raise services.TableNotFound(f"there is no table {table_id}")
    return Response(selectors.table_view(table, request.user), status=code)


class CatalogueView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: CatalogueSerializer})
    def get(self, request: Request) -> Response:
        """Every game: its seats, version, preset and the options a host may set."""
        return Response({"games": [ruleset.describe() for ruleset in RULESETS.values()]})


class TableListView(APIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        operation_id="tables_list",
        parameters=[OpenApiParameter("game", str, description="only tables of this game")],
        responses={200: TableListSerializer},
    )
    def get(self, request: Request) -> Response:
        """Open tables the caller could join, and the caller's own tables (waiting on them first)."""
        game = request.query_params.get("game") or None
        if game is not None:
            find_ruleset(game)  # an unknown game is a 400, not an empty list
        return Response(
            {
                "open": selectors.open_tables(request.user, game),
                "mine": selectors.my_tables(request.user),
            }
        )

    @extend_schema(
        request=TableCreateSerializer, responses={201: TableViewSerializer, 400: ErrorSerializer}
    )
    def post(self, request: Request) -> Response:
        """Open a table; the creator takes seat 0 and the game starts when every seat is taken."""
        serializer = TableCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        table = services.table_create(user=request.user, **serializer.validated_data)
        return _table_response(table.pk, request, status.HTTP_201_CREATED)


class TableDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: TableViewSerializer, 404: ErrorSerializer})
    def get(self, request: Request, table_id: int) -> Response:
        """The table as the caller may see it: their own hand and legal actions, nobody else's."""
        return _table_response(table_id, request)


class JoinView(APIView):
    @extend_schema(
        request=JoinSerializer, responses={200: TableViewSerializer, 409: ErrorSerializer}
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Take a free seat, optionally adding entropy; the deal comes when the last seat is taken."""
        serializer = JoinSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.table_join(table_id=table_id, user=request.user, **serializer.validated_data)
        return _table_response(table_id, request)


class MoveView(APIView):
    @extend_schema(
        request=MoveSerializer,
        responses={
            200: TableViewSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Apply one of your legal actions, chosen on the version you post."""
        serializer = MoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.move_apply(table_id=table_id, user=request.user, **serializer.validated_data)
        return _table_response(table_id, request)


class ResignView(APIView):
    @extend_schema(request=None, responses={200: TableViewSerializer, 409: ErrorSerializer})
    def post(self, request: Request, table_id: int) -> Response:
        """Resign, on your turn or not: your seat finishes last and the game ends."""
        services.table_resign(table_id=table_id, user=request.user)
        return _table_response(table_id, request)
