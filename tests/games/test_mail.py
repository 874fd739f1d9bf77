"""Mail to players: your turn, a reminder before the deadline, game over; each sent once.

The reminders' times, the digest and the unsubscribe links: tests/games/test_mail_times.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.db.models import F
from django.utils import timezone

from accounts.mail_preferences import TURNED_OFF
from accounts.models import MailPreferences
from games import notifications, outbox, services
from games.catalogue import find_ruleset
from games.models import Notice, OutboxItem, Seat, Table
from games.rules import Event
from games.selectors import seat_names
from tests.factories import at_once, clock, make_users, set_deadline, started_table, then_drained

pytestmark = pytest.mark.django_db

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")
# The fields of public events that name a card laid face up.
PUBLIC_CARDS = ("card", "cards", "starter")


@pytest.fixture
def players() -> list[Any]:
    return make_users("alice", "bob")


@pytest.fixture(autouse=True)
def turns_mailed_at_once(settings: Any) -> None:
    """What each mail says and to whom, with "your turn" due at once; the wait a live player
    is given before it is tested on its own (``test_..._within_the_wait_...``)."""
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = 0


def let_time_pass(table: Table, seconds: int) -> None:
    """As if ``seconds`` went by: every deadline at the table and every outbox item comes
    that much nearer (the tests cannot wait two minutes)."""
    back = timedelta(seconds=seconds)
    table.refresh_from_db()
    seating = [
        replace(seat, deadline_at=seat.deadline_at - back) if seat.deadline_at else seat
        for seat in table.seated()
    ]
    Table.objects.filter(pk=table.pk).update(seating=[seat.to_json() for seat in seating])
    OutboxItem.objects.filter(done_at__isnull=True).update(due_at=F("due_at") - back)


def to_act_user(table: Table) -> Any:
    table.refresh_from_db()
    (number,) = table.to_act
    return table.seats.get(number=number).user


def mails_to(outbox: list[mail.EmailMessage], user: Any) -> list[mail.EmailMessage]:
    return [message for message in outbox if message.to == [user.email]]


def turn_off(user: Any, kind: str) -> None:
    preferences = MailPreferences.for_user(user)
    setattr(preferences, kind, TURNED_OFF[kind])
    preferences.save()


def play_until_the_turn_passes(table: Table) -> None:
    """The seat to act plays (or draws until it can) until another seat owes the move."""
    table.refresh_from_db()
    (first,) = table.to_act
    while table.status == Table.Status.PLAYING and table.to_act == [first]:
        user = table.seats.get(number=first).user
        actions = services.load_state(table).legal_actions(first)
        plays = [a for a in actions if a["type"] == "play"]
        services.move_apply(
            table_id=table.pk, user=user, version=table.version, action=(plays or actions)[0]
        )
        table.refresh_from_db()


def expire(table: Table, seconds: int = 1) -> None:
    """Put the deadline of every seat that owes a move ``seconds`` in the past."""
    set_deadline(table, timezone.now() - timedelta(seconds=seconds))


def owing_due(table: Table, due: Any) -> Seat:
    """Move the owing seat's deadline to ``due``; that seat, with its player."""
    table.refresh_from_db()
    (number,) = table.to_act
    set_deadline(table, due)
    return Seat.objects.select_related("user").get(table=table, number=number)


def assert_no_secrets(outbox: list[mail.EmailMessage], *tables: Table) -> None:
    seeds = []
    for table in tables:
        table.refresh_from_db()
        seeds += [bytes(table.server_seed).hex()]
        if table.game_seed is not None:
            seeds += [bytes(table.game_seed).hex()]
    # The only cards a mail may name are those laid face up for everybody to see.
    shown: set[str] = set()
    for table in tables:
        for move in table.moves.all():
            for event in move.events:
                public = event["public"]
                shown |= set(CARD.findall(json.dumps([public.get(k) for k in PUBLIC_CARDS])))
    for message in outbox:
        text = message.subject + "\n" + message.body
        assert set(CARD.findall(text)) <= shown, (set(CARD.findall(text)) - shown, text)
        for seed in seeds:
            assert seed not in text


# -- your turn -------------------------------------------------------------------


