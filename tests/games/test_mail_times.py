"""Mail at the times a correspondence player chooses: reminders 24 hours and 1 hour before
a deadline (or either, or none), a daily digest at their hour in their own time zone, and
a one-click unsubscribe link (RFC 8058) in every game mail. On a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core import mail, signing
from django.core.mail.backends import locmem
from django.test import Client

from accounts.mail_preferences import (
    UNSUBSCRIBE_SALT,
    mail_preferences_update,
    next_digest_at,
    unsubscribe_token,
)
from accounts.models import MailPreferences
from games import notifications
from games.models import Seat, Table
from tests.factories import (
    assert_error,
    body,
    client_for,
    make_users,
    set_deadline,
    started_table,
)

pytestmark = pytest.mark.django_db

ME = "/api/accounts/me/"
BASE = "https://fairdeal.example"
# The fixed clock: every test's "now".
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def public_address(settings: Any) -> None:
    """Links as production writes them: https, at the site's domain."""
    settings.FAIRDEAL_BASE_URL = BASE


@pytest.fixture
def players() -> list[Any]:
    alice, bob = make_users("alice", "bob")
    for player in (alice, bob):
        mail_preferences_update(user=player, changes={"your_turn": False})
    return [alice, bob]


def owing(table: Table) -> Seat:
    table.refresh_from_db()
    (number,) = table.to_act
    return Seat.objects.select_related("user").get(table=table, number=number)


def reminders_at(now: datetime, mailoutbox: list) -> list[str]:
    """The reminders that ``mail_turns`` sends at ``now``: each one's subject's ending."""
    before = len(mailoutbox)
    notifications.mail_turns(now)
    return [m.subject.rsplit(" is due ", 1)[1] for m in mailoutbox[before:]]


# -- reminders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "a_day_before", "an_hour_before"),
    [
        ("none", [], []),
        ("24h", ["within a day"], []),
        ("1h", [], ["within the hour"]),
        ("both", ["within a day"], ["within the hour"]),
    ],
)
def test_each_reminder_choice_mails_at_its_moments_and_once(
    players: list[Any], mailoutbox: list, choice: str, a_day_before: list, an_hour_before: list
) -> None:
    table = started_table(*players, deadline=3 * 86400)
    deadline = NOON + timedelta(days=2)
    set_deadline(table, deadline)
    seat = owing(table)
    mail_preferences_update(user=seat.user, changes={"reminders": choice})

    assert reminders_at(deadline - timedelta(hours=24, seconds=1), mailoutbox) == []
    assert reminders_at(deadline - timedelta(hours=24), mailoutbox) == a_day_before
    assert reminders_at(deadline - timedelta(hours=23), mailoutbox) == []
    assert reminders_at(deadline - timedelta(hours=1, seconds=1), mailoutbox) == []
    assert reminders_at(deadline - timedelta(hours=1), mailoutbox) == an_hour_before
    assert reminders_at(deadline - timedelta(minutes=1), mailoutbox) == []
    assert reminders_at(deadline + timedelta(seconds=1), mailoutbox) == []
    assert all(m.to == [seat.user.email] for m in mailoutbox)


def test_a_table_with_a_day_a_move_gets_no_reminder_a_day_before(
    players: list[Any], mailoutbox: list
) -> None:
    table = started_table(*players, deadline=86400)
    deadline = NOON + timedelta(days=1)
    set_deadline(table, deadline)

    # The 24-hour reminder would come with the turn itself: only the hour's goes.
    assert reminders_at(NOON, mailoutbox) == []
    assert reminders_at(deadline - timedelta(hours=1), mailoutbox) == ["within the hour"]


def test_a_table_with_an_hour_a_move_and_a_reserve_of_days_gets_both_reminders(
    players: list[Any], mailoutbox: list
) -> None:
    table = started_table(*players, deadline=3600, reserve=3 * 86400)
    deadline = NOON + timedelta(minutes=20)
    set_deadline(table, deadline)
    forfeit = deadline + timedelta(days=3)

    assert reminders_at(NOON, mailoutbox) == []
    assert reminders_at(forfeit - timedelta(hours=24), mailoutbox) == ["within a day"]
    assert reminders_at(forfeit - timedelta(hours=1), mailoutbox) == ["within the hour"]


def test_a_new_turn_gets_both_its_reminders_again(players: list[Any], mailoutbox: list) -> None:
    table = started_table(*players, deadline=3 * 86400)
    set_deadline(table, NOON + timedelta(minutes=30))
    assert reminders_at(NOON, mailoutbox) == ["within a day", "within the hour"]

    set_deadline(table, NOON + timedelta(minutes=40))

    assert reminders_at(NOON, mailoutbox) == ["within a day", "within the hour"]


