"""A holiday taken and ended from the settings page, at a phone's width (issue 33, item 3).

Ann and Ben play; the seat that owes has a deadline due within the notice, so
its player's first try is refused on the page, in words, with nothing started.
Once that deadline is further off, the player starts a holiday of three days
from the settings page and sees until when and the days left; the opponent's
page at the table says "On holiday until …". The player ends it early from the
settings page; the opponent's page no longer says it. axe finds nothing serious
on the settings page, refused or not, and nothing is wider than the phone.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Holiday
from tests.browser.conftest import PHONE
from tests.factories import make_users, set_deadline, started_table

pytestmark = [pytest.mark.django_db(transaction=True)]


def fits_the_phone(page: Any) -> bool:
    return bool(
        page.evaluate(
            "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
    )


def test_a_holiday_started_and_ended_from_the_settings_page_is_seen_at_the_table(
    browser: Any, site: str, log_in: Any, serious_violations: Any, shot: Any
) -> None:
    ann, ben = make_users("ann", "ben")
    table = started_table(ann, ben, deadline=86400)
    (owing,) = table.to_act
    away, opponent = (ann, ben) if owing == 0 else (ben, ann)
    set_deadline(table, timezone.now() + timedelta(minutes=20))

    page = browser.new_context(viewport=PHONE).new_page()
    log_in(page, away.username)
    page.get_by_role("link", name=away.username).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Settings")
    holiday = page.locator("section[aria-labelledby=holiday-heading]")
    expect(holiday.locator("#holiday-left")).to_have_text(
        "You have 30 of your 30 days of holiday left in the last 365 days."
    )

    # A deadline due within the notice: refused, in words, on the page.
    holiday.get_by_label("Days away").fill("3")
    holiday.get_by_role("button", name="Start my holiday").click()
    expect(holiday.get_by_role("alert")).to_have_text(
        f"Your deadline at table {table.pk} is due within 1\u00a0hour:"
        " play that move first, then start your holiday."
    )
    assert not Holiday.objects.exists()
    assert serious_violations(page) == []
    assert fits_the_phone(page)

    set_deadline(table, timezone.now() + timedelta(hours=20))
    holiday.get_by_label("Days away").fill("3")
    holiday.get_by_role("button", name="Start my holiday").click()
    expect(page.locator(".messages")).to_contain_text(
        re.compile(r"You are on holiday until \d+ \w+ \d{4}, \d\d:\d\d UTC")
    )
    expect(holiday.locator("#holiday-current")).to_contain_text("You are on holiday until")
    expect(holiday.locator("#holiday-left")).to_contain_text("You have 27 of your 30 days")
    assert Holiday.objects.get(user=away).ended_at is None
    assert serious_violations(page) == []
    assert fits_the_phone(page)
    shot(page, "settings-holiday-phone")

    other = browser.new_context(viewport=PHONE).new_page()
    log_in(other, opponent.username)
    other.goto(f"{site}/tables/{table.pk}/")
    away_seat = other.locator(f".seat-box[data-seat='{owing}'] .seat-away")
    expect(away_seat).to_contain_text(re.compile(r"On holiday until \d+ \w+ \d{4}"))
    expect(away_seat).to_contain_text("the clock stands at 19 hours 59 minutes left")

    holiday.get_by_role("button", name="End my holiday now").click()
    expect(page.locator(".messages")).to_contain_text(
        "Welcome back: your holiday is over, and your deadlines go on from where they"
        " stopped. It took 1 day of your allowance."
    )
    expect(holiday.locator("#holiday-current")).to_have_count(0)
    expect(holiday.locator("#holiday-left")).to_contain_text("You have 29 of your 30 days")
    assert Holiday.objects.get(user=away).ended_at is not None

    other.reload()
    expect(other.locator(".seat-away")).to_have_count(0)
    expect(other.locator(f".seat-box[data-seat='{owing}'] .seat-turn time")).to_be_visible()
