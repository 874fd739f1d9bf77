"""DOS's table page: the centre row, the matches of the turn, its step, the piles, the calls, the buttons.

The page draws what the API shows the viewer (``table_view``): the centre row
face up with the cards matched this turn marked, the matches being built (the
cards laid on each centre card, what each wild counts as, the colour bonus
earned), the step of the turn (match or draw, after a draw, the bonus
placements and how many are left), the deck's size, the discard pile's top and
size, who called DOS, who may be caught and a catch's cards owed, the rounds so
far and the target; the viewer's own hand, and a button for each legal action
in a player's words, grouped as matches (a row for each centre card), the draw,
the places, the bonus placements, the end of the turn and the calls. No other
hand, no card of the deck and no seed appears before the end.
"""

from __future__ import annotations

import json
import random
import re
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from games import selectors, services
from games.catalogue.dos.table import dos_card_face, dos_match_bonus
from games.models import Table
from tests.factories import client_for, make_users, started_table
from tests.pages.test_table_pages import (
    PAGE_QUERIES,
    button_words,
    logged_in,
    messages_of,
    move_forms,
    page_url,
    play_until,
    seat_box,
    table_forms,
    user_at,
)
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

# A DOS card's token, standing alone: R7, B10, Y#, W2 (never inside a longer word).
TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[BGRY](?:10|[1-9])|[BGRY]#|W2)(?![A-Za-z0-9])")
SMALL_CARDS = re.compile(r"^(?:(?:[BGRY](?:10|[1-9]|#)|W2)\s*)+(?=[A-Z][a-z])")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def dos_table(seed: bytes, seats: int = 3, **options: Any) -> Table:
    players = make_users(*["alice", "bob", "charlie", "dave"][:seats])
    return started_table(*players, game="dos", seed=seed, options=options)


def page_of(table: Table, seat: int | None) -> str:
    client = Client() if seat is None else logged_in(user_at(table, seat))
    response = client.get(page_url(table))
    assert response.status_code == 200
    return response.content.decode()


def cards_named(html: str) -> set[str]:
    return set(TOKEN.findall(CSRF.sub("", html)))


def assert_no_hidden_card(html: str, table: Table, user: Any) -> None:
    """No card named but the viewer's own, what the table shows and what the log says;
    never the deck's order, never the seed."""
    view = selectors.table_view(selectors.table_for_view(table.pk), user)
    allowed = set(TOKEN.findall(json.dumps(view["board"])))
    if view["you"]:
        allowed |= set(view["you"]["hand"])
    # What the legal actions say a wild counts as ("as": ["B2"]) is no card of the deck.
    allowed |= set(TOKEN.findall(json.dumps(view["legal_actions"])))
    for entry in view["recent"]:
        allowed |= set(TOKEN.findall(" ".join(entry["text"])))
    shown = cards_named(html)
    assert shown <= allowed, shown - allowed
    deck = table.state["deck"]
    assert " ".join(deck[:4]) not in html and "".join(deck[:4]) not in html
    assert bytes(table.server_seed).hex() not in html


def said_by(form: dict[str, Any]) -> str:
    """What a move button says: its words, without the small cards drawn before them."""
    return SMALL_CARDS.sub("", button_words(form))


def buttons(html: str, table: Table) -> list[tuple[dict[str, Any], str]]:
    """Each move button's action (its posted JSON) and its words."""
    return [(json.loads(f["fields"]["action"]), said_by(f)) for f in move_forms(html, table)]


def words_of(html: str) -> str:
    """The page's text as read: tags and repeated spaces aside, no space before a stop."""
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    return re.sub(r"\( ", "(", re.sub(r" ([:;,.)])", r"\1", text))


# -- the start of a turn ------------------------------------------------------------------


def test_the_page_draws_the_centre_row_the_step_the_piles_and_my_hand_as_dos_cards(
    django_assert_max_num_queries: Any,
) -> None:
    table = dos_table(b"dos page")
    state = services.load_state(table)
    seat = state.to_act[0]
    client = logged_in(user_at(table, seat))
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = client.get(page_url(table))
    assert_meets_the_policy(response)
    html = response.content.decode()
    text = words_of(html)
    assert "Your turn." in html
    assert "Round 1: the game ends when a total reaches 200 at the end of a round." in text
    assert "Your turn: match centre cards, or draw a card." in text
    assert '<li class="current" aria-current="step">Match or draw' in html
    # The centre row, face up, each card named in words with its token.
    assert f"The centre row ({len(state.centre)} cards, face up)" in text
    for card in state.centre:
        face = dos_card_face(card)
        assert f"{face['name']} ({card})" in html
    assert f"Deck {len(state.deck)} cards, face down" in text
    assert "Discard pile 0 cards" in text
    # My hand, as DOS cards: number, colour in words, token.
    hand = state.view(seat)["you"]["hand"]
    assert f"Your hand ({len(hand)} cards)" in text
    for card in hand:
        face = dos_card_face(card)
        assert f'class="card {face["colour"]}"' in html
        assert f"{face['name']} ({card})" in html
    assert_no_hidden_card(html, table, user_at(table, seat))


