"""The table page, its moves, its version endpoint and the replay, through the Django test client.

The page shows what the API shows the same person (``table_view``): the
viewer's own hand, drawn as cards with their names in words, every legal
action as a button labelled in the engine's words, and never another hand or
the stock. Every refused move leaves the table as it was and says why.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from datetime import timedelta
from html.parser import HTMLParser
from itertools import pairwise
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from games import selectors, services
from games.catalogue import find_ruleset
from games.catalogue.presentation import COMMANDS, card_face, command
from games.models import Seat, Table
from games.rules import GameState
from games.rules.base import ordinal
from games.rules.chance import SEED_BYTES, SeededChance, game_seed
from tests.factories import make_users, set_deadline, snapshot, started_table
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")
PAGE_QUERIES = 8  # session, user, table, seats, contributions, moves, waiting count
VERSION_QUERIES = 1


# -- helpers ---------------------------------------------------------------------------


def page_url(table: Table, what: str = "") -> str:
    return f"/tables/{table.pk}/{what + '/' if what else ''}"


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


class Forms(HTMLParser):
    """Every form of a page: its action, its fields and the words of its button."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._form: dict[str, Any] | None = None
        self._in_button = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self._form = {
                "action": attributes.get("action"),
                "method": attributes.get("method"),
                "fields": {},
                "button": "",
                "focus": "",
            }
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and attributes.get("name"):
            self._form["fields"][attributes["name"]] = attributes.get("value") or ""
        elif tag == "button" and self._form is not None:
            self._in_button = True
            self._form["focus"] = attributes.get("data-focus-key") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "button":
            self._in_button = False

    def handle_data(self, data: str) -> None:
        if self._in_button and self._form is not None:
            self._form["button"] += data


def forms_of(html: str, action: str | None = None) -> list[dict[str, Any]]:
    parser = Forms()
    parser.feed(html)
    parser.close()
    return [f for f in parser.forms if action is None or f["action"] == action]


def move_forms(html: str, table: Table) -> list[dict[str, Any]]:
    """The list of every legal move: a form each (the keyboard's and the screen reader's way)."""
    return [f for f in forms_of(html, page_url(table, "move")) if f["focus"].startswith("list:")]


def table_forms(html: str, table: Table, where: str) -> list[dict[str, Any]]:
    """The moves' buttons on the table itself: at the seats (``seat``), by the hand (``dock``)."""
    return [
        f for f in forms_of(html, page_url(table, "move")) if f["focus"].startswith(f"{where}:")
    ]


def seat_box(html: str, seat: int) -> str:
    """The HTML of a seat's place at the table (its name, cards, turn and the calls about it)."""
    found = re.search(rf'class="seat-box[^"]*" data-seat="{seat}">(.*?)</li>', html, re.S)
    assert found, f"no seat {seat} at the table"
    return found.group(1)


def button_words(form: dict[str, Any]) -> str:
    """What a move button says, its cards' signs aside: the engine's words."""
    return " ".join(form["button"].split())


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def user_at(table: Table, seat: int) -> Any:
    return Seat.objects.select_related("user").get(table=table, number=seat).user


def play_until(
    table: Table,
    until: Callable[[GameState], bool],
    *,
    rng: random.Random,
    max_moves: int = 3000,
) -> GameState:
    """Play seeded random moves through the services until ``until(state)`` holds."""
    for _ in range(max_moves):
        table.refresh_from_db()
        state = services.load_state(table)
        if until(state):
            return state
        assert table.status == Table.Status.PLAYING, "the match ended first: choose another seed"
        seat = state.to_act[0]
        action = rng.choice(state.legal_actions(seat))
        services.move_apply(
            table_id=table.pk, user=user_at(table, seat), version=table.version, action=action
        )
    raise AssertionError("the state never came")


def assert_shows_only_what_the_viewer_may_see(html: str, table: Table, user: Any) -> None:
    """No card on the page but the viewer's own, the pile's top and those the log names."""
    view = selectors.table_view(selectors.table_for_view(table.pk), user)
    allowed = set((view["you"] or {}).get("hand") or [])
    if view["board"] and view["board"].get("pile_top"):
        allowed.add(view["board"]["pile_top"])
    for entry in view["recent"]:
        allowed.update(CARD.findall(" ".join(entry["text"])))
    shown = set(CARD.findall(html))
    assert shown <= allowed, shown - allowed
    state = table.state
    mine = view["you"]["seat"] if view["you"] else None
    for seat, hand in enumerate(state["hands"]):
        if seat != mine:
            assert not (set(hand) & shown) - allowed
    # The stock's order appears nowhere: no two cards lying next to each other in it.
    stock = state["stock"]
    for first, second in pairwise(stock):
        assert f"{first} {second}" not in html and f"{first}{second}" not in html
    assert bytes(table.server_seed).hex() not in html


