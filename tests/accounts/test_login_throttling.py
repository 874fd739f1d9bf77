"""Password guessing from one address: its lock at an account, its rate over every account,
refused before any hashing. The owner elsewhere and the bounds over many addresses are
tests/accounts/test_login_under_attack.py's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.hashers import get_hasher
from django.test import Client

from accounts import services
from accounts.throttling import lock_seconds
from tests.factories import PASSWORD, assert_error, at_once, body, client_for, make_users

TOKEN = "/api/accounts/token/"
WRONG = "not the password at all"

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
def generous_rates(settings: Any) -> None:
    """Only the lock of the guesser's address at the account is left to stop it."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"accounts": "10000/min"},
    }
    settings.FAIRDEAL_LOGIN_ADDRESS_RATE = "10000/hour"
    settings.FAIRDEAL_LOGIN_ACCOUNT_RATE = "10000/hour"


class Spies:
    def __init__(self, authenticate: mock.Mock, encode: mock.Mock) -> None:
        self.authenticate, self.encode = authenticate, encode

    @property
    def hashed(self) -> int:
        """Passwords hashed: checked against an account (verify encodes), or for no account."""
        return self.encode.call_count


@pytest.fixture
def spies() -> Iterator[Spies]:
    hasher = type(get_hasher())
    with (
        mock.patch.object(services, "authenticate", wraps=services.authenticate) as authenticate,
        mock.patch.object(hasher, "encode", autospec=True, side_effect=hasher.encode) as encode,
    ):
        yield Spies(authenticate, encode)


def log_in(password: str, *, username: str = "alice", **headers: str) -> Any:
    client = client_for(raise_errors=False)
    return client.post(
        TOKEN, {"username": username, "password": password}, format="json", **headers
    )


