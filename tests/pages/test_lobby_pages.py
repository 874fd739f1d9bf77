"""The lobby, a new table, joining one, and my tables: the pages over the same services as the API."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from fairplay.models import Contribution
from fairplay.record import receipt as receipt_of
from games import services
from games.catalogue import RULESETS, find_ruleset
from games.forms import deadline_words, sentence
from games.models import Seat, Table
from games.rules.chance import SEED_BYTES, SeededChance, game_seed
from tests.factories import GAME, make_users, open_table, set_deadline, started_table
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

LOBBY = reverse("lobby")
NEW = reverse("table-new")
MINE = reverse("my-tables")
ENTROPY = "5e" * 32


def join_url(table_id: int) -> str:
    return reverse("table-join-page", args=[table_id])


def table_page(table_id: int) -> str:
    return reverse("table-page", args=[table_id])


def browser(user: Any | None = None, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    if user is not None:
        client.force_login(user)
    return client


def text_of(response: Any) -> str:
    """The page's text with its tags and runs of white space collapsed, to read like a person
    (a link's end is no space before the comma after it)."""
    html = response.content.decode()
    return unescape(re.sub(r"\s+", " ", re.sub(r"</a>", "", re.sub(r"<(?!/a>)[^>]+>", " ", html))))


def said(response: Any) -> list[str]:
    """The messages a redirect queued for the next page."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def new_table_form(client: Client, **fields: Any) -> dict[str, Any]:
    """The fields of the new-table form as a browser sends them: its one-time token and
    defaults, then ``fields`` over them (an option as ``{"crazy-8-aces": "skip"}``)."""
    page = client.get(NEW)
    assert page.status_code == 200
    once = re.search(r'name="once" value="([^"]+)"', page.content.decode())
    assert once, "the form carries a one-time token"
    data = {"game": "crazy-eights", "seats": "2", "deadline": "86400", "once": once.group(1)}
    # Every game's options at their defaults, as a browser without scripts sends them.
    for ruleset in RULESETS.values():
        for option in ruleset.options:
            if option.type != "bool":
                data[f"{ruleset.id}-{option.name}"] = str(option.default)
            elif option.default:
                data[f"{ruleset.id}-{option.name}"] = "on"
    data.update({key.replace("__", "-"): value for key, value in fields.items()})
    return data


SEED = b"waiting"


def first_to_act(game: str = GAME, seed: bytes = SEED) -> int:
    """The seat that owes the first move of a two-seat table started from ``seed``."""
    ruleset = find_ruleset(game)
    chance = SeededChance(game_seed(seed.ljust(SEED_BYTES, b"."), []))
    state, _ = ruleset.new_game(2, {}, chance)
    (seat,) = state.to_act
    return seat


def waiting_on(user: Any, other: Any, *, due_in: timedelta) -> Table:
    """A started table whose move is ``user``'s, due in ``due_in``."""
    players = (user, other) if first_to_act() == 0 else (other, user)
    table = started_table(*players, seed=SEED)
    seat = Seat.objects.get(table=table, user=user)
    assert seat.number in table.to_act
    set_deadline(table, timezone.now() + due_in, [seat.number])
    return table


def waiting_on_the_other(user: Any, other: Any) -> Table:
    """A started table whose move is ``other``'s."""
    players = (other, user) if first_to_act() == 0 else (user, other)
    table = started_table(*players, seed=SEED)
    assert Seat.objects.get(table=table, user=user).number not in table.to_act
    return table


@pytest.fixture
def many_open_tables(settings: Any) -> None:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 100


# -- words -----------------------------------------------------------------------------


def test_deadlines_are_said_in_words() -> None:
    assert deadline_words(60) == "1 minute"
    assert deadline_words(7200) == "2 hours"
    assert deadline_words(86400) == "1 day"
    assert deadline_words(7 * 86400) == "7 days"
    assert deadline_words(5400) == "1 hour 30 minutes"


def test_a_sentence_keeps_the_case_of_an_option_name_that_starts_it() -> None:
    assert sentence("twos_stack needs twos_draw_two") == "twos_stack needs twos_draw_two."
    assert sentence("every seat is taken") == "Every seat is taken."


# -- the home page --------------------------------------------------------------------


def test_the_home_page_points_to_the_lobby_signup_and_the_games() -> None:
    response = browser().get("/")
    assert_meets_the_policy(response)
    html = response.content.decode()
    assert f'href="{LOBBY}"' in html
    assert f'href="{reverse("signup")}"' in html
    assert f'href="{LOBBY}?game=dodo"' in html
    for name in ("Crazy Eights", "Crazy 8", "Dodo"):
        assert name in html
    assert "on their way" not in html
    # Each game's players as its rules count them: a range, or the one number Dingo takes.
    assert "<code>dodo</code>), 2–8 players," in html
    assert "<code>dingo</code>), 4 players," in html


def test_the_home_page_offers_a_signed_in_player_a_new_table_of_each_game() -> None:
    (alice,) = make_users("alice")
    html = browser(alice).get("/").content.decode()
    assert f'href="{NEW}?game=crazy-8"' in html
    assert f'href="{MINE}"' in html


# -- the lobby -------------------------------------------------------------------------


def test_the_lobby_shows_each_open_table_game_seats_deadline_rules_and_host() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3, deadline=7200)
    services.table_join(table_id=table.pk, user=bob)
    response = browser().get(LOBBY)
    assert_meets_the_policy(response)
    text = text_of(response)
    assert "Crazy Eights" in text
    assert "2 of 3 taken: alice, bob" in text
    assert "2 hours a move" in text
    assert "the rulebook's rules" in text
    assert "Open tables (1)" in text
    assert f'href="{table_page(table.pk)}"' in response.content.decode()