def test_at_a_table_with_a_reserve_the_reminders_come_before_the_reserve_is_spent(
    players: list[Any], mailoutbox: list
) -> None:
    table = started_table(*players, deadline=3 * 86400, reserve=7 * 86400)
    deadline = NOON + timedelta(days=2)
    set_deadline(table, deadline)
    forfeit = deadline + timedelta(days=7)

    # The move's own deadline passes: its reserve pays, and nothing is lost yet.
    assert reminders_at(deadline - timedelta(hours=1), mailoutbox) == []
    assert reminders_at(forfeit - timedelta(hours=24), mailoutbox) == ["within a day"]
    assert reminders_at(forfeit - timedelta(hours=1), mailoutbox) == ["within the hour"]
    assert reminders_at(forfeit - timedelta(minutes=1), mailoutbox) == []

    text = mailoutbox[-1].body
    assert "Your move's deadline: 2026-03-04T12:00:00+00:00" in text
    assert "when it is spent, at 2026-03-11T12:00:00+00:00" in text


def test_a_reminder_says_the_deadline_on_the_players_own_clock(
    players: list[Any], mailoutbox: list
) -> None:
    table = started_table(*players, deadline=3 * 86400)
    set_deadline(table, NOON + timedelta(minutes=30))
    seat = owing(table)
    mail_preferences_update(user=seat.user, changes={"time_zone": "Asia/Kolkata"})

    notifications.mail_turns(NOON)

    text = mailoutbox[-1].body
    assert "2026-03-02T12:30:00+00:00" in text
    assert "Monday 2 March 2026, 18:00 IST (Asia/Kolkata)" in text


# -- the daily digest ----------------------------------------------------------------


def digest_player(user: Any, zone: str, hour: int, now: datetime) -> MailPreferences:
    return mail_preferences_update(
        user=user,
        changes={"digest": True, "your_turn": False, "time_zone": zone, "digest_hour": hour},
        now=now,
    )


