from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from accounts.models import MailPreferences
from accounts.serializers import (
    AccountSerializer,
    MeSerializer,
    MeUpdateSerializer,
    RegisterSerializer,
    TokenRequestSerializer,
    TokenSerializer,
)
from accounts.services import account_register, token_for


class PublicAccountsView(APIView):
    """Open to anybody, so throttled per client: registering and asking for a token."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "accounts"


class RegisterView(PublicAccountsView):
    @extend_schema(request=RegisterSerializer, responses={201: AccountSerializer})
    def post(self, request: Request) -> Response:
        """Create an account; the answer carries its API token."""
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user, token = account_register(**serializer.validated_data)
        return Response(
            {"username": user.username, "email": user.email, "token": token.key},
            status=status.HTTP_201_CREATED,
        )


class TokenView(PublicAccountsView):
    @extend_schema(request=TokenRequestSerializer, responses={200: TokenSerializer})
    def post(self, request: Request) -> Response:
        """A token for `Authorization: Token <key>`."""
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_for(**serializer.validated_data)
        return Response({"token": token.key})


class MeView(APIView):
    """The caller's account and which mail it gets."""

    @staticmethod
    def _answer(request: Request, preferences: MailPreferences) -> Response:
        user = request.user
        return Response(
            {"username": user.username, "email": user.email, "mail": preferences.as_json()}
        )

    @extend_schema(responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        """Who I am, and which mail I get."""
        return self._answer(request, MailPreferences.for_user(request.user))

    @extend_schema(request=MeUpdateSerializer, responses={200: MeSerializer})
    def patch(self, request: Request) -> Response:
        """Turn kinds of mail on or off: `{"mail": {"reminder": false}}`; others stay as they are."""
        serializer = MeUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes = serializer.validated_data["mail"]
        preferences = MailPreferences.for_user(request.user)
        for kind, value in changes.items():
            setattr(preferences, kind, value)
        if changes:
            preferences.save(update_fields=list(changes))
        return self._answer(request, preferences)
