"""Guessing at one account: the owner gets in from elsewhere, the guesses stay bounded.

Both sides of accounts/throttling.py with its default numbers: the lock holds the
guesser's address alone; past the account's ceiling (10 failures an hour over every
address) only a known address or a fresh one (two tries, 10 fresh attempts an hour in
all) may try, so that many addresses get at most 20 guesses an hour at an account.
Addresses are the connection's (``REMOTE_ADDR``): no proxy is trusted here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.hashers import get_hasher
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from tests.factories import PASSWORD, assert_error, at_once, body, client_for, make_users

TOKEN = "/api/accounts/token/"
LOGIN = "/accounts/login/"
WRONG = "not the password at all"
ATTACKER, ACCOMPLICE = "203.0.113.66", "203.0.113.67"
INTRUDER = "203.0.113.99"  # had the password, once
OWNER, OWNER_ELSEWHERE, OWNER_AT_HOME = "198.51.100.7", "198.51.100.8", "192.0.2.10"
# 30 s into the hour (tests/conftest.py's one_throttle_window): what waits for the hour waits this.
REST_OF_THE_HOUR = 3570

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> Any:
    (alice,) = make_users("alice")
    return alice


@pytest.fixture(autouse=True)
def long_locks(settings: Any) -> None:
    """A first lock of a minute, so that no lock runs out in the middle of a test."""
    settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS = 60


@pytest.fixture
def hashes() -> Iterator[mock.Mock]:
    """Counts the passwords hashed: each is a guess that was let through."""
    hasher = type(get_hasher())
    with mock.patch.object(hasher, "encode", autospec=True, side_effect=hasher.encode) as encode:
        yield encode


def log_in(password: str, *, address: str, username: str = "alice") -> Any:
    client = client_for(raise_errors=False)
    return client.post(
        TOKEN, {"username": username, "password": password}, format="json", REMOTE_ADDR=address
    )


def log_in_on_the_page(password: str, *, address: str, username: str = "alice") -> Any:
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username, "password": password})


def signed_in_as(response: Any) -> str:
    """Who the session of the client that made ``response`` belongs to."""
    return response.client.get("/accounts/settings/").wsgi_request.user.username


def reach_the_ceiling() -> None:
    """Two addresses spend the account's 10 failures of the hour: 6 from one (then its
    lock), 4 from the other; after them, both are refused."""
    answers = [log_in(WRONG, username="ALICE", address=ATTACKER).status_code for _ in range(8)]
    answers += [log_in(WRONG, username="Alice", address=ACCOMPLICE).status_code for _ in range(6)]

    assert answers == [400] * 6 + [429] * 2 + [400] * 4 + [429] * 2


# -- the attack that was seen: one address, the name in upper case ---------------------------


def test_the_attack_seen_locks_the_attackers_address_and_the_owner_gets_a_token_elsewhere(
    alice: Any, hashes: mock.Mock
) -> None:
    attack = [log_in(WRONG, username="ALICE", address=ATTACKER).status_code for _ in range(13)]

    assert attack == [400] * 6 + [429] * 7  # five free failures, then one takes the lock
    locked = log_in(PASSWORD, username="ALICE", address=ATTACKER)  # even the right password
    data = assert_error(locked, 429, "throttled")
    assert "this account from your address" in data["detail"]
    assert 1 <= int(locked["Retry-After"]) <= 60
    assert hashes.call_count == 6

    owner = log_in(PASSWORD, address=OWNER)

    assert owner.status_code == 200, owner.content
    assert "token" in body(owner)
    assert hashes.call_count == 7
    # The owner's success clears nothing of the attacker's.
    assert_error(log_in(WRONG, address=ATTACKER), 429, "throttled")
    assert hashes.call_count == 7


def test_the_attack_seen_on_the_login_page_does_not_keep_the_owner_out_of_it(alice: Any) -> None:
    attack = [
        log_in_on_the_page(WRONG, username="ALICE", address=ATTACKER).status_code for _ in range(13)
    ]

    assert attack == [200] * 6 + [429] * 7  # the form again, then refused
    assert log_in_on_the_page(PASSWORD, address=ATTACKER).status_code == 429

    owner = log_in_on_the_page(PASSWORD, address=OWNER)

    assert owner.status_code == 302
    assert signed_in_as(owner) == "alice"
    # One guard for page and API: the attacker's address is locked out of both.
    assert_error(log_in(PASSWORD, address=ATTACKER), 429, "throttled")


# -- past the account's ceiling: many addresses ---------------------------------------------


def test_past_the_ceiling_the_owner_gets_in_from_a_clean_address_by_api_and_page(
    alice: Any, hashes: mock.Mock, one_throttle_window: None
) -> None:
    reach_the_ceiling()
    assert hashes.call_count == 10

    owner = log_in(PASSWORD, address=OWNER)
    on_the_page = log_in_on_the_page(PASSWORD, address=OWNER_ELSEWHERE)

    assert owner.status_code == 200, owner.content
    assert on_the_page.status_code == 302
    assert signed_in_as(on_the_page) == "alice"
    # The attackers, even with the password: one is locked out, the other waits for the hour.
    assert_error(log_in(PASSWORD, address=ATTACKER), 429, "throttled")
    refused = log_in(PASSWORD, address=ACCOMPLICE)
    data = assert_error(refused, 429, "throttled")
    assert "this account from many addresses" in data["detail"]
    assert int(refused["Retry-After"]) == REST_OF_THE_HOUR
    assert hashes.call_count == 12


def test_past_the_ceiling_a_fresh_address_has_two_tries(
    alice: Any, one_throttle_window: None
) -> None:
    reach_the_ceiling()

    mistyped = log_in(WRONG, address=OWNER)
    then_right = log_in(PASSWORD, address=OWNER)
    mistyped_twice = [log_in(WRONG, address=OWNER_ELSEWHERE).status_code for _ in range(2)]
    third = log_in(PASSWORD, address=OWNER_ELSEWHERE)

    assert mistyped.status_code == 400
    assert then_right.status_code == 200, then_right.content
    assert mistyped_twice == [400, 400]
    assert_error(third, 429, "throttled")
    assert int(third["Retry-After"]) == REST_OF_THE_HOUR


def test_many_addresses_get_at_most_20_guesses_an_hour_and_the_owner_gets_in_from_home(
    alice: Any, hashes: mock.Mock, one_throttle_window: None
) -> None:
    assert log_in(PASSWORD, address=OWNER_AT_HOME).status_code == 200  # before the attack
    hashes.reset_mock()
    names = ["alice", "ALICE", "Alice"]  # one account however it is spelled

    answers = [
        log_in(WRONG, username=names[i % 3], address=f"10.0.{i}.1").status_code
        for i in range(40)
        for _ in range(3)
    ]

    # 10 failures within the ceiling, then 10 fresh attempts, two an address; nothing more.
    assert answers.count(400) == 20
    assert answers.count(429) == 100
    assert hashes.call_count == 20
    from_a_new_place = log_in(PASSWORD, address=OWNER)
    data = assert_error(from_a_new_place, 429, "throttled")
    assert "this account from many addresses" in data["detail"]
    assert int(from_a_new_place["Retry-After"]) == REST_OF_THE_HOUR
    # Where alice logged in before, she still gets in, on the API and on the page.
    assert log_in(PASSWORD, address=OWNER_AT_HOME).status_code == 200
    at_home = log_in_on_the_page(PASSWORD, address=OWNER_AT_HOME)
    assert at_home.status_code == 302
    assert signed_in_as(at_home) == "alice"
    assert hashes.call_count == 22


def test_a_known_address_is_still_held_by_its_own_lock(
    alice: Any, one_throttle_window: None
) -> None:
    assert log_in(PASSWORD, address=OWNER_AT_HOME).status_code == 200
    reach_the_ceiling()

    answers = [log_in(WRONG, address=OWNER_AT_HOME).status_code for _ in range(8)]

    assert answers == [400] * 6 + [429] * 2
    assert_error(log_in(PASSWORD, address=OWNER_AT_HOME), 429, "throttled")


# -- bursts: simultaneous attempts get no more guesses than a sequence -----------------------


@pytest.mark.django_db(transaction=True)
def test_past_the_ceiling_a_burst_from_one_fresh_address_gets_its_two_tries_only(
    alice: Any, one_throttle_window: None
) -> None:
    reach_the_ceiling()

    answers = at_once(*(lambda: log_in(WRONG, address=OWNER) for _ in range(10)))

    assert sorted(answer.status_code for answer in answers) == [400] * 2 + [429] * 8
    assert_error(log_in(PASSWORD, address=OWNER), 429, "throttled")


@pytest.mark.django_db(transaction=True)
def test_past_the_ceiling_a_burst_from_many_fresh_addresses_gets_ten_tries_only(
    alice: Any, one_throttle_window: None
) -> None:
    reach_the_ceiling()

    answers = at_once(
        *(lambda i=i: log_in(WRONG, address=f"10.1.{i}.1") for i in range(24)),
    )

    assert sorted(answer.status_code for answer in answers) == [400] * 10 + [429] * 14
    assert_error(log_in(PASSWORD, address=OWNER), 429, "throttled")


# -- a new password: the addresses known under the old one are strangers again --------------

NEW_PASSWORD = "a much better passphrase 42"


def change_password(user: Any, *, address: str) -> None:
    answer = client_for(user, raise_errors=False).post(
        "/api/accounts/password/",
        {"old_password": PASSWORD, "new_password": NEW_PASSWORD},
        format="json",
        REMOTE_ADDR=address,
    )
    assert answer.status_code == 200, answer.content


def reset_password(user: Any) -> None:
    """Through the page of a mailed reset link, as its owner would."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    page = Client()
    link = page.get(f"/accounts/password-reset/{uid}/{default_token_generator.make_token(user)}/")
    assert link.status_code == 302, link.status_code
    done = page.post(
        link["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302 and done["Location"].endswith("/complete/"), done.status_code


@pytest.mark.parametrize("how", ["changed", "reset"])
def test_a_new_password_forgets_the_known_addresses(
    alice: Any, how: str, one_throttle_window: None
) -> None:
    # An intruder who had the password logged in from their address, which became known to
    # the account. The owner then sets a new password (from home).
    assert log_in(PASSWORD, address=INTRUDER).status_code == 200
    if how == "changed":
        change_password(alice, address=OWNER_AT_HOME)
    else:
        reset_password(alice)
    reach_the_ceiling()

    # Past the ceiling, the intruder's address is a fresh one again: two tries, then none.
    answers = [log_in(WRONG, address=INTRUDER) for _ in range(3)]
    assert [answer.status_code for answer in answers] == [400, 400, 429]
    assert "this account from many addresses" in answers[-1].json()["detail"]
    # The owner gets in with the new password, and that address is known from then on.
    assert log_in(NEW_PASSWORD, address=OWNER_ELSEWHERE).status_code == 200
    assert [log_in(WRONG, address=OWNER_ELSEWHERE).status_code for _ in range(3)] == [400] * 3


def test_without_a_new_password_a_known_address_stays_known(
    alice: Any, one_throttle_window: None
) -> None:
    # The control of the test above: the same steps, no new password.
    assert log_in(PASSWORD, address=INTRUDER).status_code == 200
    reach_the_ceiling()

    assert [log_in(WRONG, address=INTRUDER).status_code for _ in range(3)] == [400] * 3
