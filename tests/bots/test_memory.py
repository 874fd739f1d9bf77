"""A seat's memory and the worlds it imagines: true to what the seat saw, never to more.

Over real positions of every game of the Crazy Eights family, version and random options
(``positions``; Dingo's memory and worlds: ``test_dingo.py``):

* the memory follows the history into the same counts and pile the view shows;
* the world built from the seat's memory and the *true* hidden cards is the
  real state, every saved field of it (but ``seen``, the positions noted to
  end a deal going round in circles, which only the state can know);
* a world sampled at random looks exactly like the real one from the seat:
  the same view and the same legal actions;
* what the memory says a hand cannot hold is true: the true hidden cards fit
  the places the memory allows them (a matching exists), and every suit it
  says a seat lacks, the seat lacks.

Stacked decks check what a seat learns from a draw.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from games.bots.seen import seen_from
from games.bots.streams import Dice
from games.catalogue.crazy_eights.bot import EightsReading
from games.catalogue.crazy_eights.memory import Memory, Slot
from games.catalogue.crazy_eights.rules import CrazyEights
from games.catalogue.crazy_eights.worlds import Worlds
from games.rules.base import GameState
from games.rules.chance import SeededChance
from tests.bots.tables import FAMILY, bot_of, positions
from tests.rules.stacked import DRAW, play, play_through, stacked_game

POSITIONS = 300


def memory_of(seen: Any) -> Memory:
    """The seat's memory, as the bot of its game makes it (with the game's rules of thumb)."""
    policy = bot_of(seen)
    assert policy is not None
    reading = policy.read(seen)
    assert isinstance(reading, EightsReading)
    return reading.memory


def saved_but_seen(state: GameState) -> dict[str, Any]:
    data = state.to_json()
    data.pop("seen", None)
    data["hands"] = [sorted(hand) for hand in data["hands"]]
    return data


def canonical(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


def fits_somewhere(cards: list[str], slots: list[Slot], epoch_of: Any) -> bool:
    """Whether ``cards`` can go one to a slot, each into a slot that admits it (a matching)."""
    matched: dict[int, int] = {}  # slot -> card index

    def place(card: int, tried: set[int]) -> bool:
        for index, slot in enumerate(slots):
            if index in tried or not slot.admits(cards[card], epoch_of(cards[card])):
                continue
            tried.add(index)
            if index not in matched or place(matched[index], tried):
                matched[index] = card
                return True
        return False

    return len(cards) == len(slots) and all(place(card, set()) for card in range(len(cards)))


def test_the_world_of_the_true_cards_is_the_real_state() -> None:
    for state, events, seat in positions(random.Random(1), POSITIONS, games=FAMILY):
        if seat not in state.to_act:
            continue
        seen = seen_from(state, seat, events)
        memory = memory_of(seen)
        assert memory.consistent
        truth = state.to_json()
        world = Worlds(seen, memory).build(
            [list(hand) for hand in truth["hands"]], list(truth["stock"]), list(truth["pile"])
        )
        assert saved_but_seen(world) == saved_but_seen(state)


def test_a_sampled_world_looks_the_same_from_the_seat() -> None:
    for number, (state, events, seat) in enumerate(
        positions(random.Random(2), POSITIONS, games=FAMILY)
    ):
        if seat not in state.to_act:
            continue
        seen = seen_from(state, seat, events)
        worlds = Worlds(seen, memory_of(seen))
        assert worlds.valid
        world = worlds.build(*worlds.sample(Dice(bytes([number % 256]))))
        assert world.view(seat) == state.view(seat)
        assert canonical(world.legal_actions(seat)) == canonical(state.legal_actions(seat))
        assert Counter(card for hand in world.to_json()["hands"] for card in hand) + Counter(
            world.to_json()["stock"] + world.to_json()["pile"]
        ) == Counter(state.ruleset.pack(state.seats, state.options))  # type: ignore[attr-defined]


def test_every_world_built_is_the_state_its_saved_form_loads() -> None:
    """``Worlds.build`` copies its first world for the next (``GameState.copy``): as loading would make it."""
    for number, (state, events, seat) in enumerate(
        positions(random.Random(4), POSITIONS // 3, games=FAMILY)
    ):
        if seat not in state.to_act:
            continue
        seen = seen_from(state, seat, events)
        worlds = Worlds(seen, memory_of(seen))
        for world in range(3):
            hands, stock, pile = worlds.sample(Dice(bytes([number % 256, world])))
            saved = worlds.saved([list(hand) for hand in hands], list(stock), list(pile))
            loaded, built = seen.ruleset.load(saved), worlds.build(hands, stock, pile)
            assert vars(built) == vars(loaded)
            # Played on, a copy shares nothing with what it was copied from.
            before = json.dumps(built.to_json(), sort_keys=True)
            copied = built.copy()
            chance = SeededChance(bytes(32))
            for _ in range(20):
                if copied.is_over or not copied.to_act:
                    break
                actor = copied.to_act[0]
                copied.apply(actor, copied.legal_actions(actor)[0], chance)
                loaded.apply(actor, loaded.legal_actions(actor)[0], chance)
            assert json.dumps(built.to_json(), sort_keys=True) == before
            assert copied.to_json() == loaded.to_json()


def test_the_memory_never_rules_out_the_truth() -> None:
    for state, events, seat in positions(random.Random(3), POSITIONS, games=FAMILY):
        seen = seen_from(state, seat, events)
        memory = memory_of(seen)
        epochs = memory.epoch_of if memory.one_pack else None

        def epoch_of(card: str, epochs: dict[str, int] | None = epochs) -> int | None:
            return None if epochs is None else epochs.get(card, 0)

        truth = state.to_json()
        for other in range(state.seats):
            if other == seat:
                continue
            assert fits_somewhere(list(truth["hands"][other]), memory.slots[other], epoch_of)
            for suit in memory.voids(other):
                assert not [c for c in truth["hands"][other] if c[1] == suit and c[0] != "8"]
        if memory.one_pack:
            assert all(epoch_of(card) == memory.epoch for card in truth["stock"])


def test_a_seat_that_draws_on_hearts_is_remembered_to_hold_no_hearts() -> None:
    rules = CrazyEights()
    state, chance, events = stacked_game(
        rules,
        [["7H", "KS", "2D", "3C", "4C", "5C", "6C"], ["9C", "TC", "JC", "QC", "KC", "AS", "2S"]],
        starter="5H",
        stock=["3S", "4H"],
    )
    events += play_through(state, chance, [(0, play("7H")), (1, DRAW), (1, DRAW)])
    events += play_through(state, chance, [(1, play("4H"))])
    seen = seen_from(state, 0, events)
    memory = memory_of(seen)
    assert memory.voids(1) == {"H"}  # the 3S it drew did not fit: a spade, but not a heart
    assert all(slot.no_eights and "7" in slot.ranks for slot in memory.slots[1])