def the_table(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


# -- the page for each game ----------------------------------------------------------------


def test_the_crazy_eights_page_shows_my_hand_as_cards_named_in_words() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"crazy-eights page")
    leader = table.to_act[0]
    player = user_at(table, leader)

    response = logged_in(player).get(page_url(table))

    assert response.status_code == 200
    html = response.content.decode()
    hand = table.state["hands"][leader]
    for card in hand:
        face = card_face(card)
        # Rank and suit sign, the suit's colour, and the card's name in words.
        assert f"{face['name']} ({card})" in html
        assert f'class="card {face["colour"]}"' in html
    assert "Your turn." in html
    assert_shows_only_what_the_viewer_may_see(html, table, player)


def test_every_legal_action_is_a_button_labelled_as_a_command_in_the_engines_words() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"crazy-eights page")
    seat = table.to_act[0]
    player = user_at(table, seat)
    state = services.load_state(table)
    ruleset = state.ruleset
    names = selectors.seat_names(table)

    forms = move_forms(logged_in(player).get(page_url(table)).content.decode(), table)

    legal = state.legal_actions(seat)
    assert len(forms) == len(legal)
    for form in forms:
        action = legal[int(form["fields"]["index"])]
        assert json.loads(form["fields"]["action"]) == action
        assert form["fields"]["version"] == str(table.version)
        said = ruleset.action_text(action, names)  # "played 9C", as the log says it
        assert button_words(form).endswith(command(said, COMMANDS))  # "Play 9C"
    # Plays come first, then drawing and passing.
    kinds = [json.loads(f["fields"]["action"])["type"] for f in forms]
    assert kinds == sorted(kinds, key=lambda kind: kind != "play")


def test_an_eight_offers_one_button_for_each_suit_it_may_call() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"eights")
    state = play_until(
        table,
        lambda s: any("suit" in a for a in s.legal_actions(s.to_act[0])),
        rng=random.Random(1),
    )
    seat = state.to_act[0]
    html = logged_in(user_at(table, seat)).get(page_url(table)).content.decode()
    words = [button_words(f) for f in move_forms(html, table)]
    eight = next(a["card"] for a in state.legal_actions(seat) if "suit" in a)
    for suit in ("clubs", "diamonds", "hearts", "spades"):
        assert any(w.endswith(f"Play {eight} and call {suit}") for w in words), words


def test_the_other_seat_sees_no_buttons_and_none_of_my_cards() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"crazy-eights page")
    waiting = 1 - table.to_act[0]
    player = user_at(table, waiting)

    html = logged_in(player).get(page_url(table)).content.decode()

    assert move_forms(html, table) == []
    assert "Nothing for you to do" in html
    assert_shows_only_what_the_viewer_may_see(html, table, player)


def test_a_crazy_8_page_offers_the_catch_to_the_seat_that_may_make_it() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(
        alice,
        bob,
        game="crazy-8",
        options={"last_card": True, "twos_draw_two": True},
        seed=b"crazy-8 catch",
    )
    state = play_until(
        table, lambda s: s.public_view().get("catchable") is not None, rng=random.Random(3)
    )
    caught = state.public_view()["catchable"]
    catcher = 1 - caught
    player = user_at(table, catcher)

    html = logged_in(player).get(page_url(table)).content.decode()

    words = [button_words(f) for f in move_forms(html, table)]
    assert f"Catch {user_at(table, caught).username}" in words
    # On the table, the catch is a button at the seat it catches.
    at_seat = table_forms(html, table, "seat")
    assert [button_words(f) for f in at_seat] == [f"Catch {user_at(table, caught).username}"]
    assert "Catch" in seat_box(html, caught) and "Catch" not in seat_box(html, catcher)
    assert "Calls out of turn" in html
    assert "may be caught" in html
    assert_shows_only_what_the_viewer_may_see(html, table, player)
    # The seat that may be caught has no such button.
    other = logged_in(user_at(table, caught)).get(page_url(table)).content.decode()
    assert not any(w.startswith("Catch") for w in map(button_words, move_forms(other, table)))


def test_a_crazy_8_play_to_the_last_card_may_announce_it() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(
        alice, bob, game="crazy-8", options={"last_card": True}, seed=b"crazy-8 announce"
    )
    state = play_until(
        table,
        lambda s: any(a.get("announce") for a in s.legal_actions(s.to_act[0])),
        rng=random.Random(5),
    )
    html = logged_in(user_at(table, state.to_act[0])).get(page_url(table)).content.decode()
    assert any(
        w.endswith("and announce your last card")
        for w in map(button_words, move_forms(html, table))
    )


def seed_where(
    game: str, seats: int, options: dict[str, Any], holds: Callable[[GameState], bool]
) -> bytes:
    """A server seed whose first deal makes ``holds`` true, found by dealing in the engine."""
    ruleset = find_ruleset(game)
    for n in range(500):
        seed = f"{game} {n}".encode().ljust(SEED_BYTES, b".")
        state, _ = ruleset.new_game(seats, options, SeededChance(game_seed(seed)))
        if holds(state):
            return seed
    raise AssertionError("no such deal in 500 seeds")


