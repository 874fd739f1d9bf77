"""Quick play: every game against the computer in one click, short or full, from the home
page and the lobby; and "play again" from a finished table, with the same settings."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from games import services
from games.catalogue import GAMES, Game, find_game
from games.catalogue.registry import Format, register, unregister
from games.forms import BOT_LEVEL_WORDS
from games.models import Seat, Table
from tests.factories import finished_table, make_users, open_table, started_table
from tests.games.test_toy_game import toy  # noqa: F401 (the fixture)
from tests.pages.test_lobby_pages import MINE, browser, said, table_page, text_of
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

COMPUTER = reverse("table-vs-computer")
HOME = "/"
LOBBY = reverse("lobby")
FORMATS = [(game.id, format.key) for game in GAMES.values() for format in game.formats]


def again_url(table_id: int) -> str:
    return reverse("table-again", args=[table_id])


def quick_form(client: Any, page: str, play: str, **fields: str) -> dict[str, str]:
    """What a browser sends when ``play``'s button is pressed on ``page`` (its token)."""
    html = client.get(page).content.decode()
    form = html[html.index('class="vs-computer"') :]
    once = re.search(r'name="once" value="([^"]+)"', form)
    assert once, "the form carries a one-time token"
    return {"play": play, "level": "normal", "entropy": "", "once": once.group(1), **fields}


# -- play the computer -------------------------------------------------------------------


def test_each_game_has_a_short_format_first_and_the_full_match() -> None:
    assert set(GAMES) == {"crazy-eights", "crazy-8", "dodo", "dingo", "dos"}
    for game in GAMES.values():
        assert [format.key for format in game.formats] == ["short", "full"]
        short = game.ruleset.validate(game.quick_seats, game.formats[0].options)
        full = game.ruleset.validate(game.quick_seats, game.formats[1].options)
        assert short != full, game.id


def test_the_seats_against_the_computer_are_the_fewest_at_which_bots_sit() -> None:
    seats = {game.id: game.quick_seats for game in GAMES.values()}
    assert seats == {"crazy-eights": 3, "crazy-8": 2, "dodo": 2, "dingo": 4, "dos": 2}


def test_a_format_the_rules_refuse_cannot_be_registered() -> None:
    crazy_8 = find_game("crazy-8")
    unregister("crazy-8")
    try:
        for formats, words in [
            ((Format("short", "One hand", {"target": -1}),), "must be at least 0"),
            ((Format("short", "One hand", {"hands": 1}),), "has no option 'hands'"),
            ((Format("full", "A"), Format("full", "B")), "each one once"),
            ((), "need keys"),
        ]:
            with pytest.raises(ValueError, match=words):
                register(Game(**{**crazy_8.__dict__, "formats": formats}))
    finally:
        register(crazy_8)


@pytest.mark.parametrize(("game", "key"), FORMATS)
@pytest.mark.parametrize("page", [HOME, LOBBY])
def test_one_click_starts_each_game_in_each_format_against_the_computer(
    game: str, key: str, page: str
) -> None:
    (ann,) = make_users("ann")
    client = browser(ann)
    entry = find_game(game)
    format = entry.find_format(key)
    assert format is not None

    response = client.post(COMPUTER, quick_form(client, page, f"{game}:{key}", level="strong"))

    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == table_page(table.pk)
    assert (table.game, table.status, table.rated) == (game, "playing", False)
    assert table.seat_count == entry.quick_seats
    assert table.options == entry.ruleset.validate(entry.quick_seats, format.options)
    seats = list(
        table.seats.order_by("number").values_list("user__username", "is_bot", "bot_level")
    )
    assert seats == [("ann", False, "")] + [(None, True, "strong")] * (entry.quick_seats - 1)
    (message,) = said(response)
    how = format.name[0].lower() + format.name[1:]
    assert f"{entry.ruleset.name}, {how}, against the computer (strong)" in message
    assert table.commitment in message
    # The player lands at the table, seated, with a move to make or on its way.
    assert "Resign" in text_of(client.get(response["Location"]))


def test_the_short_formats_are_one_hand_or_one_round_where_the_rules_allow_it() -> None:
    short = {game.id: dict(game.formats[0].options) for game in GAMES.values()}
    assert short == {
        "crazy-eights": {"one_hand": True},
        "crazy-8": {"target": 0},
        "dodo": {"one_hand": True},
        "dingo": {},  # the rulebook's match is one deal
        "dos": {"target": 0},
    }