def test_the_lobby_says_in_words_the_options_that_differ_from_the_preset() -> None:
    (alice,) = make_users("alice")
    open_table(alice, game="crazy-8", options={"twos_draw_two": True, "draw_rule": "one"})
    text = text_of(browser().get(LOBBY))
    assert "Twos draw two: on" in text
    assert "A two makes the next player draw two cards and lose the turn." in text
    assert "Draw rule: one" in text
    # Options left at their default are not listed.
    assert "Queens skip" not in text
    assert "the rulebook's rules" not in text


def test_a_visitor_sees_the_lobby_with_a_login_link_instead_of_join() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice)
    html = browser().get(LOBBY).content.decode()
    assert join_url(table.pk) not in html
    assert f"{reverse('login-page')}?next=%2Flobby%2F" in html
    assert "Log in to join" in html


def test_a_player_gets_a_join_form_with_csrf_and_an_entropy_field() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    response = browser(bob).get(LOBBY)
    assert_meets_the_policy(response)
    html = response.content.decode()
    form = re.search(r'<form method="post" action="([^"]+)" data-entropy>(.*?)</form>', html, re.S)
    assert form and form.group(1) == join_url(table.pk)
    assert 'name="csrfmiddlewaretoken"' in form.group(2)
    assert '<input type="hidden" name="entropy" value="">' in form.group(2)
    assert "/static/fairdeal/entropy.js" in html


def test_the_lobby_leaves_out_the_players_own_tables() -> None:
    alice, bob = make_users("alice", "bob")
    open_table(alice)
    assert "No table is waiting for players just now." in text_of(browser(alice).get(LOBBY))
    assert "Open tables (1)" in text_of(browser(bob).get(LOBBY))


def test_the_lobby_filters_by_game() -> None:
    alice, bob = make_users("alice", "bob")
    open_table(alice, game="dodo")
    open_table(bob, game="crazy-eights")
    response = browser().get(LOBBY, {"game": "dodo"})
    html = response.content.decode()
    assert "Open tables (1)" in text_of(response)
    assert html.count('<tr id="table-') == 1
    assert re.search(r'<td data-label="Game"><a [^>]+>Dodo</a>', html)
    assert '<option value="dodo" selected>' in html


def test_the_lobby_filters_by_deadline() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    open_table(alice, deadline=3600)
    open_table(bob, deadline=86400)
    open_table(carol, deadline=7 * 86400)
    short = text_of(browser().get(LOBBY, {"deadline_max": "3600"}))
    assert "Open tables (1)" in short and "1 hour a move" in short
    long = text_of(browser().get(LOBBY, {"deadline_min": "86400"}))
    assert "Open tables (2)" in long
    assert "1 day a move" in long and "7 days a move" in long and "1 hour a move" not in long
    middle = text_of(browser().get(LOBBY, {"deadline_min": "3600", "deadline_max": "86400"}))
    assert "Open tables (2)" in middle and "7 days a move" not in middle