def test_130_failures_each_with_a_new_forged_address_are_one_address_and_its_lock_holds(
    alice: Any, spies: Spies
) -> None:
    # Without trusted proxies X-Forwarded-For is not believed: every request is 127.0.0.1.
    answers = [
        log_in(WRONG, HTTP_X_FORWARDED_FOR=f"10.{i // 250}.{i % 250}.1").status_code
        for i in range(130)
    ]

    # Five free failures, then one that takes the lock.
    assert answers == [400] * 6 + [429] * 124
    right = log_in(PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert_error(right, 429, "throttled")
    assert spies.hashed == 6


def test_the_lock_alone_holds_an_address_when_the_other_rates_are_generous(
    alice: Any, spies: Spies, generous_rates: None
) -> None:
    answers = [log_in(WRONG).status_code for _ in range(130)]

    assert answers == [400] * 6 + [429] * 124  # five free failures, then one takes the lock
    assert spies.authenticate.call_count == spies.hashed == 6
    assert_error(log_in(PASSWORD), 429, "throttled")
    assert spies.authenticate.call_count == 6


def test_a_locked_address_is_refused_without_hashing_the_password(
    alice: Any, spies: Spies, generous_rates: None
) -> None:
    for _ in range(6):
        log_in(WRONG)
    spies.authenticate.reset_mock()
    spies.encode.reset_mock()

    response = log_in(PASSWORD)

    data = assert_error(response, 429, "throttled")
    wait = int(response["Retry-After"])
    assert 1 <= wait <= 60
    assert "this account from your address" in data["detail"]
    assert "try again in" in data["detail"]
    assert spies.authenticate.call_count == 0
    assert spies.hashed == 0


def test_a_name_in_another_case_shares_the_lock(alice: Any, generous_rates: None) -> None:
    for _ in range(6):
        log_in(WRONG)

    assert_error(log_in(PASSWORD, username="ALICE"), 429, "throttled")
    assert_error(log_in(PASSWORD, username="\uff41lice"), 429, "throttled")


def test_each_further_failure_locks_the_address_out_twice_as_long(
    alice: Any, settings: Any, generous_rates: None
) -> None:
    settings.FAIRDEAL_LOGIN_FREE_FAILURES = 1
    settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS = 2
    # Checked against a hasher that knows no stored password: always wrong, and at once,
    # so that a slow hash cannot outlast a 2-second lock.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    assert log_in(WRONG).status_code == 400  # free
    assert log_in(WRONG).status_code == 400  # takes a 2-second lock

    locked = log_in(WRONG)
    assert_error(locked, 429, "throttled")
    assert 1 <= int(locked["Retry-After"]) <= 2

    time.sleep(2.2)
    assert log_in(WRONG).status_code == 400  # takes a 4-second lock
    locked = log_in(WRONG)
    assert_error(locked, 429, "throttled")
    assert 3 <= int(locked["Retry-After"]) <= 4


def test_the_lock_is_capped(settings: Any) -> None:
    settings.FAIRDEAL_LOGIN_FREE_FAILURES = 5
    settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS = 2
    settings.FAIRDEAL_LOGIN_MAX_LOCK_SECONDS = 900

    assert [lock_seconds(n) for n in (1, 5, 6, 7, 9, 15, 16, 1000)] == [
        0,
        0,
        2,
        4,
        16,
        900,
        900,
        900,
    ]


def test_a_success_clears_the_addresss_failures_at_the_account(
    alice: Any, generous_rates: None
) -> None:
    assert [log_in(WRONG).status_code for _ in range(4)] == [400] * 4
    assert log_in(PASSWORD).status_code == 200

    assert [log_in(WRONG).status_code for _ in range(6)] == [400] * 6
    assert_error(log_in(WRONG), 429, "throttled")


def test_an_unknown_name_is_locked_like_a_real_one(generous_rates: None) -> None:
    # The lock must not tell which names have accounts.
    answers = [log_in(WRONG, username="nobody").status_code for _ in range(8)]

    assert answers == [400] * 6 + [429] * 2


def test_one_address_cannot_spread_its_guesses_over_many_accounts(
    settings: Any, spies: Spies, one_throttle_window: None
) -> None:
    settings.FAIRDEAL_LOGIN_ADDRESS_RATE = "10/hour"
    make_users(*(f"victim{i}" for i in range(12)))

    answers = [
        log_in(WRONG, username=f"victim{i}", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code
        for i in range(12)
    ]

    assert answers == [400] * 10 + [429] * 2
    refused = log_in(PASSWORD, username="victim11")
    data = assert_error(refused, 429, "throttled")
    assert "your address" in data["detail"]
    assert spies.authenticate.call_count == 10
    # Another client is not held back by this one.
    other = client_for(raise_errors=False).post(
        TOKEN,
        {"username": "victim11", "password": PASSWORD},
        format="json",
        REMOTE_ADDR="192.0.2.7",
    )
    assert other.status_code == 200, other.content
    assert "token" in body(other)


def test_successes_do_not_use_up_the_addresss_failures(
    alice: Any, settings: Any, one_throttle_window: None
) -> None:
    settings.FAIRDEAL_LOGIN_ADDRESS_RATE = "3/hour"

    assert [log_in(PASSWORD).status_code for _ in range(5)] == [200] * 5
    assert [log_in(WRONG).status_code for _ in range(4)] == [400, 400, 400, 429]


def test_the_admin_login_is_guarded_like_the_api_and_shares_its_lock(
    spies: Spies, generous_rates: None
) -> None:
    (staff,) = make_users("staffer")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    client = Client()

    answers = [
        client.post("/admin/login/", {"username": "staffer", "password": WRONG}).status_code
        for _ in range(8)
    ]

    assert answers == [200] * 6 + [429] * 2  # the form again, then refused
    hashed = spies.hashed
    refused = client.post("/admin/login/", {"username": "STAFFER", "password": PASSWORD})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert spies.hashed == hashed  # refused before any hashing
    assert_error(log_in(PASSWORD, username="staffer"), 429, "throttled")  # one lock for both


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_simultaneous_guesses_from_one_address_gets_no_more_than_a_sequence(
    alice: Any, spies: Spies, generous_rates: None
) -> None:
    answers = at_once(*(lambda: log_in(WRONG) for _ in range(20)))

    # As in a sequence: five free failures, then one that takes the lock.
    assert sorted(answer.status_code for answer in answers) == [400] * 6 + [429] * 14
    assert spies.hashed == 6
    assert_error(log_in(PASSWORD), 429, "throttled")
    assert spies.hashed == 6
