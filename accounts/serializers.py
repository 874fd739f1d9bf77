from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.password_validation import MinimumLengthValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from accounts.holiday_serializers import HolidaysSerializer
from accounts.mail_preferences import time_zones
from accounts.models import MailPreferences
from accounts.names import (
    USERNAME,
    USERNAME_RULE,
    is_valid_username,
    normalize_email,
    normalize_username,
)
from config.schema import LiveSchema

User = get_user_model()


# A name in the username alphabet, as the schema states it (NFKC look-alikes are taken too).
USERNAME_SCHEMA = {
    "type": "string",
    "pattern": f"^{USERNAME.pattern}$",
    "description": USERNAME_RULE,
}


class StrictCharField(serializers.CharField):
    """A JSON string: DRF's own field would also take a number and make it one."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(USERNAME_SCHEMA)
class LoginNameField(StrictCharField):
    """The name to log in with, in any case; a name nobody has is refused as bad credentials."""


@extend_schema_field(USERNAME_SCHEMA)
class UsernameField(StrictCharField):
    """A username in NFKC form, in the username alphabet (:mod:`accounts.names`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 150)
        kwargs.setdefault("help_text", USERNAME_RULE)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        name = normalize_username(super().to_internal_value(data))
        if not is_valid_username(name):
            raise serializers.ValidationError(USERNAME_RULE)
        return name


class PasswordField(LiveSchema, StrictCharField):
    """A password as typed, spaces and all. A ``new`` one must also pass Django's password
    validators (``AUTH_PASSWORD_VALIDATORS``); its schema states their shortest length."""

    def __init__(self, *, new: bool = False, **kwargs: Any) -> None:
        self.new = new
        kwargs.setdefault("max_length", 128)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def openapi_schema(self) -> dict[str, Any]:
        shortest = 1
        if self.new:
            for validator in password_validation.get_default_password_validators():
                if isinstance(validator, MinimumLengthValidator):
                    shortest = max(shortest, validator.min_length)
        # No NUL, which DRF's text fields refuse; the length in the pattern, where
        # drf-spectacular's minLength of 1 for a field that may not be blank leaves it.
        return {
            "type": "string",
            "maxLength": self.max_length,
            "pattern": f"^[^\\u0000]{{{shortest},}}$",
        }


def check_password_strength(password: str, user: Any, field: str) -> None:
    """Django's password validators, their messages under ``field``."""
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as error:
        raise serializers.ValidationError({field: list(error.messages)}) from None


class RegisterSerializer(serializers.Serializer):
    username = UsernameField()
    email = serializers.EmailField(max_length=254)
    password = PasswordField(
        new=True,
        write_only=True,
        help_text="8 characters or more, not all digits, not a common password,"
        " not like the username or the address",
    )

    def validate_email(self, value: str) -> str:
        return normalize_email(value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(username=attrs["username"], email=attrs["email"])
        check_password_strength(attrs["password"], candidate, "password")
        return attrs


class TokenRequestSerializer(serializers.Serializer):
    username = LoginNameField(max_length=150)
    password = PasswordField()


class AccountSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.EmailField()
    email_verified = serializers.BooleanField()
    token = serializers.CharField()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only: DRF's own field would also take "yes", 1 or "on"."""

    default_error_messages = {"invalid": "must be true or false"}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, rather than ignoring them, and with ``when_empty``
    (the refusal's words) a body with none of its own. Its schema says both
    (``config.schema.StrictSerializerSchema``)."""

    when_empty: str | None = None

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({unknown[0]: ["there is no such setting"]})
        value = super().to_internal_value(data)
        if self.when_empty is not None and not value:
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: [self.when_empty]}
            )
        return value


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only: DRF's own field would also take "8" or 8.0."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class MailPreferencesSerializer(StrictSerializer):
    your_turn = StrictBooleanField(required=False, help_text="a mail for each turn waiting on me")
    digest = StrictBooleanField(
        required=False,
        help_text="one mail a day listing every table waiting on me, at digest_hour in time_zone",
    )
    reminders = serializers.ChoiceField(
        choices=MailPreferences.Reminders.choices,
        required=False,
        help_text="when to remind me before a deadline: none, 24h, 1h or both",
    )
    game_over = StrictBooleanField(
        required=False, help_text="a mail when a game of mine ends or a table is called off"
    )
    invitations = StrictBooleanField(
        required=False,
        help_text="a mail when a player invites me to a table or offers me a rematch",
    )
    time_zone = serializers.ChoiceField(
        choices=time_zones(),
        required=False,
        help_text="an IANA time zone name, for the digest's hour and the times in mail",
    )
    digest_hour = StrictIntegerField(
        min_value=0, max_value=23, required=False, help_text="the digest's hour, 0 to 23"
    )


class MeSerializer(serializers.Serializer):
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(read_only=True)
    email_verified = serializers.BooleanField(
        read_only=True, help_text="whether the address is verified: game mail goes only then"
    )
    mail = MailPreferencesSerializer()
    on_leaderboards = serializers.BooleanField(
        help_text="whether the leaderboards list me; off them I am still rated (docs/ratings.md)"
    )
    games_public = serializers.BooleanField(
        help_text="whether anybody may watch my games and find them in the archive"
    )
    auto_play = serializers.BooleanField(
        help_text="whether my only legal action, when forced, is played for me at once"
    )
    holiday = HolidaysSerializer(
        read_only=True, help_text="the days of holiday left, and the holiday in progress"
    )


class MeUpdateSerializer(StrictSerializer):
    """What to change: the kinds of mail, being on the leaderboards, or both."""

    when_empty = "send what to change: mail, on_leaderboards, games_public or auto_play"

    mail = MailPreferencesSerializer(required=False)
    on_leaderboards = StrictBooleanField(
        required=False, help_text="false keeps me off the leaderboards; I am still rated"
    )
    games_public = StrictBooleanField(
        required=False,
        help_text="false keeps my games out of the archive and the watch list: only their"
        " players see them",
    )
    auto_play = StrictBooleanField(
        required=False,
        help_text="true plays my only legal action for me at once when it is forced (a draw"
        " when no card fits)",
    )


class PasswordChangeSerializer(StrictSerializer):
    old_password = PasswordField()
    new_password = PasswordField(
        new=True,
        help_text="8 characters or more, not all digits, not a common password,"
        " not like the username or the address",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        check_password_strength(attrs["new_password"], self.context["user"], "new_password")
        return attrs


@extend_schema_field({"type": "string", "pattern": "^[A-Za-z0-9_.:-]+$", "maxLength": 500})
class SignedTokenField(StrictCharField):
    """A token signed by ``django.core.signing``: URL-safe base64 and its ``:`` separators."""


class VerifyEmailSerializer(StrictSerializer):
    token = SignedTokenField(max_length=500, help_text="the token from the mailed link")


class VerifiedSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.EmailField()
    email_verified = serializers.BooleanField()
