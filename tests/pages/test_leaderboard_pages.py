"""The leaderboard and players' pages: the API's selectors, shown to people.

Who is listed and in what order is the API's (tests/leaderboard/); here, that
the pages show it, say it in words, cost a bounded number of queries, draw a
player's history with a point for each rating change, and answer a bad page
or an unknown name with words, never a 500.
"""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from accounts.models import Profile
from games import outbox
from leaderboard import boards, skill
from leaderboard.models import Rating, RatingChange
from tests.factories import body, client_for, finished_table, make_users, open_table, started_table
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

GAME = "crazy-eights"
BOARD = f"/leaderboard/{GAME}/"
SETTINGS = "/accounts/settings/"
# The board (its count) and the page; nothing for a visitor's session.
BOARD_QUERIES = 2
# Signed in: the session, the user, the tables waiting on them (the navigation), the
# board and the page, and where they stand: their rating with its rank, their profile.
BOARD_SIGNED_IN_QUERIES = 7
# The player and profile, their ratings with their ranks, their recent tables, those
# tables' seats, the rating changes at them, and the history: however long the history.
PLAYER_QUERIES = 6


@pytest.fixture(autouse=True)
def thresholds(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 2
    settings.FAIRDEAL_RATING_MAX_SIGMA = 9.0
    settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = 90
    # Rated games between newcomers here: none of them meets an established opponent.
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 0


def stack(
    user: Any,
    *,
    mu: float = 25.0,
    sigma: float = 4.0,
    games: int = 20,
    game: str = GAME,
    opponents: int = 8,
) -> Rating:
    """A rating as a history of rated games would have left it, a day ago; the boards
    then reckoned, as beat does every minute."""
    rating = Rating.objects.create(
        player=user,
        game=game,
        mu=mu,
        sigma=sigma,
        games=games,
        opponents=opponents,
        last_played_at=timezone.now() - timedelta(days=1),
    )
    boards.reckon_all()
    return rating


def shown_a_day_on(mu: float, sigma: float = 4.0) -> int:
    """The rating shown of a :func:`stack` rating: its sigma widened for the day since."""
    return skill.shown(skill.Skill(mu, skill.widened(sigma, 1.0)))


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text_of(response: Any) -> str:
    """The page's text, its tags dropped and its white space collapsed, as a person reads it."""
    html = response.content.decode()
    text = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))).strip()
    return re.sub(r" ([,.;)])", r"\1", text)


class Links(HTMLParser):
    """Every link of a page: its address and its words."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._words: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href, self._words = dict(attrs).get("href") or "", []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._words.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, " ".join("".join(self._words).split())))
            self._href = None


def links_of(response: Any) -> list[tuple[str, str]]:
    return Links(response.content.decode()).links


def board_rows(response: Any) -> list[tuple[int, str, int]]:
    """The leaderboard's rows as shown: rank, player, rating."""
    html = response.content.decode()
    rows = re.findall(
        r'<tr id="rank-(\d+)"[^>]*>.*?data-label="Player"[^>]*>(?:<a [^>]*>)?([^<]+)<.*?'
        r'data-label="Rating"[^>]*><strong>(\d+)</strong>',
        html,
        re.S,
    )
    return [(int(rank), name, int(rating)) for rank, name, rating in rows]


def messages_of(response: Any) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def rated_history(players: list[Any], tables: int) -> None:
    """``tables`` rated two-player tables between the first two of ``players`` (the second
    resigns each), then ratings moved through the outbox as in production."""
    for _ in range(tables):
        finished_table(*players)
    outbox.drain()
    boards.reckon_all()


# -- the leaderboard --------------------------------------------------------------------


