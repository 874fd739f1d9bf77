"""The account pages' forms: what a person types, checked as the API checks it.

Names and addresses are normalised as :mod:`accounts.names` does for the API,
passwords pass the same validators, and logging in goes through the same
:class:`~accounts.throttling.LoginGuard` as ``POST /api/accounts/token/``, so
that the page is no second door for guessing passwords. The writes themselves
are the services' (:mod:`accounts.services`); a form only says what is wrong.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, SetPasswordForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.views.decorators.debug import sensitive_variables

from accounts.mail_preferences import time_zones
from accounts.models import MailPreferences, Profile
from accounts.names import USERNAME_RULE, is_valid_username, normalize_email, normalize_username
from accounts.password_reset import password_reset_request
from accounts.services import BadCredentials, account_authenticate, token_revoke
from accounts.throttling import forget_known_addresses
from config.throttling import TooManyRequests, client_address

User = get_user_model()

# The API's limit (serializers.py): longer passwords are refused before any hashing.
PASSWORD_MAX_LENGTH = 128
MISMATCH = "The two passwords are not the same."
PASSWORD_HELP = "At least 8 characters; not all digits, not a common one, not like your name."


def _password_field(label: str, autocomplete: str, help_text: str = "") -> forms.CharField:
    return forms.CharField(
        label=label,
        strip=False,
        max_length=PASSWORD_MAX_LENGTH,
        help_text=help_text,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


class SignupForm(forms.Form):
    username = forms.CharField(
        label="Username",
        max_length=150,
        help_text="3 to 30 characters: ASCII letters, digits, _ and -. Others see it at tables.",
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
    )
    email = forms.EmailField(
        label="E-mail address",
        max_length=254,
        help_text="We mail a link to confirm it; game mail goes there once you have.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = _password_field("Password", "new-password", PASSWORD_HELP)
    password2 = _password_field("Password again", "new-password")

    def clean_username(self) -> str:
        name = normalize_username(self.cleaned_data["username"])
        if not is_valid_username(name):
            raise ValidationError(f"That is not a username we take: {USERNAME_RULE}.")
        return name

    def clean_email(self) -> str:
        return normalize_email(self.cleaned_data["email"])

    @sensitive_variables("password1", "password2")
    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        password1, password2 = cleaned.get("password1"), cleaned.get("password2")
        if password1 and password2 and password1 != password2:
            self.add_error("password2", MISMATCH)
        elif password1:
            # As the API's register: the validators see the name and address too.
            candidate = User(username=cleaned.get("username", ""), email=cleaned.get("email", ""))
            try:
                password_validation.validate_password(password1, candidate)
            except ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class LoginForm(AuthenticationForm):
    """Django's login form, each attempt admitted by the API's :class:`LoginGuard` first.

    A locked account or address is refused before any password is hashed;
    :attr:`refusal` then holds the 429 to answer with.
    """

    password = _password_field("Password", "current-password")

    error_messages = {
        **AuthenticationForm.error_messages,
        # The API's words (accounts.services.BadCredentials); names match in any case.
        "invalid_login": "That username and password do not match an account.",
    }

    def __init__(self, request: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        self.refusal: TooManyRequests | None = None
        self.fields["username"].widget.attrs.update(
            {"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        )

    @sensitive_variables()
    def clean(self) -> dict[str, Any]:
        username = normalize_username(self.cleaned_data.get("username") or "")
        password = self.cleaned_data.get("password")
        if not username or not password:
            return self.cleaned_data
        try:
            self.user_cache = account_authenticate(
                username=username,
                password=password,
                address=client_address(self.request),
                request=self.request,
            )
        except TooManyRequests as refusal:
            self.refusal = refusal
            raise ValidationError(str(refusal.detail), code="throttled") from None
        except BadCredentials:
            raise self.get_invalid_login_error() from None
        self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class CheckboxesForm(forms.ModelForm):
    """A form of checkboxes, each label after its box: no colon after the label."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class MailPreferencesForm(CheckboxesForm):
    """Which mail, and when; saved by ``accounts.mail_preferences.mail_preferences_update``
    (the API's own service), so the digest's next hour follows."""

    CHECKS = ("your_turn", "digest", "game_over", "invitations")

    time_zone = forms.ChoiceField(
        label="My time zone",
        choices=[(name, name) for name in time_zones()],
        help_text="For the digest's hour and the times in mail.",
    )
    digest_hour = forms.TypedChoiceField(
        label="The digest's hour",
        coerce=int,
        empty_value=None,
        choices=[(hour, f"{hour:02d}:00") for hour in MailPreferences.DIGEST_HOURS],
    )

    class Meta:
        model = MailPreferences
        fields = [
            *("your_turn", "digest", "reminders", "game_over", "invitations"),
            *("time_zone", "digest_hour"),
        ]
        labels = {
            "your_turn": "Your turn: a mail for each table as it waits on me",
            "digest": "Daily digest: one mail a day listing every table waiting on me",
            "reminders": "Remind me before a deadline",
            "game_over": "Game over: a game of mine has ended or a table was called off",
            "invitations": "Invitations: a player invites me to a table or offers me a rematch",
        }
        widgets = {"reminders": forms.RadioSelect}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A box unticked is not sent; a choice not sent stays as it was.
        for name in ("reminders", "time_zone", "digest_hour"):
            self.fields[name].required = False

    def changes(self) -> dict[str, Any]:
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name in self.CHECKS or value not in ("", None)
        }


