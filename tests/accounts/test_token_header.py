"""The key of a request's token header: read straight for the usual header, by DRF's steps
(with their refusals) for any other; the same key or the same refusal either way."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import _HeaderOnly, token_key

KEY = "0123456789abcdef0123456789abcdef01234567"


def by_drf(header: str | None) -> object:
    request = RequestFactory().get(
        "/", **({} if header is None else {"HTTP_AUTHORIZATION": header})
    )
    try:
        found = _HeaderOnly().authenticate(request)
    except AuthenticationFailed as refusal:
        return ("refused", str(refusal.detail))
    return None if found is None else found[0]


def ours(header: str | None) -> object:
    request = RequestFactory().get(
        "/", **({} if header is None else {"HTTP_AUTHORIZATION": header})
    )
    try:
        return token_key(request)
    except AuthenticationFailed as refusal:
        return ("refused", str(refusal.detail))


@pytest.mark.parametrize(
    "header",
    [
        None,
        f"Token {KEY}",
        f"token {KEY}",
        f"TOKEN {KEY}",
        f"Token  {KEY}",
        f"Token {KEY} ",
        f" Token {KEY}",
        f"Token\t{KEY}",
        f"Token {KEY.upper()}",
        f"Token {KEY[:-1]}",
        f"Token {KEY}0",
        f"Token {KEY}\n",
        "Token",
        f"Token {KEY} {KEY}",
        f"Bearer {KEY}",
        "",
        "Token é",
    ],
)
def test_the_usual_header_and_every_other_give_what_drfs_steps_give(header: str | None) -> None:
    assert ours(header) == by_drf(header)


def test_the_usual_header_gives_its_key() -> None:
    assert ours(f"Token {KEY}") == KEY