def test_a_spectator_and_a_waiting_seat_see_the_table_and_no_hand_but_their_own(
    django_assert_max_num_queries: Any,
) -> None:
    table = dos_table(b"dos spectator")
    state = play_until(table, lambda s: bool(s.matches), rng=random.Random(10))
    names = selectors.seat_names(table)
    client = Client()
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = client.get(page_url(table))
    html = response.content.decode()
    text = words_of(html)
    assert "You are watching: the players' hands are theirs alone." in text
    assert "Your hand" not in text and move_forms(html, table) == []
    assert f"{names(state.turn)}'s turn: 1 match made" in text
    assert "Matched this turn" in text
    assert_no_hidden_card(html, table, AnonymousUser())
    waiting = (state.turn + 1) % 3
    html = page_of(table, waiting)
    assert move_forms(html, table) == []
    assert "Nothing for you to do until the others have moved." in words_of(html)
    assert f"Your hand ({len(state.hands[waiting])} cards)" in words_of(html)
    assert_no_hidden_card(html, table, user_at(table, waiting))


def test_every_legal_action_is_a_button_posting_exactly_it_in_a_players_words() -> None:
    table = dos_table(b"dos buttons")
    state = play_until(
        table,
        lambda s: sum(a["type"] == "match" for a in s.legal_actions(s.to_act[0])) >= 3,
        rng=random.Random(11),
    )
    seat = state.to_act[0]
    html = page_of(table, seat)
    legal = state.legal_actions(seat)
    forms = move_forms(html, table)
    assert len(forms) == len(legal)
    for form in forms:
        action = legal[int(form["fields"]["index"])]
        assert json.loads(form["fields"]["action"]) == action
        assert form["fields"]["version"] == str(table.version)
        words = said_by(form)
        if action["type"] == "match":
            target = action["target"]
            if action.get("target_as"):
                target += f" as {action['target_as']}"
            assert words.startswith(f"Match {target} with "), words
            # Each card laid is named, a wild with what it counts as.
            for card, counted in zip(
                action["cards"], action.get("as") or action["cards"], strict=True
            ):
                said = card if counted == card else f"{card} as {counted}"
                assert said in words, (said, words)
        elif action["type"] == "draw":
            assert words == "Draw a card"
    # The matches come first, one row for each centre card, under its name.
    kinds = [a["type"] for a, _ in buttons(html, table)]
    assert kinds == sorted(kinds, key=lambda kind: kind != "match")
    assert "Match a centre card" in html and "Or draw a card" in html
    for target in {a["target"] for a in legal if a["type"] == "match"}:
        assert f"({target})</span>:</p>" in html


def test_a_match_that_earns_a_colour_bonus_says_so_on_its_button() -> None:
    table = dos_table(b"dos bonus buttons")
    state = play_until(
        table,
        lambda s: any(
            a["type"] == "match" and dos_match_bonus(a) for a in s.legal_actions(s.to_act[0])
        ),
        rng=random.Random(12),
    )
    seat = state.to_act[0]
    html = page_of(table, seat)
    words = {"single": "(single colour match)", "double": "(double colour match)"}
    for action, said in buttons(html, table):
        if action["type"] != "match":
            continue
        bonus = {0: None, 1: "single", 2: "double"}[dos_match_bonus(action)]
        if bonus:
            assert said.endswith(words[bonus]) or said.endswith(f"{words[bonus]} and call DOS")
        else:
            assert "colour match" not in said
    assert 'class="move-button earns"' in html