def test_a_filter_that_matches_nothing_says_so() -> None:
    (alice,) = make_users("alice")
    open_table(alice, game="dodo")
    text = text_of(browser().get(LOBBY, {"game": "crazy-8"}))
    assert "No open table matches these filters." in text


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"game": "poker"}, "There is no such game: choose one from the list."),
        ({"deadline_max": "12345"}, "Choose the longest deadline from the list."),
        ({"deadline_min": "soon"}, "Choose the shortest deadline from the list."),
        ({"deadline_min": "86400", "deadline_max": "3600"}, "The shortest deadline is longer"),
        ({"page": "first"}, "The page is a whole number, 1 or more."),
        ({"page": "0"}, "The page is a whole number, 1 or more."),
        ({"page": "99"}, "There are 1 pages of open tables; page 99 is past the last."),
    ],
)
def test_a_filter_that_is_not_understood_gets_a_message_not_an_error(
    query: dict[str, str], words: str
) -> None:
    (alice,) = make_users("alice")
    open_table(alice)
    response = browser().get(LOBBY, query)
    assert response.status_code == 400
    text = text_of(response)
    assert words in text
    # The rest of the lobby is still there, the bad filter left out.
    assert "Open tables (1)" in text


def test_an_unknown_game_leaves_the_other_filters_in_force() -> None:
    alice, bob = make_users("alice", "bob")
    open_table(alice, deadline=3600)
    open_table(bob, deadline=86400)
    text = text_of(browser().get(LOBBY, {"game": "poker", "deadline_max": "3600"}))
    assert "Open tables (1)" in text and "1 hour a move" in text


def test_the_lobby_comes_a_page_at_a_time(many_open_tables: None) -> None:
    hosts = make_users(*(f"host{n}" for n in range(26)))
    for host in hosts:
        open_table(host)
    first = browser().get(LOBBY, {"game": "crazy-eights"})
    assert "Page 1 of 2" in text_of(first)
    assert first.content.decode().count("1 day a move") == 25
    assert 'href="?game=crazy-eights&amp;page=2"' in first.content.decode()
    second = browser().get(LOBBY, {"game": "crazy-eights", "page": "2"})
    assert second.content.decode().count("1 day a move") == 1
    assert 'href="?game=crazy-eights&amp;page=1"' in second.content.decode()


def test_the_lobby_costs_as_many_queries_for_30_tables_as_for_1(
    many_open_tables: None, django_assert_max_num_queries: Any
) -> None:
    bob, *hosts = make_users("bob", *(f"host{n}" for n in range(30)))
    client = browser(bob)
    open_table(hosts[0])
    with CaptureQueriesContext(connection) as one:
        assert client.get(LOBBY).status_code == 200
    for host in hosts[1:]:
        open_table(host, game="crazy-8", options={"queens_skip": True})
    with django_assert_max_num_queries(len(one)), CaptureQueriesContext(connection) as thirty:
        response = client.get(LOBBY)
    assert "Open tables (30)" in text_of(response)
    assert len(thirty) == len(one)


# -- a new table -------------------------------------------------------------------------


def test_a_visitor_is_sent_to_log_in_before_opening_a_table() -> None:
    response = browser().get(NEW)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login-page"))