def test_a_crazy_8_dealer_names_the_suit_of_a_starter_eight_by_its_buttons() -> None:
    alice, bob = make_users("alice", "bob")
    options = {"starter_eight": "dealer_names"}
    seed = seed_where(
        "crazy-8",
        2,
        options,
        lambda s: any(a["type"] == "name" for a in s.legal_actions(s.to_act[0])),
    )
    table = started_table(alice, bob, game="crazy-8", options=options, seed=seed)
    html = logged_in(user_at(table, table.to_act[0])).get(page_url(table)).content.decode()

    words = [button_words(f) for f in move_forms(html, table)]
    assert words == [
        f"{sign} Name {suit} for the starter eight"
        for sign, suit in (("♣", "clubs"), ("♦", "diamonds"), ("♥", "hearts"), ("♠", "spades"))
    ]
    assert "Name the suit" in html
    # Nothing to follow yet: the page says who names it, not the eight's own suit.
    assert "to be named by the dealer" in html


def test_a_crazy_8_chain_of_twos_offers_its_answers_and_the_draw_that_takes_it() -> None:
    alice, bob = make_users("alice", "bob")
    options = {"twos_draw_two": True, "twos_stack": True}
    table = started_table(alice, bob, game="crazy-8", options=options, seed=b"twos")
    state = play_until(
        table,
        lambda s: bool(s.chain) and any(a["type"] == "draw" for a in s.legal_actions(s.to_act[0])),
        rng=random.Random(8),
    )
    seat = state.to_act[0]
    player = user_at(table, seat)
    html = logged_in(player).get(page_url(table)).content.decode()
    words = [button_words(f) for f in move_forms(html, table)]
    assert "Draw a card" in words
    assert len(words) == len(state.legal_actions(seat))
    assert f"{state.chain} cards to answer or draw" in html
    assert_shows_only_what_the_viewer_may_see(html, table, player)


def test_a_dodo_page_offers_several_cards_of_a_rank_in_the_order_laid() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob, carol, game="dodo", seed=b"dodo several")
    state = play_until(
        table,
        lambda s: any(len(a.get("cards", [])) >= 2 for a in s.legal_actions(s.to_act[0])),
        rng=random.Random(7),
    )
    seat = state.to_act[0]
    player = user_at(table, seat)
    html = logged_in(player).get(page_url(table)).content.decode()

    forms = move_forms(html, table)
    legal = state.legal_actions(seat)
    assert len(forms) == len(legal)
    several = next(a for a in legal if len(a.get("cards", [])) >= 2)
    words = f"Play {' '.join(several['cards'])}"
    assert any(words in button_words(f) for f in forms)
    assert_shows_only_what_the_viewer_may_see(html, table, player)


def test_a_chain_drawn_card_by_card_is_one_line_of_the_log_with_its_count() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, game="dodo", seed=b"dodo chain drawn")
    state = play_until(
        table,
        lambda s: (
            (s.public_view().get("chain") or {}).get("total", 0) >= 4
            and any(a["type"] == "draw" for a in s.legal_actions(s.to_act[0]))
        ),
        rng=random.Random(4),
    )
    seat = state.to_act[0]
    drawer = user_at(table, seat)
    cards = state.public_view()["chain"]["total"]
    draw = next(a for a in state.legal_actions(seat) if a["type"] == "draw")
    table.refresh_from_db()
    services.move_apply(table_id=table.pk, user=drawer, version=table.version, action=draw)

    html = logged_in(user_at(table, 1 - seat)).get(page_url(table)).content.decode()

    # The engine draws the chain a card at a time, an event each; the log says it once.
    (move,) = the_table(table).log_tail[-1:]
    assert len(move["events"]) >= cards
    assert f"<li>{drawer.username} drew a card ({cards} times)</li>" in html


def test_a_dodo_black_queen_offers_a_swap_with_each_player_by_name() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob, carol, game="dodo", seed=b"dodo swap")
    state = play_until(table, lambda s: s.public_view()["swaps_owed"] > 0, rng=random.Random(2))
    seat = state.to_act[0]
    html = logged_in(user_at(table, seat)).get(page_url(table)).content.decode()

    words = [button_words(f) for f in move_forms(html, table)]
    others = [user_at(table, s).username for s in range(3) if s != seat]
    assert sorted(words) == sorted(f"Swap hands with {name}" for name in others)
    assert "Swap hands" in html


def test_a_spectator_sees_the_table_without_any_hand_or_move() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob, seed=b"watched")
    for client, viewer in ((Client(), None), (logged_in(carol), carol)):
        response = client.get(page_url(table))
        assert response.status_code == 200
        html = response.content.decode()
        assert move_forms(html, table) == []
        assert "Your hand" not in html
        assert "You are watching" in html
        assert "Resign" not in html
        assert_shows_only_what_the_viewer_may_see(html, table, viewer or AnonymousUser())


