"""The tables API: thin views over games.services (writes) and games.selectors (reads)."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.authentication import token_key, token_owner
from config.negotiation import PLAIN_ACCEPT
from config.parsers import StrictJSONParser
from config.renderers import JSONRenderer
from games import health, selectors, services
from games.models import BotLevel, Table
from games.rules import RULESETS, find_ruleset
from games.serializers import (
    CatalogueSerializer,
    ErrorSerializer,
    JoinSerializer,
    MoveSerializer,
    TableCreateSerializer,
    TableListQuerySerializer,
    TableListSerializer,
    TableViewSerializer,
    usual_move,
)


def _table_view(table_id: int, request: Request) -> dict[str, Any]:
    table = selectors.table_for_view(table_id)
    if table is None:
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
    """Run a write service and answer with the caller's view of the table (:func:`_written_view`)."""
    return Response(_written_view(request, write, current=current), status=code)


def _written_view(
    request: Request | HttpRequest, write: Callable[[], Table], *, current: bool = False
) -> dict[str, Any]:
    """Run a write service and make the caller's view of the table, read before the
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
    return view


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
                    {**ruleset.describe(), "bot_levels": list(BotLevel.values)}
                    for ruleset in RULESETS.values()
                ]
            }
        )


class TableListView(APIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        operation_id="tables_list",
        parameters=[TableListQuerySerializer],
        responses={200: TableListSerializer, 400: ErrorSerializer},
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
        request=TableCreateSerializer, responses={201: TableViewSerializer, 400: ErrorSerializer}
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


def _token_left_to_the_view(request: Request | HttpRequest) -> str | None:
    """The request's token when the view looks it up with the table it reads (PostgreSQL),
    its header checked as DRF checks it (a malformed one is refused here, a 401); None
    otherwise. Remembered on the request: asked for by DRF's steps and the view alike."""
    if not hasattr(request, "_fd_token_key"):
        request._fd_token_key = token_key(request) if selectors.reads_token_with_table() else None
    return request._fd_token_key


class QuickWithToken:
    """An :class:`APIView` of the hot paths (a table's GET, a move) that answers their
    commonest request without DRF's request machinery.

    Nearly every such request is the same: one method, a well-formed token, an Accept
    that takes JSON (or none), no query string, and for a move a JSON body of
    ``version`` and ``action``. DRF's dispatch wraps each request, makes its parsers,
    authenticators and negotiator, checks permissions and throttles, and renders a
    template response: a tenth of a table's GET by instructions (callgrind), a twelfth
    of a move. For that request, :meth:`quick` does what the view's method does, with the
    same functions in the same order, and the answer is what DRF would send: the bytes of
    its JSON renderer, its ``Allow`` header (tests/games/test_quick_path.py holds the two
    alike). A refusal is answered by DRF's own exception handling; any other request
    (another method or Accept, a session, a query string, an unusual body) goes DRF's
    whole way from the start.
    """

    quick_method = "GET"

    def quick(self, request: HttpRequest, key: str, **kwargs: Any) -> dict[str, Any] | None:
        """The view's answer to the usual request; None to leave it to DRF's whole way."""
        raise NotImplementedError

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        key = self._quick_key(request)
        if key is None:
            return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]
        try:
            data = self.quick(request, key, **kwargs)
        except Exception as exc:
            return self._refused(request, exc, *args, **kwargs)
        if data is None:
            return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]
        response = HttpResponse(_RENDERER.render(data, _JSON), content_type=_JSON)
        for name, value in self.default_response_headers.items():  # type: ignore[attr-defined]
            response[name] = value
        return response

    def _quick_key(self, request: HttpRequest) -> str | None:
        """The token of a request :meth:`quick` answers; None for any other request."""
        meta = request.META
        if (
            request.method != self.quick_method
            or meta.get("QUERY_STRING")
            or meta.get("HTTP_ACCEPT", "") not in PLAIN_ACCEPT
            or (self.quick_method == "POST" and meta.get("CONTENT_TYPE") != _JSON)
        ):
            return None
        try:
            return _token_left_to_the_view(request)
        except AuthenticationFailed:
            return None  # a malformed header: DRF's way refuses it as it always has

    def _refused(self, request: HttpRequest, exc: Exception, *args: Any, **kwargs: Any) -> Any:
        """The refusal as DRF's dispatch answers one: its handler, its headers."""
        view: Any = self
        view.args, view.kwargs = args, kwargs
        drf_request = view.initialize_request(request, *args, **kwargs)
        if isinstance(getattr(request, "auth", None), Token):  # known before the refusal
            drf_request.user, drf_request.auth = request.user, request.auth
        view.request = drf_request
        view.headers = view.default_response_headers
        view.format_kwarg = view.get_format_suffix(**kwargs)
        view.response = view.finalize_response(
            drf_request, view.handle_exception(exc), *args, **kwargs
        )
        return view.response


