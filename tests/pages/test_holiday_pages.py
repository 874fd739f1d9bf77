"""Holidays from the settings page (issue 33, item 3): start one of n days, see the days
left in the last 365 and the holiday in progress, end it early; every refusal of the
service (the API's own, ``games.holidays``) said on the page, with nothing changed."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Holiday
from games import holidays
from games.models import Table
from tests.factories import make_users, set_deadline, started_table
from tests.pages.test_accounts_pages import (
    LOGIN,
    SETTINGS,
    assert_a_good_page,
    messages_of,
    page_of,
    signed_in,
    text_of,
)

START = "/accounts/settings/holiday/"
END = "/accounts/settings/holiday/end/"
DAY = timedelta(days=1)

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> Any:
    (alice,) = make_users("alice")
    return alice


def owing(table: Table) -> Any:
    (seat,) = table.to_act
    return table.seats.get(number=seat).user


def problem(response: Any) -> str:
    """The words of the settings page's holiday problem (its role=alert box)."""
    found = re.search(
        r'id="holiday-heading".*?<div class="form-problem" role="alert">(.*?)</div>',
        text_of(response),
        re.S,
    )
    assert found, text_of(response)[:2000]
    return re.sub(r"<[^>]+>", " ", found.group(1)).strip()


def test_the_settings_show_the_days_left_and_a_form_to_start_a_holiday(alice: Any) -> None:
    response = signed_in(alice).get(SETTINGS)

    page = assert_a_good_page(response, "Settings")
    html = text_of(response)
    assert "You have 30 of your 30 days of holiday left" in html
    assert 'id="holiday-current"' not in html
    assert any(form.get("action") == START for form in page.forms)
    assert re.search(r'<input type="number" name="days"[^>]*min="1"[^>]*max="30"', html)
    assert page.labels["id_days"].strip() == "Days away:"
    assert "due within 1 hour" in html  # the notice, in words


def test_a_holiday_started_from_the_page_holds_my_table_and_shows_until_when(
    settings: Any,
) -> None:
    settings.FAIRDEAL_HOLIDAY_RATED_DAYS = 14
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, deadline=3 * 86400)
    away = owing(table)
    client = signed_in(away)

    response = client.post(START, {"days": "20"}, follow=True)

    holiday = Holiday.objects.get(user=away)
    assert holiday.days == 20 and holiday.ended_at is None
    assert timedelta(days=20) - timedelta(seconds=30) < holiday.ends_at - timezone.now()
    assert holiday.rated_until is not None  # more than the rated tables' 14 days
    table.refresh_from_db()
    assert table.deadline_at is None  # held, out of the sweep's index
    until = f"{holiday.ends_at:%H:%M}"
    (said,) = messages_of(response)
    assert said.startswith("You are on holiday until ") and until in said
    page = assert_a_good_page(response, "Settings")
    html = text_of(response)
    assert "You have 10 of your 30 days of holiday left" in html
    current = re.search(r'<p id="holiday-current">(.*?)</p>', html, re.S)
    assert current and "You are on holiday until" in current.group(1)
    assert f'datetime="{holiday.ends_at.isoformat()}"' in current.group(1)
    assert "a rated table waits until" in current.group(1)
    assert any(form.get("action") == END for form in page.forms)
    assert not any(form.get("action") == START for form in page.forms)


def test_ending_a_holiday_early_from_the_page_lets_the_deadline_go_on(alice: Any) -> None:
    bob, carol = make_users("bob", "carol")
    table = started_table(bob, carol, deadline=86400)
    away = owing(table)
    client = signed_in(away)
    client.post(START, {"days": "7"}, follow=True)
    assert Table.objects.get(pk=table.pk).deadline_at is None

    response = client.post(END, follow=True)

    holiday = Holiday.objects.get(user=away)
    assert holiday.ended_at is not None and holiday.next_at is None
    assert Table.objects.get(pk=table.pk).deadline_at is not None  # its time runs again
    (said,) = messages_of(response)
    assert said.startswith("Welcome back") and "It took 1 day of your allowance." in said
    page = assert_a_good_page(response, "Settings")
    assert "You have 29 of your 30 days of holiday left" in text_of(response)
    assert 'id="holiday-current"' not in text_of(response)
    assert any(form.get("action") == START for form in page.forms)


def test_ending_a_holiday_that_is_not_in_progress_says_so(alice: Any) -> None:
    response = signed_in(alice).post(END, follow=True)

    assert messages_of(response) == ["You are not on holiday."]
    assert not Holiday.objects.exists()


NOT_A_NUMBER = "No holiday was started: give the number of days as a whole number."
OUT_OF_RANGE = "A holiday is from 1 to 30 days (your allowance in a year)."


@pytest.mark.parametrize(
    ("days", "words"),
    [
        ("", NOT_A_NUMBER),
        ("three", NOT_A_NUMBER),
        ("2.5", NOT_A_NUMBER),
        ("0", OUT_OF_RANGE),
        ("31", OUT_OF_RANGE),
        ("-4", OUT_OF_RANGE),
        ("99999999999999999999", OUT_OF_RANGE),
    ],
)
def test_bad_days_are_refused_in_words_and_start_nothing(alice: Any, days: str, words: str) -> None:
    response = signed_in(alice).post(START, {"days": days})

    assert response.status_code == 400
    assert problem(response) == words
    assert not Holiday.objects.exists()
    # The form's own check marks the field; the service's range is said above the form.
    marked = re.search(r'name="days"[^>]*aria-invalid="true"', text_of(response))
    assert bool(marked) is (words == NOT_A_NUMBER)


