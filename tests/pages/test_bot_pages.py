"""Bots through the pages: the new-table form, the lobby's game against the computer, the labels."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Seat, Table
from tests.factories import make_users
from tests.pages.test_lobby_pages import NEW, browser, new_table_form, said, table_page, text_of

pytestmark = pytest.mark.django_db

COMPUTER = reverse("table-vs-computer")
LOBBY = reverse("lobby")


def computer_form(client: Any, **fields: str) -> dict[str, str]:
    page = client.get(LOBBY).content.decode()
    form = page[page.index('class="vs-computer"') :]
    once = re.search(r'name="once" value="([^"]+)"', form)
    assert once, "the lobby's form carries a one-time token"
    return {"play": "crazy-8:short", "level": "normal", "once": once.group(1), **fields}


def test_the_new_table_form_seats_bots_in_the_last_seats_and_starts_when_they_fill_it() -> None:
    (ann,) = make_users("ann")
    client = browser(ann)

    response = client.post(
        NEW, new_table_form(client, game="crazy-8", bots="1", bot_level="strong")
    )

    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == table_page(table.pk)
    assert table.status == "playing"
    assert list(table.seats.values_list("number", "is_bot", "bot_level")) == [
        (0, False, ""),
        (1, True, "strong"),
    ]
    assert any("has started" in message for message in said(response))
    page = text_of(client.get(table_page(table.pk)))
    assert "bot 1 strong bot" in page


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"bots": "1"}, "Crazy Eights has no bots at a table of 2"),
        ({"game": "dodo", "bots": "1", "rated": "on"}, "A table with a bot is never rated"),
        ({"game": "dodo", "bots": "2"}, "Seat 0 is yours"),
        ({"game": "dodo", "bots": "-1"}, "Choose the number of computer players from the list."),
        ({"game": "dodo", "bot_level": "genius"}, "Choose how the computer plays from the list."),
        ({"game": "dodo", "bot_fill": "5"}, "Choose a wait from the list."),
        ({"game": "dodo", "bots": "1", "bot_fill": "3600"}, "nothing for bots to fill"),
    ],
)
def test_bots_where_they_cannot_sit_are_refused_in_words(fields: dict, words: str) -> None:
    (ann,) = make_users("ann")
    client = browser(ann)

    response = client.post(NEW, new_table_form(client, **fields))

    assert response.status_code == 400
    assert words in text_of(response)
    assert not Table.objects.exists()


def test_a_host_can_have_bots_take_the_seats_nobody_took() -> None:
    ann, bob = make_users("ann", "bob")
    client = browser(ann)

    client.post(NEW, new_table_form(client, seats="4", bot_fill="3600", bot_level="easy"))

    table = Table.objects.get()
    assert table.status == "open" and table.bot_fill_level == "easy"
    assert abs(table.bot_fill_at - (table.created_at + timedelta(hours=1))) < timedelta(seconds=5)
    page = text_of(browser(bob).get(table_page(table.pk)))
    assert "are taken by easy bots, and the game starts" in page
    services.fill_with_bots(now=timezone.now() + timedelta(hours=1, seconds=1))
    assert "bot 3 easy bot" in text_of(browser(bob).get(table_page(table.pk)))


def test_the_lobby_starts_a_game_against_the_computer_in_one_click() -> None:
    (ann,) = make_users("ann")
    client = browser(ann)
    data = computer_form(client, play="dodo:full", level="strong")

    response = client.post(COMPUTER, data)
    again = client.post(COMPUTER, data)  # a double click

    table = Table.objects.get()
    assert response["Location"] == table_page(table.pk)
    assert again["Location"] == reverse("my-tables")
    assert (table.game, table.status, table.rated) == ("dodo", "playing", False)
    assert Seat.objects.get(table=table, number=1).bot_level == "strong"
    assert any("against the computer (strong)" in message for message in said(response))


def test_the_lobby_offers_every_game_against_the_computer_and_refuses_anything_else() -> None:
    (ann,) = make_users("ann")
    client = browser(ann)
    page = client.get(LOBBY).content.decode()
    form = page[
        page.index('class="vs-computer"') : page.index("</form>", page.index("vs-computer"))
    ]
    for game in ("crazy-eights", "crazy-8", "dodo", "dingo", "dos"):
        assert f'name="play" value="{game}:short"' in form
        assert f'name="play" value="{game}:full"' in form

    for play in ("poker:short", "dodo:longest", "dodo"):
        refused = client.post(COMPUTER, computer_form(client, play=play))
        assert refused["Location"] == LOBBY
        assert "Choose a game and how long a match with one of the buttons." in said(refused)[-1]
    assert not Table.objects.exists()
    assert "Play the computer" not in browser().get(LOBBY).content.decode()


def test_the_lobby_and_my_tables_name_the_bots() -> None:
    ann, bob = make_users("ann", "bob")
    services.table_create(
        user=ann, game="dodo", seats=3, deadline=3600, bots=[{"seat": 2, "level": "strong"}]
    )

    assert "bot 2 (strong)" in text_of(browser(bob).get(LOBBY))
    assert "bot 2 (strong)" in text_of(browser(ann).get(reverse("my-tables")))