_RENDERER = JSONRenderer()
_JSON = JSONRenderer.media_type


def _token_table_view(request: Request | HttpRequest, table_id: int, key: str) -> dict[str, Any]:
    """The table's view for the token ``key``, read with the table in one statement."""
    read = selectors.table_and_token(table_id, key)
    # The token first, as DRF's authentication comes before the view: unknown, it is a
    # 401 whether or not the table exists.
    request.user, request.auth = token_owner(key, read.token_owner)
    if read.table is None:
        raise services.TableNotFound(f"there is no table {table_id}")
    return selectors.table_view(read.table, request.user)


def _token_move(
    request: Request | HttpRequest, table_id: int, key: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """The move for the token ``key``, its lock and read with the token's in one round trip;
    the mover's view of the table after it."""

    def move() -> Table:
        read = selectors.table_and_token(table_id, key, lock=True)
        request.user, request.auth = token_owner(key, read.token_owner)
        if read.table is None:
            raise services.TableNotFound(f"there is no table {table_id}")
        return services.move_apply(
            table_id=table_id,
            user=request.user,
            savepoint=False,
            locked=read.table,
            **fields,
        )

    return _written_view(request, move, current=True)


class TableDetailView(QuickWithToken, APIView):
    permission_classes = [AllowAny]

    def perform_authentication(self, request: Request) -> None:
        """Left to :meth:`get` for a token on PostgreSQL, which looks it up as it reads the
        table; DRF's authenticators otherwise, at once, as everywhere."""
        if _token_left_to_the_view(request) is None:
            super().perform_authentication(request)

    def quick(self, request: HttpRequest, key: str, **kwargs: Any) -> dict[str, Any]:
        return _token_table_view(request, kwargs["table_id"], key)

    @extend_schema(responses={200: TableViewSerializer, 404: ErrorSerializer})
    def get(self, request: Request, table_id: int) -> Response:
        """The table as the caller may see it: their own hand and legal actions, nobody else's."""
        key = _token_left_to_the_view(request)
        if key is None:
            return _table_response(table_id, request)
        return Response(_token_table_view(request, table_id, key))


class JoinView(APIView):
    @extend_schema(
        request=JoinSerializer, responses={200: TableViewSerializer, 409: ErrorSerializer}
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


class MoveView(QuickWithToken, APIView):
    quick_method = "POST"

    def perform_authentication(self, request: Request) -> None:
        """Left to :meth:`post` for a token on PostgreSQL, which looks it up with the
        table's lock and read; DRF's authenticators otherwise, at once, as everywhere."""
        if _token_left_to_the_view(request) is None:
            super().perform_authentication(request)

    def check_permissions(self, request: Request) -> None:
        """A token left to :meth:`post` is the caller's only credential: it is known or
        refused there (401), as IsAuthenticated would know or refuse it here."""
        if _token_left_to_the_view(request) is None:
            super().check_permissions(request)

    def quick(self, request: HttpRequest, key: str, **kwargs: Any) -> dict[str, Any] | None:
        try:
            fields = usual_move(_PARSER.parse(io.BytesIO(request.body), _JSON))
        except Exception:
            return None  # not the usual body: DRF's way words its refusal
        if fields is None:
            return None
        return _token_move(request, kwargs["table_id"], key, fields)

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
        key = _token_left_to_the_view(request)
        try:
            fields = usual_move(request.data)
            if fields is None:
                serializer = MoveSerializer(data=request.data)
                serializer.is_valid(raise_exception=True)
                fields = serializer.validated_data
        except Exception:
            # Who asks comes first, as when DRF authenticates before the view: a body that
            # is not JSON, too large or not a move is refused only to a known caller.
            if key is not None:
                request.user  # noqa: B018 (authenticates, or raises the 401)
            raise
        if key is None:
            return _written(
                request,
                lambda: services.move_apply(
                    table_id=table_id,
                    user=request.user,
                    savepoint=False,
                    **fields,
                ),
                current=True,
            )
        return Response(_token_move(request, table_id, key, fields))


_PARSER = StrictJSONParser()


class ResignView(APIView):
    @extend_schema(request=None, responses={200: TableViewSerializer, 409: ErrorSerializer})
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
        responses={200: TableViewSerializer, 403: ErrorSerializer, 409: ErrorSerializer},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Call off your table before its game starts: only its host, only while it is open."""
        return _written(
            request, lambda: services.table_cancel(table_id=table_id, user=request.user)
        )