@pytest.mark.parametrize(
    ("zone", "due_in_utc"),
    [
        # 08:00 at UTC+14 is 18:00 the day before in UTC: the next is Tuesday's.
        ("Pacific/Kiritimati", datetime(2026, 3, 2, 18, 0, tzinfo=UTC)),
        # UTC-11: 08:00 there is 19:00 in UTC, the same day.
        ("Pacific/Pago_Pago", datetime(2026, 3, 2, 19, 0, tzinfo=UTC)),
        ("UTC", datetime(2026, 3, 3, 8, 0, tzinfo=UTC)),
        ("Europe/Paris", datetime(2026, 3, 3, 7, 0, tzinfo=UTC)),
    ],
)
def test_the_digest_goes_at_the_players_hour_in_their_time_zone_once_a_day(
    mailoutbox: list, zone: str, due_in_utc: datetime
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    first = started_table(alice, bob, deadline=3 * 86400, seed=b"digest one")
    second = started_table(alice, carol, deadline=3 * 86400, seed=b"digest two")
    for table in (first, second):  # alice owes at both: the first seat plays first here
        set_deadline(table, NOON + timedelta(days=2), seats=[0])
        Table.objects.filter(pk=table.pk).update(to_act=[0])
    preferences = digest_player(alice, zone, 8, NOON)
    assert preferences.digest_due_at == due_in_utc

    assert notifications.mail_digests(due_in_utc - timedelta(seconds=1)) == 0
    assert notifications.mail_digests(due_in_utc) == 1
    assert notifications.mail_digests(due_in_utc + timedelta(hours=1)) == 0

    (digest,) = [m for m in mailoutbox if "waiting on you" in m.subject]
    assert digest.to == [alice.email]
    assert digest.subject == "2 tables waiting on you at Fairdeal"
    assert f"{BASE}/tables/{first.pk}/" in digest.body
    assert f"{BASE}/tables/{second.pk}/" in digest.body
    assert f"08:00 {zone}" in digest.body
    preferences.refresh_from_db()
    assert preferences.digest_due_at == due_in_utc + timedelta(days=1)
    assert notifications.mail_digests(due_in_utc + timedelta(days=1)) == 1


class DownBackend(locmem.EmailBackend):
    """A mail server that refuses every message while ``down``."""

    down = True

    def send_messages(self, messages: Any) -> int:
        if DownBackend.down:
            raise ConnectionRefusedError("the mail server is down")
        return super().send_messages(messages)


def test_a_digest_that_cannot_be_sent_is_tried_again_and_sent_once(
    players: list[Any], mailoutbox: list, settings: Any
) -> None:
    alice, bob = players
    table = started_table(alice, bob, deadline=3 * 86400)
    set_deadline(table, NOON + timedelta(days=2), seats=[0])
    Table.objects.filter(pk=table.pk).update(to_act=[0])
    due = digest_player(alice, "Asia/Tokyo", 9, NOON).digest_due_at
    settings.EMAIL_BACKEND = f"{__name__}.DownBackend"
    DownBackend.down = True

    assert notifications.mail_digests(due) == 0
    assert MailPreferences.objects.get(user=alice).digest_due_at == due  # the claim given back

    DownBackend.down = False
    assert notifications.mail_digests(due + timedelta(seconds=5)) == 1
    assert notifications.mail_digests(due + timedelta(seconds=10)) == 0
    assert [m.subject for m in mail.outbox] == ["1 table waiting on you at Fairdeal"]


def test_the_digest_keeps_the_hour_on_the_wall_clock_across_summer_time() -> None:
    preferences = MailPreferences(time_zone="Europe/Paris", digest_hour=8)

    # Summer time begins in Paris on Sunday 29 March 2026: that day is 23 hours long.
    saturday = next_digest_at(preferences, datetime(2026, 3, 28, 6, 0, tzinfo=UTC))
    sunday = next_digest_at(preferences, saturday)

    assert saturday == datetime(2026, 3, 28, 7, 0, tzinfo=UTC)  # 08:00 CET
    assert sunday == datetime(2026, 3, 29, 6, 0, tzinfo=UTC)  # 08:00 CEST
    assert sunday - saturday == timedelta(hours=23)


def test_no_digest_goes_when_no_table_waits_and_the_next_day_is_due(mailoutbox: list) -> None:
    (alice,) = make_users("alice")
    preferences = digest_player(alice, "UTC", 8, NOON)

    assert notifications.mail_digests(preferences.digest_due_at) == 0

    assert mailoutbox == []
    preferences.refresh_from_db()
    assert preferences.digest_due_at == datetime(2026, 3, 4, 8, 0, tzinfo=UTC)


def test_turning_the_digest_off_stops_it(players: list[Any], mailoutbox: list) -> None:
    alice, bob = players
    started_table(alice, bob, deadline=3 * 86400)
    due = digest_player(alice, "UTC", 8, NOON).digest_due_at
    digest_player(bob, "UTC", 8, NOON)
    mail_preferences_update(user=alice, changes={"digest": False})

    notifications.mail_digests(due)

    assert alice.email not in [m.to[0] for m in mailoutbox]
    assert MailPreferences.objects.get(user=alice).digest_due_at is None


# -- one-click unsubscribe ----------------------------------------------------------------


def headers_of(message: Any) -> Any:
    """The headers as they leave, written out and read back."""
    return message_from_bytes(message.message().as_bytes())


def test_every_game_mail_carries_its_one_click_unsubscribe_link(
    players: list[Any], mailoutbox: list
) -> None:
    table = started_table(*players, deadline=3 * 86400)
    set_deadline(table, NOON + timedelta(minutes=30))
    seat = owing(table)

    notifications.mail_turns(NOON)

    for message in mailoutbox:
        headers = headers_of(message)
        link = "".join(headers["List-Unsubscribe"].split())  # unfolded
        assert link.startswith(f"<{BASE}/accounts/unsubscribe/") and link.endswith("/>")
        assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert link[1:-1] in message.body
        token = link[1:-1].rsplit("/", 2)[1]
        assert signing.loads(token, salt=UNSUBSCRIBE_SALT) == {
            "user": seat.user.pk,
            "kind": "reminders",
        }


def one_click(token: str) -> Any:
    """The POST a mail program sends (RFC 8058): no cookie, no CSRF token."""
    client = Client(enforce_csrf_checks=True)
    return client.post(
        f"/accounts/unsubscribe/{token}/",
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )


@pytest.mark.parametrize(
    ("kind", "off"),
    [
        *(("your_turn", False), ("digest", False), ("reminders", "none")),
        *(("game_over", False), ("invitations", False)),
    ],
)
def test_a_one_click_post_turns_that_kind_off_at_once_and_nothing_else(kind: str, off: Any) -> None:
    (alice,) = make_users("alice")
    before = mail_preferences_update(user=alice, changes={"digest": True}).as_json()

    response = one_click(unsubscribe_token(alice.pk, kind))

    assert response.status_code == 200
    assert "we send you no more" in response.content.decode()
    after = MailPreferences.objects.get(user=alice).as_json()
    assert after == {**before, kind: off}


def test_opening_the_link_asks_and_changes_nothing() -> None:
    (alice,) = make_users("alice")
    token = unsubscribe_token(alice.pk, "reminders")

    response = Client().get(f"/accounts/unsubscribe/{token}/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "Stop sending alice reminders before your deadlines?" in html
    assert '<form method="post" action="">' in html
    assert not MailPreferences.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    "token",
    [
        "tampered",
        "signed-for-bob-but-changed",
        "another-salt",
        "garbage",
    ],
)
def test_a_link_we_did_not_sign_is_refused_in_words_and_changes_nothing(token: str) -> None:
    alice, bob = make_users("alice", "bob")
    good = unsubscribe_token(bob.pk, "game_over")
    forged = {
        "tampered": good[:-2] + ("AA" if not good.endswith("AA") else "BB"),
        "signed-for-bob-but-changed": signing.dumps({"user": alice.pk, "kind": "game_over"})
        + good[-5:],
        "another-salt": signing.dumps({"user": alice.pk, "kind": "game_over"}, salt="other"),
        "garbage": "not-a-token",
    }[token]

    for response in (one_click(forged), Client().get(f"/accounts/unsubscribe/{forged}/")):
        assert response.status_code == 400
        assert "This unsubscribe link is not one we sent" in response.content.decode()
    assert not MailPreferences.objects.exists()


def test_a_signed_link_for_an_account_that_is_gone_is_refused() -> None:
    (alice,) = make_users("alice")
    token = unsubscribe_token(alice.pk, "digest")
    alice.delete()

    response = one_click(token)

    assert response.status_code == 400
    assert "names no account of ours" in response.content.decode()


# -- the API --------------------------------------------------------------------------


def test_the_api_takes_every_mail_preference(players: list[Any]) -> None:
    alice, _ = players
    client = client_for(alice)

    response = client.patch(
        ME,
        {
            "mail": {
                **{"reminders": "1h", "digest": True, "invitations": False},
                **{"time_zone": "Asia/Tokyo", "digest_hour": 7},
            }
        },
        format="json",
    )

    assert response.status_code == 200, response.content
    assert body(response)["mail"] == {
        "your_turn": False,
        "digest": True,
        "reminders": "1h",
        "game_over": True,
        "invitations": False,
        "time_zone": "Asia/Tokyo",
        "digest_hour": 7,
    }
    due = MailPreferences.objects.get(user=alice).digest_due_at
    assert due.astimezone(ZoneInfo("Asia/Tokyo")).hour == 7


@pytest.mark.parametrize(
    "mail",
    [
        {"reminders": "2h"},
        {"reminders": True},
        {"reminders": ["24h", "1h"]},
        {"time_zone": "Mars/Olympus_Mons"},
        {"time_zone": "../../etc/passwd"},
        {"time_zone": "utc "},
        {"time_zone": 0},
        {"digest_hour": 24},
        {"digest_hour": -1},
        {"digest_hour": "8"},
        {"digest_hour": 8.5},
        {"digest_hour": True},
        {"reminder": False},
    ],
)
def test_the_api_refuses_a_preference_it_cannot_keep(alice_only: Any, mail: dict) -> None:
    client = client_for(alice_only)

    assert_error(client.patch(ME, {"mail": mail}, format="json"), 400, "invalid")

    assert not MailPreferences.objects.exists()


@pytest.fixture
def alice_only() -> Any:
    (alice,) = make_users("alice")
    return alice


# -- the tab title ------------------------------------------------------------------------


def test_the_tab_title_counts_the_tables_waiting_on_the_player_in_one_query(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    for other, seed in ((bob, b"title one"), (carol, b"title two")):
        table = started_table(alice, other, seed=seed)
        set_deadline(table, NOON + timedelta(days=400), seats=[0])
        Table.objects.filter(pk=table.pk).update(to_act=[0])
    client = Client()
    client.force_login(alice)

    # The session and its user, and the one count the title and the menu share.
    with django_assert_max_num_queries(3):
        response = client.get("/rules/")

    assert response.status_code == 200
    title = response.content.decode().split("<title>")[1].split("</title>")[0]
    assert title == "(2) How to play — Fairdeal"


def test_the_tab_title_of_a_player_nothing_waits_on_has_no_count() -> None:
    (alice,) = make_users("alice")
    client = Client()
    client.force_login(alice)

    title = client.get("/rules/").content.decode().split("<title>")[1].split("</title>")[0]

    assert title == "How to play — Fairdeal"