def test_an_unknown_table_is_a_404() -> None:
    assert Client().get("/tables/999999/").status_code == 404
    assert Client().get("/tables/999999/version/").status_code == 404
    assert Client().get("/tables/999999/replay/").status_code == 404


def test_the_table_page_meets_the_content_security_policy() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    found = assert_meets_the_policy(logged_in(alice).get(page_url(table)))
    assert "/static/fairdeal/table.css" in found.stylesheets
    assert "/static/fairdeal/table.js" in found.scripts
    assert "/static/fairdeal/time.js" in found.scripts


def test_the_deadline_is_a_time_element_for_the_countdown() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    player = user_at(table, table.to_act[0])
    html = logged_in(player).get(page_url(table)).content.decode()
    due = table.seated()[table.to_act[0]].deadline_at
    assert f'<time datetime="{due.isoformat()}" data-countdown>' in html
    assert "Your move is due" in html


# -- moving through the page ---------------------------------------------------------


def test_a_move_through_the_page_changes_the_table_and_the_log_says_it() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"crazy-eights page")
    seat = table.to_act[0]
    player = user_at(table, seat)
    client = logged_in(player)
    form = move_forms(client.get(page_url(table)).content.decode(), table)[0]
    action = json.loads(form["fields"]["action"])

    response = client.post(page_url(table, "move"), form["fields"])

    assert response.status_code == 302
    assert response["Location"] == page_url(table)
    after = the_table(table)
    assert after.version == table.version + 1
    assert after.moves.order_by("-seq").first().action == action
    words = after.moves.order_by("-seq").first()
    ruleset = services.load_state(after).ruleset
    said = ruleset.action_text(action, selectors.seat_names(after))
    assert messages_of(response) == [f"You {said}."]
    page = client.get(page_url(table)).content.decode()
    assert f"{player.username} {said}" in page  # the log, in the engine's words
    assert words.seq == after.version


def test_a_move_posted_twice_is_refused_the_second_time_as_stale() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"double click")
    client = logged_in(user_at(table, table.to_act[0]))
    form = move_forms(client.get(page_url(table)).content.decode(), table)[0]
    client.post(page_url(table, "move"), form["fields"])
    before = the_table(table).version

    response = client.post(page_url(table, "move"), form["fields"])

    assert response.status_code == 302
    assert the_table(table).version == before
    message = messages_of(response)[-1]  # after the first move's, not yet shown
    assert message.startswith("The table has moved on"), message


def _posted(table: Table, client: Client, fields: dict[str, Any]) -> tuple[Any, list[str]]:
    before = the_table(table)
    response = client.post(page_url(table, "move"), fields)
    after = the_table(table)
    assert response.status_code == 302, response.status_code
    assert response["Location"] == page_url(table)
    assert (after.version, after.state, after.status) == (
        before.version,
        before.state,
        before.status,
    )
    messages = messages_of(response)
    assert len(messages) == 1 and messages[0].strip(), messages
    return response, messages


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"action": '{"type": "draw"}'}, "did not say which version"),
        ({"version": "x", "action": '{"type": "draw"}'}, "did not say which version"),
        ({"version": "-1", "action": '{"type": "draw"}'}, "did not say which version"),
        ({"version": "{version}"}, "carried no action"),
        ({"version": "{version}", "action": "{not json"}, "is not JSON"),
        ({"version": "{version}", "action": "[" * 5000}, "longer than any move"),
        ({"version": "{version}", "action": "[" * 900 + "]" * 900}, "Nothing was changed"),
        ({"version": "{version}", "action": '"draw"'}, "an action is a JSON object"),
        ({"version": "{version}", "action": '{"type": "fly"}'}, "unknown action type 'fly'"),
        ({"version": "{version}", "index": "x", "action": '{"type":"draw"}'}, "index"),
        (
            {"version": "{version}", "action": '{"type": "play", "card": "{absent}"}'},
            "you do not hold",
        ),
        ({"version": "999", "action": '{"type": "draw"}'}, "The table has moved on"),
    ],
)
def test_a_bad_move_says_why_and_changes_nothing(fields: dict[str, str], words: str) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"bad moves")
    seat = table.to_act[0]
    absent = next(c for c in table.state["hands"][1 - seat])
    filled = {
        key: value.replace("{version}", str(table.version)).replace("{absent}", absent)
        for key, value in fields.items()
    }
    _, (message,) = _posted(table, logged_in(user_at(table, seat)), filled)
    assert words in message, message


def test_a_move_out_of_turn_is_refused_in_the_engines_words() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"out of turn")
    waiting = user_at(table, 1 - table.to_act[0])
    _, (message,) = _posted(
        table, logged_in(waiting), {"version": str(table.version), "action": '{"type": "draw"}'}
    )
    assert "it is not your turn" in message