@pytest.mark.parametrize(("key", "words"), [("short", "a single hand"), ("full", "ends at 200")])
def test_dodo_s_short_game_is_one_hand_under_dodo_3(key: str, words: str) -> None:
    (ann,) = make_users("ann")
    client = browser(ann)
    response = client.post(COMPUTER, quick_form(client, HOME, f"dodo:{key}"))
    table = Table.objects.get()
    assert (table.ruleset_version, table.options["one_hand"]) == ("dodo/3", key == "short")
    assert table.options["target"] == 200
    assert words in text_of(client.get(response["Location"]))


def test_the_home_page_and_the_lobby_offer_every_game_short_and_full() -> None:
    (ann,) = make_users("ann")
    client = browser(ann)
    for page in (HOME, LOBBY):
        response = client.get(page)
        assert_meets_the_policy(response)
        html = response.content.decode()
        for game in GAMES.values():
            for format in game.formats:
                button = (
                    f'name="play" value="{game.id}:{format.key}"[^>]*>'
                    f'<span class="visually-hidden">{game.ruleset.name}: </span>{format.name}<'
                )
                assert re.search(button, html), (page, game.id, format.key)
        assert 'name="csrfmiddlewaretoken"' in html and "data-entropy" in html
        text = text_of(response)
        assert "Dingo you and three bots" in text and "Crazy Eights you and two bots" in text
    home = client.get(HOME).content.decode()
    assert "/static/fairdeal/entropy.js" in home