def test_the_new_table_form_offers_every_option_of_the_catalogue() -> None:
    (alice,) = make_users("alice")
    response = browser(alice).get(NEW)
    assert_meets_the_policy(response)
    html = response.content.decode()
    text = text_of(response)
    for legend in ("Crazy Eights", "Crazy 8", "Dodo"):
        assert f"<legend>{legend} " in html
    assert 'name="crazy-eights-one_hand"' in html
    assert "House rule: the match is a single hand" in text
    # Each option with its default and its one-line explanation.
    assert 'name="crazy-8-twos_stack"' in html
    assert "With twos_draw_two, a two may be answered with a two, passing on the sum." in text
    assert "Draw rule" in text and "until_playable: draw until a card plays" in text
    assert re.search(r'name="dodo-target" value="200"[^>]* min="50"[^>]* max="1000"', html)
    assert "the line: the deal that takes somebody's total over it is the last" in text.lower()
    assert "Default: 200." in text
    assert '<option value="until_playable" selected>until playable</option>' in html
    # Deadlines from a minute to a week, a day chosen.
    assert '<option value="3600">1 hour</option>' in html
    assert '<option value="86400" selected>1 day</option>' in html
    assert '<option value="604800">7 days</option>' in html
    assert 'name="rated"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<input type="hidden" name="entropy"' in html
    assert 'data-min-seats="2" data-max-seats="8"' in html
    # The seats a game takes are chosen from a list, never typed.
    assert re.search(r'<select name="seats"[^>]*>\s*<option value="2" selected>2</option>', html)
    assert '<option value="10">10</option>' in html
    assert 'type="number" name="seats"' not in html
    assert "/static/fairdeal/entropy.js" in html and "/static/fairdeal/table-new.js" in html


def test_the_form_starts_on_the_game_the_link_names() -> None:
    (alice,) = make_users("alice")
    html = browser(alice).get(NEW, {"game": "dodo"}).content.decode()
    assert '<option value="dodo" selected data-min-seats="2" data-max-seats="8"' in html


def test_offered_deadlines_stay_within_the_settings(settings: Any) -> None:
    settings.FAIRDEAL_MIN_DEADLINE_SECONDS = 3600
    settings.FAIRDEAL_MAX_DEADLINE_SECONDS = 3 * 86400
    (alice,) = make_users("alice")
    html = browser(alice).get(NEW).content.decode()
    # The deadline's own list (the reserve of time has a list of its own).
    deadlines = re.search(r'<select name="deadline".*?</select>', html, re.S)
    assert deadlines, "the form offers deadlines"
    assert '<option value="3600">1 hour</option>' in deadlines.group(0)
    assert 'value="60"' not in deadlines.group(0) and 'value="604800"' not in deadlines.group(0)


def test_opening_a_table_makes_it_with_the_browser_entropy_and_names_the_commitment() -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    form = new_table_form(
        client, game="dodo", seats="3", deadline="3600", rated="on", entropy=ENTROPY
    )
    form.update({"dodo-target": "300", "dodo-two_packs": "on"})
    response = client.post(NEW, form)
    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == table_page(table.pk)
    assert table.game == "dodo" and table.seat_count == 3 and table.deadline_seconds == 3600
    assert table.rated is True
    assert table.options["target"] == 300 and table.options["two_packs"] is True
    assert table.options["no_chains"] is False
    assert list(table.seats.values_list("number", "user__username")) == [
        (0, "alice"),
        (1, None),
        (2, None),
    ]
    contribution = Contribution.objects.get(table=table)
    assert contribution.seat == 0 and bytes(contribution.entropy).hex() == ENTROPY
    (message,) = said(response)
    assert f"Table {table.pk} is open: Dodo, 3 seats, 1 hour a move" in message
    assert table.commitment in message
    assert contribution.receipt == receipt_of(bytes.fromhex(ENTROPY))
    assert contribution.receipt in message


def test_without_scripts_the_table_is_made_with_no_contribution() -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    response = client.post(NEW, new_table_form(client, entropy=""))
    assert response.status_code == 302
    table = Table.objects.get()
    assert not Contribution.objects.filter(table=table).exists()
    (message,) = said(response)
    assert "no random bytes of its own" in message and table.commitment in message


def test_only_the_chosen_games_options_are_read() -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    form = new_table_form(client, game="crazy-8")
    # Another game's fieldset, sent too without scripts, may hold anything: it is not used.
    form.update({"crazy-8-aces": "skip", "dodo-target": "not a number", "dodo-seven_cards": "on"})
    response = client.post(NEW, form)
    assert response.status_code == 302, text_of(response)
    table = Table.objects.get()
    assert table.game == "crazy-8"
    assert table.options["aces"] == "skip"
    assert "seven_cards" not in table.options


