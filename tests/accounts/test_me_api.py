"""The caller's own account: who they are, which mail they get, and whether they are on the
leaderboards."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import MailPreferences, Profile
from tests.factories import assert_error, body, client_for, make_users

ME = "/api/accounts/me/"
# What a player gets until they choose: a mail each turn, both reminders, game over,
# invitations.
EVERYTHING_ON = {
    "your_turn": True,
    "digest": False,
    "reminders": "both",
    "game_over": True,
    "invitations": True,
    "time_zone": "UTC",
    "digest_hour": 8,
}

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> Any:
    (alice,) = make_users("alice")
    return alice


def test_me_shows_the_account_with_every_mail_on_and_on_the_leaderboards_by_default(
    alice: Any,
) -> None:
    response = client_for(alice).get(ME)

    assert response.status_code == 200, response.content
    assert body(response) == {
        "username": "alice",
        "email": "alice@example.com",
        "email_verified": True,
        "mail": EVERYTHING_ON,
        "on_leaderboards": True,
        "games_public": True,
        "auto_play": False,
        "holiday": {"allowance": 30, "days_left": 30, "current": None},
    }
    assert not Profile.objects.exists()


def test_a_player_can_stay_off_the_leaderboards_and_come_back(alice: Any) -> None:
    client = client_for(alice)

    response = client.patch(ME, {"on_leaderboards": False}, format="json")

    assert response.status_code == 200, response.content
    assert body(response)["on_leaderboards"] is False
    assert body(response)["mail"] == EVERYTHING_ON
    assert body(client.get(ME))["on_leaderboards"] is False
    assert Profile.objects.get(user=alice).on_leaderboards is False
    both = client.patch(ME, {"on_leaderboards": True, "mail": {"your_turn": False}}, format="json")
    assert body(both)["on_leaderboards"] is True
    assert body(both)["mail"] == {**EVERYTHING_ON, "your_turn": False}


def test_patching_one_kind_of_mail_leaves_the_others_as_they_were(alice: Any) -> None:
    client = client_for(alice)

    response = client.patch(ME, {"mail": {"your_turn": False}}, format="json")

    assert response.status_code == 200, response.content
    assert body(response)["mail"] == {**EVERYTHING_ON, "your_turn": False}
    assert body(client.get(ME))["mail"] == {**EVERYTHING_ON, "your_turn": False}
    response = client.patch(ME, {"mail": {"game_over": False, "your_turn": True}}, format="json")
    assert body(response)["mail"] == {**EVERYTHING_ON, "game_over": False}
    assert MailPreferences.objects.get(user=alice).game_over is False


@pytest.mark.parametrize(
    "data",
    [
        {"mail": {"your_turn": "yes"}},
        {"mail": {"your_turn": 1}},
        {"mail": {"your_turn": 0}},
        {"mail": {"your_turn": "false"}},
        {"mail": {"your_turn": None}},
        {"mail": {"your_turn": False, "sms": False}},
        {"mail": ["your_turn"]},
        {"mail": False},
        {"mail": {"your_turn": False}, "email": "mallory@example.com"},
        {"on_leaderboards": "no"},
        {"on_leaderboards": 0},
        {"on_leaderboards": None},
        {"on_leaderboards": False, "mail": {"sms": False}},
        {},
        [],
    ],
    ids=[
        "a word",
        "one",
        "zero",
        "a string false",
        "null",
        "an unknown kind",
        "a list",
        "not an object",
        "another field",
        "leaderboards a word",
        "leaderboards zero",
        "leaderboards null",
        "leaderboards with an unknown kind of mail",
        "nothing",
        "a list body",
    ],
)
def test_anything_but_true_or_false_is_refused_and_changes_nothing(alice: Any, data: Any) -> None:
    client = client_for(alice)

    assert_error(client.patch(ME, data, format="json"), 400, "invalid")

    assert body(client.get(ME)) == {
        "username": "alice",
        "email": "alice@example.com",
        "email_verified": True,
        "mail": EVERYTHING_ON,
        "on_leaderboards": True,
        "games_public": True,
        "auto_play": False,
        "holiday": {"allowance": 30, "days_left": 30, "current": None},
    }
    assert not Profile.objects.exists()


def test_a_body_that_is_not_json_is_refused(alice: Any) -> None:
    response = client_for(alice).patch(ME, "{", content_type="application/json")

    assert_error(response, 400, "malformed_json")


def test_me_needs_a_token() -> None:
    assert_error(client_for().get(ME), 401, "not_authenticated")
    assert_error(
        client_for().patch(ME, {"mail": {"your_turn": False}}, format="json"),
        401,
        "not_authenticated",
    )
    assert not MailPreferences.objects.exists()


def test_a_bad_token_is_refused() -> None:
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)

    assert_error(client.get(ME), 401, "authentication_failed")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"mail": {"\\ud800": true}}',
        b'{"mail": {"your_turn": "\\udfff"}}',
        b'{"mail": {"your_turn": false}, "x": ["ok", {"deep": "\\ud83c"}]}',
    ],
    ids=["a key", "a value", "deep in a list"],
)
def test_a_lone_surrogate_anywhere_in_the_body_is_refused_and_changes_nothing(
    alice: Any, raw: bytes
) -> None:
    client = client_for(alice, raise_errors=False)
    before = body(client.get(ME))

    response = client.patch(ME, raw, content_type="application/json")

    data = assert_error(response, 400, "malformed_json")
    assert data["detail"] == "The request body is not valid Unicode text."
    assert body(client.get(ME)) == before


def test_an_unknown_setting_is_named_only_briefly(alice: Any) -> None:
    client = client_for(alice, raise_errors=False)

    response = client.patch(ME, {"mail": {"x" * 5000: True}}, format="json")

    data = assert_error(response, 400, "invalid")
    assert len(response.content) < 1000 and len(data["detail"]) < 300