class LeaderboardsForm(CheckboxesForm):
    """Whether the leaderboards list the player; saved by ``accounts.services.profile_update``."""

    class Meta:
        model = Profile
        fields = ["on_leaderboards"]
        labels = {"on_leaderboards": "List me on the leaderboards"}
        help_texts = {
            "on_leaderboards": "Off, your rated games still count and your page still shows your"
            " ratings, without a rank."
        }


class PlayForm(CheckboxesForm):
    """Who may watch the player's games, and whether a forced move is played for them;
    saved by ``accounts.services.profile_update``."""

    class Meta:
        model = Profile
        fields = ["games_public", "auto_play"]
        labels = {
            "games_public": "Anybody may watch my games and find them in the archive",
            "auto_play": "Play my move for me when it is my only one, and forced",
        }
        help_texts = {
            "games_public": "Off, a game you play in is in neither the archive nor the watch"
            " list, and only its players see its table.",
            "auto_play": "A draw when no card of yours plays: the log says it was played"
            " automatically, which tells the others nothing the draw does not.",
        }


class HolidayForm(forms.Form):
    """How many days of holiday, from now. Only a whole number is checked here: every
    other rule (1 to the allowance, the days left, a deadline due within the notice, one
    holiday at a time) is ``games.holidays.holiday_start``'s, as for the API."""

    days = forms.IntegerField(label="Days away")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        allowance = settings.FAIRDEAL_HOLIDAY_DAYS
        self.fields["days"].widget.attrs.update(
            {"min": 1, "max": allowance, "inputmode": "numeric"}
        )
        self.fields["days"].help_text = (
            f"From now, 1 to {allowance}. Every table waiting on you stands still until you"
            f" are back; a rated table waits at most {settings.FAIRDEAL_HOLIDAY_RATED_DAYS}"
            " days."
        )


class PasswordChangeForm(forms.Form):
    """The new password, twice; the old one is checked by the service, under the login guard."""

    old_password = _password_field("Current password", "current-password")
    new_password1 = _password_field("New password", "new-password", PASSWORD_HELP)
    new_password2 = _password_field("New password again", "new-password")

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    @sensitive_variables("password1", "password2")
    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        password1, password2 = cleaned.get("new_password1"), cleaned.get("new_password2")
        if password1 and password2 and password1 != password2:
            self.add_error("new_password2", MISMATCH)
        elif password1:
            try:
                password_validation.validate_password(password1, self.user)
            except ValidationError as error:
                self.add_error("new_password1", error)
        return cleaned


class ResetRequestForm(PasswordResetForm):
    """Asks for a reset link. The mail goes through the outbox, never from the request."""

    email = forms.EmailField(
        label="E-mail address",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    def clean_email(self) -> str:
        return normalize_email(self.cleaned_data["email"])

    def save(self, **kwargs: Any) -> None:  # type: ignore[override]
        # Django's own save() would mail here, inside the request; ours writes outbox items.
        with transaction.atomic():
            password_reset_request(email=self.cleaned_data["email"])


class ResetPasswordForm(SetPasswordForm):
    """The new password from a reset link; the account's API token stops working too."""

    new_password1 = _password_field("New password", "new-password", PASSWORD_HELP)
    new_password2 = _password_field("New password again", "new-password")

    error_messages = {**SetPasswordForm.error_messages, "password_mismatch": MISMATCH}

    @transaction.atomic
    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=commit)
        # Whoever knew the old password may hold the token, and have logged in from an
        # address now known to the account: a reset ends both.
        token_revoke(user=user)
        forget_known_addresses(user.get_username())
        return user
