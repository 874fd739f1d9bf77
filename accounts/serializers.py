from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from accounts.names import USERNAME_RULE, is_valid_username, normalize_email, normalize_username

User = get_user_model()


class UsernameField(serializers.CharField):
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


def check_password_strength(password: str, user: Any, field: str) -> None:
    """Django's password validators, their messages under ``field``."""
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as error:
        raise serializers.ValidationError({field: list(error.messages)}) from None


class RegisterSerializer(serializers.Serializer):
    username = UsernameField()
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=128, write_only=True, trim_whitespace=False)

    def validate_email(self, value: str) -> str:
        return normalize_email(value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(username=attrs["username"], email=attrs["email"])
        check_password_strength(attrs["password"], candidate, "password")
        return attrs


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


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
    """Refuses fields it does not know, rather than ignoring them."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({unknown[0]: ["there is no such setting"]})
        return super().to_internal_value(data)


class MailPreferencesSerializer(StrictSerializer):
    your_turn = StrictBooleanField(required=False)
    reminder = StrictBooleanField(required=False)
    game_over = StrictBooleanField(required=False)


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


class MeUpdateSerializer(StrictSerializer):
    """What to change: the kinds of mail, being on the leaderboards, or both."""

    mail = MailPreferencesSerializer(required=False)
    on_leaderboards = StrictBooleanField(
        required=False, help_text="false keeps me off the leaderboards; I am still rated"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError("send what to change: mail, on_leaderboards or both")
        return attrs


class PasswordChangeSerializer(StrictSerializer):
    old_password = serializers.CharField(max_length=128, trim_whitespace=False)
    new_password = serializers.CharField(max_length=128, trim_whitespace=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        check_password_strength(attrs["new_password"], self.context["user"], "new_password")
        return attrs


class VerifyEmailSerializer(StrictSerializer):
    token = serializers.CharField(max_length=500, help_text="the token from the mailed link")


class VerifiedSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.EmailField()
    email_verified = serializers.BooleanField()
