"""A bot never sees what it should not: what is hidden from its seat never changes its choice.

Take a real position of a random table (every game, version and random
options) and a seat with a choice; make a second state that differs only in
what that seat cannot see: the other hands and the stock (DOS's deck) dealt out
again among themselves, each hand keeping its count (in Dingo, which has no stock, the other
hands among themselves: a card the seat passed may so be elsewhere, which only
the rest of the table could tell) (a card drawn that must be played stays
where it is). The seat's view and history are the same, so what it is given is
the same, and every level, given the same bytes, makes the same choice.
"""

from __future__ import annotations

import random

import pytest

from games.bots import LEVELS, Budget, choose
from games.bots.seen import seen_from
from games.rules.base import GameState
from tests.bots.tables import bot_of, positions, search_on, seed_of

POSITIONS = {"easy": 200, "normal": 200, "strong": 40}


def hidden_dealt_again(state: GameState, seat: int, chooser: random.Random) -> GameState:
    """``state`` with every card ``seat`` cannot see dealt out again, the counts kept."""
    data = state.to_json()
    if "deck" in data:  # DOS: the other hands and the deck
        others = [other for other in range(state.seats) if other != seat]
        hidden = [card for other in others for card in data["hands"][other]] + data["deck"]
        chooser.shuffle(hidden)
        cards = iter(hidden)
        for other in others:
            data["hands"][other] = [next(cards) for _ in data["hands"][other]]
        data["deck"] = list(cards)
        return state.ruleset.load(data)
    if "stock" not in data:  # Dingo: no stock; the other hands' cards dealt again among them
        others = [other for other in range(state.seats) if other != seat]
        hidden = [card for other in others for card in data["hands"][other]]
        chooser.shuffle(hidden)
        cards = iter(hidden)
        for other in others:
            data["hands"][other] = [next(cards) for _ in data["hands"][other]]
        return state.ruleset.load(data)
    drawn = data.get("drawn")
    holder = data.get("turn")
    hidden: list[str] = list(data["stock"])
    for other, hand in enumerate(data["hands"]):
        if other != seat:
            hidden.extend(hand)
    if drawn is not None and holder != seat:
        hidden.remove(drawn)  # the card it drew and must play: it stays where it is
    chooser.shuffle(hidden)
    cards = iter(hidden)
    for other, hand in enumerate(data["hands"]):
        if other != seat:
            keep = [drawn] if drawn is not None and other == holder else []
            data["hands"][other] = keep + [next(cards) for _ in range(len(hand) - len(keep))]
    data["stock"] = [next(cards) for _ in data["stock"]]
    return state.ruleset.load(data)


@pytest.mark.parametrize("level", LEVELS)
def test_states_that_look_the_same_from_a_seat_get_the_same_choice(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    search_on(monkeypatch, Budget(actions=600))
    chooser = random.Random(f"no cheating {level}")
    differing = 0
    for number, (state, events, seat) in enumerate(positions(chooser, POSITIONS[level])):
        other = hidden_dealt_again(state, seat, chooser)
        differing += other.to_json() != state.to_json()
        seen, seen_again = seen_from(state, seat, events), seen_from(other, seat, events)
        assert seen_again == seen
        stream = seed_of("no cheating", number)
        assert choose(bot_of(seen_again), seen_again, level, stream) == choose(
            bot_of(seen), seen, level, stream
        )
    assert differing > POSITIONS[level] // 2  # the hidden cards really were moved