def test_a_button_posts_its_match_and_the_page_then_shows_the_match_being_built() -> None:
    table = dos_table(b"dos a match")
    state = play_until(
        table,
        lambda s: (
            any(a["type"] == "match" for a in s.legal_actions(s.to_act[0])) and len(s.centre) >= 3
        ),
        rng=random.Random(13),
    )
    seat = state.to_act[0]
    player = logged_in(user_at(table, seat))
    html = player.get(page_url(table)).content.decode()
    form = next(
        f for f in move_forms(html, table) if json.loads(f["fields"]["action"])["type"] == "match"
    )
    action = json.loads(form["fields"]["action"])
    response = player.post(page_url(table, "move"), form["fields"])
    assert response.status_code == 302
    assert messages_of(response)[0].startswith(f"You matched {action['target']} with ")
    table.refresh_from_db()
    state = services.load_state(table)
    assert state.matches and state.turn == seat and state.step != "bonus"
    html = player.get(page_url(table)).content.decode()
    text = words_of(html)
    (match,) = state.matches
    # The centre card matched is marked; the match is told with its cards and its bonus.
    assert html.count('<li class="matched">') == 1
    assert "✓ matched" in text
    assert "Matched this turn" in text
    laid = " + ".join(
        c if a == c else f"{c} as {a}"
        for c, a in zip(match["cards"], match["as"] or match["cards"], strict=True)
    )
    target = (
        match["target"] if not match["target_as"] else f"{match['target']} as {match['target_as']}"
    )
    assert f"{target} with {laid}" in text
    bonus = {0: "(no colour match)", 1: "single colour match", 2: "double colour match"}
    assert bonus[match["bonus"]] in text
    assert "1 match made; match another centre card, or end the turn." in text
    assert "Or end your turn" in text and "End your turn" in [w for _, w in buttons(html, table)]
    # The others see the same row and match, and none of the player's cards.
    for other in range(3):
        if other != seat:
            page = page_of(table, other)
            assert f"{target} with {laid}" in words_of(page)
            assert_no_hidden_card(page, table, user_at(table, other))


def test_wilds_are_shown_with_what_they_count_as() -> None:
    table = dos_table(b"dos wilds")
    state = play_until(
        table,
        lambda s: any(m["as"] or m["target_as"] for m in s.matches),
        rng=random.Random(14),
    )
    match = next(m for m in state.matches if m["as"] or m["target_as"])
    text = words_of(page_of(table, None))
    if match["as"]:
        for card, counted in zip(match["cards"], match["as"], strict=True):
            if counted != card:
                assert f"{card} as {counted}" in text
    if match["target_as"]:
        assert f"{match['target']} as {match['target_as']} with" in text


# -- the other steps ----------------------------------------------------------------------


def test_after_a_draw_the_page_offers_the_matches_and_the_places() -> None:
    table = dos_table(b"dos drawn")
    state = play_until(table, lambda s: s.step == "drawn" and not s.matches, rng=random.Random(15))
    seat = state.to_act[0]
    html = page_of(table, seat)
    text = words_of(html)
    assert '<li class="current" aria-current="step">After a draw: match or place' in html
    assert "a card drawn; now match centre cards, or place a card face up in the centre row" in text
    assert "lace a card face up in the centre row (your turn ends)" in text
    places = [w for a, w in buttons(html, table) if a["type"] == "place"]
    hand = set(state.view(seat)["you"]["hand"])
    assert {w.split()[1] for w in places} == hand
    assert all(w.startswith("Place ") and " in the centre row" in w for w in places)
    assert "Draw a card" not in [w for _, w in buttons(html, table)]
    assert_no_hidden_card(html, table, user_at(table, seat))


def test_the_bonus_placements_say_how_many_are_left() -> None:
    table = dos_table(b"dos bonus step")
    state = play_until(table, lambda s: s.step == "bonus", rng=random.Random(16))
    seat = state.to_act[0]
    owed = state.bonuses
    html = page_of(table, seat)
    text = words_of(html)
    assert f"Bonus placements ({owed} left)" in text
    assert f"Colour-match bonus: place a card face up in the centre row ({owed} left)" in text
    assert f"Bonus placements {owed} left to place (each optional)" in text
    said = [w for _, w in buttons(html, table)]
    assert "Place no more and end your turn" in said
    assert "Or place no more bonus cards" in text
    for card in set(state.view(seat)["you"]["hand"]):
        assert f"Place {card} in the centre row as a bonus" in said
    # A spectator sees the step, and no card of the hand.
    spectator = page_of(table, None)
    assert f"Bonus placements ({owed} left)" in words_of(spectator)
    assert "Your move" not in spectator and "Your hand" not in spectator
    assert_no_hidden_card(spectator, table, AnonymousUser())


# -- DOS! -----------------------------------------------------------------------------------


def test_a_player_down_to_two_cards_may_call_and_the_others_may_catch() -> None:
    table = dos_table(b"dos calls")
    state = play_until(table, lambda s: bool(s.due), rng=random.Random(17))
    (due,) = state.due
    names = selectors.seat_names(table)
    for seat in range(3):
        html = page_of(table, seat)
        text = words_of(html)
        said = [w for _, w in buttons(html, table)]
        assert f"DOS not called {names(due)}: down to two cards without calling DOS" in text
        assert "DOS not called: may be caught" in text  # beside the player
        # On the table, the call is a button at the seat it concerns: the caller's own.
        at_seats = [button_words(f) for f in table_forms(html, table, "seat")]
        assert at_seats == [w for w in said if w == "Call DOS!" or w.startswith("Catch ")]
        if seat == due:
            assert "Call DOS!" in said
            assert not any(w.startswith("Catch ") for w in said)
            assert "Call DOS!" in seat_box(html, due)
        else:
            assert f"Catch {names(due)} not calling DOS ({names(due)} draws two)" in said
            assert "Catch" in seat_box(html, due) and "Catch" not in seat_box(html, seat)
            assert "Call DOS!" not in said
            assert "DOS! Call it, or catch a player who did not" in text
            if seat not in state.to_act:
                assert "What you may call, as a list" in text
        assert_no_hidden_card(html, table, user_at(table, seat))


