"""Dingo's bots (``games/catalogue/dingo/bot.py``): a memory true to what the seat saw, worlds it
cannot tell from the real one, and the rules of thumb on stacked tables.

Over real positions of seeded Dingo matches played by ``easy`` bots:

* the world built from the seat's memory and the *true* hidden hands is the
  real state, every saved field of it (but the cards of the passes the seat
  neither gave nor received, which it never saw);
* a sampled world shows the seat the same view and the same legal actions,
  and every world built is what loading its saved form gives;
* a card the seat passed is where its memory says it may be, and the cards it
  has not seen are exactly the other hands.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Iterator
from typing import Any

import pytest

from games.bots import LEVELS, Budget, choose, seen_from
from games.bots.streams import Dice
from games.catalogue.dingo.bot import DingoMemory, DingoWorlds, Knowledge, keep_value, ranked
from games.catalogue.dingo.rules import Dingo, DingoState
from games.rules.base import Event
from games.rules.chance import SeededChance
from tests.bots.tables import Match, bot_of, positions, search_on, seed_of
from tests.rules.test_dingo import act, discard, hunt_table, new_match, pass_

POSITIONS = 200


@pytest.fixture(autouse=True)
def small_search(monkeypatch: pytest.MonkeyPatch) -> None:
    search_on(monkeypatch, Budget(actions=300, depth=90))


def dingo_positions(
    seed: str, count: int = POSITIONS
) -> Iterator[tuple[DingoState, list[Event], int]]:
    for state, events, seat in positions(random.Random(seed), count, games={"dingo"}):
        if seat in state.to_act:
            assert isinstance(state, DingoState)
            yield state, events, seat


def but_unseen_passes(data: dict[str, Any], seat: int) -> dict[str, Any]:
    data = dict(data)
    data["passes"] = [p if seat in (p[0], p[1]) else [p[0], p[1], None] for p in data["passes"]]
    data["hands"] = [sorted(hand) for hand in data["hands"]]
    return data


def test_the_world_of_the_true_hands_is_the_real_state() -> None:
    for state, events, seat in dingo_positions("true world"):
        seen = seen_from(state, seat, events)
        memory = DingoMemory(seen)
        assert memory.consistent
        truth = state.to_json()
        world = DingoWorlds(seen, memory).build([list(hand) for hand in truth["hands"]])
        assert but_unseen_passes(world.to_json(), seat) == but_unseen_passes(truth, seat)


def test_a_sampled_world_looks_the_same_from_the_seat() -> None:
    for number, (state, events, seat) in enumerate(dingo_positions("sampled")):
        seen = seen_from(state, seat, events)
        worlds = DingoWorlds(seen, DingoMemory(seen))
        assert worlds.valid
        world = worlds.build(worlds.sample(Dice(bytes([number % 256]))))
        assert world.view(seat) == state.view(seat)
        assert world.legal_actions(seat) == state.legal_actions(seat)
        assert sorted(card for hand in world.hands for card in hand) == sorted(
            card for hand in state.to_json()["hands"] for card in hand
        )


def test_every_world_built_is_the_state_its_saved_form_loads() -> None:
    for number, (state, events, seat) in enumerate(dingo_positions("built", 60)):
        seen = seen_from(state, seat, events)
        worlds = DingoWorlds(seen, DingoMemory(seen))
        for world in range(3):
            hands = worlds.sample(Dice(bytes([number % 256, world])))
            loaded = seen.ruleset.load(worlds.saved([list(hand) for hand in hands]))
            built = worlds.build(hands)
            assert vars(built) == vars(loaded)
            before = json.dumps(built.to_json(), sort_keys=True)
            chance = SeededChance(bytes(32))
            copied = built.copy()
            for _ in range(30):
                if copied.is_over:
                    break
                actor = copied.to_act[0]
                copied.apply(actor, copied.legal_actions(actor)[0], chance)
                loaded.apply(actor, loaded.legal_actions(actor)[0], chance)
            assert json.dumps(built.to_json(), sort_keys=True) == before
            assert copied.to_json() == loaded.to_json()


def test_the_memory_never_rules_out_the_truth() -> None:
    checked = 0
    for state, events, seat in dingo_positions("truth"):
        memory = DingoMemory(seen_from(state, seat, events))
        hands = state.to_json()["hands"]
        others = sorted(card for other, hand in enumerate(hands) if other != seat for card in hand)
        assert sorted(memory.unseen) == others
        for card, where in memory.holders.items():
            assert seat not in where
            assert any(card in hands[other] for other in where), (card, where)
            checked += 1
    assert checked > 50


def test_a_card_passed_on_may_be_with_whoever_its_receiver_passed_to() -> None:
    state, chance, events = new_match()
    for seat, card in enumerate(("2H", "6C", "JC", "5S")):  # the first discards
        events += act(state, chance, seat, discard(card))
    events += act(state, chance, 0, pass_("AC"))  # South to West
    seen = seen_from(state, 0, events)
    assert DingoMemory(seen).holders == {"AC": {1}}
    events += act(state, chance, 1, pass_("AC"))  # West passes it on to North, unseen by South
    assert DingoMemory(seen_from(state, 0, events)).holders == {"AC": {1, 2}}
    assert DingoMemory(seen_from(state, 0, events)).knowledge().known == {}


# -- the rules of thumb -------------------------------------------------------------------


def knowing(hand: list[str], gone: Collection[str] = ()) -> Knowledge:
    return Knowledge(me=0, hand=hand, gone=frozenset(gone))


def discards(hand: list[str], gone: Collection[str] = ()) -> list[str]:
    legal = [{"type": "discard", "card": card} for card in hand if card[0] != "A"]
    return [action["card"] for action in ranked(knowing(hand, gone), legal)]


def test_a_dingo_with_no_wolf_left_out_is_discarded_first() -> None:
    assert discards(["5H", "9C", "KS", "QC"], gone={"5C", "5S"})[0] == "5H"


def test_a_wolf_whose_dingo_was_discarded_goes_before_a_live_one() -> None:
    order = discards(["9C", "KS", "3C"], gone={"9H"})
    assert order[0] == "9C"
    assert order[-1] == "KS"  # a high wolf of a live dingo: kept longest


def test_the_wolf_of_my_own_dingo_and_one_of_a_pair_are_worth_little() -> None:
    k = knowing(["7H", "7C", "JC", "JS", "4S"])
    assert keep_value("7C", k) < keep_value("4S", k)
    assert keep_value("JC", k) < keep_value("4S", k)


def test_the_ace_rabbit_is_worth_most_beside_both_ace_wolves() -> None:
    with_both = knowing(["AD", "AC", "AS"])
    alone = knowing(["AD", "5C"])
    assert keep_value("AD", with_both) == 10
    assert keep_value("AD", alone) < 3
    # The ace of hearts with both ace wolves: neither wolf can be played.
    assert keep_value("AC", knowing(["AH", "AC", "AS"])) < 0


def test_a_seat_holding_both_wolves_plays_one_and_every_seat_plays_the_ace_it_may() -> None:
    # South holds the 9 dingo; North both of its wolves.
    state, chance, events = hunt_table([["9H", "2C"], ["3C"], ["9C", "9S", "4C"], ["5C"]], dealer=0)
    while state.rank != "9":
        (seat,) = state.to_act
        events += act(state, chance, seat, state.legal_actions(seat)[0])
    assert state.to_act == (1,) or state.to_act == (2,)
    while state.to_act != (2,):
        (seat,) = state.to_act
        events += act(state, chance, seat, state.legal_actions(seat)[0])
    seen = seen_from(state, 2, events)
    for level in ("normal", "strong"):
        assert choose(bot_of(seen), seen, level, seed_of("both")) == {
            "type": "wolves",
            "cards": ["9C"],
        }


def test_in_the_ace_hunt_every_ace_that_may_go_down_goes_down() -> None:
    state, chance, events = hunt_table([["AH", "2C"], ["AC", "AS", "AD"], ["3C"], ["4C"]])
    while state.rank != "A":
        (seat,) = state.to_act
        events += act(state, chance, seat, state.legal_actions(seat)[0])
    assert state.to_act == (1,)
    seen = seen_from(state, 1, events)
    for level in ("normal", "strong"):
        assert choose(bot_of(seen), seen, level, seed_of("aces")) == {
            "type": "aces",
            "cards": ["AC", "AS", "AD"],
        }


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_matches_of_several_deals(level: str) -> None:
    ruleset = Dingo()
    options = ruleset.validate(4, {"deals": 3})
    levels = [level, "normal", "easy", "strong"]
    state = Match(ruleset, 4, options, seed_of("deals", level), levels).play()
    assert state.result is not None and state.result["reason"] == "finished"
    assert state.hand_no == 3
