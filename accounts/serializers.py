from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

User = get_user_model()


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=128, write_only=True, trim_whitespace=False)

    def validate_username(self, value: str) -> str:
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("that username is taken")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(username=attrs["username"], email=attrs["email"])
        try:
            password_validation.validate_password(attrs["password"], candidate)
        except Exception as error:  # django.core.exceptions.ValidationError
            raise serializers.ValidationError({"password": list(error.messages)}) from None
        return attrs


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class AccountSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.EmailField()
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
    mail = MailPreferencesSerializer()


class MeUpdateSerializer(StrictSerializer):
    mail = MailPreferencesSerializer(required=True)