def test_a_catch_in_the_caught_players_turn_shows_the_cards_owed() -> None:
    table = dos_table(b"dos penalty")
    state = play_until(table, lambda s: s.turn in s.due, rng=random.Random(18))
    turn = state.turn
    catcher = (turn + 1) % 3
    services.move_apply(
        table_id=table.pk,
        user=user_at(table, catcher),
        version=Table.objects.get(pk=table.pk).version,
        action={"type": "catch", "seat": turn},
    )
    table.refresh_from_db()
    state = services.load_state(table)
    assert state.penalty == 2 and state.turn == turn
    names = selectors.seat_names(table)
    text = words_of(page_of(table, (turn + 1) % 3))
    assert f"Caught not calling DOS {names(turn)} draws 2 cards when the turn ends" in text
    mine = words_of(page_of(table, turn))
    assert "Caught not calling DOS you draw 2 cards when your turn ends" in mine


def test_a_called_dos_is_shown_beside_the_player() -> None:
    table = dos_table(b"dos called")
    state = play_until(table, lambda s: bool(s.called), rng=random.Random(19))
    names = selectors.seat_names(table)
    text = words_of(page_of(table, None))
    assert f"Called DOS {', '.join(names(s) for s in sorted(state.called))}" in text
    assert "called DOS" in text


# -- rounds, the end, the replay --------------------------------------------------------------


def test_the_rounds_so_far_are_on_the_page_while_the_game_goes_on() -> None:
    table = dos_table(b"dos rounds")
    state = play_until(table, lambda s: len(s.history) >= 1, rng=random.Random(20))
    assert not state.is_over
    names = selectors.seat_names(table)
    html = page_of(table, None)
    text = words_of(html)
    assert "Round 2: the game ends when a total reaches 200 at the end of a round." in text
    assert "Rounds so far" in text
    (first,) = state.history
    winner = names(first["winner"])
    assert re.search(rf"<th scope=\"row\">1</th>\s*<td>{winner}</td>", html)
    assert "The result" not in text


def test_a_finished_round_shows_the_places_and_the_score_sheet_round_by_round(
    django_assert_max_num_queries: Any,
) -> None:
    table = dos_table(b"dos one round", seats=2, target=0)
    state = play_until(table, lambda s: s.is_over, rng=random.Random(21))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    client = logged_in(user_at(table, 0))
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = client.get(page_url(table))
    html = response.content.decode()
    text = words_of(html)
    place = table.result["places"][0]
    assert ("You won." if place == 1 else "You came 2nd of 2.") in text
    assert "The result" in text and "The score sheet, round by round" in text
    assert "Won by" in text
    (round_,) = state.history
    names = selectors.seat_names(table)
    assert f"round 1 won by {names(round_['winner'])}" in text
    assert move_forms(html, table) == []
    assert "Replay the game" in html


def test_the_replay_draws_dos_s_table_after_each_step(
    django_assert_max_num_queries: Any,
) -> None:
    table = dos_table(b"dos replay", seats=2, target=0)
    play_until(table, lambda s: s.is_over, rng=random.Random(22))
    table.refresh_from_db()
    moves = table.moves.filter(kind="action").count()
    client = client_for()
    with django_assert_max_num_queries(PAGE_QUERIES):
        start = client.get(page_url(table, "replay"), {"step": 0})
    assert start.status_code == 200
    assert_meets_the_policy(start)
    for step in (0, moves // 2, moves):
        html = client.get(page_url(table, "replay"), {"step": step}).content.decode()
        text = words_of(html)
        assert "The centre row" in text and "Deck and discard pile" in text
        assert "Every hand" in text
        assert "Top of the pile" not in text and "Stock" not in text
    first = table.moves.get(seq=0)
    dealt = next(e for e in first.events if e["public"]["type"] == "deal")["chance"]["outcome"]
    html = client.get(page_url(table, "replay"), {"step": 0}).content.decode()
    for card in set(dealt[:14]):  # both hands of the deal, face up
        assert f"({card})" in html, card
    end = words_of(client.get(page_url(table, "replay")).content.decode())
    assert "round 1 won by" in end and "Rounds so far" in end


def test_there_is_no_dos_replay_before_the_end() -> None:
    table = dos_table(b"dos no replay", seats=2)
    response = logged_in(user_at(table, 0)).get(page_url(table, "replay"))
    assert response.status_code == 404
    assert not cards_named(response.content.decode()) & set(table.state["hands"][1])
