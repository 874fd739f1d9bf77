"""DOS's bots (``games/catalogue/dos/bot.py``): a memory true to what the seat saw, worlds it cannot
tell from the real one, and the rules of thumb on stacked tables (the search within its
budget, for every game: ``test_search.py``).

Over real positions of seeded DOS matches played by ``easy`` bots:

* the cards the seat has not seen are exactly the other hands and the deck;
* the world built from the seat's memory and the *true* hidden cards is the
  real state, every saved field of it;
* a sampled world shows the seat the same view and the same legal actions,
  and every world built is what loading its saved form gives.

Then stacked tables (``tests/rules/test_dos.py``'s ``arrange``) put a seat before
a choice the rulebook's advice makes clear.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from games.bots import LEVELS, Budget, choose, seen_from
from games.bots.streams import Dice
from games.catalogue.dos.bot import DosMemory, DosWorlds
from games.catalogue.dos.rules import Dos, DosState
from games.rules.base import Event
from games.rules.chance import SeededChance
from tests.bots.tables import Match, bot_of, positions, search_on, seed_of
from tests.rules.test_dos import END, act, arrange, bonus, match, place

POSITIONS = 150
BUDGET = Budget(actions=300, depth=30)


@pytest.fixture(autouse=True)
def small_search(monkeypatch: pytest.MonkeyPatch) -> None:
    search_on(monkeypatch, BUDGET)


def dos_positions(
    seed: str, count: int = POSITIONS, *, owing: bool = True
) -> Iterator[tuple[DosState, list[Event], int]]:
    for state, events, seat in positions(random.Random(seed), count, games={"dos"}):
        if seat in state.to_act or not owing:
            assert isinstance(state, DosState)
            yield state, events, seat


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """A saved state with what no seat can tell apart put in one order: the order each
    hand got its cards (a view shows it in pack order), and who was caught or called first."""
    data = dict(data)
    data["hands"] = [sorted(hand) for hand in data["hands"]]
    data["due"], data["called"] = sorted(data["due"]), sorted(data["called"])
    return data


def seen_at(state: DosState, seat: int, events: list[Event] | None = None) -> Any:
    return seen_from(state, seat, events or [])


# -- the memory and the worlds ----------------------------------------------------------


def test_the_cards_not_seen_are_exactly_the_other_hands_and_the_deck() -> None:
    looked = 0
    for state, events, seat in dos_positions("unseen", owing=False):
        memory = DosMemory(seen_from(state, seat, events))
        assert memory.consistent
        hidden = Counter(state.deck)
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden.update(hand)
        assert memory.unseen == hidden
        assert memory.pile == state.discards
        looked += 1
    assert looked >= POSITIONS


def test_the_world_of_the_true_hidden_cards_is_the_real_state() -> None:
    for state, events, seat in dos_positions("true world"):
        seen = seen_from(state, seat, events)
        worlds = DosWorlds(seen, DosMemory(seen))
        truth = state.to_json()
        world = worlds.build([list(hand) for hand in truth["hands"]], list(truth["deck"]))
        assert comparable(world.to_json()) == comparable(truth)


def test_a_sampled_world_looks_the_same_from_the_seat() -> None:
    for number, (state, events, seat) in enumerate(dos_positions("sampled")):
        seen = seen_from(state, seat, events)
        worlds = DosWorlds(seen, DosMemory(seen))
        assert worlds.valid
        world = worlds.build(*worlds.sample(Dice(bytes([number % 256]))))
        assert world.view(seat) == state.view(seat)
        assert world.legal_actions(seat) == state.legal_actions(seat)
        placed = Counter(world.deck)
        for hand in world.hands:
            placed.update(hand)
        truth = Counter(state.deck)
        for hand in state.hands:
            truth.update(hand)
        assert placed == truth


def test_every_world_built_is_the_state_its_saved_form_loads() -> None:
    for number, (state, events, seat) in enumerate(dos_positions("built", 50)):
        seen = seen_from(state, seat, events)
        worlds = DosWorlds(seen, DosMemory(seen))
        for world in range(3):
            hands, deck = worlds.sample(Dice(bytes([number % 256, world])))
            loaded = seen.ruleset.load(worlds.saved([list(h) for h in hands], list(deck)))
            built = worlds.build(hands, deck)
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


# -- the rules of thumb on stacked tables -------------------------------------------------


# Another player's hand: seven cards, or two (about to go out).
SEVEN = ["B1", "B3", "B4", "B5", "B6", "G1", "G3"]
TWO = ["B1", "B3"]


def normal(state: DosState, seat: int = 0) -> Any:
    return choose(bot_of(seen_at(state, seat)), seen_at(state, seat), "normal", seed_of("thumb"))


def test_a_double_colour_match_is_taken_over_a_single_match_of_the_same_card() -> None:
    state, _ = arrange([["R3", "R4", "B7", "G9", "Y10"], SEVEN], ["R7", "G8"])
    assert normal(state) == match("R7", "R3", "R4")


def test_a_colour_match_is_taken_over_a_plain_one() -> None:
    state, _ = arrange([["B7", "R7", "G9", "Y10"], SEVEN], ["R7", "G8"])
    assert normal(state) == match("R7", "R7")


def test_as_many_centre_cards_as_possible_are_matched_before_the_turn_ends() -> None:
    state, chance = arrange([["G7", "Y3", "B9", "B10", "Y9"], SEVEN], ["R7", "B3"])
    first = normal(state)
    assert first in (match("R7", "G7"), match("B3", "Y3"))
    act(state, chance, 0, first)
    second = normal(state)
    assert second in (match("R7", "G7"), match("B3", "Y3")) and second != first
    act(state, chance, 0, second)
    assert state.turn == 1  # every centre card matched: the turn ended by itself


def test_dos_is_called_with_the_match_that_leaves_two_cards() -> None:
    state, _ = arrange([["B7", "G9", "Y10"], SEVEN], ["R7", "G8"])
    assert normal(state) == match("R7", "B7", dos=True)
    strong = choose(bot_of(seen_at(state, 0)), seen_at(state, 0), "strong", seed_of("dos"))
    assert strong in (match("R7", "B7", dos=True), {"type": "draw"})


def test_dos_is_called_late_and_a_seat_down_to_two_is_caught_whenever_it_may_be() -> None:
    state, chance = arrange(
        [["B7", "G9", "Y10"], ["B1", "B1", "B3", "B4"], ["G1"] * 3], ["R7", "G8"]
    )
    act(state, chance, 0, match("R7", "B7"))  # down to two without calling
    assert state.due == [0]
    for level in ("normal", "strong"):
        assert choose(bot_of(seen_at(state, 0)), seen_at(state, 0), level, seed_of("late")) == {
            "type": "dos"
        }
        for other in (1, 2):
            caught = choose(
                bot_of(seen_at(state, other)), seen_at(state, other), level, seed_of("catch")
            )
            assert caught == {"type": "catch", "seat": 0}


def test_a_wild_is_kept_when_a_number_makes_the_same_match() -> None:
    state, _ = arrange([["G5", "G#", "Y10", "R10", "B10"], SEVEN], ["G5", "Y10"])
    assert normal(state) == match("G5", "G5")


def test_a_wild_is_shed_first_when_another_player_is_about_to_go_out() -> None:
    state, _ = arrange([["G5", "G#", "Y10", "R10", "B10"], TWO], ["G5", "Y10"])
    assert normal(state) == match("G5", "G#", as_=["G5"])


def test_a_match_is_made_rather_than_a_draw_even_with_a_wild_when_nothing_else_matches() -> None:
    state, _ = arrange([["B#", "G9", "Y10", "R10"], SEVEN], ["R6", "G8"])
    assert normal(state)["type"] == "match"


def test_after_a_draw_the_card_placed_is_hard_to_match_rather_than_a_wild() -> None:
    state, chance = arrange([["W2", "Y1", "R10"], SEVEN], ["G6", "G8"], deck=["Y9"])
    assert normal(state) == {"type": "draw"}  # nothing matches, nor with the card drawn
    act(state, chance, 0, {"type": "draw"})
    assert normal(state) == place("Y1")


def test_the_last_card_is_placed_as_a_bonus_to_go_out() -> None:
    state, chance = arrange([["R7", "B#"], SEVEN], ["R7", "G8"])
    act(state, chance, 0, match("R7", "R7"))
    act(state, chance, 0, END)
    assert state.step == "bonus"
    for level in ("normal", "strong"):
        assert choose(bot_of(seen_at(state, 0)), seen_at(state, 0), level, seed_of("out")) == bonus(
            "B#"
        )


def test_a_bonus_placement_sheds_a_number_card() -> None:
    state, chance = arrange([["R7", "Y1", "B9", "G10", "Y4"], SEVEN], ["R7", "G8"])
    act(state, chance, 0, match("R7", "R7"))
    act(state, chance, 0, END)
    assert normal(state)["type"] == "bonus"


def test_going_out_by_a_double_match_beats_anything_else() -> None:
    state, _ = arrange([["B3", "G4"], SEVEN], ["R7", "Y4"])
    for level in ("normal", "strong"):
        assert choose(
            bot_of(seen_at(state, 0)), seen_at(state, 0), level, seed_of("go out")
        ) == match("R7", "B3", "G4")


def test_with_a_double_colour_match_to_go_out_a_draw_first_costs_nothing() -> None:
    """The card drawn goes out as the bonus placement: the search may draw first."""
    state, _ = arrange([["R3", "R4"], SEVEN], ["R7", "G4"])
    assert normal(state) == match("R7", "R3", "R4")
    strong = choose(bot_of(seen_at(state, 0)), seen_at(state, 0), "strong", seed_of("go out"))
    assert strong in (match("R7", "R3", "R4"), {"type": "draw"})


# -- the search -----------------------------------------------------------------------------


def test_the_same_seen_and_bytes_give_the_same_choice() -> None:
    for number, (state, events, seat) in enumerate(dos_positions("same", 40)):
        seen = seen_from(state, seat, events)
        first = choose(bot_of(seen), seen, "strong", seed_of("same", number))
        assert first == choose(
            bot_of(seen_from(state, seat, events)),
            seen_from(state, seat, events),
            "strong",
            seed_of("same", number),
        )
        assert first in seen.legal


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_matches_at_two_and_four_seats(level: str) -> None:
    ruleset = Dos()
    for seats in (2, 4):
        options = ruleset.validate(seats, {"target": 40})
        levels = [level, "normal", "easy", "strong"][:seats]
        state = Match(ruleset, seats, options, seed_of("matches", level, seats), levels).play()
        assert state.result is not None and state.result["reason"] == "finished"
