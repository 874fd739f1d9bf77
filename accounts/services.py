from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from config.errors import ServiceError

User = get_user_model()


class UsernameTaken(ServiceError):
    code = "username_taken"
    status = 409


class BadCredentials(ServiceError):
    code = "bad_credentials"
    status = 400


@transaction.atomic
def account_register(*, username: str, email: str, password: str) -> tuple[User, Token]:
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError:
        raise UsernameTaken("that username is taken") from None
    return user, Token.objects.create(user=user)


def token_for(*, username: str, password: str) -> Token:
    user = authenticate(username=username, password=password)
    if user is None:
        raise BadCredentials("that username and password do not match an account")
    token, _ = Token.objects.get_or_create(user=user)
    return token
