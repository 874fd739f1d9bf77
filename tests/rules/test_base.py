"""What the engine's base guarantees every game: declared fields, chance numbering, places, forfeits, replay.

``Tally`` is a game made up for these tests, small enough to read at once: it
shows how a game plugs into the base. Two or three seats take turns; a seat
adds 1 or 2 to its total, and the match ends when a total reaches the target.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from games.catalogue import RULESETS, VERSIONS, find_ruleset
from games.rules import GameOver, InvalidOptions, NotYourTurn
from games.rules.base import (
    Action,
    ActionForm,
    Event,
    Field,
    GameState,
    Option,
    PerSeat,
    Ruleset,
    Saved,
)
from games.rules.chance import Chance, SeededChance
from games.rules.replay import Act, Forfeit, replay, replay_state

SEED = bytes(range(32))


class TallyState(GameState):
    turn = Saved(0)
    steps: PerSeat[list[int]] = PerSeat([])  # what each seat added, in order
    last: Saved[int | None] = Saved(None, per_deal=True)
    # Kept out of the saved state unless the table asked for it.
    note = Saved("", when=lambda state: state.options["notes"])

    def start(self, chance: Chance) -> list[Event]:
        self.hand_no = 1
        first, event = self.chance_integer(chance, "first-player", self.seats)
        self.turn = first
        return [event]

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.is_over else (self.turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        if self.is_over or seat != self.turn:
            return []
        return [{"type": "add", "n": 1}, {"type": "add", "n": 2}]

    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        self.totals[seat] += action["n"]
        self.steps[seat].append(action["n"])
        self.last = action["n"]
        self.turn = self.next_seat(seat)
        events = [Event({"type": "add", "seat": seat, "n": action["n"]})]
        if max(self.totals) >= self.options["target"]:
            events.append(self.end())
        return events

    def public_view(self) -> dict[str, Any]:
        return {"turn": self.turn}

    def private_view(self, seat: int) -> dict[str, Any]:
        return {}

    def card_counts(self) -> list[int]:
        return [0] * self.seats


class Tally(Ruleset):
    id = "tally"
    name = "Tally"
    version = "tally/1"
    rulebook = "none"
    min_seats = 2
    max_seats = 3
    options = (
        Option("target", "int", 5, "the total that ends the match", minimum=1, maximum=50),
        Option("notes", "bool", False, "keep a note in the state"),
    )
    actions = {
        "add": ActionForm(
            'an addition is {"type": "add", "n": 1} or 2',
            {
                "n": Field(
                    lambda value, seats: value in (1, 2) and type(value) is int, "n is 1 or 2"
                )
            },
        )
    }
    state_class = TallyState


class LowestTally(Tally):
    higher_wins = False


class TieBreakState(TallyState):
    """Equal totals are broken by who added the most twos (as Dingo breaks them by rabbits)."""

    def places(self, seats: Sequence[int]) -> dict[int, int]:
        ranked = sorted(seats, key=lambda s: (-self.totals[s], -self.steps[s].count(2)))
        return {seat: place for place, seat in enumerate(ranked, start=1)}


class TieBreakTally(Tally):
    state_class = TieBreakState


def tally(ruleset: Ruleset | None = None, seats: int = 2, **options: Any) -> TallyState:
    state, _ = (ruleset or Tally()).new_game(seats, options, SeededChance(SEED))
    assert isinstance(state, TallyState)
    return state


def through_json(ruleset: Ruleset, state: GameState) -> GameState:
    return ruleset.load(json.loads(json.dumps(state.to_json())))


# -- declared fields -------------------------------------------------------------


def test_every_declared_field_starts_at_its_default_and_is_never_shared() -> None:
    first, second = tally(), tally()
    first.steps[0].append(2)
    assert second.steps == [[], []]
    assert first.totals == [0, 0] and first.last is None and first.result is None


def test_a_declared_field_round_trips_through_to_json_and_load() -> None:
    state = tally()
    state.steps = [[1, 2], [2]]
    state.last = 2
    data = state.to_json()
    assert data["steps"] == [[1, 2], [2]] and data["last"] == 2
    loaded = through_json(Tally(), state)
    assert isinstance(loaded, TallyState)
    assert loaded.steps == [[1, 2], [2]] and loaded.last == 2
    assert loaded.to_json() == data
    loaded.steps[0].append(1)
    assert state.steps[0] == [1, 2]  # the loaded state shares no list with the original


def test_a_field_a_game_keeps_out_with_when_is_neither_saved_nor_loaded() -> None:
    assert "note" not in tally().to_json()
    state = tally(notes=True)
    state.note = "close"
    assert state.to_json()["note"] == "close"
    loaded = through_json(Tally(), state)
    assert isinstance(loaded, TallyState) and loaded.note == "close"


def test_a_field_missing_from_an_older_cache_takes_its_default() -> None:
    data = tally().to_json()
    del data["last"]
    loaded = Tally().load(data)
    assert isinstance(loaded, TallyState) and loaded.last is None


def test_per_deal_fields_go_back_to_their_defaults_at_each_deal() -> None:
    state = tally()
    state.last, state.steps = 2, [[2], []]
    state.reset_per_deal()
    assert state.last is None and state.steps == [[2], []]


def test_a_saved_key_may_differ_from_its_field_s_name() -> None:
    """Crazy 8 and Dodo call it ``chain``; stored states keep the key they had, "penalty"."""
    state, _ = RULESETS["dodo"].new_game(3, {}, SeededChance(SEED))
    state.chain = 4  # type: ignore[attr-defined]
    assert state.to_json()["penalty"] == 4 and "chain" not in state.to_json()
    assert RULESETS["dodo"].load(state.to_json()).chain == 4  # type: ignore[attr-defined]


def test_the_games_save_exactly_the_fields_they_saved_before_the_base_declared_them() -> None:
    common = {"game", "seats", "options", "hand_no", "dealer", "turn", "hands", "stock", "pile"}
    common |= {"called_suit", "drawn", "passes", "totals", "history", "chance_seq", "result"}
    crazy_8 = common | {"draws", "penalty", "naming", "seen"}
    dodo = common | {"penalty", "direction", "swaps", "catchable", "announced", "skipped"}
    dodo |= {"last_swap", "seen"}
    expected = [
        ("crazy-eights", 4, {}, common),
        ("crazy-8", 2, {}, crazy_8),
        ("crazy-8", 3, {"more_players": True}, crazy_8 | {"direction"}),
        ("crazy-8", 2, {"last_card": True}, crazy_8 | {"catchable"}),
        ("dodo", 2, {}, dodo | {"turns_lost", "ace_layer"}),  # dodo/2: the turns aces cost
    ]
    for game, seats, options, keys in expected:
        state, _ = RULESETS[game].new_game(seats, options, SeededChance(SEED))
        assert set(state.to_json()) == keys, (game, seats, options)
    # The versions before keep their states as they were.
    for game, version, seats, options, keys in [
        ("dodo", "dodo/1", 2, {}, dodo),
        ("crazy-8", "crazy-8/2", 2, {"last_card": True}, crazy_8 | {"catchable"}),
    ]:
        state, _ = find_ruleset(game, version).new_game(seats, options, SeededChance(SEED))
        assert set(state.to_json()) == keys, (game, seats, options)


# -- chance ----------------------------------------------------------------------


def test_chance_events_are_numbered_in_order_across_the_match() -> None:
    state, events = RULESETS["crazy-eights"].new_game(2, {}, SeededChance(SEED))
    numbered = [(e.chance["label"], e.chance["hand"], e.chance["seq"]) for e in events if e.chance]
    assert numbered == [("first-dealer", 0, 0), ("deal", 1, 1)]
    assert state.chance_seq == 2
    assert [event.public for event in events if event.chance] == [
        {"type": "first-dealer", "hand": 0},
        {"type": "deal", "hand": 1},
    ]


# -- places, the result and forfeits ------------------------------------------------


def test_places_by_default_share_a_place_on_equal_totals_highest_first() -> None:
    state = tally(seats=3)
    state.totals = [4, 6, 4]
    assert state.places([0, 1, 2]) == {0: 2, 1: 1, 2: 2}


def test_places_by_default_go_to_the_lowest_totals_where_the_fewest_points_win() -> None:
    state = tally(LowestTally(), seats=3)
    state.totals = [4, 6, 4]
    assert state.places([0, 1, 2]) == {0: 1, 1: 3, 2: 1}


def test_the_result_builder_places_everybody_and_says_why_the_match_ended() -> None:
    state = tally(seats=3)
    state.totals = [5, 2, 5]
    event = state.end()
    assert state.result == {
        "reason": "finished",
        "seat": None,
        "places": [1, 3, 1],
        "totals": [5, 2, 5],
    }
    assert event.public == {"type": "game_over", **state.result}


def test_a_game_s_own_places_decide_both_the_finish_and_a_forfeit() -> None:
    state = tally(TieBreakTally(), seats=3)
    state.totals, state.steps = [4, 4, 1], [[2, 2], [1, 1, 2], [1]]
    assert state.places([0, 1, 2]) == {0: 1, 1: 2, 2: 3}
    state.forfeit(0, "resigned")
    assert state.result is not None and state.result["places"] == [3, 1, 2]


def test_a_timeout_by_a_seat_that_owes_nothing_is_refused() -> None:
    state = tally()
    idle = 1 - state.turn
    with pytest.raises(NotYourTurn, match=f"seat {idle} owed no action"):
        state.forfeit(idle, "timeout")
    assert not state.is_over
    state.forfeit(state.turn, "timeout")
    assert state.result is not None and state.result["seat"] == 1 - idle


def test_a_resignation_is_accepted_from_a_seat_that_owes_nothing() -> None:
    state = tally()
    idle = 1 - state.turn
    events = state.forfeit(idle, "resigned")
    assert state.result is not None and state.result["places"][idle] == 2
    assert events[0].public["reason"] == "resigned"


def test_a_call_out_of_turn_is_never_owed_so_nobody_times_out_for_it() -> None:
    """Dodo: a seat that may catch another is not in to_act, so it cannot time out."""
    state, _ = RULESETS["dodo"].new_game(3, {}, SeededChance(SEED))
    (owing,) = state.to_act
    state.catchable = owing  # type: ignore[attr-defined]
    other = (owing + 1) % 3
    assert state.legal_actions(other) == [{"type": "catch", "seat": owing}]
    with pytest.raises(NotYourTurn):
        state.forfeit(other, "timeout")


# -- the replay ------------------------------------------------------------------


def random_log(game: str, seats: int, options: dict[str, Any], n: int) -> list[Act]:
    chance = SeededChance(SEED)
    state, _ = RULESETS[game].new_game(seats, options, chance)
    chooser = random.Random(n)
    log = []
    while not state.is_over and len(log) < 300:
        seat = state.to_act[0]
        action = chooser.choice(state.legal_actions(seat))
        state.apply(seat, action, chance)
        log.append(Act(seat, action))
    return log


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("crazy-eights", 3, {}), ("crazy-8", 4, {"more_players": True}), ("dodo", 4, {})],
)
def test_the_replay_yields_the_same_states_as_applying_the_moves_one_by_one(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    ruleset = RULESETS[game]
    log = random_log(game, seats, options, 7)
    chance = SeededChance(SEED)
    state, events = ruleset.new_game(seats, options, chance)
    by_hand = [([e.to_json() for e in events], state.to_json())]
    for act in log:
        events = state.apply(act.seat, act.action, chance)
        by_hand.append(([e.to_json() for e in events], state.to_json()))

    steps = [
        ([e.to_json() for e in step.events], step.state.to_json())
        for step in replay(ruleset, seats, options, SEED, log)
    ]

    assert steps == by_hand
    assert replay_state(ruleset, seats, options, SEED, log).to_json() == state.to_json()


def test_the_replay_applies_a_forfeit_and_names_each_step_s_entry() -> None:
    log: list[Act | Forfeit] = [*random_log("crazy-eights", 2, {}, 3)[:5]]
    owing = replay_state(RULESETS["crazy-eights"], 2, {}, SEED, log).to_act[0]
    log.append(Forfeit(owing, "timeout"))
    steps = list(replay(RULESETS["crazy-eights"], 2, {}, SEED, log))
    assert [step.entry for step in steps] == [None, *log]
    assert steps[-1].state.result is not None
    assert steps[-1].state.result["reason"] == "timeout"


def test_the_replay_raises_the_engine_s_refusal_at_the_first_entry_the_rules_refuse() -> None:
    log = random_log("crazy-eights", 2, {}, 5)[:4]
    after = replay_state(RULESETS["crazy-eights"], 2, {}, SEED, log)
    idle = 1 - after.to_act[0]
    seen = []
    with pytest.raises(NotYourTurn):
        for step in replay(
            RULESETS["crazy-eights"], 2, {}, SEED, [*log, Forfeit(idle, "timeout"), *log]
        ):
            seen.append(step.entry)
    assert seen == [None, *log]


def test_nothing_replays_after_the_match_is_over() -> None:
    log: list[Act | Forfeit] = [Forfeit(0, "resigned"), Forfeit(1, "resigned")]
    with pytest.raises(GameOver):
        replay_state(RULESETS["crazy-eights"], 2, {}, SEED, log)


def test_a_state_class_needs_no_list_of_fields_to_save() -> None:
    """A field declared on a subclass is saved at once: nothing else to add it to."""

    class NotedTally(TallyState):
        remark = Saved("none")

    class Noted(Tally):
        state_class = NotedTally

    state = tally(Noted())
    assert state.to_json()["remark"] == "none"
    assert [spec.name for spec in NotedTally.declared][-1] == "remark"


@pytest.mark.parametrize("each", [[], 0, None, "x", 1.5, True, [1], {"a": []}, ("t",)])
def test_a_per_seat_fields_defaults_are_each_seats_own(each: Any) -> None:
    fresh = PerSeat(each).fresh(4)
    assert fresh == [copy.deepcopy(each) for _ in range(4)]
    changeable = [value for value in fresh if isinstance(value, list | dict)]
    assert len({id(value) for value in changeable}) == len(changeable)  # none shared
    assert all(value is not each for value in changeable)


# -- copying -------------------------------------------------------------------------


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_a_copy_saves_as_its_original_and_playing_on_it_leaves_the_original_as_it_was(
    version: str,
) -> None:
    ruleset = VERSIONS[version]
    seats = 4  # where the preset allows four
    try:
        ruleset.validate(seats, {})
    except InvalidOptions:
        seats = ruleset.min_seats
    chance = SeededChance(SEED)
    state, _ = ruleset.new_game(seats, {}, chance)
    rng = random.Random(version)
    for step in range(300):
        if state.is_over:
            break
        if step % 7 == 0:
            saved = json.dumps(state.to_json(), sort_keys=True)
            legal = {seat: state.legal_actions(seat) for seat in range(seats)}
            copied = state.copy()
            assert type(copied) is type(state)
            assert json.dumps(copied.to_json(), sort_keys=True) == saved
            assert vars(copied) == vars(ruleset.load(state.to_json())) | {
                # What the state worked out for its position holds for the copy too.
                name: value
                for name, value in vars(state).items()
                if name.startswith("_")
            }
            for _ in range(20):
                if copied.is_over or not copied.to_act:
                    break
                seat = copied.to_act[0]
                copied.apply(seat, rng.choice(copied.legal_actions(seat)), SeededChance(SEED))
            assert json.dumps(state.to_json(), sort_keys=True) == saved
            assert {seat: state.legal_actions(seat) for seat in range(seats)} == legal
        seat = state.to_act[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)), chance)
