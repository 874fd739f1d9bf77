"""Watching a table, the archive of finished games, and a player who keeps theirs to
themselves (issue 33, item 6): through the API and the pages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Profile
from games import archive
from games.models import Table
from tests.factories import (
    assert_error,
    body,
    client_for,
    finished_table,
    make_users,
    move,
    open_table,
    snapshot,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

ARCHIVE = "/api/archive/"


def keeps_games_private(user: Any) -> None:
    Profile.objects.update_or_create(user=user, defaults={"games_public": False})


def ids(response: Any) -> list[int]:
    assert response.status_code == 200, response.content
    return [game["id"] for game in body(response)["games"]]


# -- watching -----------------------------------------------------------------------------


@pytest.mark.parametrize("signed_in", [False, True])
def test_a_watcher_sees_the_public_view_live_and_no_hand(signed_in: bool) -> None:
    alice, bob, eve = make_users("alice", "bob", "eve")
    table = started_table(alice, bob)
    watcher = client_for(eve if signed_in else None)
    view = body(watcher.get(table_url(table.pk)))
    assert view["status"] == "playing"
    assert view["you"] is None
    assert view["legal_actions"] == []
    assert all(seat["cards"] == 7 for seat in view["seats"])
    assert "hand" not in view["board"]

    # A move, and the watcher's next look shows it.
    alice_view = body(client_for(alice).get(table_url(table.pk)))
    (seat,) = alice_view["to_act"]
    mover = client_for(alice if seat == 0 else bob)
    mine = body(mover.get(table_url(table.pk)))
    assert move(mover, table.pk, mine["version"], mine["legal_actions"][0]).status_code == 200
    later = body(watcher.get(table_url(table.pk)))
    assert later["version"] > view["version"]
    assert later["recent"][-1]["seq"] == later["version"]
    assert later["you"] is None and later["legal_actions"] == []


def test_a_watcher_signed_in_who_tries_every_seats_action_is_refused_and_nothing_changes() -> None:
    alice, bob, eve = make_users("alice", "bob", "eve")
    table = started_table(alice, bob)
    eve_client = client_for(eve)
    before = snapshot(table.pk)
    every_action = [
        action
        for player in (alice, bob)
        for action in body(client_for(player).get(table_url(table.pk)))["legal_actions"]
    ]
    assert every_action
    for action in every_action:
        assert_error(move(eve_client, table.pk, table.version, action), 403, "not_seated")
    assert_error(eve_client.post(table_url(table.pk, "resign")), 403, "not_seated")
    assert_error(eve_client.post(table_url(table.pk, "cancel")), 403, "not_host")
    assert_error(eve_client.post(table_url(table.pk, "join"), {}, format="json"), 409, "not_open")
    assert snapshot(table.pk) == before


def test_a_watcher_signed_out_who_tries_every_seats_action_is_refused_and_nothing_changes() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    anonymous = client_for()
    before = snapshot(table.pk)
    actions = (
        body(client_for(alice).get(table_url(table.pk)))["legal_actions"]
        + body(client_for(bob).get(table_url(table.pk)))["legal_actions"]
    )
    for action in actions:
        assert_error(move(anonymous, table.pk, table.version, action), 401, "not_authenticated")
    for what in ("resign", "cancel", "join"):
        assert_error(anonymous.post(table_url(table.pk, what)), 401, "not_authenticated")
    # The page's forms: a clear message and nothing changed.
    page = Client()
    response = page.post(
        f"/tables/{table.pk}/move/",
        {"version": table.version, "action": '{"type": "draw"}'},
        follow=True,
    )
    assert "Log in to play" in response.content.decode()
    assert snapshot(table.pk) == before


@pytest.mark.parametrize("signed_in", [False, True])
def test_the_table_page_and_its_fragment_show_a_watcher_no_hand_and_no_move(
    signed_in: bool,
) -> None:
    alice, bob, eve = make_users("alice", "bob", "eve")
    table = started_table(alice, bob)
    page = Client()
    if signed_in:
        page.force_login(eve)
    hands = Table.objects.get(pk=table.pk).state["hands"]
    for url in (f"/tables/{table.pk}/", f"/tables/{table.pk}/?fragment=1"):
        response = page.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        for card in (card for hand in hands for card in hand):
            assert f"({card})" not in html, card
        assert 'name="action"' not in html
    # The same check finds a player's own hand on their page.
    own = Client()
    own.force_login(alice)
    assert f"({hands[0][0]})" in own.get(f"/tables/{table.pk}/").content.decode()


# -- keeping one's games to oneself ----------------------------------------------------


def test_a_game_with_a_player_who_keeps_games_private_is_no_table_to_a_stranger() -> None:
    alice, bob, eve = make_users("alice", "bob", "eve")
    table = started_table(alice, bob)
    (first,) = table.to_act  # a move, so that the board of version 1 is there to be asked for
    mover = client_for([alice, bob][first])
    view = body(mover.get(table_url(table.pk)))
    move(mover, table.pk, view["version"], view["legal_actions"][0])
    assert archive.watchable(table)
    keeps_games_private(bob)
    assert not archive.watchable(table)
    for stranger in (client_for(), client_for(eve)):
        assert_error(stranger.get(table_url(table.pk)), 404, "not_found")
        assert_error(stranger.get(table_url(table.pk, "record")), 404, "not_found")
    stranger_page = Client()
    for url in (
        f"/tables/{table.pk}/",
        f"/tables/{table.pk}/?fragment=1",
        f"/tables/{table.pk}/version/",
        f"/tables/{table.pk}/board/?version=1",
    ):
        assert stranger_page.get(url).status_code == 404
    player_page = Client()
    player_page.force_login(alice)
    assert player_page.get(f"/tables/{table.pk}/version/").status_code == 200
    assert player_page.get(f"/tables/{table.pk}/board/?version=1").status_code == 200
    # Its players see it as ever.
    assert body(client_for(alice).get(table_url(table.pk)))["you"]["seat"] == 0
    assert body(client_for(bob).get(table_url(table.pk)))["you"]["seat"] == 1
    # Not in the watch list, nor, once over, in the archive, its replay or verify page.
    assert table.pk not in ids(client_for().get(ARCHIVE, {"status": "playing"}))
    over = finished_table(alice, bob, rated=False)
    assert over.pk not in ids(client_for().get(ARCHIVE))
    for url in (f"/tables/{over.pk}/replay/", f"/tables/{over.pk}/verify/"):
        assert stranger_page.get(url).status_code == 404
    # Public again, the game is back in the lists.
    Profile.objects.filter(user=bob).update(games_public=True)
    assert over.pk in ids(client_for().get(ARCHIVE))
    assert client_for().get(table_url(table.pk)).status_code == 200


def test_a_table_waiting_for_players_stays_in_sight_whoever_hosts_it() -> None:
    alice, eve = make_users("alice", "eve")
    keeps_games_private(alice)
    table = open_table(alice)
    assert body(client_for(eve).get(table_url(table.pk)))["status"] == "open"
    assert Client().get(f"/tables/{table.pk}/").status_code == 200


def test_private_tables_are_in_neither_list() -> None:
    alice, bob = make_users("alice", "bob")
    shown = finished_table(alice, bob, rated=False)
    hidden = finished_table(alice, bob, rated=False)
    Table.objects.filter(pk=hidden.pk).update(private=True)
    hidden.refresh_from_db()
    assert archive.watchable(shown) and not archive.watchable(hidden)
    assert ids(client_for().get(ARCHIVE)) == [shown.pk]
    playing = started_table(alice, bob)
    Table.objects.filter(pk=playing.pk).update(private=True)
    assert ids(client_for().get(ARCHIVE, {"status": "playing"})) == []


def test_a_player_keeps_their_games_private_and_plays_forced_moves_through_the_api() -> None:
    alice = make_users("alice")[0]
    client = client_for(alice)
    me = body(client.get("/api/accounts/me/"))
    assert me["games_public"] is True and me["auto_play"] is False
    changed = client.patch(
        "/api/accounts/me/", {"games_public": False, "auto_play": True}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert body(changed)["games_public"] is False and body(changed)["auto_play"] is True
    assert body(client.get("/api/accounts/me/"))["games_public"] is False
    profile = Profile.objects.get(user=alice)
    assert (profile.games_public, profile.auto_play) == (False, True)
    for bad in ({"games_public": "no"}, {"auto_play": 1}, {"auto_play": None}):
        assert_error(client.patch("/api/accounts/me/", bad, format="json"), 400, "invalid")
    assert Profile.objects.get(user=alice).auto_play is True


def test_the_settings_page_keeps_games_private_and_turns_auto_play_on() -> None:
    alice = make_users("alice")[0]
    page = Client()
    page.force_login(alice)
    settings = page.get("/accounts/settings/").content.decode()
    assert "Watching and play" in settings
    response = page.post("/accounts/settings/play/", {"auto_play": "on"}, follow=True)
    assert "saved" in response.content.decode()
    profile = Profile.objects.get(user=alice)
    assert (profile.games_public, profile.auto_play) == (False, True)
    page.post("/accounts/settings/play/", {"games_public": "on"})
    profile.refresh_from_db()
    assert (profile.games_public, profile.auto_play) == (True, False)


# -- the archive ---------------------------------------------------------------------------


def _ended(table: Table, *, reason: str, days_ago: int) -> Table:
    result = {**table.result, "reason": reason}
    Table.objects.filter(pk=table.pk).update(
        end_reason=reason, result=result, finished_at=timezone.now() - timedelta(days=days_ago)
    )
    table.refresh_from_db()
    return table


def test_the_archive_filters_by_game_player_and_result() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    eights = _ended(finished_table(alice, bob, rated=False), reason="resigned", days_ago=3)
    timed = _ended(finished_table(bob, carol, rated=False), reason="timeout", days_ago=2)
    crazy8 = _ended(
        finished_table(alice, carol, rated=False, game="crazy-8"), reason="finished", days_ago=1
    )
    started_table(alice, bob)  # being played: not in the archive

    anyone = client_for()
    assert ids(anyone.get(ARCHIVE)) == [crazy8.pk, timed.pk, eights.pk]
    assert ids(anyone.get(ARCHIVE, {"game": "crazy-8"})) == [crazy8.pk]
    assert ids(anyone.get(ARCHIVE, {"player": "ALICE"})) == [crazy8.pk, eights.pk]
    assert ids(anyone.get(ARCHIVE, {"result": "timeout"})) == [timed.pk]
    assert ids(anyone.get(ARCHIVE, {"player": "bob", "result": "resigned"})) == [eights.pk]
    assert ids(anyone.get(ARCHIVE, {"player": "nobody"})) == []
    game = body(anyone.get(ARCHIVE, {"game": "crazy-8"}))["games"][0]
    assert game["replay_url"] == f"/tables/{crazy8.pk}/replay/"
    assert game["record_url"] == f"/api/tables/{crazy8.pk}/record/"
    assert game["verify_url"] == f"/tables/{crazy8.pk}/verify/"
    assert [seat["player"] for seat in game["seats"]] == ["alice", "carol"]
    assert game["result"]["reason"] == "finished"
    for link in ("replay_url", "verify_url"):
        assert Client().get(game[link]).status_code == 200
    assert client_for().get(game["record_url"]).status_code == 200


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"game": "chess"}, "unknown_game"),
        ({"result": "won"}, "invalid"),
        ({"player": "a b"}, "invalid"),
        ({"status": "open"}, "invalid"),
        ({"page_size": "51"}, "invalid"),
        ({"page_size": "0"}, "invalid"),
        ({"cursor": "yesterday"}, "invalid"),
        ({"cursor": "999999999999999999.1"}, "invalid"),
    ],
)
def test_the_archive_refuses_a_filter_it_cannot_read(query: dict[str, str], code: str) -> None:
    assert_error(client_for().get(ARCHIVE, query), 400, code)


def test_the_archive_comes_a_page_at_a_time_newest_first_in_a_bounded_number_of_queries(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    games = [
        _ended(finished_table(alice, bob, rated=False), reason="resigned", days_ago=10 - n)
        for n in range(5)
    ]
    # Two ended at the same moment: the table's number orders them.
    Table.objects.filter(pk=games[1].pk).update(finished_at=games[2].finished_at)
    newest_first = [games[4].pk, games[3].pk, games[2].pk, games[1].pk, games[0].pk]
    anyone = client_for()
    seen: list[int] = []
    url, query = ARCHIVE, {"page_size": "2"}
    while True:
        with django_assert_max_num_queries(2):
            response = anyone.get(url, query)
        page = body(response)
        seen += [game["id"] for game in page["games"]]
        assert len(page["games"]) <= 2
        if page["next"] is None:
            assert page["next_cursor"] is None
            break
        url, query = page["next"], {}
    assert seen == newest_first
    # However many players and games, a page is one query (the user lookup folded into it).
    with django_assert_max_num_queries(2):
        assert len(ids(anyone.get(ARCHIVE, {"player": "alice", "page_size": "50"}))) == 5


def test_the_watch_list_shows_games_being_played_newest_first() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    first = started_table(alice, bob)
    second = started_table(bob, carol)
    Table.objects.filter(pk=first.pk).update(started_at=timezone.now() - timedelta(hours=1))
    games = body(client_for().get(ARCHIVE, {"status": "playing"}))["games"]
    assert [game["id"] for game in games] == [second.pk, first.pk]
    assert games[0]["replay_url"] is None and games[0]["table_url"] == f"/tables/{second.pk}/"


def test_the_archive_page_lists_filters_and_pages_the_games() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    older = _ended(finished_table(alice, bob, rated=False), reason="resigned", days_ago=2)
    newer = _ended(finished_table(bob, carol, rated=False), reason="timeout", days_ago=1)
    page = Client()
    html = page.get("/games/").content.decode()
    assert f'id="game-{newer.pk}"' in html and f'id="game-{older.pk}"' in html
    assert html.index(f'id="game-{newer.pk}"') < html.index(f'id="game-{older.pk}"')
    assert f"/tables/{older.pk}/replay/" in html and f"/tables/{older.pk}/verify/" in html
    only = page.get("/games/", {"player": "alice"}).content.decode()
    assert f'id="game-{older.pk}"' in only and f'id="game-{newer.pk}"' not in only
    timed = page.get("/games/", {"result": "timeout"}).content.decode()
    assert f'id="game-{newer.pk}"' in timed and f'id="game-{older.pk}"' not in timed
    bad = page.get("/games/", {"result": "won", "cursor": "x"})
    assert bad.status_code == 400
    assert "not understood" in bad.content.decode()
    playing = started_table(alice, carol)
    watch = page.get("/games/", {"status": "playing"}).content.decode()
    assert f'id="game-{playing.pk}"' in watch and f'id="game-{older.pk}"' not in watch


def test_the_archive_page_goes_to_older_games(monkeypatch: pytest.MonkeyPatch) -> None:
    from games import archive_pages

    monkeypatch.setattr(archive_pages, "PAGE_SIZE", 1)
    alice, bob = make_users("alice", "bob")
    older = _ended(finished_table(alice, bob, rated=False), reason="resigned", days_ago=2)
    newer = _ended(finished_table(alice, bob, rated=False), reason="resigned", days_ago=1)
    page = Client()
    first = page.get("/games/").content.decode()
    assert f'id="game-{newer.pk}"' in first and f'id="game-{older.pk}"' not in first
    link = first.split('rel="next"')[0].rsplit('href="', 1)[1].split('"')[0].replace("&amp;", "&")
    second = page.get(f"/games/{link}").content.decode()
    assert f'id="game-{older.pk}"' in second and f'id="game-{newer.pk}"' not in second
    assert "Newest games" in second


def test_a_watchers_view_costs_the_row_and_one_look_at_the_players_choice(
    django_assert_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    anyone = client_for()
    with django_assert_num_queries(2):
        assert anyone.get(table_url(table.pk)).status_code == 200
    # A table waiting for players is in the lobby: nothing to look at but its row.
    waiting = open_table(alice)
    with django_assert_num_queries(1):
        assert anyone.get(table_url(waiting.pk)).status_code == 200


def test_a_players_page_lists_only_the_games_anybody_may_watch() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    shown = finished_table(alice, bob, rated=False)
    private = finished_table(alice, bob, rated=False)
    Table.objects.filter(pk=private.pk).update(private=True)
    kept = finished_table(alice, carol, rated=False)
    keeps_games_private(carol)
    games = body(client_for().get("/api/players/alice/"))["recent_games"]
    assert [game["id"] for game in games] == [shown.pk]
    assert kept.pk not in [
        game["id"] for game in body(client_for().get("/api/players/carol/"))["recent_games"]
    ]
