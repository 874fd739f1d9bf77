"""Staff void a player's rated games, or one rated table: those tables never count, and
every rating they touched, and every rating after, is as a replay without them says.
Each action is logged with who, when, what and why."""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from functools import partial
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from games import outbox, services, tasks
from games.models import Table
from leaderboard.models import (
    Rating,
    RatingChange,
    RatingLedger,
    RatingOpponent,
    StaffAction,
    UnratedTable,
)
from leaderboard.services import rate_table, recompute_ratings
from leaderboard.staff import NotRated, NotStaff, ReasonRequired, void_player, void_table
from tests.factories import at_once, finished_table, make_users, started_table

GAME = "crazy-eights"


def staff_member(name: str = "olga") -> Any:
    (user,) = make_users(name)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


def everything() -> tuple[list[tuple], list[tuple], list[tuple]]:
    """Every rating, change and meeting, to the float."""
    ratings = list(
        Rating.objects.order_by("game", "player_id").values_list(
            "game", "player_id", "mu", "sigma", "games", "last_played_at", "opponents"
        )
    )
    changes = list(
        RatingChange.objects.order_by("table_id", "player_id").values_list(
            "table_id", "player_id", "place", "mu_before", "sigma_before", "mu_after", "sigma_after"
        )
    )
    meetings = list(
        RatingOpponent.objects.order_by("game", "player_id", "opponent_id").values_list(
            "game", "player_id", "opponent_id", "table_id"
        )
    )
    return ratings, changes, meetings


def from_nothing() -> tuple[list[tuple], list[tuple], list[tuple]]:
    """What a recompute from no stored rating at all arrives at."""
    RatingOpponent.objects.all().delete()
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    RatingLedger.objects.all().delete()
    recompute_ratings()
    return everything()


def history(players: list[Any], farmer: Any, *, seed: int = 7) -> list[Table]:
    """Rated tables of two to four, some with the farmer, hours apart, all rated; enough
    games for some players to become established, so that meetings are kept too."""
    rng = random.Random(seed)
    at = timezone.now() - timedelta(days=20)
    tables = []
    for n in range(36):
        seated = rng.sample(players, rng.randint(2, 3))
        if n % 3 == 0:
            seated = [farmer, *seated[:1]]
        places = [rng.randint(1, len(seated)) for _ in seated]
        at += timedelta(hours=rng.randint(1, 9))
        tables.append(finished_table(*seated, places=places, finished_at=at))
    outbox.drain()
    return tables


@pytest.mark.django_db
def test_voiding_a_player_rates_everything_again_as_if_their_tables_had_never_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    players = make_users("alice", "bob", "charlie", "dave")
    farmer = make_users("farmer")[0]
    olga = staff_member()
    tables = history(players, farmer)
    assert RatingOpponent.objects.exists(), "some players met established opponents"
    before = everything()

    with caplog.at_level(logging.WARNING, logger="leaderboard.staff"):
        action = void_player(staff=olga, player=farmer, reason="  farmed off friends  ")

    farmed = sorted(t.pk for t in tables if t.seats.filter(user=farmer).exists())
    assert (action.kind, action.staff, action.staff_name) == ("void_player", olga, "olga")
    assert (action.player, action.reason) == (farmer, "farmed off friends")
    assert action.detail["tables"] == farmed
    # The farmer sat at the first table: every other table was rated again.
    assert action.detail["rerated"] == {GAME: len(tables) - len(farmed)}
    assert set(action.detail["players"]) == {p.pk for p in [*players, farmer]}
    assert sorted(UnratedTable.objects.values_list("table_id", flat=True)) == farmed
    assert set(UnratedTable.objects.values_list("reason", "action")) == {("voided", action.pk)}
    assert not RatingChange.objects.filter(player=farmer).exists()
    assert not Rating.objects.filter(player=farmer).exists()
    after = everything()
    assert after != before
    # Exactly what a replay from nothing, without the farmer's tables, gives.
    assert all(report.differing == 0 for report in recompute_ratings(write=False))
    assert from_nothing() == after
    (logged,) = [r for r in caplog.records if r.name == "leaderboard.staff"]
    assert "staff olga: voided a player's rated games (farmed off friends)" in logged.getMessage()


@pytest.mark.django_db
def test_voiding_one_table_in_the_middle_moves_only_what_came_after_it() -> None:
    players = make_users("alice", "bob", "charlie", "dave")
    olga = staff_member()
    tables = history(players, make_users("erin")[0], seed=3)
    middle = tables[len(tables) // 2]
    untouched = {
        change.table_id: change.mu_after
        for change in RatingChange.objects.filter(finished_at__lt=middle.finished_at)
    }

    action = void_table(staff=olga, table_id=middle.pk, reason="a bug rated it twice")

    assert (action.kind, action.table) == ("void_table", middle)
    assert action.detail["tables"] == [middle.pk]
    later = sum(1 for t in tables if t.finished_at > middle.finished_at)
    assert action.detail["rerated"] == {GAME: later}
    assert not RatingChange.objects.filter(table=middle).exists()
    assert {
        change.table_id: change.mu_after
        for change in RatingChange.objects.filter(finished_at__lt=middle.finished_at)
    } == untouched
    after = everything()
    assert from_nothing() == after
    with pytest.raises(NotRated, match="already left out"):
        void_table(staff=olga, table_id=middle.pk, reason="again")


@pytest.mark.django_db
def test_a_voided_table_still_in_play_never_rates_when_it_ends() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, rated=True)

    void_player(staff=staff_member(), player=bob, reason="throwaway account")
    (seat,) = table.to_act
    services.move_apply(
        table_id=table.pk,
        user=table.seats.get(number=seat).user,
        version=table.version,
        action=services.load_state(table).legal_actions(seat)[0],
    )
    services.table_resign(table_id=table.pk, user=bob)
    outbox.drain()

    assert UnratedTable.objects.get(table=table).reason == UnratedTable.Reason.VOIDED
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert not RatingChange.objects.exists()
    assert rate_table(table.pk) == 0


