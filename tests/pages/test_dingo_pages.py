"""Dingo's table page: the compass, the rabbits, the piles, the hunt, the passes, the buttons.

The page draws what the API shows the viewer (``table_view``): the twelve
rabbits and what became of each, the hunt in progress and whose answer is
awaited, the discard pile's top and size, each seat at its place of the
compass (the dealer South) with its scoring and penalty piles and total (in
play the page's seats around the middle, the viewer's at the bottom; in the
replay and at the end Dingo's compass), the
round in words, the viewer's hand and the cards it passed and received, and a
button for each legal action in the engine's words, grouped as discards,
passes and answers. A card of another hand appears nowhere: a passed card only
on its giver's and its receiver's pages.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from games import selectors, services
from games.catalogue.presentation import card_face
from games.models import Table
from games.rules import GameState
from tests.factories import client_for, make_users, started_table
from tests.pages.test_table_pages import (
    button_words,
    logged_in,
    move_forms,
    page_url,
    play_until,
    user_at,
)
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")
SEAT_BOX = re.compile(r'<li class="seat-box.*?data-seat-news>.*?</p>\s*</li>', re.DOTALL)


def dingo_table(seed: bytes) -> Table:
    players = make_users("alice", "bob", "charlie", "dave")
    return started_table(*players, game="dingo", seed=seed)


def allowed_cards(table: Table, user: Any) -> set[str]:
    """Every card the viewer may see named: its own, what the table shows, what the log says."""
    view = selectors.table_view(selectors.table_for_view(table.pk), user)
    allowed = set(CARD.findall(json.dumps(view["board"])))
    if view["you"]:
        allowed |= set(CARD.findall(json.dumps(view["you"])))
    for entry in view["recent"]:
        allowed.update(CARD.findall(" ".join(entry["text"])))
    allowed |= {rank + "D" for rank in "23456789TJQKA"}  # the rabbits are all drawn
    return allowed


def assert_no_other_hand(html: str, table: Table, user: Any) -> None:
    shown = set(CARD.findall(html))
    allowed = allowed_cards(table, user)
    assert shown <= allowed, shown - allowed
    assert bytes(table.server_seed).hex() not in html


def page_of(table: Table, seat: int) -> str:
    response = logged_in(user_at(table, seat)).get(page_url(table))
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_draws_the_compass_the_rabbits_the_discards_and_my_discards_as_buttons() -> None:
    table = dingo_table(b"dingo page")
    state = services.load_state(table)
    dealer = state.to_act[0]
    response = logged_in(user_at(table, dealer)).get(page_url(table))
    assert_meets_the_policy(response)
    html = response.content.decode()
    assert "Discards, round 1 of 4" in html
    # Each seat once, around the middle: the page's seats, each with its place of the
    # compass and its piles; no second compass of seats in the middle.
    boxes = SEAT_BOX.findall(html)
    assert len(boxes) == 4, boxes
    assert sorted(re.search(r'class="tag-where">(\w+)<', box)[1] for box in boxes) == [
        "East",
        "North",
        "South",
        "West",
    ]
    assert all("Scoring pile" in box and "Penalty pile" in box for box in boxes)
    assert "compass-seat" not in html and html.count("Scoring pile") == 4
    # The viewer's own seat last, at the bottom; the others from their left in turn.
    seats = [int(re.search(r'data-seat="(\d)"', box)[1]) for box in boxes]
    assert seats == [(dealer + k) % 4 for k in (1, 2, 3, 0)]
    assert 'class="seat-side at-bottom"' in html and "(you)</strong>" in boxes[-1]
    assert '<span class="tag-dealer">dealer</span>' in boxes[-1]
    for rank in "23456789TJQK":  # the twelve rabbits, still to hunt
        assert f"{card_face(rank + 'D')['name']} ({rank}D): still to hunt" in html
    assert "in a hand until the Ace hunt" in html
    assert "Discard pile" in html and "(0 cards; only the top shows)" in html
    assert "Discard a card (face up; never an ace)" in html
    forms = move_forms(html, table)
    legal = state.legal_actions(dealer)
    assert len(forms) == len(legal)
    for form in forms:
        action = legal[int(form["fields"]["index"])]
        assert json.loads(form["fields"]["action"]) == action
        assert button_words(form).endswith(f"Discard {action['card']}")
    assert_no_other_hand(html, table, user_at(table, dealer))


def test_a_passed_card_shows_on_the_giver_s_and_the_receiver_s_pages_only() -> None:
    table = dingo_table(b"dingo pass page")
    state = play_until(table, lambda s: s.phase == "pass", rng=random.Random(1))  # type: ignore[attr-defined]
    giver = state.to_act[0]
    receiver = state.receiver(giver)  # type: ignore[attr-defined]
    html = page_of(table, giver)
    names = selectors.seat_names(table)
    assert f"Pass a card to {names(receiver)} (face down)" in html
    assert "Pass 1 of 3, to the left" in html
    card = state.legal_actions(giver)[0]["card"]
    services.move_apply(
        table_id=table.pk,
        user=user_at(table, giver),
        version=Table.objects.get(pk=table.pk).version,
        action={"type": "pass", "card": card},
    )
    table.refresh_from_db()
    words = "You passed"
    for seat in range(4):
        page = page_of(table, seat)
        assert_no_other_hand(page, table, user_at(table, seat))
        if seat == giver:
            assert words in page and f"({card}) to {names(receiver)}" in page
        elif seat == receiver:
            assert f"({card}) from {names(giver)}" in page
        else:
            assert card not in CARD.findall(page), seat
    spectator = client_for().get(page_url(table)).content.decode()
    assert card not in CARD.findall(spectator)


def hunting(state: GameState) -> bool:
    hunt = state.view(None)["hunt"]
    return hunt is not None and bool(hunt["answers"])


def test_the_hunt_shows_the_rabbit_the_dingo_the_wolves_so_far_and_whose_answer_is_awaited() -> (
    None
):
    table = dingo_table(b"dingo hunt page")
    state = play_until(table, hunting, rng=random.Random(2))
    hunt = state.view(None)["hunt"]
    awaiting = hunt["awaiting"]
    names = selectors.seat_names(table)
    html = page_of(table, awaiting)
    assert "Answer the hunt" in html
    assert "Rabbit hunted" in html or hunt["rank"] == "A"
    assert f"played by {names(hunt['dingo'])}" in html
    assert f"<strong>{names(awaiting)}</strong>'s answer" in html
    for answer in hunt["answers"]:
        assert f"{names(answer['seat'])}: " in html
    # The rabbits already hunted say what became of them.
    assert "still to hunt" in html
    assert "caught by" in html or "discarded: nobody caught it" in html
    forms = move_forms(html, table)
    assert {button_words(f).split("Play ")[-1] for f in forms} >= {"no wolf"} or hunt["rank"] == "A"
    assert_no_other_hand(html, table, user_at(table, awaiting))


def test_a_finished_deal_shows_the_places_and_the_score_sheet_deal_by_deal() -> None:
    table = dingo_table(b"dingo end page")
    play_until(table, lambda s: s.is_over, rng=random.Random(3))
    table.refresh_from_db()
    html = page_of(table, 0)
    assert "The result" in html and "The score sheet, deal by deal" in html
    assert "Won by" not in html
    assert "Replay the game" in html
    replay = logged_in(user_at(table, 0)).get(page_url(table, "replay"))
    assert replay.status_code == 200
    # The replay draws Dingo's table after each step: the compass, the rabbits, the piles.
    moves = table.moves.filter(kind="action").count()
    for step in (0, 20, moves - 3, moves):
        page = client_for().get(page_url(table, "replay"), {"step": step}).content.decode()
        assert "The rabbits" in page and "South: " in page and "Scoring pile" in page
        assert "Stock" not in page
    middle = client_for().get(page_url(table, "replay"), {"step": 20}).content.decode()
    assert "Pass " in middle or "Discards, round" in middle