def test_a_move_by_somebody_without_a_seat_is_refused() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob)
    fields = {"version": str(table.version), "action": '{"type": "draw"}'}
    _, (message,) = _posted(table, logged_in(carol), fields)
    assert "You do not have a seat at this table" in message
    _, (message,) = _posted(table, Client(), fields)
    assert message.startswith("Log in to play")


def test_a_move_after_the_game_is_over_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    services.table_resign(table_id=table.pk, user=bob)
    _, (message,) = _posted(
        table,
        logged_in(alice),
        {"version": str(the_table(table).version), "action": '{"type": "draw"}'},
    )
    assert "The game is over" in message


def test_a_move_past_the_deadline_ends_the_game_by_timeout_and_says_so() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"late")
    seat = table.to_act[0]
    set_deadline(table, timezone.now() - timedelta(seconds=1), [seat])
    client = logged_in(user_at(table, seat))
    form = move_forms(client.get(page_url(table)).content.decode(), table)[0]

    response = client.post(page_url(table, "move"), form["fields"])

    assert response.status_code == 302
    (message,) = messages_of(response)
    assert message.startswith("Too late: your deadline had passed"), message
    after = the_table(table)
    assert after.status == Table.Status.FINISHED and after.end_reason == "timeout"
    assert after.moves.filter(kind="action").count() == 0  # the move itself was not applied


def test_a_move_to_an_unknown_table_is_a_404() -> None:
    (alice,) = make_users("alice")
    client = logged_in(alice)
    response = client.post("/tables/999999/move/", {"version": "0", "action": '{"type":"draw"}'})
    assert response.status_code == 404
    assert client.post("/tables/999999/move/", {}).status_code == 404


def test_the_move_page_takes_only_posts() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    assert logged_in(alice).get(page_url(table, "move")).status_code == 405


# -- resigning -----------------------------------------------------------------------


def test_resigning_asks_first_on_a_page_of_its_own_then_ends_the_game() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = logged_in(alice)
    page = client.get(page_url(table)).content.decode()
    assert f'href="{page_url(table, "resign")}"' in page

    confirm = client.get(page_url(table, "resign"))

    assert confirm.status_code == 200
    html = confirm.content.decode()
    assert "Are you sure?" in html
    (form,) = forms_of(html, page_url(table, "resign"))
    assert form["method"] == "post" and "Yes, resign" in form["button"]
    assert the_table(table).status == Table.Status.PLAYING  # asking changed nothing

    response = client.post(page_url(table, "resign"))

    assert response.status_code == 302
    after = the_table(table)
    assert after.status == Table.Status.FINISHED and after.end_reason == "resigned"
    assert after.result["places"][0] == 2
    assert messages_of(response) == ["You resigned: your seat finishes last, and the game is over."]


def test_resigning_twice_or_without_a_seat_is_refused_in_words() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob)
    response = logged_in(carol).post(page_url(table, "resign"))
    assert response.status_code == 302 and the_table(table).status == Table.Status.PLAYING
    assert messages_of(response) == ["You do not have a seat at this table. Nothing was changed."]
    assert logged_in(carol).get(page_url(table, "resign")).status_code == 302

    logged_in(alice).post(page_url(table, "resign"))
    version = the_table(table).version
    response = logged_in(alice).post(page_url(table, "resign"))
    assert messages_of(response) == ["The game is over. Nothing was changed."]
    assert the_table(table).version == version


# -- updates without a reload -------------------------------------------------------