def test_a_visitor_is_offered_no_game_against_the_computer() -> None:
    for page in (HOME, LOBBY):
        assert 'class="vs-computer"' not in browser().get(page).content.decode()
    response = browser().post(COMPUTER, {"play": "crazy-8:short", "once": "x"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login-page"))
    assert not Table.objects.exists()


def test_a_double_click_on_a_quick_play_makes_one_table() -> None:
    (ann,) = make_users("ann")
    client = browser(ann)
    data = quick_form(client, HOME, "dos:short")
    first, second = client.post(COMPUTER, data), client.post(COMPUTER, data)
    assert first["Location"] == table_page(Table.objects.get().pk)
    assert second["Location"] == MINE


def test_a_level_the_game_has_no_bot_for_is_refused_in_words(toy: Game) -> None:  # noqa: F811
    (ann,) = make_users("ann")
    client = browser(ann)
    assert [format.key for format in toy.formats] == ["full"]  # its preset, named by none

    refused = client.post(COMPUTER, quick_form(client, LOBBY, "toy:full", level="strong"))
    assert refused["Location"] == LOBBY
    assert "At Toy the computer plays easy only." in said(refused)[-1]
    assert not Table.objects.exists()

    made = client.post(COMPUTER, quick_form(client, LOBBY, "toy:full", level="easy"))
    table = Table.objects.get()
    assert made["Location"] == table_page(table.pk)
    assert (table.game, table.seat_count, table.status) == ("toy", 2, "playing")


def test_a_quick_play_the_service_refuses_changes_nothing_and_says_why(settings: Any) -> None:
    settings.FAIRDEAL_MAX_BOT_TABLES = 0
    (ann,) = make_users("ann")
    client = browser(ann)
    refused = client.post(COMPUTER, quick_form(client, LOBBY, "dingo:full"))
    assert refused["Location"] == LOBBY
    assert "No table was made: You already have 0 games with bots going" in said(refused)[-1]
    assert not Table.objects.exists()


# -- the new-table form without scripts --------------------------------------------------


def test_the_new_table_form_carries_what_each_game_takes_for_its_script() -> None:
    (ann,) = make_users("ann")
    html = browser(ann).get(reverse("table-new"), {"game": "dingo"}).content.decode()
    for game in GAMES.values():
        ruleset = game.ruleset
        assert (
            f'<option value="{game.id}"{" selected" if game.id == "dingo" else ""}'
            f' data-min-seats="{ruleset.min_seats}" data-max-seats="{ruleset.max_seats}"'
            f' data-bots-from-seats="{game.quick_seats}"'
            f' data-bot-levels="{" ".join(game.bot_levels)}">'
        ) in html
    # The link's game comes with a number of seats it is played by.
    assert '<option value="4" selected>4</option>' in html
    assert re.search(r'<select name="bots"[^>]*>\s*<option value="0" selected>0</option>', html)


# -- play again ------------------------------------------------------------------------------


def test_play_again_makes_a_table_like_the_finished_one_with_the_same_bots() -> None:
    (ann,) = make_users("ann")
    old = services.table_create(
        user=ann,
        game="dingo",
        seats=4,
        deadline=3600,
        options={"deals": 4, "target": 150},
        bots=[
            {"seat": 1, "level": "easy"},
            {"seat": 2, "level": "strong"},
            {"seat": 3, "level": "normal"},
        ],
    )
    services.table_resign(table_id=old.pk, user=ann)
    client = browser(ann)

    response = client.post(again_url(old.pk), {"entropy": "ab" * 32})

    new = Table.objects.exclude(pk=old.pk).get()
    assert response.status_code == 302 and response["Location"] == table_page(new.pk)
    assert (new.game, new.options, new.seat_count, new.deadline_seconds, new.rated) == (
        "dingo",
        old.options,
        4,
        3600,
        False,
    )
    assert new.status == "playing"
    assert list(new.seats.order_by("number").values_list("user__username", "bot_level")) == [
        ("ann", ""),
        (None, "easy"),
        (None, "strong"),
        (None, "normal"),
    ]
    assert new.commitment != old.commitment and new.server_seed != old.server_seed
    (message,) = said(response)
    assert f"Table {new.pk} has started: Dingo again, as at table {old.pk}" in message
    assert new.commitment in message and "their receipt is" in message


def test_play_again_at_a_table_of_people_offers_them_a_rematch_rated_as_before() -> None:
    ann, bob = make_users("ann", "bob")
    old = finished_table(ann, bob, game="dodo", options={"target": 100, "no_chains": True})
    assert old.rated

    response = browser(bob).post(again_url(old.pk))

    new = Table.objects.exclude(pk=old.pk).get()
    assert response["Location"] == table_page(new.pk)
    assert (new.status, new.rated, new.game, new.options) == ("open", True, "dodo", old.options)
    # Everybody in the seat they had: bob's taken, ann's kept for her until she accepts.
    seats = new.seats.order_by("number")
    assert [(seat.user.username, seat.joined_at is None) for seat in seats] == [
        ("ann", True),
        ("bob", False),
    ]
    assert "is offered: the cards are dealt when the other player has accepted" in said(response)[0]


def test_play_again_sent_twice_leads_to_the_table_it_made() -> None:
    (ann,) = make_users("ann")
    old = started_table(ann, *make_users("bob"), game="crazy-8")
    services.table_resign(table_id=old.pk, user=ann)
    client = browser(ann)

    first, second = client.post(again_url(old.pk)), client.post(again_url(old.pk))

    new = Table.objects.exclude(pk=old.pk).get()
    assert first["Location"] == second["Location"] == table_page(new.pk)
    assert f"You already started table {new.pk} from this one." in said(second)


def test_play_again_is_only_for_the_players_of_a_finished_table() -> None:
    ann, bob, cat = make_users("ann", "bob", "cat")
    finished = finished_table(ann, bob)
    playing = started_table(ann, bob)
    waiting = open_table(ann)
    cases = [
        (cat, finished, "only the players who sat at this table may play again from it"),
        (ann, playing, "its game is not over: play again from it once it is"),
        (ann, waiting, "its game is not over"),
    ]
    for user, table, words in cases:
        response = browser(user).post(again_url(table.pk))
        assert response.status_code == 302 and response["Location"] == table_page(table.pk)
        (message,) = said(response)
        assert f"No new table was made from table {table.pk}: " in message
        assert words in message.lower()
    assert Table.objects.count() == 3
    # Refused once, the same player may play again once the table is finished.
    services.table_resign(table_id=playing.pk, user=bob)
    assert browser(ann).post(again_url(playing.pk))["Location"] != table_page(playing.pk)
    assert Table.objects.count() == 4


def test_play_again_refuses_a_visitor_a_get_an_unknown_table_and_a_missing_csrf_token() -> None:
    ann, bob = make_users("ann", "bob")
    old = finished_table(ann, bob)

    visitor = browser().post(again_url(old.pk))
    assert visitor["Location"].startswith(reverse("login-page"))
    assert browser(ann).get(again_url(old.pk)).status_code == 405
    unknown = browser(ann).post(again_url(old.pk + 100))
    assert unknown["Location"] == MINE
    assert f"There is no table {old.pk + 100}." in said(unknown)[0]
    assert browser(ann, enforce_csrf_checks=True).post(again_url(old.pk)).status_code == 403
    assert Table.objects.count() == 1
    assert Seat.objects.filter(table=old).count() == 2


def test_each_level_of_the_computer_is_said_in_words_a_phones_select_shows_whole() -> None:
    """A select shows its chosen option on one line: at 360 px about 32 characters of it
    (the audit's screenshot cut 'Normal: follows the rulebook's ad…')."""
    assert all(len(words) <= 32 for words in BOT_LEVEL_WORDS.values()), BOT_LEVEL_WORDS
