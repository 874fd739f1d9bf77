"""A table with a reserve of time, and a player on holiday, as the other player's page shows
them (issue 33, items 3 and 4).

Ann and Ben sit at a two-seat table with an hour a move and a day of reserve.
The seat that owes goes on holiday for three days: the other player's page says
"On holiday until …" with the time that stands still, and each seat's reserve
left; the page has no serious accessibility violation. When the holiday ends,
the page no longer says it, and the deadline runs again.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import holidays
from tests.factories import make_users, set_deadline, started_table

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_the_other_player_sees_the_holiday_and_every_reserve_left(
    browser: Any, site: str, log_in: Any, serious_violations: Any
) -> None:
    ann, ben = make_users("ann", "ben")
    table = started_table(ann, ben, deadline=3600 * 5, reserve=86400)
    (owing,) = table.to_act
    away, watcher = (ann, ben) if owing == 0 else (ben, ann)
    set_deadline(table, timezone.now() + timedelta(hours=4))
    holidays.holiday_start(user=away, days=3)

    page = browser.new_context().new_page()
    log_in(page, watcher.username)
    page.goto(f"{site}/tables/{table.pk}/")
    seat = page.locator(f".seat-box[data-seat='{owing}']")
    expect(seat.locator(".seat-away")).to_contain_text(
        re.compile(r"On holiday until \d+ \w+ \d{4}")
    )
    expect(seat.locator(".seat-away")).to_contain_text(
        "the clock stands at 3 hours 59 minutes left"
    )
    expect(page.locator(".seat-reserve")).to_have_count(2)
    expect(page.locator(".seat-reserve").first).to_have_text("Reserve left: 1 day")
    assert serious_violations(page) == []

    holidays.holiday_end(user=away)
    page.reload()
    expect(page.locator(".seat-away")).to_have_count(0)
    expect(seat.locator(".seat-turn time")).to_be_visible()