def test_the_leaderboard_lists_players_best_first_each_linked_to_their_page(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    stack(bob, mu=30.0)
    stack(alice, mu=28.0)
    stack(carol, mu=26.0)

    with django_assert_max_num_queries(BOARD_QUERIES):
        response = Client().get(BOARD)

    assert response.status_code == 200
    assert board_rows(response)[0] == (1, "bob", shown_a_day_on(30.0))
    assert [name for _, name, _ in board_rows(response)] == ["bob", "alice", "carol"]
    assert ("/players/bob/", "bob") in links_of(response)
    text = text_of(response)
    assert "Leaderboard: Crazy Eights" in text
    assert f"± {skill.deviation(4.0)}" in text
    assert "Players (3)" in text


def test_the_leaderboard_says_who_is_listed_with_the_numbers_in_force(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 10
    settings.FAIRDEAL_RATING_MAX_SIGMA = 6.5
    settings.FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = 30
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 5

    text = text_of(Client().get(BOARD))

    assert (
        "Listed here: players with at least 10 rated games of Crazy Eights, an uncertainty"
        " under ±312 (sigma 6.5), rated games against at least 5 different established"
        " opponents (each with 10 rated games or more), and a rated game of it in the last"
        " 30 days, who have not asked to stay off the leaderboards. A win counts as much as"
        " the opponent is known: over a newcomer, a tenth." in text
    )
    assert "Nobody is listed yet" in text


def test_provisional_opted_out_and_resting_players_are_not_listed(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 3
    listed, newcomer, uncertain, lonely, shy, resting = make_users(
        "listed", "newcomer", "uncertain", "lonely", "shy", "resting"
    )
    stack(listed)
    stack(newcomer, mu=40.0, games=1)  # past the others by far, but one game is not enough
    stack(uncertain, mu=40.0, sigma=9.5)
    stack(lonely, mu=40.0, opponents=2)
    stack(shy, mu=40.0)
    Profile.objects.create(user=shy, on_leaderboards=False)
    stack(resting, mu=40.0)
    Rating.objects.filter(player=resting).update(
        last_played_at=timezone.now() - timedelta(days=100)
    )
    boards.reckon_all()

    response = Client().get(BOARD)

    assert [name for _, name, _ in board_rows(response)] == ["listed"]
    standings = {
        user.username: text_of(Client().get(f"/players/{user.username}/"))
        for user in (newcomer, uncertain, lonely, shy, resting)
    }
    assert "Provisional: listed after 1 more rated game." in standings["newcomer"]
    assert "Provisional: listed once the uncertainty is under ±432." in standings["uncertain"]
    assert (
        "Provisional: listed after rated games against 1 more established opponent."
        in standings["lonely"]
    )
    assert "Not listed: this player asked to stay off the leaderboards." in standings["shy"]
    assert "Resting: listed again after a rated game" in standings["resting"]


def test_the_leaderboard_comes_a_page_at_a_time_with_ranks_running_on() -> None:
    users = make_users(*(f"player{n:02d}" for n in range(53)))
    for n, user in enumerate(users):
        stack(user, mu=60.0 - n / 2)

    first = Client().get(BOARD)
    second = Client().get(f"{BOARD}?page=2")

    assert [rank for rank, _, _ in board_rows(first)] == list(range(1, 51))
    assert board_rows(second) == [
        (rank, f"player{rank - 1:02d}", shown_a_day_on(60.0 - (rank - 1) / 2))
        for rank in (51, 52, 53)
    ]
    assert ("?page=2", "Next page") in links_of(first)
    assert ("?page=1", "Previous page") in links_of(second)
    assert "Page 2 of 2" in text_of(second)


@pytest.mark.parametrize(
    "query, words",
    [
        ("page=0", "The page is a whole number, 1 or more."),
        ("page=-1", "The page is a whole number, 1 or more."),
        ("page=abc", "The page is a whole number, 1 or more."),
        ("page=1.5", "The page is a whole number, 1 or more."),
        ("page=2", "There are 1 pages of this leaderboard; page 2 is past the last."),
        ("page=" + "9" * 40, "past the last"),
        ("page=%00", "The page is a whole number, 1 or more."),
    ],
)
def test_a_page_that_is_not_one_is_a_message_over_the_first(query: str, words: str) -> None:
    stack(make_users("alice")[0])

    response = Client().get(f"{BOARD}?{query}")

    assert response.status_code == 400
    assert words in text_of(response)
    assert [name for _, name, _ in board_rows(response)] == ["alice"]


@pytest.mark.parametrize(
    "path",
    ["/leaderboard/chess/", "/leaderboard/CRAZY-EIGHTS/", "/leaderboard/" + "x" * 300 + "/"],
    ids=["another game", "another case", "very long"],
)
def test_a_game_we_do_not_have_is_a_404_page_in_words(path: str) -> None:
    response = Client().get(path)

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    text = text_of(response)
    assert "No such leaderboard" in text and "so it has no leaderboard" in text
    assert (f"/leaderboard/{GAME}/", "Crazy Eights") in links_of(response)


def test_the_leaderboards_address_leads_to_the_first_game() -> None:
    response = Client().get("/leaderboard/")

    assert response.status_code == 302 and response["Location"] == BOARD


def test_a_signed_in_player_sees_where_they_stand_and_their_row_marked(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, newcomer = make_users("alice", "bob", "newcomer")
    stack(alice, mu=30.0)
    stack(bob, mu=28.0)
    stack(newcomer, games=1)

    client = signed_in(bob)
    with django_assert_max_num_queries(BOARD_SIGNED_IN_QUERIES):
        response = client.get(BOARD)

    text = text_of(response)
    shown = shown_a_day_on(28.0)
    assert f"Your Crazy Eights rating is {shown} ± 192 after 20 rated games." in text
    assert ("?page=1#rank-2", "number 2") in links_of(response)
    assert '<tr id="rank-2" class="you">' in response.content.decode()
    assert "Provisional: listed after 1 more rated game." in text_of(signed_in(newcomer).get(BOARD))


def test_the_leaderboard_and_a_players_page_meet_the_content_security_policy() -> None:
    alice, bob = make_users("alice", "bob")
    rated_history([alice, bob], 2)

    board = assert_meets_the_policy(Client().get(BOARD))
    page = assert_meets_the_policy(Client().get("/players/alice/"))

    assert (
        board.stylesheets
        == page.stylesheets
        == [
            "/static/fairdeal/site.css",
            "/static/fairdeal/lobby.css",
        ]
    )
    assert board.scripts == page.scripts == []


# -- a player's page ----------------------------------------------------------------------


def test_a_players_page_shows_each_rating_its_rank_and_a_chart_point_for_every_change(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    rated_history([alice, bob], 3)  # bob resigns each time
    friendly = finished_table(alice, bob, rated=False)

    with django_assert_max_num_queries(PLAYER_QUERIES):
        response = Client().get("/players/alice/")

    assert response.status_code == 200
    html = response.content.decode()
    text = text_of(response)
    api = body(client_for().get("/api/players/alice/"))
    (rating,) = api["ratings"]
    assert rating["rank"] == 1
    assert f"Crazy Eights {rating['rating']} ± {rating['deviation']} 3 " in text
    assert (f"/leaderboard/{GAME}/?page=1#rank-1", "number 1") in links_of(response)

    # The chart: a labelled image, a line through the start and a point per rating change.
    (svg,) = re.findall(r"<svg .*?</svg>", html, re.S)
    assert 'role="img"' in svg
    assert 'aria-labelledby="history-crazy-eights-title history-crazy-eights-desc"' in svg
    assert '<title id="history-crazy-eights-title">alice\'s Crazy Eights rating, game by game' in (
        svg.replace("&#x27;", "'")
    )
    changes = list(RatingChange.objects.filter(player=alice).order_by("finished_at"))
    assert len(changes) == 3
    assert svg.count('<circle class="change"') == len(changes)
    (line,) = re.findall(r'<polyline class="line" points="([^"]+)"', svg)
    assert len(line.split()) == len(changes) + 1
    # Its words and its table say the same, for those who do not see it.
    afters = [skill.shown(skill.Skill(c.mu_after, c.sigma_after)) for c in changes]
    assert f"From 1000 to {afters[-1]} over 3 rated games" in text
    table = html[html.index('<table class="list history">') :]
    table = table[: table.index("</table>")]
    assert table.count("<tr>") == 1 + len(changes)  # the head and a row per change
    for after in afters:
        assert f">{after} ± " in table

    # The recent games: the friendly one first, each linked to its table and replay.
    links = links_of(response)
    assert (f"/tables/{friendly.pk}/replay/", f"Replay table {friendly.pk}") in links
    assert (f"/tables/{friendly.pk}/", f"Crazy Eights, table {friendly.pk}") in links
    assert ("/players/bob/", "bob") in links
    assert "not rated" in text
    assert f"1000 → {afters[0]} (+{afters[0] - 1000})" in text


def test_a_players_page_gives_their_rank_on_each_leaderboard_in_one_query(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    for user, eights, dodo in ((alice, 30.0, 20.0), (bob, 28.0, 30.0), (carol, 26.0, 25.0)):
        stack(user, mu=eights)
        stack(user, mu=dodo, game="dodo")
    stack(bob, mu=40.0, games=1, game="crazy-8")  # provisional: no rank

    with django_assert_max_num_queries(PLAYER_QUERIES):
        response = Client().get("/players/bob/")

    links = links_of(response)
    assert (f"/leaderboard/{GAME}/?page=1#rank-2", "number 2") in links
    assert ("/leaderboard/dodo/?page=1#rank-1", "number 1") in links
    assert "Provisional: listed after 1 more rated game." in text_of(response)
    ranks = {r["game"]: r["rank"] for r in body(client_for().get("/api/players/bob/"))["ratings"]}
    assert ranks == {"crazy-8": None, GAME: 2, "dodo": 1}


def test_a_long_history_is_drawn_for_its_last_games_with_a_point_for_each(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("leaderboard.selectors.HISTORY", 4)
    alice, bob = make_users("alice", "bob")
    rated_history([alice, bob], 6)

    response = Client().get("/players/bob/")

    html = response.content.decode()
    assert html.count('<circle class="change"') == 4
    assert "the last 4 of 6 rated games" in text_of(response)
    assert [int(n) for n in re.findall(r'<td data-label="Game">(\d+)</td>', html)] == [6, 5, 4, 3]


def test_a_player_is_found_in_any_case() -> None:
    make_users("Alice")

    response = Client().get("/players/aLICE/")

    assert response.status_code == 200
    assert "<h1>Alice</h1>" in response.content.decode()
    assert "No rated game yet." in text_of(response)


@pytest.mark.parametrize("name", ["nobody", "a%00b", "x" * 300, "bot%201"])
def test_an_unknown_player_is_a_404_page_in_words(name: str) -> None:
    response = Client().get(f"/players/{name}/")

    assert response.status_code == 404
    assert "No such player" in text_of(response)


def test_a_deactivated_account_has_no_page_as_in_the_api() -> None:
    alice, bob = make_users("alice", "bob")
    rated_history([alice, bob], 2)
    alice.is_active = False
    alice.save(update_fields=["is_active"])

    assert Client().get("/players/alice/").status_code == 404
    assert client_for().get("/api/players/alice/").status_code == 404
    assert "alice" not in text_of(Client().get(BOARD))


def test_an_opted_out_player_shows_ratings_without_a_rank() -> None:
    alice, bob = make_users("alice", "bob")
    rated_history([alice, bob], 2)
    Profile.objects.create(user=alice, on_leaderboards=False)

    response = Client().get("/players/alice/")

    text = text_of(response)
    assert "alice asked to stay off the leaderboards" in text
    rating = Rating.objects.get(player=alice)
    assert str(skill.shown(skill.Skill(rating.mu, rating.sigma))) in text
    assert not [link for link, _ in links_of(response) if "#rank-" in link]
    assert [name for _, name, _ in board_rows(Client().get(BOARD))] == ["bob"]


def test_your_own_page_says_so_and_leads_to_the_settings() -> None:
    (alice,) = make_users("alice")

    response = signed_in(alice).get("/players/alice/")

    assert "This is your page as everyone sees it" in text_of(response)
    assert (SETTINGS, "your settings") in links_of(response)


# -- the setting, and the links to players' pages -------------------------------------------


def test_the_settings_checkbox_takes_a_player_off_the_leaderboards_and_back() -> None:
    alice, bob = make_users("alice", "bob")
    stack(alice)
    stack(bob)
    client = signed_in(alice)
    page = client.get(SETTINGS).content.decode()
    assert re.search(r'<input type="checkbox" name="on_leaderboards"[^>]* checked', page)
    assert "List me on the leaderboards" in page
    assert not Profile.objects.filter(user=alice).exists()  # reading makes no row

    off = client.post("/accounts/settings/leaderboards/", {})

    assert off.status_code == 302
    assert "The leaderboards leave you off" in messages_of(off)[0]
    assert Profile.objects.get(user=alice).on_leaderboards is False
    assert body(client_for(alice).get("/api/accounts/me/"))["on_leaderboards"] is False
    assert [name for _, name, _ in board_rows(Client().get(BOARD))] == ["bob"]
    page = client.get(SETTINGS).content.decode()
    assert not re.search(r'<input type="checkbox" name="on_leaderboards"[^>]* checked', page)

    client.post("/accounts/settings/leaderboards/", {"on_leaderboards": "on"})

    assert Profile.objects.get(user=alice).on_leaderboards is True
    assert sorted(name for _, name, _ in board_rows(Client().get(BOARD))) == ["alice", "bob"]


def test_the_leaderboards_setting_is_posted_or_nothing() -> None:
    (alice,) = make_users("alice")

    assert signed_in(alice).get("/accounts/settings/leaderboards/").status_code == 302
    response = Client().post("/accounts/settings/leaderboards/", {})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Profile.objects.exists()


def test_the_navigation_leads_to_the_leaderboards() -> None:
    assert ("/leaderboard/", "Leaderboards") in links_of(Client().get("/lobby/"))


def test_a_finished_games_places_and_seats_link_to_the_players_pages() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)

    links = links_of(Client().get(f"/tables/{table.pk}/"))

    # The places, once each (at the end the seats give way to the places).
    assert links.count(("/players/alice/", "alice")) == 1
    assert links.count(("/players/bob/", "bob")) == 1
    playing = started_table(*make_users("carol", "dan"))
    links = links_of(Client().get(f"/tables/{playing.pk}/"))
    assert ("/players/carol/", "carol") in links and ("/players/dan/", "dan") in links  # the seats


def test_the_lobby_links_the_host_and_the_players_but_not_a_bot() -> None:
    (alice,) = make_users("alice")
    open_table(alice, seats=3, bots=[{"seat": 2, "level": "normal"}])

    response = Client().get("/lobby/")

    links = links_of(response)
    assert links.count(("/players/alice/", "alice")) == 2  # a player, and the host
    assert not [link for link, _ in links if link.startswith("/players/bot")]
    assert "2 of 3 taken: alice, bot 2 (normal)" in text_of(response)
