"""The account pages: signing up, in and out, a forgotten password, and settings.

They call the API's services, so the API's rules hold here too: names in any
case, the login guard's counters, the outbox for mail, a token rotated with
the password. Bad input comes back as words on the page and changes nothing.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts.models import EmailVerification, MailPreferences
from games import outbox
from games.models import OutboxItem
from tests.factories import PASSWORD, UserFactory, assert_error, body, client_for, make_users
from tests.test_pages_csp import inline_in

User = get_user_model()

SIGNUP = "/accounts/signup/"
LOGIN = "/accounts/login/"
LOGOUT = "/accounts/logout/"
RESET = "/accounts/password-reset/"
RESET_DONE = "/accounts/password-reset/done/"
RESET_COMPLETE = "/accounts/password-reset/complete/"
SETTINGS = "/accounts/settings/"
MY_TABLES = "/tables/"
TOKEN_API = "/api/accounts/token/"
ME_API = "/api/accounts/me/"
NEW_PASSWORD = "a brand new passphrase 42"
WRONG = "not the password at all"

pytestmark = pytest.mark.django_db


class Page(HTMLParser):
    """What a test looks for in a page: its title, headings, labels and forms."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.title = ""
        self.h1: list[str] = []
        self.labels: dict[str, str] = {}
        self.inputs: list[dict[str, str | None]] = []
        self.forms: list[dict[str, str | None]] = []
        self._in: str | None = None
        self._label_for: str | None = None
        self._in_form = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag in ("title", "h1"):
            self._in = tag
            if tag == "h1":
                self.h1.append("")
        elif tag == "label":
            self._label_for = attributes.get("for")
            if self._label_for:
                self.labels[self._label_for] = ""
        elif tag == "input":
            self.inputs.append(attributes)
            if self._in_form:
                self.forms[-1].setdefault("fields", "")
                self.forms[-1]["fields"] += f" {attributes.get('name')}"  # type: ignore[operator]
        elif tag == "form":
            self.forms.append(attributes)
            self._in_form = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        if tag == self._in:
            self._in = None
        if tag == "label":
            self._label_for = None

    def handle_data(self, data: str) -> None:
        if self._in == "title":
            self.title += data
        elif self._in == "h1":
            self.h1[-1] += data
        if self._label_for:
            self.labels[self._label_for] += data


def page_of(response: Any) -> Page:
    return Page(response.content.decode())


def assert_a_good_page(response: Any, h1: str) -> Page:
    """200, a title, one h1, every visible input labelled, CSRF in every POST form, nothing inline."""
    assert response.status_code == 200, response.content[:800]
    page = page_of(response)
    assert page.title.strip().endswith("Fairdeal")
    assert [text.strip() for text in page.h1] == [h1]
    for field in page.inputs:
        if field.get("type") not in ("hidden", "submit"):
            assert page.labels.get(field.get("id") or "", "").strip(), field
    for form in page.forms:
        if (form.get("method") or "").lower() == "post":
            assert "csrfmiddlewaretoken" in (form.get("fields") or ""), form
    found = inline_in(response.content.decode())
    assert found.inline == [], found.inline
    assert all(url.startswith("/static/") for url in found.stylesheets + found.scripts)
    return page


def text_of(response: Any) -> str:
    return response.content.decode()


def messages_of(response: Any) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def logged_in_user(client: Client) -> Any:
    """Whoever the client's session belongs to (anonymous when none)."""
    return client.get(SETTINGS).wsgi_request.user


def mail_out(capture: Any, post: Any) -> Any:
    """Make a request, run its on-commit work, and drain the outbox as the worker would."""
    with capture(execute=True):
        response = post()
    outbox.drain()
    return response


