"""Accounts: registering, tokens, logging out, changing the password, and the public profile.

An account has no API token until it asks for one: the API's register, token and
password answers carry one (:func:`token_issue`), the settings page makes one on
request; signing up or changing the password on the web makes none.

Names and addresses are normalised first (:mod:`accounts.names`); the checks
here give the friendly answer, the database's unique indexes the final one,
so that simultaneous registrations of one name make exactly one account.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from accounts.models import Profile
from accounts.names import (
    EMAIL_INDEX,
    normalize_email,
    normalize_username,
    users_named,
    users_with_email,
)
from accounts.throttling import LoginGuard, forget_known_addresses
from accounts.verification import verification_request
from config.errors import ServiceError

User = get_user_model()


class UsernameTaken(ServiceError):
    code = "username_taken"
    status = 409


class EmailTaken(ServiceError):
    code = "email_taken"
    status = 409


class BadCredentials(ServiceError):
    code = "bad_credentials"
    status = 400


class WrongPassword(ServiceError):
    code = "wrong_password"
    status = 400


def _username_taken() -> UsernameTaken:
    return UsernameTaken("That username is taken (names are the same in any case).")


def _email_taken() -> EmailTaken:
    return EmailTaken("That e-mail address belongs to another account.")


@transaction.atomic
def account_register(*, username: str, email: str, password: str) -> Any:
    """A new account, without an API token, and a verification mail once it has committed."""
    username, email = normalize_username(username), normalize_email(email)
    if users_named(username).exists():
        raise _username_taken()
    if users_with_email(email).exists():
        raise _email_taken()
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError as error:
        # Someone registered the name or address in the meantime.
        raise (_email_taken() if EMAIL_INDEX in str(error) else _username_taken()) from None
    verification_request(user=user)
    return user


def account_authenticate(*, username: str, password: str, address: str, request: Any = None) -> Any:
    """The account for the right password, every attempt admitted by the :class:`LoginGuard` first.

    Raises ``TooManyRequests`` while the account or the address is locked (before
    any password is hashed) and :class:`BadCredentials` for a wrong pair. The
    API's token and the login page both come through here.
    """
    guard = LoginGuard(username=username, address=address)
    guard.admit()
    user = authenticate(request, username=username, password=password)
    if user is None:
        guard.failed()
        raise BadCredentials("That username and password do not match an account.")
    guard.succeeded()
    return user


def token_for(*, username: str, password: str, address: str) -> Token:
    """The account's token for the right password; refused while its logins are locked."""
    user = account_authenticate(username=username, password=password, address=address)
    return token_issue(user=user)


def token_issue(*, user: Any) -> Token:
    """The account's API token, made if it has none (get_or_create: of two simultaneous
    requests, one makes it and the other reads it)."""
    token, _ = Token.objects.get_or_create(user=user)
    return token


def token_revoke(*, user: Any) -> None:
    """Log out: the account's token stops working."""
    Token.objects.filter(user=user).delete()


@transaction.atomic
def password_change(*, user: Any, old_password: str, new_password: str, address: str) -> None:
    """Set a new password (already validated) and revoke the API token, if there is one.

    The old password is guessed under the same guard as logging in.
    """
    guard = LoginGuard(username=user.get_username(), address=address)
    guard.admit()
    if not user.check_password(old_password):
        guard.failed()
        raise WrongPassword("The old password is not your current password.")
    guard.succeeded()
    user.set_password(new_password)
    user.save(update_fields=["password"])
    Token.objects.filter(user=user).delete()
    forget_known_addresses(user.get_username())


def profile_update(
    *,
    user: Any,
    on_leaderboards: bool | None = None,
    games_public: bool | None = None,
    auto_play: bool | None = None,
) -> Profile:
    """Change what is given of ``user``'s profile (``PATCH /api/accounts/me/`` and the
    settings page); None leaves a setting as it is. ``on_leaderboards``: whether the
    leaderboards list them (off them, the player is still rated, and their own page
    shows it without a rank); ``games_public``: whether strangers may watch their games
    and find them in the archive; ``auto_play``: whether a forced move is played for them."""
    changes = {
        name: value
        for name, value in (
            ("on_leaderboards", on_leaderboards),
            ("games_public", games_public),
            ("auto_play", auto_play),
        )
        if value is not None
    }
    profile = Profile.for_user(user)
    for name, value in changes.items():
        setattr(profile, name, value)
    if changes:
        profile.save(update_fields=list(changes))
    user.profile = profile
    return profile