def test_the_new_table_is_made_by_the_same_service_as_the_api() -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    client.post(NEW, new_table_form(client, game="crazy-8"))
    table = Table.objects.get()
    api = services.table_create(user=make_users("bob")[0], game="crazy-8", seats=2, deadline=86400)
    assert table.options == api.options
    assert table.ruleset_version == api.ruleset_version


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"game": "poker"}, "There is no such game: choose one from the list."),
        ({"game": ""}, "Choose a game."),
        ({"seats": "5"}, "Crazy Eights is played by 2 to 4 players, not 5."),
        ({"game": "dingo", "seats": "2"}, "Dingo is played by 4 players, not 2."),
        ({"seats": "1"}, "Choose the number of seats from the list."),
        ({"seats": "11"}, "Choose the number of seats from the list."),
        ({"seats": "two"}, "Choose the number of seats from the list."),
        ({"seats": ""}, "Choose how many seats the table has."),
        ({"game": "crazy-8", "seats": "3"}, "3 to 7 need the house rule more_players"),
        ({"deadline": "12"}, "Choose a deadline from the list."),
        ({"game": "dodo", "dodo__target": "5000"}, "Target is at most 1000."),
        ({"game": "dodo", "dodo__target": "10"}, "Target is at least 50."),
        ({"game": "dodo", "dodo__target": "many"}, "Target is a whole number."),
        ({"game": "crazy-8", "crazy-8__aces": "all"}, "Aces: choose one of the list."),
        (
            {"game": "crazy-8", "crazy-8__twos_stack": "on"},
            "twos_stack needs twos_draw_two.",
        ),
        (
            {"game": "crazy-8", "crazy-8__draw_limit": "5"},
            'draw_limit applies only with draw_rule "limit".',
        ),
        ({"entropy": "not hex"}, "Entropy is an even number of hexadecimal digits."),
        ({"entropy": "ab" * 8 + "c"}, "Entropy is an even number of hexadecimal digits."),
        ({"entropy": "ab" * 80}, "Entropy is 16 to 64 bytes; this is 80."),
        ({"once": ""}, "This form had lost its one-time token; nothing was created."),
    ],
)
def test_bad_input_is_refused_in_words_and_creates_nothing(
    fields: dict[str, str], words: str
) -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    response = client.post(NEW, new_table_form(client, **fields))
    assert response.status_code == 400
    text = text_of(response)
    assert "The table was not created." in text
    assert words in text
    assert not Table.objects.exists()
    assert not Contribution.objects.exists()


def test_a_refused_form_comes_back_as_it_was_sent_with_a_new_token() -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    form = new_table_form(client, game="crazy-8", deadline="3600")
    form.update({"crazy-8-twos_stack": "on", "crazy-8-aces": "skip"})
    response = client.post(NEW, form)
    html = response.content.decode()
    assert '<option value="crazy-8" selected data-min-seats="2" data-max-seats="7"' in html
    assert '<option value="3600" selected>1 hour</option>' in html
    assert '<option value="skip" selected>skip</option>' in html
    assert re.search(r'name="crazy-8-twos_stack"[^>]*checked', html)
    new_once = re.search(r'name="once" value="([^"]+)"', html)
    assert new_once and new_once.group(1) != form["once"]
    # Corrected and sent again, it makes the table.
    form.update({"crazy-8-twos_draw_two": "on", "once": new_once.group(1)})
    assert client.post(NEW, form).status_code == 302
    assert Table.objects.get().options["twos_stack"] is True


def test_a_double_click_on_create_makes_one_table() -> None:
    (alice,) = make_users("alice")
    client = browser(alice)
    form = new_table_form(client, entropy=ENTROPY)
    first = client.post(NEW, form)
    second = client.post(NEW, form)
    assert first.status_code == 302 and first["Location"].startswith("/tables/")
    assert second.status_code == 302 and second["Location"] == MINE
    assert Table.objects.count() == 1
    assert "already been sent: one table was made from it, not two" in said(second)[-1]


def test_a_host_past_the_cap_is_told_why_and_nothing_is_made(settings: Any) -> None:
    settings.FAIRDEAL_MAX_OPEN_TABLES = 1
    (alice,) = make_users("alice")
    open_table(alice)
    client = browser(alice)
    response = client.post(NEW, new_table_form(client))
    assert response.status_code == 400
    assert "You already host 1 open tables, the most one account may" in text_of(response)
    assert Table.objects.count() == 1