@pytest.mark.django_db
def test_only_staff_void_and_always_say_why() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    outbox.drain()
    before = everything()

    with pytest.raises(NotStaff):
        void_player(staff=alice, player=bob, reason="I lost")
    with pytest.raises(ReasonRequired):
        void_table(staff=staff_member(), table_id=table.pk, reason="   ")
    friendly = finished_table(alice, bob, rated=False)
    with pytest.raises(NotRated, match="is not rated"):
        void_table(staff=staff_member("pat"), table_id=friendly.pk, reason="why not")

    assert everything() == before
    assert not StaffAction.objects.exists() and not UnratedTable.objects.exists()


def run(*args: str) -> str:
    out = StringIO()
    call_command("void_rated_games", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_command_voids_a_players_rated_games_of_a_game_under_a_staff_name() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    staff_member()
    finished_table(alice, bob)
    finished_table(alice, bob, game="dodo")
    finished_table(charlie, alice)
    outbox.drain()

    output = run("BOB", "--staff", "olga", "--reason", "second account", "--game", GAME)

    action = StaffAction.objects.get()
    assert output.strip() == (
        f"staff action {action.pk}: 1 rated tables of bob voided; tables rated again:"
        f" {GAME}: 1; 3 players' ratings rewound and moved again"
    )
    assert not RatingChange.objects.filter(player=bob, game=GAME).exists()
    assert RatingChange.objects.filter(player=bob, game="dodo").exists()
    assert all(report.differing == 0 for report in recompute_ratings(write=False))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nobody", "--staff", "olga", "--reason", "x"], "no account called 'nobody'"),
        (["bob", "--staff", "nobody", "--reason", "x"], "no account called 'nobody' (the staff)"),
        (["bob", "--staff", "alice", "--reason", "x"], "alice is not staff"),
        (["bob", "--staff", "olga", "--reason", " "], "say why"),
        (["bob", "--staff", "olga", "--reason", "x", "--game", "go"], "there is no game 'go'"),
    ],
)
def test_the_command_refuses_in_words_and_changes_nothing(args: list[str], words: str) -> None:
    alice, bob = make_users("alice", "bob")
    staff_member()
    finished_table(alice, bob)
    outbox.drain()
    before = everything()

    with pytest.raises(CommandError, match=words.replace("(", r"\(").replace(")", r"\)")):
        run(*args)

    assert everything() == before and not StaffAction.objects.exists()


@pytest.fixture
def no_worker_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.drain_outbox, "apply_async", lambda *args, **kwargs: None)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_worker_yet")
def test_a_void_racing_the_rating_of_a_new_table_leaves_what_a_replay_gives() -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    olga = staff_member()
    start = timezone.now() - timedelta(days=2)
    finished_table(alice, bob, places=[1, 2], finished_at=start)
    outbox.drain()
    for round_ in range(3):
        table = finished_table(
            charlie, alice, places=[1, 2], finished_at=start + timedelta(hours=round_ + 1)
        )

        results = at_once(
            partial(rate_table, table.pk),
            partial(void_player, staff=olga, player=bob, reason=f"round {round_}"),
        )

        assert not any(isinstance(result, Exception) for result in results), results
        assert all(report.differing == 0 for report in recompute_ratings(write=False))
    assert not RatingChange.objects.filter(player=bob).exists()


@pytest.mark.django_db
def test_staff_void_a_players_games_of_a_game_from_the_ratings_list_and_read_the_log(
    client: Any,
) -> None:
    alice, bob, charlie = make_users("alice", "bob", "charlie")
    finished_table(alice, bob)
    finished_table(bob, charlie)
    finished_table(alice, bob, game="dodo")
    outbox.drain()
    root = staff_member("root")
    root.is_superuser = True
    root.save(update_fields=["is_superuser"])
    client.force_login(root)
    rating = Rating.objects.get(player=bob, game=GAME)
    data = {"action": "void_players", "_selected_action": [rating.pk]}

    asked = client.post("/admin/leaderboard/rating/", data)
    assert asked.status_code == 200 and "bob at crazy-eights" in asked.content.decode()
    done = client.post(
        "/admin/leaderboard/rating/", {**data, "confirm": "yes", "reason": "farming"}
    )

    assert done.status_code == 302
    assert not RatingChange.objects.filter(player=bob, game=GAME).exists()
    assert RatingChange.objects.filter(player=bob, game="dodo").exists()
    (action,) = StaffAction.objects.all()
    assert (action.kind, action.player, action.staff, action.reason) == (
        "void_player",
        bob,
        root,
        "farming",
    )
    log = client.get("/admin/leaderboard/staffaction/").content.decode()
    assert "farming" in log and "root" in log
    assert client.get(f"/admin/leaderboard/staffaction/{action.pk}/delete/").status_code == 403
    assert (
        client.post(
            f"/admin/leaderboard/staffaction/{action.pk}/change/", {"reason": "nothing"}
        ).status_code
        == 403
    )
    assert StaffAction.objects.get().reason == "farming"
