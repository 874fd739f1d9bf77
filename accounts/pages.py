"""The account pages: sign up, log in and out, a forgotten password, and settings.

Thin views over the same services as the API (:mod:`accounts.services`,
:mod:`accounts.verification`): a page only turns what they refuse into words
on the form. The POSTs that the API counts per client address
(``FAIRDEAL_ACCOUNTS_RATE``: registering, logging in) count here under the
same key, and logging in passes the same :class:`~accounts.throttling.LoginGuard`,
so the pages add no way around either. The counters live in the shared cache;
when it cannot be reached a page says so (503) and changes nothing, as the
API does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import dateformat, timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods
from redis.exceptions import RedisError

from accounts.forms import (
    HolidayForm,
    LeaderboardsForm,
    LoginForm,
    MailPreferencesForm,
    PasswordChangeForm,
    PlayForm,
    ResetPasswordForm,
    ResetRequestForm,
    SignupForm,
)
from accounts.mail_preferences import (
    BadUnsubscribeLink,
    mail_preferences_update,
    unsubscribe,
    unsubscribe_target,
)
from accounts.models import MailPreferences, Profile, email_verified, holidays_now
from accounts.services import (
    EmailTaken,
    UsernameTaken,
    WrongPassword,
    account_register,
    password_change,
    profile_update,
    token_issue,
    token_revoke,
)
from accounts.verification import AlreadyVerified, verification_resend
from config.errors import ServiceError
from config.throttling import AddressRateThrottle, TooManyRequests, client_address
from games import holidays
from games.forms import deadline_words, sentence

logger = logging.getLogger(__name__)

View = Callable[..., HttpResponse]

# The API's public account views count under this scope (accounts.views.PublicAccountsView).
_ACCOUNTS_SCOPE = SimpleNamespace(throttle_scope="accounts")


def over_accounts_rate(request: HttpRequest) -> TooManyRequests | None:
    """Count this request against the address's accounts rate; the refusal if it is over."""
    throttle = AddressRateThrottle()
    if throttle.allow_request(request, _ACCOUNTS_SCOPE):
        return None
    return TooManyRequests(wait=throttle.wait())


def unavailable(request: HttpRequest) -> HttpResponse:
    """503, in words: the shared cache (throttles, login locks) cannot be reached."""
    response = render(request, "accounts/unavailable.html", status=503)
    response["Retry-After"] = "30"
    return response


def cache_required(view: View) -> View:
    """Answer :func:`unavailable` rather than a 500 when the cache is down.

    Refusing is the safe side: without the counters a guesser would go unlimited.
    """

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except RedisError as error:
            logger.error("the cache cannot be reached: %s", error)
            return unavailable(request)

    return guarded


def _kept(request: HttpRequest, *names: str) -> dict[str, str]:
    """What was typed in these fields, to show again on a form that was refused unread."""
    return {name: str(request.POST.get(name, ""))[:254] for name in names}


def refused(response: HttpResponse, refusal: TooManyRequests) -> HttpResponse:
    response.status_code = refusal.status_code
    response["Retry-After"] = str(refusal.wait)
    return response


# -- signing up, in and out --------------------------------------------------------------


@sensitive_post_parameters("password1", "password2")
@require_http_methods(["GET", "POST"])
@cache_required
def signup(request: HttpRequest) -> HttpResponse:
    # Where to go once signed up (an invitation's link), as the login page's ``next``.
    next_page = _next_page(request)
    if request.user.is_authenticated:
        messages.info(request, f"You are signed in as {request.user.username} already.")
        return redirect(next_page or "my-tables")
    if request.method != "POST":
        context = {"form": SignupForm(), "next": next_page}
        return render(request, "accounts/signup.html", context)
    refusal = over_accounts_rate(request)
    if refusal is not None:
        form = SignupForm(initial=_kept(request, "username", "email"))
        context = {"form": form, "refusal": refusal.detail, "next": next_page}
        return refused(render(request, "accounts/signup.html", context), refusal)
    form = SignupForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            user = account_register(
                username=data["username"], email=data["email"], password=data["password1"]
            )
        except UsernameTaken as error:
            form.add_error("username", error.message)
        except EmailTaken as error:
            form.add_error("email", error.message)
        else:
            login(request, user)
            messages.success(
                request,
                f"Welcome, {user.username}. Please check your mail to verify your address "
                f"({user.email}): until then we send you no game mail.",
            )
            return redirect(next_page or "my-tables")
    return render(request, "accounts/signup.html", {"form": form, "next": next_page})


