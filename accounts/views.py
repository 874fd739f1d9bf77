from __future__ import annotations

from typing import Any

from django.contrib.auth import logout, update_session_auth_hash
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.mail_preferences import mail_preferences_update
from accounts.models import (
    MailPreferences,
    Profile,
    email_verified,
    holidays_json,
    on_leaderboards,
)
from accounts.serializers import (
    AccountSerializer,
    MeSerializer,
    MeUpdateSerializer,
    PasswordChangeSerializer,
    RegisterSerializer,
    TokenRequestSerializer,
    TokenSerializer,
    VerifiedSerializer,
    VerifyEmailSerializer,
)
from accounts.services import (
    account_register,
    password_change,
    profile_update,
    token_for,
    token_issue,
    token_revoke,
)
from accounts.verification import ResendTooSoon, email_verify, user_for_token, verification_resend
from config.errors import ServiceError
from config.schema import refusals
from config.throttling import AddressRateThrottle, TooManyRequests, client_address


class PublicAccountsView(APIView):
    """Open to anybody, so every request counts against its address (``FAIRDEAL_ACCOUNTS_RATE``)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [AddressRateThrottle]
    throttle_scope = "accounts"

    def throttled(self, request: Request, wait: float | None) -> None:
        raise TooManyRequests(wait=wait)


class RegisterView(PublicAccountsView):
    @extend_schema(
        request=RegisterSerializer,
        responses={
            201: AccountSerializer,
            **refusals(
                {
                    400: "`invalid` (`fields.password`): a password the validators refuse: too"
                    " common, too like the name or the address, all digits",
                    409: "`username_taken`, `email_taken`: in any case",
                    429: "`throttled`: too many requests from your address",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """Create an account; the answer carries its API token, and a link goes to the address.

        A username is 3 to 30 ASCII letters, digits, `_` and `-`, the same in any case:
        a name or address taken in any case is refused with 409 (`username_taken`,
        `email_taken`). Game mail goes only once the address is verified.
        """
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = account_register(**serializer.validated_data)
        token = token_issue(user=user)
        return Response(
            {
                "username": user.username,
                "email": user.email,
                "email_verified": False,
                "token": token.key,
            },
            status=status.HTTP_201_CREATED,
        )


class TokenView(PublicAccountsView):
    @extend_schema(
        request=TokenRequestSerializer,
        responses={
            200: TokenSerializer,
            **refusals(
                {
                    400: "`bad_credentials`: no account has that name and password",
                    429: "`throttled`: too many requests or failed logins from your address,"
                    " or for this account",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """A token for `Authorization: Token <key>`; the username in any case.

        After repeated failures the failing address is locked out of the account for a
        growing time (its owner elsewhere is not); an address that fails too often over
        every account, or at an account that has failed too often over every address, is
        refused: 429 `throttled`, with `Retry-After`.
        """
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_for(**serializer.validated_data, address=client_address(request))
        return Response({"token": token.key})


class LogoutView(APIView):
    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        """Revoke the caller's token (and end a browser session)."""
        token_revoke(user=request.user)
        if request.session.session_key:
            logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordView(APIView):
    @extend_schema(
        request=PasswordChangeSerializer,
        responses={
            200: TokenSerializer,
            **refusals(
                {
                    400: "`wrong_password`: the old password is not yours; `invalid`"
                    " (`fields.new_password`): a new password the validators refuse",
                    429: "`throttled`: too many wrong passwords, as for logging in",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """Change the password; the old token stops working and the answer carries a new one."""
        serializer = PasswordChangeSerializer(data=request.data, context={"user": request.user})
        serializer.is_valid(raise_exception=True)
        password_change(
            user=request.user, **serializer.validated_data, address=client_address(request)
        )
        token = token_issue(user=request.user)
        if request.session.session_key:
            update_session_auth_hash(request._request, request.user)
        return Response({"token": token.key})


class VerifyEmailView(PublicAccountsView):
    @extend_schema(
        request=VerifyEmailSerializer,
        responses={
            200: VerifiedSerializer,
            **refusals(
                {
                    400: "`invalid_link`: not a link we sent, or to an address the account no"
                    " longer has; `link_expired`",
                    429: "`throttled`: too many requests from your address",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """Verify an address with the token from the mailed link (400 `invalid_link`, `link_expired`)."""
        serializer = VerifyEmailSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = email_verify(token=serializer.validated_data["token"])
        return Response({"username": user.username, "email": user.email, "email_verified": True})


class ResendVerificationView(APIView):
    @extend_schema(
        request=None,
        responses={
            202: VerifiedSerializer,
            **refusals(
                {
                    409: "`already_verified`; `no_email`: the account has no address",
                    429: "`throttled`: a link was mailed less than a minute ago",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """Mail a new verification link to my address (at most one a minute)."""
        user = request.user
        try:
            verification_resend(user=user)
        except ResendTooSoon as exc:
            raise TooManyRequests(wait=exc.wait) from None
        return Response(
            {"username": user.username, "email": user.email, "email_verified": False},
            status=status.HTTP_202_ACCEPTED,
        )


class MeView(APIView):
    """The caller's account, which mail it gets, and whether the leaderboards list it."""

    @staticmethod
    def _answer(request: Request, preferences: MailPreferences) -> Response:
        user = request.user
        profile = Profile.objects.filter(user=user).first() or Profile()  # none: the defaults
        return Response(
            {
                "username": user.username,
                "email": user.email,
                "email_verified": email_verified(user),
                "mail": preferences.as_json(),
                "on_leaderboards": on_leaderboards(user),
                "games_public": profile.games_public,
                "auto_play": profile.auto_play,
                "holiday": holidays_json(user, timezone.now()),
            }
        )

    @extend_schema(responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        """Who I am, whether my address is verified, which mail I get, and if I am on the leaderboards."""
        return self._answer(request, MailPreferences.for_user(request.user))

    @extend_schema(request=MeUpdateSerializer, responses={200: MeSerializer})
    def patch(self, request: Request) -> Response:
        """Choose my mail, `{"mail": {"reminders": "1h", "digest": true, "time_zone":
        "Asia/Tokyo"}}`, or stay off the leaderboards, `{"on_leaderboards": false}`;
        whatever is not sent stays as it is."""
        serializer = MeUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes = serializer.validated_data.get("mail", {})
        if changes:
            preferences = mail_preferences_update(user=request.user, changes=changes)
        else:
            preferences = MailPreferences.for_user(request.user)
        settings = {
            name: serializer.validated_data[name]
            for name in ("on_leaderboards", "games_public", "auto_play")
            if name in serializer.validated_data
        }
        if settings:
            profile_update(user=request.user, **settings)
        return self._answer(request, preferences)


# -- the page the mailed link opens ---------------------------------------------------


@require_http_methods(["GET", "POST"])
def verify_email_page(request: HttpRequest, token: str) -> HttpResponse:
    """The mailed link: a page asking to confirm (GET), which then verifies (POST).

    Opening the link changes nothing, so that a mail scanner that follows every
    link cannot verify an address for someone who never asked.
    """
    # "account", not "user": the page's own "user" is whoever is logged in (base.html's nav).
    context: dict[str, Any] = {"token": token}
    try:
        if request.method == "POST":
            context["account"] = email_verify(token=token)
            context["verified"] = True
        else:
            context["account"] = user_for_token(token)
            context["verified"] = email_verified(context["account"])
    except ServiceError as error:
        context["error"] = error.message
        return render(request, "accounts/verify_email.html", context, status=400)
    return render(request, "accounts/verify_email.html", context)
