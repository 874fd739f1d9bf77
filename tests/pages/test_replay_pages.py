"""The replay page carries the whole match, each step drawn once by the server.

Each distinct piece (a step's events, the board, a hand) is one ``<template>``,
and ``data-steps`` gives each step as its pieces' numbers, one per slot: the
step's events, the game's board, then each seat's hand. ``?step=n`` shows that
step in the slots, for a browser without scripts. Before the end there is
nothing of it on the page: the hands are secret until then.
"""

from __future__ import annotations

import random
import re
from html import unescape
from typing import Any

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.test import Client

from fairplay.services import seed_for
from games import replay_pages
from games.catalogue import find_ruleset
from games.models import Move, Table
from games.rules.replay import Act, Forfeit, replay
from tests.factories import make_users, started_table
from tests.pages.test_table_pages import CARD, PAGE_QUERIES, page_url, play_until
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db

TEMPLATE = re.compile(r"<template>(.*?)</template>", re.DOTALL)


def finished_match(game: str, seed: bytes, rng: int, *names: str, **options: Any) -> Table:
    """A match of ``game`` played to its end by seeded random legal moves."""
    table = started_table(*make_users(*names), game=game, seed=seed, options=options)
    play_until(table, lambda state: state.is_over, rng=random.Random(rng))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table


def steps_of(table: Table) -> list[Any]:
    """The engine's own replay of the table: each step's hands and hand number."""
    log = [
        Act(m.seat, m.action) if m.kind == Move.Kind.ACTION else Forfeit(m.seat, m.action["reason"])
        for m in table.moves.order_by("seq")
        if m.kind != Move.Kind.START
    ]
    ruleset = find_ruleset(table.game, table.ruleset_version)
    return [
        (step.state.hand_no, [step.state.private_view(s)["hand"] for s in range(table.seat_count)])
        for step in replay(ruleset, table.seat_count, table.options, seed_for(table), log)
    ]


def carried(html: str) -> tuple[list[str], list[list[int]]]:
    """The pieces the page carries, and each step as its pieces' numbers."""
    (steps,) = re.findall(r'data-steps="([^"]*)"', html)
    return TEMPLATE.findall(html), [[int(n) for n in row.split(",")] for row in steps.split(";")]


def shown(html: str) -> str:
    """The page without the pieces kept for the script: what a browser draws."""
    return TEMPLATE.sub("", html)


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


@pytest.fixture
def crazy_8() -> Table:
    # A match to 50 points: several hands, and a test that takes a second or two.
    return finished_match("crazy-8", b"replay in one page", 3, "alice", "bob", target=50)


def test_the_page_carries_every_step_once_each_piece_once(
    crazy_8: Table, django_assert_max_num_queries: Any
) -> None:
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = Client().get(page_url(crazy_8, "replay"))
    html = response.content.decode()
    pieces, steps = carried(html)
    truth = steps_of(crazy_8)

    assert len(steps) == len(truth) == crazy_8.version + 1
    assert all(len(row) == 2 + crazy_8.seat_count for row in steps)
    # Every piece is used, and none is there twice.
    assert {n for row in steps for n in row} == set(range(len(pieces)))
    assert len(set(pieces)) == len(pieces)
    # Each step's slots: its own heading, then every hand of that step face up, in seat order.
    for number, row in enumerate(steps):
        heading = "The deal" if number == 0 else f"Move {number}"
        assert f'<h2 id="step-heading">{heading}</h2>' in pieces[row[0]]
        _, hands = truth[number]
        for seat, piece in zip(range(crazy_8.seat_count), row[2:], strict=True):
            assert set(CARD.findall(pieces[piece])) == set(hands[seat])
            assert all(f"({card})" in pieces[piece] for card in hands[seat])
    assert_meets_the_policy(response)


def test_a_step_asked_for_is_shown_without_scripts_from_the_same_pieces(crazy_8: Table) -> None:
    html = Client().get(page_url(crazy_8, "replay"), {"step": "12"}).content.decode()
    pieces, steps = carried(html)
    page = shown(html)

    assert "Move 12 of" in page and 'value="12"' in page
    assert "?step=11" in page and "?step=13" in page
    for piece in steps[12]:
        assert pieces[piece] in page
    # The hands of another step are only in the pieces kept for the script.
    later = [n for n in steps[-1][2:] if n not in steps[12]]
    assert later and not any(pieces[n] in page for n in later)


def test_the_hands_to_go_to_are_where_each_hand_starts(crazy_8: Table) -> None:
    truth = steps_of(crazy_8)
    starts = [n for n, (hand, _) in enumerate(truth) if n == 0 or truth[n - 1][0] != hand]
    assert len(starts) >= 2, "choose a seed whose match has two hands or more"
    middle = starts[1] + 1

    html = Client().get(page_url(crazy_8, "replay"), {"step": middle}).content.decode()

    (picker,) = re.findall(r'<select id="replay-hand" name="step">(.*?)</select>', html, re.DOTALL)
    options = re.findall(r'<option value="(\d+)"( selected)?>([^<]*)</option>', picker)
    assert [int(value) for value, _, _ in options] == starts
    assert [label for _, _, label in options][:2] == [
        "Hand 1 (from move 0)",
        f"Hand 2 (from move {starts[1]})",
    ]
    assert [value for value, selected, _ in options if selected] == [str(starts[1])]


def test_a_step_out_of_range_or_not_a_number_shows_the_end(crazy_8: Table) -> None:
    last = crazy_8.version
    for asked in ("999999", "x", "-1", ""):
        page = shown(Client().get(page_url(crazy_8, "replay"), {"step": asked}).content.decode())
        assert f"Move {last} of {last}" in page and 'rel="next"' not in page


def test_a_table_still_in_play_has_no_replay_and_nothing_of_its_steps() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob, game="crazy-8")
    response = Client().get(page_url(table, "replay"))
    assert response.status_code == 404
    html = response.content.decode()
    assert "The replay opens when the game ends" in html
    assert "data-steps" not in html and "<template" not in html
    assert not set(CARD.findall(html)) & {c for hand in table.state["hands"] for c in hand}


def test_a_match_drawn_is_kept_and_drawn_again_when_a_name_changes(
    crazy_8: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = []
    draw = replay_pages.draw_replay
    monkeypatch.setattr(replay_pages, "draw_replay", lambda *args: drawn.append(1) or draw(*args))
    monkeypatch.setattr(replay_pages, "DRAWN", LocMemCache("replay-test", {}))
    url = page_url(crazy_8, "replay")

    first = Client().get(url).content.decode()
    again = Client().get(url).content.decode()
    assert drawn == [1] and again == first
    # Read back, the page is the same as drawn; a step asked for comes from the same drawing.
    assert "Move 5 of" in Client().get(url, {"step": "5"}).content.decode()
    assert drawn == [1]

    alice = crazy_8.seats.get(number=0).user
    alice.username = "alicia"
    alice.save()
    renamed = Client().get(url).content.decode()
    assert drawn == [1, 1] and "alicia (seat 0" in text_of(renamed)