def test_the_deal_mails_the_first_seat_to_act_its_turn(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    with then_drained(django_capture_on_commit_callbacks):
        table = started_table(*players)

    user = to_act_user(table)
    seat = table.seats.get(user=user)
    (message,) = mailoutbox
    assert message.to == [user.email]
    assert message.subject == f"Your turn at table {table.pk} (Crazy Eights)"
    assert f"{settings.FAIRDEAL_BASE_URL}/tables/{table.pk}/" in message.body
    assert "/api/" not in message.body.split("PATCH")[0]  # a person's link, not the API's
    assert f"{settings.FAIRDEAL_BASE_URL}/accounts/settings/" in message.body
    assert clock(table, seat.number).deadline_at.isoformat() in message.body
    assert "UTC" in message.body
    assert "PATCH /api/accounts/me/" in message.body
    notice = Notice.objects.get(table=table, kind=Notice.Kind.YOUR_TURN)
    assert notice.user == user and notice.sent_at is not None
    assert_no_secrets(mailoutbox, table)


def test_a_move_mails_the_next_seat_its_turn(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(*players)
    first = to_act_user(table)

    with then_drained(django_capture_on_commit_callbacks):
        play_until_the_turn_passes(table)

    second = to_act_user(table)
    assert second != first
    (message,) = mailoutbox
    assert message.to == [second.email]
    assert message.subject.startswith(f"Your turn at table {table.pk}")
    # What the other player did since, in the game's own words, as anybody saw it.
    ruleset = find_ruleset(table.game)
    said = [
        ruleset.event_text(Event.from_json(event).for_seat(None), seat_names(table))
        for move in table.moves.filter(seq__gt=0).order_by("seq")
        for event in move.events
        if "chance" not in event
    ]
    assert said and said[0].startswith(first.username)
    assert "Since your last move:\n" + "\n".join(f"- {line}" for line in said) in message.body
    assert_no_secrets(mailoutbox, table)


def test_no_your_turn_mail_goes_to_a_player_who_turned_it_off(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    for player in players:
        turn_off(player, "your_turn")

    with then_drained(django_capture_on_commit_callbacks):
        table = started_table(*players)
        play_until_the_turn_passes(table)

    assert mailoutbox == []
    assert not Notice.objects.exists()


WAIT = 120  # the production default of FAIRDEAL_TURN_MAIL_WAIT_SECONDS


def test_a_player_who_answers_within_the_wait_is_never_mailed_their_turn(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = WAIT
    table = started_table(*players)
    with then_drained(django_capture_on_commit_callbacks):
        for _ in range(4):  # both play live, each answering well within the wait
            play_until_the_turn_passes(table)
            let_time_pass(table, WAIT // 4)

    assert mailoutbox == []
    assert not Notice.objects.filter(table=table, kind=Notice.Kind.YOUR_TURN).exists()


def test_a_turn_still_waiting_after_the_wait_is_mailed_once(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = WAIT
    table = started_table(*players)
    with then_drained(django_capture_on_commit_callbacks):
        play_until_the_turn_passes(table)
    waiting = to_act_user(table)
    assert mailoutbox == []  # not yet: the player may be at the table

    let_time_pass(table, WAIT - 5)
    notifications.mail_turns()
    assert mailoutbox == []
    let_time_pass(table, 5)
    notifications.mail_turns()
    notifications.mail_turns()

    (message,) = mailoutbox
    assert message.to == [waiting.email]
    assert message.subject.startswith(f"Your turn at table {table.pk}")


def test_the_end_of_a_game_is_mailed_at_once_whatever_the_wait(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = WAIT
    alice, bob = players
    table = started_table(alice, bob)
    with then_drained(django_capture_on_commit_callbacks):
        services.table_resign(table_id=table.pk, user=alice)

    assert sorted(m.to[0] for m in mailoutbox) == [alice.email, bob.email]
    assert {m.subject for m in mailoutbox} == {f"Game over at table {table.pk} (Crazy Eights)"}


def test_the_same_turn_is_mailed_once_however_often_the_turns_mail_runs(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    with then_drained(django_capture_on_commit_callbacks):
        table = started_table(*players)

    assert notifications.mail_turns() == 0
    assert notifications.notify(table.pk) == 0  # a table's own mail is only its ending
    assert len(mailoutbox) == 1


def test_a_move_writes_nothing_for_the_mail_it_may_cause(players: list[Any]) -> None:
    table = started_table(*players)
    assert not OutboxItem.objects.exists()  # the deal: no item either

    play_until_the_turn_passes(table)

    assert not OutboxItem.objects.exists()
    assert notifications.mail_turns() == 1  # the query finds the turn instead


def test_a_player_without_an_email_address_gets_no_mail_and_nothing_breaks(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    for player in players:
        player.email = ""
        player.save()

    with then_drained(django_capture_on_commit_callbacks):
        started_table(*players)

    assert mailoutbox == []


# -- reminders ---------------------------------------------------------------------


@pytest.fixture
def only_reminders(players: list[Any]) -> list[Any]:
    """The players, with "your turn" mail turned off: the mails here are the reminders."""
    for player in players:
        turn_off(player, "your_turn")
    return players


def reminders(now: Any) -> int:
    """The turns' mail at ``now`` (``mail_turns``): how many reminders went."""
    sent = Notice.objects.filter(kind=Notice.Kind.REMINDER, sent_at__isnull=False)
    before = sent.count()
    notifications.mail_turns(now)
    return sent.count() - before


def test_a_reminder_goes_when_an_hour_is_left_and_only_once(
    only_reminders: list[Any], mailoutbox: list
) -> None:
    table = started_table(*only_reminders)
    now = timezone.now()
    seat = owing_due(table, now + timedelta(seconds=30))

    assert reminders(now) == 1
    assert reminders(now) == 0
    assert reminders(now + timedelta(seconds=10)) == 0

    (message,) = mailoutbox
    assert message.to == [seat.user.email]
    assert message.subject.startswith(f"Reminder: your move at table {table.pk}")
    assert clock(table, seat.number).deadline_at.isoformat() in message.body
    assert f"/tables/{table.pk}/" in message.body
    assert_no_secrets(mailoutbox, table)


def test_no_reminder_goes_while_more_than_an_hour_is_left(
    only_reminders: list[Any], mailoutbox: list
) -> None:
    table = started_table(*only_reminders)  # a day to move: no reminder a day before
    now = timezone.now()
    owing_due(table, now + timedelta(hours=1, minutes=1))

    assert reminders(now) == 0
    assert reminders(now + timedelta(minutes=2)) == 1
    assert len(mailoutbox) == 1


def test_no_reminder_goes_once_the_deadline_has_passed(
    only_reminders: list[Any], mailoutbox: list
) -> None:
    table = started_table(*only_reminders)
    now = timezone.now()
    owing_due(table, now - timedelta(seconds=1))

    assert reminders(now) == 0
    assert mailoutbox == []


def test_no_reminder_goes_to_a_player_who_turned_it_off(
    only_reminders: list[Any], mailoutbox: list
) -> None:
    table = started_table(*only_reminders)
    now = timezone.now()
    seat = owing_due(table, now + timedelta(seconds=30))
    turn_off(seat.user, "reminders")

    assert reminders(now) == 0
    assert mailoutbox == []


def test_a_new_turn_gets_its_own_reminder(only_reminders: list[Any], mailoutbox: list) -> None:
    table = started_table(*only_reminders)
    now = timezone.now()
    owing_due(table, now + timedelta(seconds=30))
    assert reminders(now) == 1

    seat = owing_due(table, now + timedelta(seconds=40))

    assert reminders(now) == 1
    assert (
        mails_to(mailoutbox, seat.user)[-1].body.count(
            clock(table, seat.number).deadline_at.isoformat()
        )
        == 1
    )


# -- game over -------------------------------------------------------------------


def test_a_resignation_mails_game_over_to_every_player_once(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = players
    table = started_table(alice, bob)

    with then_drained(django_capture_on_commit_callbacks):
        services.table_resign(table_id=table.pk, user=alice)
    notifications.notify(table.pk)
    notifications.notify(table.pk)

    (to_alice,) = mails_to(mailoutbox, alice)
    (to_bob,) = mails_to(mailoutbox, bob)
    assert len(mailoutbox) == 2
    assert to_bob.subject == f"Game over at table {table.pk} (Crazy Eights)"
    assert "alice resigned" in to_bob.body
    assert "You finished 1st of 2." in to_bob.body
    assert "you resigned" in to_alice.body
    assert "You finished 2nd of 2." in to_alice.body
    assert f"{settings.FAIRDEAL_BASE_URL}/tables/{table.pk}/verify/" in to_bob.body
    assert f"{settings.FAIRDEAL_BASE_URL}/accounts/unsubscribe/" in to_bob.body
    assert_no_secrets(mailoutbox, table)


def test_a_timeout_in_the_sweep_mails_game_over_to_every_player_once(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = players
    table = started_table(alice, bob)
    late = to_act_user(table)
    expire(table)

    with then_drained(django_capture_on_commit_callbacks):
        assert services.sweep_deadlines() == [table.pk]
    with then_drained(django_capture_on_commit_callbacks):
        assert services.sweep_deadlines() == []
    notifications.notify(table.pk)

    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "bob@example.com"]
    (to_late,) = mails_to(mailoutbox, late)
    assert "your deadline passed" in to_late.body
    (other,) = [m for m in mailoutbox if m is not to_late]
    assert f"{late.username}'s deadline passed" in other.body
    assert_no_secrets(mailoutbox, table)


def test_a_move_past_the_deadline_mails_game_over_not_your_turn(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(*players)
    late = to_act_user(table)
    expire(table)
    action = services.load_state(table).legal_actions(table.to_act[0])[0]

    with (
        then_drained(django_capture_on_commit_callbacks),
        pytest.raises(services.DeadlinePassed),
    ):
        services.move_apply(table_id=table.pk, user=late, version=table.version, action=action)

    assert (
        sorted(m.subject for m in mailoutbox)
        == [f"Game over at table {table.pk} (Crazy Eights)"] * 2
    )


def test_no_game_over_mail_goes_to_a_player_who_turned_it_off(
    players: list[Any], mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = players
    table = started_table(alice, bob)
    turn_off(bob, "game_over")

    with then_drained(django_capture_on_commit_callbacks):
        services.table_resign(table_id=table.pk, user=alice)

    assert [m.to for m in mailoutbox] == [[alice.email]]


def test_a_whole_match_of_mail_shows_no_card_and_no_seed(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    players = make_users("alice", "bob", "charlie")
    with then_drained(django_capture_on_commit_callbacks):
        table = started_table(*players, seed=b"mail")
    for _ in range(6):
        with then_drained(django_capture_on_commit_callbacks):
            play_until_the_turn_passes(table)
        now = timezone.now()
        owing_due(table, now + timedelta(seconds=5))
        notifications.mail_turns(now)
    with then_drained(django_capture_on_commit_callbacks):
        services.table_resign(table_id=table.pk, user=players[1])

    kinds = set(Notice.objects.filter(table=table).values_list("kind", flat=True))
    assert kinds == {"your_turn", "reminder", "game_over"}
    assert len(mailoutbox) == Notice.objects.filter(table=table, sent_at__isnull=False).count()
    assert_no_secrets(mailoutbox, table)


# -- races -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(5))
def test_a_late_move_racing_the_sweep_ends_the_game_once_with_one_mail_each(
    round_: int, mailoutbox: list
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    late = to_act_user(table)
    expire(table)
    action = services.load_state(table).legal_actions(table.to_act[0])[0]
    mailoutbox.clear()

    results = at_once(
        lambda: services.move_apply(
            table_id=table.pk, user=late, version=table.version, action=action
        ),
        services.sweep_deadlines,
    )
    outbox.drain()  # as beat's next tick does

    # Whoever took the lock first ended the game; the move lost either way.
    assert isinstance(results[0], (services.DeadlinePassed, services.GameFinished)), results
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.end_reason == "timeout"
    assert list(table.moves.values_list("kind", flat=True).order_by("seq")) == [
        "start",
        "forfeit",
    ]
    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "bob@example.com"]
    assert {m.subject for m in mailoutbox} == {f"Game over at table {table.pk} (Crazy Eights)"}


@pytest.mark.django_db(transaction=True)
def test_notify_running_twice_at_once_sends_each_mail_once(mailoutbox: list) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    services.table_resign(table_id=table.pk, user=alice)  # commits: notify has run once
    Notice.objects.all().delete()
    mailoutbox.clear()

    results = at_once(*[lambda: notifications.notify(table.pk)] * 4)

    assert sum(results) == 2, results
    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "bob@example.com"]


class Killed(BaseException):
    """The worker's process ending in the middle of a send (nothing of it catches this)."""


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_dies_while_it_sends_leaves_the_mail_to_the_next_try(
    mailoutbox: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    services.table_resign(table_id=table.pk, user=alice)  # commits: notify has run once
    Notice.objects.all().delete()
    mailoutbox.clear()
    sending = notifications.send_mail_to

    def dies_at_the_second(*args: Any, **kwargs: Any) -> None:
        if mailoutbox:
            raise Killed
        sending(*args, **kwargs)

    monkeypatch.setattr(notifications, "send_mail_to", dies_at_the_second)
    with pytest.raises(Killed):
        notifications.notify(table.pk)
    assert len(mailoutbox) == 1
    # The claim of the mail it was sending went with its transaction: the next try sends it.
    assert Notice.objects.filter(sent_at__isnull=False).count() == 1
    assert Notice.objects.count() == 1
    monkeypatch.setattr(notifications, "send_mail_to", sending)

    assert notifications.notify(table.pk) == 1
    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "bob@example.com"]
    assert notifications.notify(table.pk) == 0


# -- tables that are never played ------------------------------------------------------


def test_a_cancelled_table_mails_those_who_joined_but_not_the_host(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = services.table_create(user=alice, game="crazy-eights", seats=4, deadline=3600)
    for player in (bob, carol):
        services.table_join(table_id=table.pk, user=player)

    with then_drained(django_capture_on_commit_callbacks):
        services.table_cancel(table_id=table.pk, user=alice)
    notifications.notify(table.pk)  # asked again: nobody is mailed twice

    assert sorted(m.to[0] for m in mailoutbox) == sorted([bob.email, carol.email])
    message = mailoutbox[0]
    assert message.subject == f"Table {table.pk} (Crazy Eights) will not be played"
    assert "its host cancelled it" in message.body
    assert_no_secrets(mailoutbox, table)


def test_an_expired_table_mails_everyone_seated_host_included(
    mailoutbox: list, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.FAIRDEAL_OPEN_TABLE_SECONDS = 2 * 86400
    alice, bob = make_users("alice", "bob")
    table = services.table_create(user=alice, game="crazy-eights", seats=3, deadline=3600)
    services.table_join(table_id=table.pk, user=bob)
    later = timezone.now() + timedelta(days=3)

    with then_drained(django_capture_on_commit_callbacks):
        assert services.expire_open_tables(now=later) == [table.pk]

    assert sorted(m.to[0] for m in mailoutbox) == sorted([alice.email, bob.email])
    assert "not all taken within 2 days, so it expired" in mailoutbox[0].body


def test_no_cancellation_mail_goes_to_a_player_who_turned_game_over_mail_off(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = make_users("alice", "bob")
    table = services.table_create(user=alice, game="crazy-eights", seats=3, deadline=3600)
    services.table_join(table_id=table.pk, user=bob)
    turn_off(bob, "game_over")

    with then_drained(django_capture_on_commit_callbacks):
        services.table_cancel(table_id=table.pk, user=alice)

    assert mailoutbox == []


def test_players_who_would_not_be_mailed_never_hold_the_turns_batch(
    mailoutbox: list, settings: Any
) -> None:
    settings.FAIRDEAL_TURN_MAIL_WAIT_SECONDS = 0
    ann, ben, cat, dan = make_users("ann", "ben", "cat", "dan")
    first = started_table(ann, ben, seed=b"batch one")
    second = started_table(cat, dan, seed=b"batch two")
    # The first table's turn is due sooner; its player's address is not verified.
    set_deadline(first, timezone.now() + timedelta(minutes=30))
    set_deadline(second, timezone.now() + timedelta(minutes=40))
    waiting = {first.pk: to_act_user(first), second.pk: to_act_user(second)}
    waiting[first.pk].email_verification.delete()

    notifications.mail_turns(batch=1)

    # Each query's one place went to the player who is mailed: "your turn", and (a day's
    # table, forty minutes left) the reminder.
    assert sorted((m.to[0], m.subject.split(" at ")[0]) for m in mailoutbox) == [
        (waiting[second.pk].email, "Reminder: your move"),
        (waiting[second.pk].email, "Your turn"),
    ]