def _next_page(request: HttpRequest) -> str:
    """The ``next`` page asked for, if it is one of ours; "" otherwise (as Django's login)."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if safe else ""


class CountedPostMixin:
    """A form page whose POSTs count against the accounts rate, as the API's do.

    Over the rate, the form comes back unread (validating it would try the
    password, or do the work), with what was typed in ``kept`` fields.
    """

    kept: tuple[str, ...] = ()

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            refusal = over_accounts_rate(request)
            if refusal is None:
                return super().post(request, *args, **kwargs)
        except RedisError as error:
            logger.error("the cache cannot be reached: %s", error)
            return unavailable(request)
        form_kwargs = self.get_form_kwargs()
        form_kwargs.pop("data", None)
        form_kwargs.pop("files", None)
        form_kwargs["initial"] = {**form_kwargs.get("initial", {}), **_kept(request, *self.kept)}
        form = self.get_form_class()(**form_kwargs)
        context = self.get_context_data(form=form, refusal=refusal.detail)
        return refused(self.render_to_response(context), refusal)


class LoginPage(CountedPostMixin, auth_views.LoginView):
    """Django's login page; each POST counts as the API's token requests do, then the guard."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm
    kept = ("username",)

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if form.refusal is not None:
            return refused(response, form.refusal)
        return response


login_page = LoginPage.as_view()


@never_cache
@require_http_methods(["GET", "POST"])
def logout_page(request: HttpRequest) -> HttpResponse:
    """GET asks (a page with one button); only the POST, with its CSRF token, logs out.

    The API token is left alone: a bot using it keeps working. Settings revoke it.
    """
    if request.method == "POST":
        logout(request)
        messages.success(request, "You are logged out.")
        return redirect(settings.LOGOUT_REDIRECT_URL)
    return render(request, "accounts/logout.html")


# -- a forgotten password ----------------------------------------------------------------


class PasswordResetPage(CountedPostMixin, auth_views.PasswordResetView):
    """Asks for an address; the link goes through the outbox (:mod:`accounts.password_reset`).

    Every valid request ends on the same "done" page, account or not.
    """

    template_name = "accounts/password_reset_form.html"
    form_class = ResetRequestForm
    success_url = reverse_lazy("password-reset-done")
    kept = ("email",)