def test_the_create_form_needs_its_csrf_token() -> None:
    (alice,) = make_users("alice")
    client = browser(alice, enforce_csrf_checks=True)
    data = {"game": "crazy-eights", "seats": "2", "deadline": "86400", "once": "x"}
    assert client.post(NEW, data).status_code == 403
    assert not Table.objects.exists()


# -- joining ---------------------------------------------------------------------------


def test_joining_takes_a_seat_with_the_browser_entropy_and_deals_a_full_table() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    response = browser(bob).post(join_url(table.pk), {"entropy": ENTROPY})
    assert response.status_code == 302 and response["Location"] == table_page(table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert Seat.objects.get(table=table, number=1).user == bob
    contribution = Contribution.objects.get(table=table, seat=1)
    (message,) = said(response)
    assert "You sit in seat 1 at table" in message
    assert table.commitment in message and contribution.receipt in message
    assert "Every seat is taken: the cards are dealt." in message


def test_joining_a_table_with_room_left_waits_for_the_others() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)
    response = browser(bob).post(join_url(table.pk), {"entropy": ""})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert not Contribution.objects.filter(table=table, seat=1).exists()
    (message,) = said(response)
    assert "dealt" not in message and "no random bytes of its own" in message


def test_a_double_click_on_join_seats_the_player_once() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3)
    client = browser(bob)
    client.post(join_url(table.pk), {"entropy": ENTROPY})
    second = client.post(join_url(table.pk), {"entropy": "6f" * 32})
    assert second.status_code == 302 and second["Location"] == table_page(table.pk)
    assert said(second)[-1] == f"You already have a seat at table {table.pk}."
    assert Seat.objects.filter(table=table, user=bob).count() == 1
    assert Contribution.objects.filter(table=table).count() == 1


@pytest.mark.parametrize(
    ("entropy", "words"),
    [
        ("zz" * 16, "entropy is an even number of hexadecimal digits"),
        ("ab" * 4, "entropy is 16 to 64 bytes; this is 4"),
    ],
)
def test_tampered_entropy_refuses_the_join_and_changes_nothing(entropy: str, words: str) -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    response = browser(bob).post(join_url(table.pk), {"entropy": entropy}, follow=True)
    assert response.redirect_chain == [(LOBBY, 302)]
    assert f"You could not join table {table.pk}: {sentence(words)}" in text_of(response)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert not Seat.objects.filter(table=table, user=bob).exists()
    assert not Contribution.objects.filter(table=table).exists()


def test_a_table_that_has_started_cannot_be_joined() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob)
    response = browser(carol).post(join_url(table.pk), follow=True)
    assert response.status_code == 200
    assert "this table is no longer open" in text_of(response).lower()
    assert not Seat.objects.filter(table=table, user=carol).exists()


def test_a_cancelled_table_cannot_be_joined() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    services.table_cancel(table_id=table.pk, user=alice)
    response = browser(bob).post(join_url(table.pk), follow=True)
    assert "You could not join table" in text_of(response)
    assert not Seat.objects.filter(table=table, user=bob).exists()


def test_a_table_that_does_not_exist_cannot_be_joined() -> None:
    (bob,) = make_users("bob")
    response = browser(bob).post(join_url(999999), follow=True)
    assert response.status_code == 200
    assert "You could not join table 999999: There is no table 999999." in text_of(response)


def test_a_visitor_is_sent_to_log_in_before_joining() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice)
    response = browser().post(join_url(table.pk))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login-page')}?next=%2Flobby%2F"
    assert table.seats.filter(user__isnull=False).count() == 1


def test_join_takes_no_get() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    assert browser(bob).get(join_url(table.pk)).status_code == 405
    assert not Seat.objects.filter(table=table, user=bob).exists()


def test_the_join_form_needs_its_csrf_token() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice)
    response = browser(bob, enforce_csrf_checks=True).post(join_url(table.pk))
    assert response.status_code == 403
    assert not Seat.objects.filter(table=table, user=bob).exists()


# -- my tables --------------------------------------------------------------------------


def test_a_visitor_is_sent_to_log_in_for_my_tables() -> None:
    response = browser().get(MINE)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login-page"))