def signup_data(**changes: str) -> dict[str, str]:
    data = {
        "username": "alice",
        "email": "alice@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    data.update(changes)
    return data


@pytest.fixture
def alice() -> Any:
    (alice,) = make_users("alice")
    return alice


@pytest.fixture(autouse=True)
def long_locks(settings: Any) -> None:
    """As the API's guard tests: a first lock of a minute, so no lock runs out mid-test."""
    settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS = 60


@pytest.fixture
def generous_rates(settings: Any) -> None:
    """As the API's guard tests: only the account's own lock is left to stop a guesser."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"accounts": "10000/min"},
    }
    settings.FAIRDEAL_LOGIN_ADDRESS_RATE = "10000/hour"


# -- signing up ------------------------------------------------------------------------


def test_the_signup_page_asks_for_a_name_an_address_and_a_password_twice(
    django_assert_max_num_queries: Any,
) -> None:
    with django_assert_max_num_queries(1):
        response = Client().get(SIGNUP)

    page = assert_a_good_page(response, "Sign up")
    assert {field.get("name") for field in page.inputs} >= {
        "username",
        "email",
        "password1",
        "password2",
        "csrfmiddlewaretoken",
    }
    assert "3 to 30 characters" in text_of(response)


def test_signing_up_makes_the_account_signs_it_in_and_mails_a_link(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    client = Client(enforce_csrf_checks=True)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text_of(client.get(SIGNUP)))
    assert csrf is not None

    response = mail_out(
        django_capture_on_commit_callbacks,
        lambda: client.post(
            SIGNUP, signup_data(username="ａlice ", csrfmiddlewaretoken=csrf.group(1))
        ),
    )

    assert response.status_code == 302
    assert response["Location"] == MY_TABLES
    alice = User.objects.get()
    assert alice.username == "alice"  # NFKC and stripped, as the API registers it
    assert alice.check_password(PASSWORD)
    assert logged_in_user(client) == alice
    assert any("check your mail to verify your address" in m for m in messages_of(response))
    (message,) = mailoutbox
    assert message.to == ["alice@example.com"]
    assert "/accounts/verify-email/" in message.body
    assert not EmailVerification.objects.exists()


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"username": "ALICE"}, "username", "That username is taken"),
        ({"email": "ALICE@Example.COM"}, "email", "belongs to another account"),
        ({"username": "al ice"}, "username", "3 to 30 characters"),
        ({"username": ""}, "username", "This field is required"),
        ({"email": "not an address"}, "email", "Enter a valid email address"),
        ({"password2": PASSWORD + "!"}, "password2", "The two passwords are not the same"),
        ({"password1": "password", "password2": "password"}, "password1", "too common"),
        ({"password1": "x" * 129, "password2": "x" * 129}, "password1", "at most 128"),
    ],
)
def test_a_signup_that_cannot_be_made_says_why_and_changes_nothing(
    changes: dict[str, str], field: str, words: str, mailoutbox: list
) -> None:
    UserFactory(username="alice", email="alice@example.com")
    client = Client()

    response = client.post(SIGNUP, signup_data(username="bob", email="bob@example.com") | changes)

    assert response.status_code == 200
    html = text_of(response)
    assert re.search(rf'id="id_{field}_error"[^>]*>\s*<li>[^<]*{re.escape(words)}', html), html
    assert 'role="alert"' in html
    assert 'aria-invalid="true"' in html
    assert User.objects.count() == 1
    assert not OutboxItem.objects.exists()
    assert not logged_in_user(client).is_authenticated


def test_a_double_submitted_signup_makes_one_account_and_says_so_in_words() -> None:
    first, second = Client(), Client()

    assert first.post(SIGNUP, signup_data()).status_code == 302
    again = second.post(SIGNUP, signup_data())

    assert again.status_code == 200
    assert "That username is taken" in text_of(again)
    assert User.objects.count() == 1


def test_a_signed_in_player_going_to_signup_is_sent_to_their_tables(alice: Any) -> None:
    response = signed_in(alice).post(SIGNUP, signup_data(username="bob", email="bob@example.com"))

    assert response.status_code == 302
    assert response["Location"] == MY_TABLES
    assert User.objects.count() == 1


def test_signup_counts_against_the_same_address_rate_as_the_api(
    settings: Any, one_throttle_window: None
) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"accounts": "2/min"},
    }
    client_for().post(
        "/api/accounts/register/",
        {"username": "bob", "email": "bob@example.com", "password": PASSWORD},
        format="json",
    )
    assert Client().post(SIGNUP, signup_data(username="")).status_code == 200

    refused = Client().post(SIGNUP, signup_data())

    assert refused.status_code == 429
    assert "Too many requests" in text_of(refused)
    assert int(refused["Retry-After"]) >= 1
    assert not User.objects.filter(username="alice").exists()


# -- logging in and out --------------------------------------------------------------------


def test_the_login_page_renders_with_its_labels(django_assert_max_num_queries: Any) -> None:
    with django_assert_max_num_queries(1):
        response = Client().get(LOGIN + "?next=/lobby/")

    page = assert_a_good_page(response, "Log in")
    assert {"username", "password", "next"} <= {field.get("name") for field in page.inputs}
    assert 'value="/lobby/"' in text_of(response)


def test_logging_in_takes_the_name_in_any_case_and_goes_to_my_tables(alice: Any) -> None:
    client = Client()

    response = client.post(LOGIN, {"username": " ＡLICE", "password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == MY_TABLES
    assert logged_in_user(client) == alice


@pytest.mark.parametrize(
    ("next_url", "lands_on"),
    [
        ("/lobby/", "/lobby/"),
        ("https://evil.example/", MY_TABLES),
        ("//evil.example/steal", MY_TABLES),
        ("/\\evil.example", MY_TABLES),
        ("javascript:alert(1)", MY_TABLES),
    ],
)
def test_next_sends_the_player_on_only_within_this_site(
    alice: Any, next_url: str, lands_on: str
) -> None:
    response = Client().post(LOGIN, {"username": "alice", "password": PASSWORD, "next": next_url})

    assert response.status_code == 302
    assert response["Location"] == lands_on


def test_a_wrong_password_is_said_in_words_and_signs_nobody_in(alice: Any) -> None:
    client = Client()

    response = client.post(LOGIN, {"username": "alice", "password": WRONG})

    assert response.status_code == 200
    assert "That username and password do not match an account." in text_of(response)
    assert 'value="alice"' in text_of(response)  # the name is kept, the password is not
    assert WRONG not in text_of(response)
    assert not logged_in_user(client).is_authenticated


def test_page_logins_are_locked_by_the_apis_guard_and_share_its_counters(
    alice: Any, generous_rates: None
) -> None:
    answers = [
        Client().post(LOGIN, {"username": "Alice", "password": WRONG}).status_code for _ in range(8)
    ]

    # As through the API: five free failures, then one that takes the lock.
    assert answers == [200] * 6 + [429] * 2
    client = Client()
    locked = client.post(LOGIN, {"username": "alice", "password": PASSWORD})
    assert locked.status_code == 429
    assert 1 <= int(locked["Retry-After"]) <= 60
    assert "Too many failed logins for this account" in text_of(locked)
    assert not logged_in_user(client).is_authenticated
    # One guard: the API is locked for alice too.
    api = client_for(raise_errors=False).post(
        TOKEN_API, {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert_error(api, 429, "throttled")


def test_failures_through_the_api_lock_the_page_too(alice: Any, generous_rates: None) -> None:
    for _ in range(6):
        client_for().post(TOKEN_API, {"username": "alice", "password": WRONG}, format="json")

    response = Client().post(LOGIN, {"username": "ALICE", "password": PASSWORD})

    assert response.status_code == 429
    assert "Too many failed logins for this account" in text_of(response)


def test_an_address_may_fail_only_so_often_over_every_account(
    settings: Any, one_throttle_window: None
) -> None:
    settings.FAIRDEAL_LOGIN_ADDRESS_RATE = "3/hour"
    make_users("alice", "bob", "charlie", "dave")

    answers = [
        Client().post(LOGIN, {"username": name, "password": WRONG}).status_code
        for name in ("alice", "bob", "charlie")
    ]
    refused = Client().post(LOGIN, {"username": "dave", "password": PASSWORD})

    assert answers == [200, 200, 200]
    assert refused.status_code == 429
    assert "Too many failed logins from your address" in text_of(refused)


def test_a_successful_login_clears_the_accounts_failures(alice: Any, generous_rates: None) -> None:
    for _ in range(5):
        Client().post(LOGIN, {"username": "alice", "password": WRONG})
    assert Client().post(LOGIN, {"username": "alice", "password": PASSWORD}).status_code == 302

    answers = [
        Client().post(LOGIN, {"username": "alice", "password": WRONG}).status_code for _ in range(6)
    ]

    assert answers == [200] * 6


def test_over_the_accounts_rate_a_login_is_refused_before_its_password_is_tried(
    alice: Any, settings: Any
) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"accounts": "2/min"},
    }
    # All three requests in one window of the fixed-window counter, whenever the test runs
    # (at real time, one that began in the last second of a minute counted anew).
    with mock.patch("config.throttling.time.time", return_value=1_800_000_030.0):
        client_for().post(TOKEN_API, {"username": "alice", "password": WRONG}, format="json")
        assert Client().post(LOGIN, {"username": "alice", "password": WRONG}).status_code == 200
        client = Client()

        with mock.patch("accounts.services.authenticate") as authenticate:
            refused = client.post(
                LOGIN, {"username": "alice", "password": PASSWORD, "next": "/lobby/"}
            )

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert "Too many requests; try again in" in text_of(refused)
    assert 'value="alice"' in text_of(refused) and 'value="/lobby/"' in text_of(refused)
    assert authenticate.call_count == 0
    assert not logged_in_user(client).is_authenticated


@pytest.mark.parametrize(
    ("path", "data", "signed_in_as_alice"),
    [
        (LOGIN, {"username": "alice", "password": PASSWORD}, False),
        (SIGNUP, signup_data(username="bob", email="bob@example.com"), False),
        (RESET, {"email": "alice@example.com"}, False),
        (
            "/accounts/settings/password/",
            {
                "old_password": PASSWORD,
                "new_password1": NEW_PASSWORD,
                "new_password2": NEW_PASSWORD,
            },
            True,
        ),
        ("/accounts/settings/verify-email/", {}, True),
    ],
)
def test_with_the_cache_down_a_page_is_a_503_in_words_and_changes_nothing(
    alice: Any,
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    data: dict[str, str],
    signed_in_as_alice: bool,
) -> None:
    from django.core.cache import cache
    from redis.exceptions import ConnectionError as RedisConnectionError

    EmailVerification.objects.all().delete()  # so that a new link would be sent
    client = signed_in(alice) if signed_in_as_alice else Client()
    client.raise_request_exception = False

    def down(*args: Any, **kwargs: Any) -> None:
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(cache, "add", down)
    response = client.post(path, data)

    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "Nothing was changed" in text_of(response)
    assert "6379" not in text_of(response)
    assert page_of(response).h1 == ["Try again soon"]
    assert list(User.objects.values_list("username", flat=True)) == ["alice"]
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    assert not OutboxItem.objects.exists()
    assert logged_in_user(client).is_authenticated == signed_in_as_alice


def test_logging_out_asks_first_and_only_a_post_logs_out(
    alice: Any, django_assert_max_num_queries: Any
) -> None:
    client = signed_in(alice)
    Token.objects.create(user=alice)

    with django_assert_max_num_queries(3):  # the session, its user, the waiting count
        asked = client.get(LOGOUT)

    assert_a_good_page(asked, "Log out")
    assert logged_in_user(client) == alice
    response = client.post(LOGOUT)
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert not logged_in_user(client).is_authenticated
    assert Token.objects.filter(user=alice).exists()  # a bot's token outlives the session


def test_a_logout_without_its_csrf_token_is_refused(alice: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(LOGOUT)

    assert response.status_code == 403
    assert logged_in_user(client) == alice


def test_signing_up_on_the_web_makes_no_api_token_until_the_player_asks_for_one(
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = Client(enforce_csrf_checks=True)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text_of(client.get(SIGNUP)))
    assert csrf is not None
    mail_out(
        django_capture_on_commit_callbacks,
        lambda: client.post(SIGNUP, signup_data(csrfmiddlewaretoken=csrf.group(1))),
    )
    alice = User.objects.get(username="alice")
    assert not Token.objects.filter(user=alice).exists()

    page = client.get(SETTINGS)

    html = text_of(page)
    assert "You have no token." in html
    assert 'id="api-token"' not in html
    assert not Token.objects.filter(user=alice).exists()
    button = re.search(
        r'<form method="post" action="/accounts/settings/token/">\s*'
        r'<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)">\s*'
        r'<button type="submit" class="secondary">Create an API token</button>',
        html,
    )
    assert button is not None
    assert client.post("/accounts/settings/token/").status_code == 403  # CSRF-protected
    assert not Token.objects.filter(user=alice).exists()

    created = client.post("/accounts/settings/token/", {"csrfmiddlewaretoken": button.group(1)})

    assert created.status_code == 200
    token = Token.objects.get(user=alice)
    assert f'id="api-token" class="token">{token.key}<' in text_of(created)
    api = client_for(raise_errors=False)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    me = api.get(ME_API)
    assert me.status_code == 200
    assert body(me)["username"] == "alice"
    assert token.key not in text_of(client.get(SETTINGS))


def test_sign_up_log_out_and_log_in_again(django_capture_on_commit_callbacks: Any) -> None:
    client = Client()
    mail_out(django_capture_on_commit_callbacks, lambda: client.post(SIGNUP, signup_data()))
    assert logged_in_user(client).username == "alice"

    client.post(LOGOUT)
    assert client.get(SETTINGS)["Location"] == f"{LOGIN}?next={SETTINGS}"

    response = client.post(LOGIN, {"username": "alice", "password": PASSWORD, "next": SETTINGS})
    assert response["Location"] == SETTINGS
    assert_a_good_page(client.get(SETTINGS), "Settings")


# -- a forgotten password --------------------------------------------------------------------


def reset_link(message: Any) -> str:
    base = re.escape(settings.FAIRDEAL_BASE_URL)
    (link,) = re.findall(base + r"(/accounts/password-reset/[^/\s]+/[^/\s]+/)", message.body)
    return link


def test_the_reset_pages_render(django_assert_max_num_queries: Any) -> None:
    with django_assert_max_num_queries(1):
        asked = Client().get(RESET)
    assert_a_good_page(asked, "Forgotten password")
    assert_a_good_page(Client().get(RESET_DONE), "Check your mail")
    assert_a_good_page(Client().get(RESET_COMPLETE), "Password changed")


def test_a_reset_link_is_mailed_through_the_outbox_and_sets_a_new_password(
    alice: Any, mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    old_token = Token.objects.create(user=alice)
    with django_capture_on_commit_callbacks(execute=False):
        response = Client().post(RESET, {"email": "Alice@EXAMPLE.com"})
    assert response.status_code == 302
    assert response["Location"] == RESET_DONE
    # Nothing is mailed from the request: an item waits in the outbox.
    assert mailoutbox == []
    (item,) = OutboxItem.objects.filter(done_at__isnull=True)
    assert item.kind == "accounts.password_reset"
    assert item.payload == {"user_id": alice.pk}

    outbox.drain()

    (message,) = mailoutbox
    assert message.to == ["alice@example.com"]
    link = reset_link(message)
    browser = Client()
    opened = browser.get(link)
    assert opened.status_code == 302  # to a URL without the token, as Django does
    form = browser.get(opened["Location"])
    assert_a_good_page(form, "Choose a new password")

    mismatch = browser.post(
        opened["Location"], {"new_password1": NEW_PASSWORD, "new_password2": "something else"}
    )
    assert "The two passwords are not the same." in text_of(mismatch)
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)

    done = browser.post(
        opened["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    assert done["Location"] == RESET_COMPLETE
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert not Token.objects.filter(key=old_token.key).exists()
    login = Client().post(LOGIN, {"username": "alice", "password": NEW_PASSWORD})
    assert login.status_code == 302
    # A link works once.
    again = Client().get(link)
    assert again.status_code == 200
    assert page_of(again).h1 == ["This link does not work"]


def test_a_reset_for_an_address_without_an_account_looks_the_same_and_mails_nothing(
    alice: Any, mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    known = mail_out(
        django_capture_on_commit_callbacks,
        lambda: Client().post(RESET, {"email": "alice@example.com"}),
    )
    unknown = mail_out(
        django_capture_on_commit_callbacks,
        lambda: Client().post(RESET, {"email": "nobody@example.com"}),
    )

    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [message.to for message in mailoutbox] == [["alice@example.com"]]
    assert OutboxItem.objects.count() == 1


def test_asking_twice_in_a_minute_mails_one_link(
    alice: Any, mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    for _ in range(2):
        response = mail_out(
            django_capture_on_commit_callbacks,
            lambda: Client().post(RESET, {"email": "alice@example.com"}),
        )
        assert response["Location"] == RESET_DONE

    assert len(mailoutbox) == 1


def test_a_bad_address_on_the_reset_form_is_said_in_words() -> None:
    response = Client().post(RESET, {"email": "not an address"})

    assert response.status_code == 200
    assert "Enter a valid email address." in text_of(response)
    assert not OutboxItem.objects.exists()


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/password-reset/MQ/not-a-token/",
        "/accounts/password-reset/OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk/abc-def/",
        "/accounts/password-reset/%FF%FE/abc-def/",
        "/accounts/password-reset/!!!/set-password/",
    ],
)
def test_a_tampered_reset_link_says_it_does_not_work(alice: Any, path: str) -> None:
    response = Client().get(path)

    assert response.status_code == 200
    assert page_of(response).h1 == ["This link does not work"]
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


# -- settings ----------------------------------------------------------------------------


def test_settings_need_a_login() -> None:
    response = Client().get(SETTINGS)

    assert response.status_code == 302
    assert response["Location"] == f"{LOGIN}?next={SETTINGS}"


def test_settings_show_the_account_its_mail_and_its_token(
    alice: Any, django_assert_max_num_queries: Any
) -> None:
    client = signed_in(alice)
    MailPreferences.objects.create(user=alice, reminders="none", time_zone="Asia/Tokyo")

    # The session and its user, the waiting count, the account with its verification,
    # preferences, profile (whether the leaderboards list the player) and token in one
    # read, its holidays.
    with django_assert_max_num_queries(5):
        response = client.get(SETTINGS)

    assert_a_good_page(response, "Settings")
    html = text_of(response)
    assert "alice@example.com" in html
    assert 'id="email-verified"' in html
    assert "You have no token." in html
    assert re.search(r'name="your_turn"[^>]*checked', html)
    assert re.search(r'name="reminders" value="none"[^>]*checked', html)
    assert not re.search(r'name="reminders" value="both"[^>]*checked', html)
    assert not re.search(r'name="digest"[^>]*checked', html)
    assert re.search(r'name="game_over"[^>]*checked', html)
    assert re.search(r'<option value="Asia/Tokyo" selected>', html)
    assert re.search(r'<option value="8" selected>08:00</option>', html)


def test_looking_at_settings_writes_nothing(alice: Any) -> None:
    signed_in(alice).get(SETTINGS)

    assert not MailPreferences.objects.exists()
    assert not Token.objects.exists()


def test_saving_mail_settings_turns_off_what_is_unchecked(alice: Any) -> None:
    client = signed_in(alice)

    response = client.post(
        "/accounts/settings/mail/",
        {
            "digest": "on",
            "game_over": "on",
            "reminders": "1h",
            "time_zone": "Pacific/Auckland",
            "digest_hour": "7",
        },
    )

    assert response.status_code == 302
    assert response["Location"] == SETTINGS
    preferences = MailPreferences.objects.get(user=alice)
    assert preferences.as_json() == {
        "your_turn": False,
        "digest": True,
        "reminders": "1h",
        "game_over": True,
        "invitations": False,
        "time_zone": "Pacific/Auckland",
        "digest_hour": 7,
    }
    # The digest's next hour, 07:00 in Auckland, is set with it.
    due = preferences.digest_due_at.astimezone(ZoneInfo("Pacific/Auckland"))
    assert (due.hour, due.minute) == (7, 0)
    assert body(client_for(alice).get(ME_API))["mail"]["reminders"] == "1h"
    assert "Your mail settings are saved." in messages_of(response)


def test_mail_settings_ignore_fields_they_do_not_know(alice: Any) -> None:
    client = signed_in(alice)

    response = client.post(
        "/accounts/settings/mail/", {"digest": "on", "user": "999", "is_staff": "on"}
    )

    assert response.status_code == 302
    assert MailPreferences.objects.get(user=alice).as_json() == {
        "your_turn": False,
        "digest": True,
        "reminders": "both",
        "game_over": False,
        "invitations": False,
        "time_zone": "UTC",
        "digest_hour": 8,
    }
    alice.refresh_from_db()
    assert not alice.is_staff


def test_a_token_is_made_shown_and_revoked_from_settings(alice: Any) -> None:
    client = signed_in(alice)

    shown = client.post("/accounts/settings/token/")

    assert shown.status_code == 200
    assert "no-store" in shown["Cache-Control"]
    token = Token.objects.get(user=alice)
    assert f'id="api-token" class="token">{token.key}<' in text_of(shown)
    again = client.post("/accounts/settings/token/")  # a double submit shows the same one
    assert token.key in text_of(again)
    assert Token.objects.filter(user=alice).count() == 1
    assert "You have a token" in text_of(client.get(SETTINGS))
    assert token.key not in text_of(client.get(SETTINGS))

    revoked = client.post("/accounts/settings/token/revoke/")

    assert revoked["Location"] == SETTINGS
    assert not Token.objects.filter(user=alice).exists()
    api = client_for(raise_errors=False)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get(ME_API).status_code == 401
    assert client.post("/accounts/settings/token/revoke/")["Location"] == SETTINGS
    assert "You have no token." in text_of(client.get(SETTINGS))


def test_changing_the_password_keeps_the_session_and_revokes_the_token(alice: Any) -> None:
    client = signed_in(alice)
    Token.objects.create(user=alice)

    response = client.post(
        "/accounts/settings/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == SETTINGS
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert logged_in_user(client) == alice  # update_session_auth_hash
    assert "Any API token you had is revoked" in " ".join(messages_of(response))
    # No new one until the player asks for it (the API's password answer carries one).
    assert not Token.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (
            {"old_password": WRONG, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
            "The old password is not your current password.",
        ),
        (
            {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": "other"},
            "The two passwords are not the same.",
        ),
        (
            {"old_password": PASSWORD, "new_password1": "12345678", "new_password2": "12345678"},
            "This password is entirely numeric.",
        ),
        ({"old_password": PASSWORD}, "This field is required."),
    ],
)
def test_a_password_change_that_cannot_be_made_says_why_and_changes_nothing(
    alice: Any, data: dict[str, str], words: str
) -> None:
    client = signed_in(alice)
    token = Token.objects.create(user=alice)

    response = client.post("/accounts/settings/password/", data)

    assert response.status_code == 200
    assert words in text_of(response)
    assert page_of(response).h1 == ["Settings"]
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    assert Token.objects.get(user=alice).key == token.key


def test_guessing_the_old_password_in_settings_is_under_the_login_guard(
    alice: Any, generous_rates: None
) -> None:
    client = signed_in(alice)
    guesses = {"old_password": WRONG, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}

    answers = [client.post("/accounts/settings/password/", guesses).status_code for _ in range(7)]

    assert answers == [200] * 6 + [429]
    right = client.post("/accounts/settings/password/", guesses | {"old_password": PASSWORD})
    assert right.status_code == 429
    assert "Too many failed logins for this account" in text_of(right)
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_an_unverified_player_can_have_the_link_sent_again_once_a_minute(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice = UserFactory(username="alice", verified=False)
    client = signed_in(alice)
    assert 'id="email-unverified"' in text_of(client.get(SETTINGS))

    sent = mail_out(
        django_capture_on_commit_callbacks,
        lambda: client.post("/accounts/settings/verify-email/"),
    )
    refused = mail_out(
        django_capture_on_commit_callbacks,
        lambda: client.post("/accounts/settings/verify-email/"),
    )

    assert sent["Location"] == refused["Location"] == SETTINGS
    assert "We sent a new link to alice@example.com." in messages_of(sent)
    assert any("please wait before asking again" in m for m in messages_of(refused))
    assert [message.to for message in mailoutbox] == [["alice@example.com"]]
    # The API shares the minute.
    assert_error(
        client_for(alice, raise_errors=False).post(ME_API + "verify-email/"), 429, "throttled"
    )


def test_a_verified_address_is_not_sent_another_link(alice: Any, mailoutbox: list) -> None:
    response = signed_in(alice).post("/accounts/settings/verify-email/")

    assert "Your e-mail address is verified already." in messages_of(response)
    assert not OutboxItem.objects.exists()


@pytest.mark.parametrize(
    "action", ["mail/", "verify-email/", "token/", "token/revoke/", "password/"]
)
def test_settings_actions_answer_a_get_by_going_back_to_settings(alice: Any, action: str) -> None:
    Token.objects.create(user=alice)

    response = signed_in(alice).get(SETTINGS + action)

    assert response.status_code == 302
    assert response["Location"] == SETTINGS
    assert Token.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    "action", ["mail/", "verify-email/", "token/", "token/revoke/", "password/"]
)
def test_settings_actions_need_a_login(action: str) -> None:
    response = Client().post(SETTINGS + action)

    assert response.status_code == 302
    assert response["Location"].startswith(f"{LOGIN}?next=")


def test_the_verify_page_shows_the_visitor_in_the_navigation_not_the_links_owner() -> None:
    from accounts.verification import verification_token

    alice = UserFactory(username="alice", verified=False)

    response = Client().get(f"/accounts/verify-email/{verification_token(alice)}/")

    assert_a_good_page(response, "Confirm your e-mail address")
    html = text_of(response)
    assert "alice@example.com" in html
    assert 'href="/accounts/login/"' in html  # the visitor is not logged in
    assert 'href="/accounts/settings/">alice<' not in html


def test_the_account_pages_style_sheet_is_served_from_this_site() -> None:
    response = Client().get("/static/fairdeal/accounts.css")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert b".form-problem" in b"".join(response.streaming_content)