def test_the_version_endpoint_answers_304_while_nothing_moves(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"version")
    client = logged_in(alice)

    with django_assert_max_num_queries(VERSION_QUERIES):
        first = client.get(page_url(table, "version"))
    assert first.status_code == 200
    assert json.loads(first.content) == {"version": 0, "status": "playing", "seated": 2}
    etag = first["ETag"]
    assert etag and "no-cache" in first["Cache-Control"]

    with django_assert_max_num_queries(VERSION_QUERIES):
        same = client.get(page_url(table, "version"), HTTP_IF_NONE_MATCH=etag)
    assert same.status_code == 304
    assert same["ETag"] == etag
    assert same.content == b""

    seat = table.to_act[0]
    action = services.load_state(table).legal_actions(seat)[0]
    services.move_apply(table_id=table.pk, user=user_at(table, seat), version=0, action=action)
    moved = client.get(page_url(table, "version"), HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved["ETag"] != etag
    assert json.loads(moved.content)["version"] == 1
    # The page carries the same tag, so that table.js starts from what it shows.
    assert moved["ETag"].replace('"', "&quot;") in client.get(page_url(table)).content.decode()


def test_the_version_moves_when_players_join_an_open_table() -> None:
    alice, bob = make_users("alice", "bob")
    table = services.table_create(user=alice, game="crazy-eights", seats=2, deadline=3600)
    before = Client().get(page_url(table, "version"))
    services.table_join(table_id=table.pk, user=bob)
    after = Client().get(page_url(table, "version"), HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert json.loads(after.content)["status"] == "playing"


def test_the_board_fragment_is_the_board_alone() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    client = logged_in(alice)
    for response in (
        client.get(page_url(table), {"fragment": "1"}),
        client.get(page_url(table), HTTP_X_FAIRDEAL_FRAGMENT="1"),
    ):
        assert response.status_code == 200
        html = response.content.decode()
        assert "<html" not in html and "<nav" not in html
        assert html.lstrip().startswith('<div class="board-state"')
        assert "Your hand" in html


def test_a_move_sent_by_the_script_is_answered_with_the_board_and_its_message(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"fetched move")
    (seat,) = table.to_act
    client = logged_in(user_at(table, seat))
    html = client.get(page_url(table)).content.decode()
    form = move_forms(html, table)[0]
    action = json.loads(form["fields"]["action"])
    done = find_ruleset(table.game).action_text(action, selectors.seat_names(table))
    with django_assert_max_num_queries(PAGE_QUERIES + 6):
        response = client.post(
            page_url(table, "move"), form["fields"], HTTP_X_FAIRDEAL_FRAGMENT="1"
        )
    assert response.status_code == 200 and response["X-Fairdeal-Board"] == "1"
    board = response.content.decode()
    assert board.lstrip().startswith('<div class="board-state"') and "<html" not in board
    assert the_table(table).version == 1
    said = re.search(r'<p class="message success">([^<]*)</p>', board)
    assert said and said.group(1) == f"You {done}.", board[:2000]
    # Nothing waits for the next page: the message was said on the board it belongs to.
    assert messages_of(response) == []
    # The table moves on (the other player moves): the message goes with the old board.
    other = logged_in(user_at(table, 1 - seat))
    reply = move_forms(other.get(page_url(table)).content.decode(), table)[0]
    other.post(page_url(table, "move"), reply["fields"], HTTP_X_FAIRDEAL_FRAGMENT="1")
    again = client.get(page_url(table), {"fragment": "1"}).content.decode()
    assert 'class="message' not in again


def test_a_move_refused_by_the_script_is_answered_with_the_board_as_it_was_and_why() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"fetched refusal")
    (seat,) = table.to_act
    client = logged_in(user_at(table, seat))
    form = move_forms(client.get(page_url(table)).content.decode(), table)[0]
    before = snapshot(table.pk)
    cases = [
        ({**form["fields"], "version": "7"}, 409, "The table has moved on"),
        ({**form["fields"], "action": "{not json"}, 400, "its action is not JSON"),
        (
            {**form["fields"], "action": '{"type": "play", "card": "ZZ"}'},
            400,
            "That move was refused",
        ),
    ]
    for fields, status, words in cases:
        response = client.post(page_url(table, "move"), fields, HTTP_X_FAIRDEAL_FRAGMENT="1")
        assert response.status_code == status, (fields, response.status_code)
        assert response["X-Fairdeal-Board"] == "1"
        board = response.content.decode()
        assert re.search(rf'<p class="message error">[^<]*{re.escape(words)}', board), words
        assert "Nothing was changed" in board
        assert snapshot(table.pk) == before
    # Somebody without a seat: refused in words, on the board, with nothing changed.
    carol = make_users("carol")[0]
    response = logged_in(carol).post(
        page_url(table, "move"), form["fields"], HTTP_X_FAIRDEAL_FRAGMENT="1"
    )
    assert response.status_code == 403 and "You do not have a seat" in response.content.decode()
    assert snapshot(table.pk) == before
    # No such table: the page's 404, not a board.
    missing = client.post("/tables/999999/move/", form["fields"], HTTP_X_FAIRDEAL_FRAGMENT="1")
    assert missing.status_code == 404 and "X-Fairdeal-Board" not in missing


def test_the_page_answers_in_a_bounded_number_of_queries(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob, carol, game="dodo", seed=b"queries")
    play_until(table, lambda s: the_table(table).version >= 20, rng=random.Random(4))
    for client in (logged_in(alice), Client()):
        with django_assert_max_num_queries(PAGE_QUERIES):
            assert client.get(page_url(table)).status_code == 200
        with django_assert_max_num_queries(PAGE_QUERIES):
            assert client.get(page_url(table), {"fragment": "1"}).status_code == 200


# -- the end of the game, and its replay ----------------------------------------------


def play_through_the_page(table: Table, max_moves: int = 3000) -> int:
    """Play the match through the page's own forms, each seat taking its first button."""
    clients = {seat.number: logged_in(seat.user) for seat in table.seats.select_related("user")}
    for played in range(max_moves):
        current = the_table(table)
        if current.status != Table.Status.PLAYING:
            return played
        (seat,) = current.to_act
        html = clients[seat].get(page_url(table)).content.decode()
        first = move_forms(html, table)[0]
        response = clients[seat].post(page_url(table, "move"), first["fields"])
        assert response.status_code == 302
        assert the_table(table).version == current.version + 1, messages_of(response)
    raise AssertionError(f"the match did not end in {max_moves} moves")


def test_a_whole_crazy_eights_match_played_through_the_page_ends_on_the_finished_page(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"a whole match")

    moves = play_through_the_page(table)

    finished = the_table(table)
    assert finished.status == Table.Status.FINISHED and finished.end_reason == "finished"
    assert moves == finished.version
    client = logged_in(alice)
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = client.get(page_url(table))
    html = response.content.decode()
    # At the top, how it went for the viewer: alice's place, in words.
    place = finished.result["places"][0]
    heading = "You won." if place == 1 else f"You came {ordinal(place)} of 2."
    assert re.search(rf'<h2 id="board-heading"[^>]*>{re.escape(heading)}</h2>', html)
    assert "The result" in html and "The score sheet, hand by hand" in html
    rows = []
    for seat, (place, total) in enumerate(
        zip(finished.result["places"], finished.result["totals"], strict=True)
    ):
        name = user_at(table, seat).username
        # Each place's name links to the player's page.
        person = rf'<a href="/players/{name}/">{name}</a>'
        found = re.search(
            rf"<td[^>]*>{ordinal(place)}</td><td[^>]*>{person}[^<]*(?:<strong>\(you\)</strong>)?"
            rf"</td><td[^>]*>{total}</td>",
            html,
        )
        assert found, name
        rows.append((found.start(), place))
    assert [place for _, place in sorted(rows)] == sorted(finished.result["places"])  # in order
    # Nothing that only makes sense in play; a new game of the same kind, in one click.
    assert "Reload the table" not in html and "to act" not in html
    assert forms_of(html, f"/tables/{table.pk}/again/")[0]["button"] == "Play again"
    hands = finished.state["history"]
    assert len(re.findall(r'<th scope="row">\d+</th>', html)) == len(hands)
    assert f'href="{page_url(table, "replay")}"' in html
    assert f'href="/api/tables/{table.pk}/record/?download=1"' in html
    assert f'href="{page_url(table, "verify")}"' in html
    assert "fairdeal-verify record.json" in html
    assert move_forms(html, table) == []
    assert "Resign" not in html


def test_the_replay_steps_through_the_finished_game_with_every_hand_face_up(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"replayed")
    play_until(table, lambda s: the_table(table).version >= 6, rng=random.Random(6))
    services.table_resign(table_id=table.pk, user=alice)
    finished = the_table(table)
    client = Client()  # the record is public now: anybody may replay it

    with django_assert_max_num_queries(PAGE_QUERIES):
        start = client.get(page_url(table, "replay"), {"step": "0"})

    assert start.status_code == 200
    html = start.content.decode()
    first = finished.moves.get(seq=0)
    dealt = next(e for e in first.events if e["public"]["type"] == "deal")["chance"]["outcome"]
    # Both hands of the first deal, face up (seven cards each at two seats).
    for card in dealt[:14]:
        assert f"({card})" in html, card
    assert "Move 0 of 7" in html
    assert 'rel="next"' in html and 'rel="prev"' not in html

    later = client.get(page_url(table, "replay"), {"step": "3"}).content.decode()
    move = finished.moves.get(seq=3)
    text = services.load_state(finished).ruleset.action_text(
        move.action, selectors.seat_names(finished)
    )
    assert f"{user_at(table, move.seat).username} {text}" in later
    assert "?step=2" in later and "?step=4" in later

    end = client.get(page_url(table, "replay")).content.decode()  # the end, by default
    assert "Move 7 of 7" in end and "alice resigned" in end and 'rel="next"' not in end
    assert "Move 7 of 7" in client.get(page_url(table, "replay"), {"step": "99"}).content.decode()
    assert "Move 7 of 7" in client.get(page_url(table, "replay"), {"step": "x"}).content.decode()
    assert_meets_the_policy(client.get(page_url(table, "replay")))


def test_there_is_no_replay_before_the_end() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    response = logged_in(alice).get(page_url(table, "replay"))
    assert response.status_code == 404
    html = response.content.decode()
    assert "The replay opens when the game ends" in html
    assert not set(CARD.findall(html)) & set(table.state["hands"][1])


def test_an_open_table_shows_its_free_seats_and_a_way_to_sit() -> None:
    alice, bob = make_users("alice", "bob")
    table = services.table_create(user=alice, game="crazy-eights", seats=2, deadline=3600)
    html = logged_in(bob).get(page_url(table)).content.decode()
    assert "Waiting for players: 1 of 2 seats free." in html
    (join,) = forms_of(html, f"/tables/{table.pk}/join/")
    assert "entropy" in join["fields"]
    assert "Log in" in Client().get(page_url(table)).content.decode()
    assert (
        forms_of(
            logged_in(alice).get(page_url(table)).content.decode(), f"/tables/{table.pk}/join/"
        )
        == []
    )


# -- the board at an earlier version (table.js steps through several moves on it) ---------


def _as_then(html: str) -> str:
    """A board without what the table does not keep of an earlier version: its deadlines,
    and the count of tables waiting on the viewer (the viewer's, now); white space as one."""
    html = re.sub(r'data-waiting="\d+"', "", html)
    html = re.sub(r'<p class="deadline">.*?</p>', "", html, flags=re.S)
    html = re.sub(r", due <time [^>]*>.*?</time>", "", html, flags=re.S)
    # (The form's token is masked afresh for each answer.)
    html = re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", html)
    return re.sub(r"\s+", " ", html)


@pytest.mark.parametrize(
    ("game", "players"),
    [("crazy-eights", 2), ("crazy-8", 2), ("dodo", 3), ("dos", 3), ("dingo", 4)],
)
def test_the_board_at_an_earlier_version_is_the_board_the_viewer_saw_then(
    game: str, players: int, django_assert_max_num_queries: Any
) -> None:
    users = make_users(*[f"p{n}" for n in range(players)])
    table = started_table(*users, game=game, seed=f"board then {game}".encode())
    clients = {seat: logged_in(user_at(table, seat)) for seat in range(players)}
    rng = random.Random(31)
    seen: dict[int, dict[int, str]] = {seat: {} for seat in range(players)}
    for _ in range(25):
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        for seat, client in clients.items():
            board = client.get(page_url(table), {"fragment": "1"}).content.decode()
            seen[seat][table.version] = board
        state = services.load_state(table)
        seat = state.to_act[0]
        services.move_apply(
            table_id=table.pk,
            user=user_at(table, seat),
            version=table.version,
            action=rng.choice(state.legal_actions(seat)),
        )
    table.refresh_from_db()
    assert table.version >= 20
    for seat, client in clients.items():
        for version, then in seen[seat].items():
            if version < 1:
                continue
            with django_assert_max_num_queries(PAGE_QUERIES + 2):
                response = client.get(page_url(table, "board"), {"version": version})
            assert response.status_code == 200 and response["X-Fairdeal-Board"] == "1"
            now = response.content.decode()
            assert _as_then(now) == _as_then(then), (seat, version)
            if game != "dingo":  # (Dingo's board names every card not yet laid: public)
                assert_shown_then_only_what_the_viewer_may_see(
                    now, table, version, user_at(table, seat)
                )


def assert_shown_then_only_what_the_viewer_may_see(
    html: str, table: Table, version: int, user: Any
) -> None:
    """No card of another hand at ``version`` and no run of the stock then, unless the board
    or the log of that version shows it openly."""
    from games.table_pages import view_at

    view = view_at(selectors.table_for_view(table.pk), user, version)
    allowed = set((view["you"] or {}).get("hand") or [])
    allowed.update(CARD.findall(json.dumps(view["board"])))
    for entry in view["recent"]:
        allowed.update(CARD.findall(" ".join(entry["text"])))
    shown = set(CARD.findall(html))
    assert shown <= allowed, shown - allowed
    assert bytes(table.server_seed).hex() not in html


def test_the_board_of_a_version_the_table_never_had_is_a_400_in_words() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, seed=b"board 400")
    client = logged_in(alice)
    assert client.get(page_url(table, "board"), {"version": "1"}).status_code == 400
    play_until(table, lambda s: the_table(table).version >= 3, rng=random.Random(1))
    for asked, words in [
        ({}, "say which version"),
        ({"version": "two"}, "say which version"),
        ({"version": "-1"}, "say which version"),
        ({"version": "0"}, "versions 1 to 3, not 0"),
        ({"version": "4"}, "versions 1 to 3, not 4"),
        ({"version": "9" * 12}, "say which version"),
    ]:
        response = client.get(page_url(table, "board"), asked)
        assert response.status_code == 400, asked
        assert words in response.content.decode(), (asked, response.content)
    assert client.get(page_url(table, "board"), {"version": "3"}).status_code == 200
    assert client.post(page_url(table, "board"), {"version": "3"}).status_code == 405
    assert client.get("/tables/999999/board/", {"version": "1"}).status_code == 404


def test_the_board_of_a_private_table_is_no_board_to_a_stranger() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table = started_table(alice, bob, seed=b"board private")
    Table.objects.filter(pk=table.pk).update(private=True)
    play_until(table, lambda s: the_table(table).version >= 2, rng=random.Random(2))
    assert logged_in(carol).get(page_url(table, "board"), {"version": "1"}).status_code == 404
    assert Client().get(page_url(table, "board"), {"version": "1"}).status_code == 404
    assert logged_in(bob).get(page_url(table, "board"), {"version": "1"}).status_code == 200