def test_a_holiday_longer_than_the_days_left_is_refused_in_words(alice: Any) -> None:
    holidays.holiday_start(user=alice, days=25, now=timezone.now() - 100 * DAY)
    holidays.holiday_end(user=alice, now=timezone.now() - 75 * DAY)
    before = list(Holiday.objects.values())

    response = signed_in(alice).post(START, {"days": "6"})

    assert response.status_code == 409
    assert problem(response) == "You have 5 days of holiday left in these 365 days, not 6."
    assert list(Holiday.objects.values()) == before
    assert "You have 5 of your 30 days of holiday left" in text_of(response)
    assert re.search(r'name="days" value="6"', text_of(response))  # what was typed, kept


def test_a_holiday_to_dodge_a_deadline_due_within_the_notice_is_refused(alice: Any) -> None:
    bob, carol = make_users("bob", "carol")
    table = started_table(bob, carol, deadline=86400)
    away = owing(table)
    set_deadline(table, timezone.now() + timedelta(minutes=30))
    due = table.deadline_at

    response = signed_in(away).post(START, {"days": "3"})

    assert response.status_code == 409
    assert problem(response) == (
        f"Your deadline at table {table.pk} is due within 1\u00a0hour:"
        " play that move first, then start your holiday."
    )
    assert not Holiday.objects.exists()
    table.refresh_from_db()
    assert table.deadline_at == due


def test_a_second_holiday_is_refused_in_words_on_the_page(alice: Any) -> None:
    """A page left open, or a double submit: the holiday in progress stays as it was."""
    client = signed_in(alice)
    client.post(START, {"days": "4"})
    before = list(Holiday.objects.values())

    response = client.post(START, {"days": "2"})

    assert response.status_code == 409
    assert problem(response) == ("You are on holiday already: end it before you start another.")
    assert list(Holiday.objects.values()) == before
    assert 'id="holiday-current"' in text_of(response)


def test_starting_and_ending_need_the_csrf_token(alice: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    assert client.post(START, {"days": "3"}).status_code == 403
    assert not Holiday.objects.exists()
    holidays.holiday_start(user=alice, days=3)
    assert client.post(END).status_code == 403
    assert Holiday.objects.get().ended_at is None

    page = client.get(SETTINGS)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text_of(page))
    assert token
    assert client.post(END, {"csrfmiddlewaretoken": token.group(1)}).status_code == 302
    assert Holiday.objects.get().ended_at is not None


def test_a_signed_out_visitor_is_sent_to_log_in_and_changes_nothing(alice: Any) -> None:
    for url in (START, END):
        response = Client().post(url, {"days": "3"})
        assert response.status_code == 302
        assert response["Location"] == f"{LOGIN}?next={url}"
    assert not Holiday.objects.exists()


def test_a_get_of_either_action_goes_back_to_the_settings(alice: Any) -> None:
    client = signed_in(alice)
    for url in (START, END):
        assert client.get(url)["Location"] == SETTINGS
    assert not Holiday.objects.exists()


@pytest.mark.parametrize("on_holiday", [False, True])
def test_the_settings_page_reads_the_account_and_its_holidays_in_few_queries(
    alice: Any, on_holiday: bool, django_assert_max_num_queries: Any
) -> None:
    client = signed_in(alice)
    # Some history: holidays long ago (out of the 365 days) and this year.
    now = timezone.now()
    holidays.holiday_start(user=alice, days=30, now=now - 400 * DAY)
    holidays.holiday_end(user=alice, now=now - 390 * DAY)
    holidays.holiday_start(user=alice, days=5, now=now - 50 * DAY)
    holidays.holiday_end(user=alice, now=now - 48 * DAY)
    if on_holiday:
        holidays.holiday_start(user=alice, days=3)

    # The session and its user, the waiting count, the account with its verification,
    # mail, profile and token, its holidays.
    with django_assert_max_num_queries(5):
        response = client.get(SETTINGS)

    assert_a_good_page(response, "Settings")
    left = 28 if not on_holiday else 25  # the 5 days came back after 2
    assert f"You have {left} of your 30 days of holiday left" in text_of(response)
    assert ('id="holiday-current"' in text_of(response)) is on_holiday
    assert page_of(response).h1 == ["Settings"]


def test_bad_days_from_a_page_left_open_during_a_holiday_are_still_said(alice: Any) -> None:
    """The form is gone while a holiday is in progress; what was wrong is said anyway."""
    client = signed_in(alice)
    client.post(START, {"days": "4"})
    before = list(Holiday.objects.values())

    response = client.post(START, {"days": "four"})

    assert response.status_code == 400
    assert problem(response) == NOT_A_NUMBER
    assert list(Holiday.objects.values()) == before
