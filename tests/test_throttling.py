"""Who is asking: the client's address, and counters every process shares."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import RequestFactory

from config.throttling import address_key, client_address, hit, parse_rate, unhit
from tests.factories import assert_error, client_for

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "/api/accounts/token/"
REGISTER = "/api/accounts/register/"


def request_from(remote: str, forwarded: str | None = None) -> Any:
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


@pytest.fixture
def rates(settings: Any) -> Any:
    """Sets the accounts request rate for one test: ``rates("3/min")``."""

    def set_rate(rate: str) -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {"accounts": rate},
        }

    return set_rate


# -- the address ------------------------------------------------------------------------


@pytest.mark.parametrize("forwarded", [None, "203.0.113.7", "1.1.1.1, 2.2.2.2", "garbage"])
def test_without_trusted_proxies_the_address_is_remote_addr_whatever_the_header_says(
    settings: Any, forwarded: str | None
) -> None:
    settings.FAIRDEAL_TRUSTED_PROXIES = 0

    assert client_address(request_from("198.51.100.1", forwarded)) == "198.51.100.1"


@pytest.mark.parametrize(
    ("proxies", "forwarded", "address"),
    [
        (1, "6.6.6.6, 203.0.113.7", "203.0.113.7"),
        (1, "203.0.113.7", "203.0.113.7"),
        (2, "6.6.6.6, 203.0.113.7, 10.0.0.2", "203.0.113.7"),
        (2, "203.0.113.7", "203.0.113.7"),
        (1, "6.6.6.6, not-an-address", "10.0.0.1"),
        (1, "6.6.6.6, 2001:DB8::1", "2001:db8::1"),
    ],
    ids=[
        "one proxy after a forged entry",
        "one proxy",
        "two proxies",
        "a chain shorter than the proxies",
        "not an address",
        "ipv6",
    ],
)
def test_behind_trusted_proxies_the_address_is_the_nth_from_the_right(
    settings: Any, proxies: int, forwarded: str, address: str
) -> None:
    settings.FAIRDEAL_TRUSTED_PROXIES = proxies

    assert client_address(request_from("10.0.0.1", forwarded)) == address


def test_drf_is_told_the_same_number_of_proxies(settings: Any) -> None:
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == settings.FAIRDEAL_TRUSTED_PROXIES


def test_addresses_in_one_ipv6_64_count_as_one_client() -> None:
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:203.0.113.7") == address_key("203.0.113.7") == "203.0.113.7"


def test_a_rate_is_read_as_drf_spells_it() -> None:
    assert parse_rate("60/min") == (60, 60)
    assert parse_rate("30/hour") == (30, 3600)
    assert parse_rate("1000/day") == (1000, 86400)


# -- the counters --------------------------------------------------------------------


def test_a_count_goes_up_by_one_per_hit_and_back_down_with_unhit() -> None:
    now = 1_000_000.0
    assert hit("k", 60, now=now).count == 1
    second = hit("k", 60, now=now + 1)
    assert (second.count, second.wait) == (2, 19)
    unhit(second.slot)
    assert hit("k", 60, now=now + 2).count == 2
    assert hit("k", 60, now=now + 60).count == 1  # the next window starts from zero


@pytest.mark.django_db
def test_a_forged_header_per_request_does_not_escape_the_request_rate(
    rates: Any, one_throttle_window: None
) -> None:
    rates("3/min")
    client = client_for(raise_errors=False)

    answers = [
        client.post(REGISTER, {}, format="json", HTTP_X_FORWARDED_FOR=f"10.9.{i}.1")
        for i in range(4)
    ]

    assert [a.status_code for a in answers[:3]] == [400, 400, 400]
    data = assert_error(answers[3], 429, "throttled")
    wait = int(answers[3]["Retry-After"])
    assert 1 <= wait <= 60
    assert data["detail"].endswith(f"try again in {wait} seconds.") or wait == 1, data


@pytest.mark.django_db
def test_behind_a_proxy_each_client_address_has_its_own_count(
    settings: Any, rates: Any, one_throttle_window: None
) -> None:
    settings.FAIRDEAL_TRUSTED_PROXIES = 1
    rates("2/min")
    client = client_for(raise_errors=False)

    def ask(address: str) -> int:
        return client.post(
            TOKEN, {}, format="json", HTTP_X_FORWARDED_FOR=f"6.6.6.6, {address}"
        ).status_code

    assert [ask("203.0.113.1") for _ in range(3)] == [400, 400, 429]
    assert ask("203.0.113.2") == 400


COUNTER = """
import django
django.setup()
from django.test import Client
client = Client()
print(" ".join(str(client.post("/api/accounts/token/", {}, content_type="application/json")
    .status_code) for _ in range(3)))
"""


@pytest.mark.django_db
def test_two_processes_share_one_count(rates: Any) -> None:
    assert isinstance(caches["default"], RedisCache), (
        "the throttles' counters must be shared: run the tests with CACHE_URL=redis://..."
        " (make test does)"
    )
    rates("5/hour")
    if time.time() % 3600 > 3570:  # let the hour turn first, not in the middle
        time.sleep(31)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env["FAIRDEAL_ACCOUNTS_RATE"] = "5/hour"
    other = subprocess.run(
        [sys.executable, "-c", COUNTER],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert other.returncode == 0, other.stderr[-2000:]
    assert other.stdout.split() == ["400", "400", "400"]

    client = client_for(raise_errors=False)
    answers = [client.post(TOKEN, {}, format="json").status_code for _ in range(3)]

    assert answers == [400, 400, 429]


@pytest.mark.django_db
def test_with_the_cache_down_logins_are_refused_with_503_not_counted_as_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.core.cache import cache
    from redis.exceptions import ConnectionError as RedisConnectionError

    def down(*args: Any, **kwargs: Any) -> None:
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(cache, "add", down)
    response = client_for(raise_errors=False).post(
        TOKEN, {"username": "alice", "password": "whatever it is"}, format="json"
    )

    data = assert_error(response, 503, "unavailable")
    assert "nothing was changed" in data["detail"]
    assert response["Retry-After"] == "30"
    assert "6379" not in data["detail"]