class PasswordResetConfirmPage(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    form_class = ResetPasswordForm
    success_url = reverse_lazy("password-reset-complete")


password_reset = PasswordResetPage.as_view()
password_reset_done = auth_views.PasswordResetDoneView.as_view(
    template_name="accounts/password_reset_done.html"
)
password_reset_confirm = PasswordResetConfirmPage.as_view()
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(
    template_name="accounts/password_reset_complete.html"
)


# -- settings ----------------------------------------------------------------------------


def settings_response(
    request: HttpRequest,
    *,
    mail_form: MailPreferencesForm | None = None,
    leaderboards_form: LeaderboardsForm | None = None,
    play_form: PlayForm | None = None,
    holiday_form: HolidayForm | None = None,
    password_form: PasswordChangeForm | None = None,
    shown_token: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The settings page, with any bound form that has something to say.

    Two reads: the account with its verification, mail preferences, profile and token
    (each may be missing: the page writes nothing), and its holidays.
    """
    account = (
        get_user_model()
        .objects.select_related("email_verification", "mail_preferences", "profile", "auth_token")
        .get(pk=request.user.pk)
    )
    if mail_form is None:
        # A player without a row gets every kind of mail.
        mail_form = MailPreferencesForm(
            instance=_related(account, "mail_preferences") or MailPreferences()
        )
    if leaderboards_form is None or play_form is None:
        # A player without a row is on the leaderboards, has public games and plays every move.
        profile = _related(account, "profile") or Profile()
        if leaderboards_form is None:
            leaderboards_form = LeaderboardsForm(instance=profile)
        if play_form is None:
            play_form = PlayForm(instance=profile)
    token = _related(account, "auth_token")
    days_left, holiday = holidays_now(account, timezone.now())
    context = {
        "play_form": play_form,
        "email_verified": email_verified(account),
        "mail_form": mail_form,
        "leaderboards_form": leaderboards_form,
        "holiday": holiday,
        "holiday_days_left": days_left,
        "holiday_allowance": settings.FAIRDEAL_HOLIDAY_DAYS,
        "holiday_form": holiday_form or HolidayForm(),
        "holiday_notice": deadline_words(settings.FAIRDEAL_HOLIDAY_NOTICE_SECONDS),
        "password_form": password_form or PasswordChangeForm(request.user),
        "token_created": token.created if token else None,
        "shown_token": shown_token,
    }
    return render(request, "accounts/settings.html", context, status=status)


def _related(account: Any, name: str) -> Any:
    """``account``'s one-to-one row ``name``, read with it (``select_related``), or None."""
    try:
        return getattr(account, name)
    except ObjectDoesNotExist:
        return None


def post_only(view: View) -> View:
    """A settings action: login required, POST only; a GET goes back to the page."""

    @wraps(view)
    def action(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return redirect("settings")
        return view(request, *args, **kwargs)

    return never_cache(login_required(cache_required(action)))


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def settings_page(request: HttpRequest) -> HttpResponse:
    return settings_response(request)


@post_only
def settings_mail(request: HttpRequest) -> HttpResponse:
    """Which mail to get, and when, through the API's own service (``PATCH
    /api/accounts/me/`` with ``mail``)."""
    form = MailPreferencesForm(request.POST, instance=MailPreferences.for_user(request.user))
    if not form.is_valid():
        return settings_response(request, mail_form=form)
    mail_preferences_update(user=request.user, changes=form.changes())
    messages.success(request, "Your mail settings are saved.")
    return redirect("settings")


@post_only
def settings_play(request: HttpRequest) -> HttpResponse:
    """Who may watch my games, and whether a forced move is played for me, through the API's
    own service (``PATCH /api/accounts/me/`` with ``games_public`` and ``auto_play``)."""
    form = PlayForm(request.POST)
    if not form.is_valid():
        return settings_response(request, play_form=form)
    profile_update(user=request.user, **form.cleaned_data)
    messages.success(request, "Your settings for watching and play are saved.")
    return redirect("settings")


@post_only
def settings_leaderboards(request: HttpRequest) -> HttpResponse:
    """Whether the leaderboards list me, through the API's own service (``PATCH
    /api/accounts/me/`` with ``on_leaderboards``)."""
    form = LeaderboardsForm(request.POST)
    if not form.is_valid():
        return settings_response(request, leaderboards_form=form)
    listed = form.cleaned_data["on_leaderboards"]
    profile_update(user=request.user, on_leaderboards=listed)
    if listed:
        messages.success(request, "The leaderboards list you once your ratings qualify.")
    else:
        messages.success(
            request,
            "The leaderboards leave you off: your games are still rated, and your page shows"
            " your ratings without a rank.",
        )
    return redirect("settings")


@post_only
def settings_holiday(request: HttpRequest) -> HttpResponse:
    """Start a holiday of n days, through the API's own service (``POST
    /api/accounts/me/holiday/``); each refusal is said on the form, and changes nothing."""
    form = HolidayForm(request.POST)
    if not form.is_valid():
        return settings_response(request, holiday_form=form, status=400)
    try:
        holiday = holidays.holiday_start(user=request.user, days=form.cleaned_data["days"])
    except ServiceError as refusal:
        form.add_error(None, sentence(refusal.message))
        return settings_response(request, holiday_form=form, status=refusal.status)
    messages.success(
        request,
        f"You are on holiday until {dateformat.format(holiday.ends_at, 'j F Y, H:i')} UTC:"
        " the deadline of every table waiting on you stands still until then.",
    )
    return redirect("settings")


@post_only
def settings_holiday_end(request: HttpRequest) -> HttpResponse:
    """End the holiday now, through the API's own service (``DELETE
    /api/accounts/me/holiday/``): the deadlines go on from where they stopped."""
    try:
        holiday = holidays.holiday_end(user=request.user)
    except ServiceError as refusal:
        messages.error(request, sentence(refusal.message))
        return redirect("settings")
    taken = holiday.days_taken()
    messages.success(
        request,
        f"Welcome back: your holiday is over, and your deadlines go on from where they"
        f" stopped. It took {taken} day{'' if taken == 1 else 's'} of your allowance.",
    )
    return redirect("settings")


@post_only
def settings_verify_email(request: HttpRequest) -> HttpResponse:
    """Mail a new verification link, at most once a minute (as ``POST /api/accounts/me/verify-email/``)."""
    user = request.user
    try:
        verification_resend(user=user)
    except AlreadyVerified as refusal:
        messages.info(request, refusal.message)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, f"We sent a new link to {user.email}.")
    return redirect("settings")


@post_only
def settings_token(request: HttpRequest) -> HttpResponse:
    """Show the API token, making one if there is none: the only way the web makes one.

    The key is in this answer to the POST alone (no-store); the page after a GET says
    only that there is a token.
    """
    token = token_issue(user=request.user)
    return settings_response(request, shown_token=token.key)


@post_only
def settings_token_revoke(request: HttpRequest) -> HttpResponse:
    token_revoke(user=request.user)
    messages.success(
        request, "Your API token is revoked: clients using it must sign in again for a new one."
    )
    return redirect("settings")


@sensitive_post_parameters("old_password", "new_password1", "new_password2")
@post_only
def settings_password(request: HttpRequest) -> HttpResponse:
    """Change the password through the API's service, which checks the old one under the
    login guard and revokes the API token; this session stays signed in."""
    user = request.user
    form = PasswordChangeForm(user, request.POST)
    if not form.is_valid():
        return settings_response(request, password_form=form)
    try:
        password_change(
            user=user,
            old_password=form.cleaned_data["old_password"],
            new_password=form.cleaned_data["new_password1"],
            address=client_address(request),
        )
    except WrongPassword as error:
        form.add_error("old_password", error.message)
        return settings_response(request, password_form=form)
    except TooManyRequests as refusal:
        form.add_error("old_password", str(refusal.detail))
        return refused(settings_response(request, password_form=form), refusal)
    update_session_auth_hash(request, user)
    messages.success(
        request,
        "Your password is changed. Any API token you had is revoked: "
        "programs using it need a new one.",
    )
    return redirect("settings")


# -- one-click unsubscribe ------------------------------------------------------------------

# What each unsubscribe link turns off, in the page's words.
MAIL_KINDS = {
    "your_turn": "a mail for each turn waiting on you",
    "digest": "the daily digest of the tables waiting on you",
    "reminders": "reminders before your deadlines",
    "game_over": "mail when a game of yours ends or a table is called off",
    "invitations": "invitations to tables and rematches offered to you",
}


@csrf_exempt
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe_page(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every game mail (``List-Unsubscribe``, RFC 8058).

    A POST turns that kind of mail off at once and answers 200, with no login and no
    CSRF token: a mail program's one-click POST carries neither, and the signed link is
    the proof. A GET only asks, with a button that POSTs, so that a mail scanner that
    opens every link turns nothing off. A link we did not sign: 400, in words.
    """
    try:
        if request.method == "POST":
            account, kind = unsubscribe(token=token)
        else:
            account, kind = unsubscribe_target(token)
    except BadUnsubscribeLink as error:
        return render(request, "accounts/unsubscribe.html", {"error": error.message}, status=400)
    context = {
        "account": account,
        "what": MAIL_KINDS[kind],
        "done": request.method == "POST",
        "token": token,
    }
    return render(request, "accounts/unsubscribe.html", context)
