"""Mail a correspondence player chooses, in Chromium: the settings page's reminders,
digest and time zone, the mail they bring on a fixed clock, the one-click unsubscribe
link followed from a mail, a forged link, and the tab title's count of tables waiting."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import MailPreferences
from games import notifications, services
from games.models import Table
from tests.factories import make_users, set_deadline, started_table

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 360, "height": 740}
# The fixed clock of the mail: a Monday noon.
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def waiting() -> list[Table]:
    """Two tables of three days a move waiting on alice (seat 0), due two days after NOON."""
    alice, bob, carol = make_users("alice", "bob", "carol")
    tables = []
    for other, seed in ((bob, b"browser one"), (carol, b"browser two")):
        table = started_table(alice, other, deadline=3 * 86400, seed=seed)
        set_deadline(table, NOON + timedelta(days=2), seats=[0])
        Table.objects.filter(pk=table.pk).update(to_act=[0])
        tables.append(table)
    return tables


def unsubscribe_link(message: Any) -> str:
    """The https link of a mail's ``List-Unsubscribe`` header, as a mail program reads it."""
    return message.message()["List-Unsubscribe"].strip("<>")


def test_a_player_chooses_reminders_and_a_digest_and_unsubscribes_from_a_mail(
    browser: Any,
    site: str,
    settings: Any,
    waiting: list[Table],
    log_in: Any,
    serious_violations: Any,
    shot: Any,
) -> None:
    settings.FAIRDEAL_BASE_URL = site
    page = browser.new_context(viewport=PHONE).new_page()
    log_in(page, "alice")

    page.goto(site + "/accounts/settings/")
    expect(page).to_have_title("(2) Settings — Fairdeal")
    page.get_by_label(re.compile("^Your turn")).uncheck()
    page.get_by_label(re.compile("^Daily digest")).check()
    page.get_by_label("1 hour before a deadline", exact=True).check()
    page.get_by_label("My time zone").select_option("Pacific/Kiritimati")
    page.get_by_label("The digest's hour").select_option("7")
    page.get_by_role("button", name="Save mail settings").click()
    expect(page.get_by_text("Your mail settings are saved.")).to_be_visible()
    expect(page.get_by_label("1 hour before a deadline", exact=True)).to_be_checked()
    assert serious_violations(page) == []
    shot(page, "settings-mail-phone")

    preferences = MailPreferences.objects.get(user__username="alice")
    assert (preferences.your_turn, preferences.digest, preferences.reminders) == (
        False,
        True,
        "1h",
    )
    # 07:00 at UTC+14 is 17:00 the day before in UTC.
    due = preferences.digest_due_at
    assert due.hour == 17 and due.minute == 0
    mail.outbox.clear()

    # On the fixed clock: no reminder a day before, one an hour before; the digest at 07:00.
    deadline = NOON + timedelta(days=2)
    notifications.mail_turns(deadline - timedelta(hours=24))
    assert [m.subject for m in mail.outbox if m.subject.startswith("Reminder")] == []
    notifications.mail_turns(deadline - timedelta(hours=1))
    reminders = [m for m in mail.outbox if m.subject.startswith("Reminder")]
    assert [m.subject.rsplit(" is due ", 1)[1] for m in reminders] == ["within the hour"] * 2
    assert notifications.mail_digests(due) == 1
    digest = mail.outbox[-1]
    assert digest.subject == "2 tables waiting on you at Fairdeal"

    # The reminder's own link, opened: it asks, and turns reminders off only when told.
    page.goto(unsubscribe_link(reminders[0]))
    expect(page.get_by_role("heading", level=1)).to_have_text("Unsubscribe?")
    assert MailPreferences.objects.get(user__username="alice").reminders == "1h"
    assert serious_violations(page) == []
    page.get_by_role("button", name="Unsubscribe").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Unsubscribed")
    expect(page.locator("#unsubscribed")).to_contain_text("reminders before your deadlines")
    preferences.refresh_from_db()
    assert (preferences.reminders, preferences.digest) == ("none", True)

    # A new turn: no reminder now; the digest still comes.
    mail.outbox.clear()
    for table in waiting:
        set_deadline(table, deadline + timedelta(minutes=30), seats=[0])
    notifications.mail_turns(deadline)
    assert [m for m in mail.outbox if m.subject.startswith("Reminder")] == []

    # The digest's link, one-click, as a mail program POSTs it (no cookie, no CSRF token).
    mail_program = browser.new_context().request
    answer = mail_program.post(unsubscribe_link(digest), form={"List-Unsubscribe": "One-Click"})
    assert answer.status == 200
    preferences.refresh_from_db()
    assert (preferences.digest, preferences.digest_due_at) == (False, None)


def test_a_forged_unsubscribe_link_says_so_and_changes_nothing(
    browser: Any, site: str, settings: Any, waiting: list[Table], serious_violations: Any
) -> None:
    settings.FAIRDEAL_BASE_URL = site
    notifications.mail_turns(NOON + timedelta(days=2) - timedelta(hours=1))
    good = unsubscribe_link(mail.outbox[-1])
    forged = good[:-3] + ("x/" if good[-3] != "x" else "y/")
    page = browser.new_context(viewport=PHONE).new_page()

    response = page.goto(forged)

    assert response is not None and response.status == 400
    expect(page.get_by_role("heading", level=1)).to_have_text("This link does not work")
    expect(page.locator("#unsubscribe-error")).to_contain_text("not one we sent")
    assert serious_violations(page) == []
    assert page.request.post(forged, form={"List-Unsubscribe": "One-Click"}).status == 400
    assert not MailPreferences.objects.filter(reminders="none").exists()


def test_the_tab_title_shows_no_count_once_nothing_waits(
    browser: Any, site: str, waiting: list[Table], log_in: Any
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    log_in(page, "alice")
    page.goto(site + "/lobby/")
    expect(page).to_have_title("(2) Lobby — Fairdeal")

    # Alice resigns the first table (its deadline still ahead on the real clock).
    set_deadline(waiting[0], timezone.now() + timedelta(days=1), seats=[0])
    services.table_resign(table_id=waiting[0].pk, user=waiting[0].created_by)
    page.reload()

    expect(page).to_have_title("(1) Lobby — Fairdeal")