def test_my_tables_come_waiting_on_me_first_nearest_deadline_first_then_others_then_finished() -> (
    None
):
    alice, bob, carol = make_users("alice", "bob", "carol")
    later = waiting_on(alice, bob, due_in=timedelta(hours=20))
    sooner = waiting_on(alice, carol, due_in=timedelta(hours=2))
    theirs = waiting_on_the_other(alice, carol)
    hosting = open_table(alice, seats=3, game="dodo")
    done = started_table(alice, bob, game="crazy-8")
    services.table_resign(table_id=done.pk, user=bob)
    response = browser(alice).get(MINE)
    assert_meets_the_policy(response)
    html = response.content.decode()
    text = text_of(response)
    order = [html.index(f'id="mine-{t.pk}"') for t in (sooner, later, theirs, hosting, done)]
    assert order == sorted(order)
    waiting, others = text.split("Other tables")
    others, finished = others.split("Finished (")
    assert "Waiting on you (2)" in waiting and "Your move." in waiting
    assert f"table {theirs.pk}" in others and "Waiting on carol." in others
    assert f"table {hosting.pk}" in others and "Waiting for 2 more players." in others
    assert "1) " in finished  # the count
    assert "You came 1st of 2" in finished and "bob resigned." in finished
    # Each row links to its table, and a deadline is a <time> the script can count down.
    for table in (sooner, later, theirs, hosting, done):
        assert f'href="{table_page(table.pk)}"' in html
    sooner_due = next(s.deadline_at for s in sooner.seated() if s.user_id == alice.pk)
    assert f'<time datetime="{sooner_due.isoformat()}" data-countdown>' in html
    assert "/static/fairdeal/time.js" in html


def test_my_finished_table_says_when_i_resigned() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    services.table_resign(table_id=table.pk, user=alice)
    text = text_of(browser(alice).get(MINE))
    assert "You came 2nd of 2" in text and "you resigned." in text


def test_my_tables_with_none_says_so() -> None:
    (alice,) = make_users("alice")
    text = text_of(browser(alice).get(MINE))
    assert "No table is waiting on you." in text
    assert "No finished game yet." in text


def test_the_count_of_tables_waiting_on_me_is_on_every_page() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    waiting_on(alice, bob, due_in=timedelta(hours=1))
    waiting_on(alice, carol, due_in=timedelta(hours=2))
    for url in (LOBBY, MINE, NEW, "/"):
        text = text_of(browser(alice).get(url))
        assert "2 waiting on you" in text, url


def test_my_tables_cost_as_many_queries_for_30_tables_as_for_1(
    django_assert_max_num_queries: Any, many_open_tables: None
) -> None:
    alice, *others = make_users("alice", *(f"rival{n}" for n in range(30)))
    client = browser(alice)
    waiting_on(alice, others[0], due_in=timedelta(hours=1))
    with CaptureQueriesContext(connection) as one:
        assert client.get(MINE).status_code == 200
    for n, rival in enumerate(others[1:]):
        if n % 3 == 0:
            open_table(alice, seats=3)
        elif n % 3 == 1:
            started_table(alice, rival)
        else:
            finished = started_table(rival, alice)
            services.table_resign(table_id=finished.pk, user=rival)
    with django_assert_max_num_queries(len(one)), CaptureQueriesContext(connection) as thirty:
        response = client.get(MINE)
    assert response.content.decode().count('id="mine-') == 30
    assert len(thirty) == len(one)


def test_my_tables_list_the_newest_finished_ones_only(monkeypatch: Any) -> None:
    # Issue 35 (bench/scale.py): a player with 2,000 finished games gets a page of the
    # newest, not all of them (their player's page and the archive keep the rest).
    from games import selectors

    monkeypatch.setattr(selectors, "MY_FINISHED", 2)
    alice, bob = make_users("alice", "bob")
    ended = []
    for _ in range(3):
        table = started_table(alice, bob)
        services.table_resign(table_id=table.pk, user=bob)
        ended.append(table)
    going = started_table(bob, alice)
    html = browser(alice).get(MINE).content.decode()
    assert f'id="mine-{going.pk}"' in html
    assert f'id="mine-{ended[0].pk}"' not in html  # the oldest to end
    assert all(f'id="mine-{t.pk}"' in html for t in ended[1:])
