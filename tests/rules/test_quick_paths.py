"""The engine's quick paths give exactly what the plain ones give.

The engine runs a few things a quicker way than the plain one it documents
(``docs/speed.md``, "The engine beside OpenSpiel"): a seeded shuffle tests all
its words at once, HMAC-SHA256 starts from the key's hashed pads, ``check``
accepts a copy of a listed action without comparing it value by value (and the
listed action itself by identity: the Crazy Eights family hands out its shared
``ListedAction`` objects, which refuse every change), and a state's declared
fields are plain attributes. Each must stay exactly the plain
thing: the same words read, the same bytes, the same refusals.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import pickle
import random
from collections.abc import Iterable
from operator import is_
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import VERSIONS, IllegalAction, find_ruleset
from games.rules.base import (
    Event,
    GameState,
    ListedAction,
    ListedCards,
    Saved,
    listed,
    new_event,
    same_json,
)
from games.rules.chance import _WORD, SeededChance, Stream, _Keyed, event_key
from games.rules.crazy_eights import _COMPACT, CrazyEights, EightsState, _compact_json
from games.rules.dodo import (
    DodoState,
    _orders,
    grouped_plays,
    rank_plays,
    sub_multisets,
)
from tests.rules.stacked import arrange


class FedBlocks(Stream):
    """A stream whose blocks are the words it is given, eight at a time."""

    def __init__(self, words: Iterable[int]) -> None:
        super().__init__(b"unused")
        self.fed = list(words)

    def _next_block(self) -> tuple[int, ...]:
        block, self.fed = self.fed[:8], self.fed[8:]
        return tuple(block)


def test_a_seeded_shuffle_is_the_stream_s_fisher_yates_word_for_word() -> None:
    seed = bytes(range(32))
    chance = SeededChance(seed)
    for seq, size in enumerate([0, 1, 2, 3, 8, 9, 52, 104, 255, 300]):
        items = list(range(size))
        plain = Stream(event_key(seed, "deal", 1, seq))
        assert chance.shuffle(items, label="deal", hand=1, seq=seq) == plain.shuffle(items)


@pytest.mark.parametrize("refused_at", [0, 1, 7, 8, 40, 50])
def test_a_shuffle_with_a_refused_word_reads_the_same_words_as_word_by_word(
    refused_at: int,
) -> None:
    # A word at or above uniform(n)'s limit is refused and the next word read: rare
    # in a real stream, so fed here. After the shuffle both streams go on alike.
    words = [random.Random(refused_at).randrange(_WORD) for _ in range(80)]
    words[refused_at] = _WORD - 1
    quick, plain = FedBlocks(words), FedBlocks(words)
    cards = [f"c{n}" for n in range(52)]
    assert quick._shuffled(cards) == plain.shuffle(cards)
    assert [quick.word() for _ in range(5)] == [plain.word() for _ in range(5)]


def test_a_shuffle_after_a_word_already_read_starts_from_the_next() -> None:
    quick, plain = Stream(b"key"), Stream(b"key")
    assert quick.word() == plain.word()
    assert quick._shuffled(list(range(20))) == plain.shuffle(list(range(20)))
    assert quick.uniform(52) == plain.uniform(52)


@pytest.mark.parametrize("size", [0, 1, 32, 64, 65, 200])
def test_keyed_hmac_is_hmac_sha256(size: int) -> None:
    key = bytes(range(size % 256)) * (size // 256) + bytes(range(size % 256))
    keyed = _Keyed(key)
    for message in (b"", b"x", bytes(8), bytes(range(100))):
        assert keyed.digest(message) == hmac.digest(key, message, "sha256")


def test_a_copy_of_a_listed_action_applies_and_one_of_another_json_type_is_refused() -> None:
    class Card(str):
        """Equal to the card by ``==``, but no JSON string."""

    state, chance = arrange(CrazyEights(), [["7H", "KD"], ["9D", "2S"]], ["5H"], ["5D"])
    listed = {"type": "play", "card": "7H"}
    assert state.legal_actions(0) == [listed]
    with pytest.raises(IllegalAction):
        state.check(0, {"type": "play", "card": Card("7H")})
    state.check(0, state.legal_actions(0)[0])
    state.check(0, {"card": "7H", "type": "play"})  # keys in another order: the same JSON
    state.apply(0, dict(listed), chance)
    assert state.hands[0] == ["KD"]


def test_a_catch_of_seat_false_is_refused_where_seat_zero_is_listed() -> None:
    state, chance = arrange(find_dodo(), [["7H", "KD"], ["9D", "2S"], ["3C", "4C"]], ["5H"])
    state.apply(0, {"type": "play", "cards": ["7H"]}, chance)  # down to one, silently
    assert {"type": "catch", "seat": 0} in state.legal_actions(1)
    with pytest.raises(IllegalAction):
        state.check(1, {"type": "catch", "seat": False})  # False == 0 in Python
    with pytest.raises(IllegalAction):
        state.check(1, {"type": "catch", "seat": 0.0})
    changed = dict(state.legal_actions(1)[-1])
    changed["seat"] = False  # a copy of a listed action, changed
    with pytest.raises(IllegalAction):
        state.check(1, changed)


def find_dodo() -> Any:
    return find_ruleset("dodo")


def test_a_declared_field_reads_on_the_class_as_its_default_and_is_declared() -> None:
    class Tally(GameState):
        steps = Saved(0, per_deal=True)
        notes: Saved[list[str]] = Saved([])

    assert Tally.steps == 0 and Tally.notes == []
    assert [spec.name for spec in Tally.declared][-2:] == ["steps", "notes"]
    # No Saved is left on the classes: a field of a state reads as a plain attribute.
    for cls in (GameState, EightsState, DodoState, Tally):
        assert not any(isinstance(value, Saved) for value in vars(cls).values())
    assert DodoState.swaps == 0 and [spec.name for spec in DodoState.declared].count("swaps") == 1


def seeded_positions(
    game: str, seats: int, matches: int, options: dict[str, Any] | None = None, salt: int = -1
) -> Iterable[Any]:
    """Every position of ``matches`` seeded random matches, before each action. ``game``:
    a game (its preset version) or a version (``dodo/1``); ``salt`` varies the deals."""
    ruleset = VERSIONS[game] if "/" in game else find_ruleset(game)
    for number in range(matches):
        chance = SeededChance(bytes([number, seats, *([salt] if salt >= 0 else [])]) * 16)
        policy = random.Random(number)
        state, _ = ruleset.new_game(seats, options or {}, chance)
        while not state.is_over:
            yield state
            seat = state.to_act[0]
            state.apply(seat, policy.choice(state.legal_actions(seat)), chance)


@pytest.mark.parametrize(
    ("game", "seats"), [("crazy-eights", 4), ("crazy-8", 2), ("dodo", 4), ("dodo", 8)]
)
def test_a_position_digest_hashes_the_json_encoder_s_text_of_its_facts(
    game: str, seats: int
) -> None:
    for state in seeded_positions(game, seats, 3):
        plain = hashlib.sha256(state.position_json().encode()).hexdigest()[:16]
        assert state.position() == plain


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.text(max_size=4),
            st.floats(),
            st.lists(st.one_of(st.integers(), st.text(max_size=2)), max_size=3),
        ),
        max_size=12,
    )
)
def test_a_position_s_values_are_written_as_the_compact_encoder_writes_them(
    values: list[Any],
) -> None:
    assert _compact_json(values) == _COMPACT.encode(values)


def test_dodo_s_legal_actions_are_the_listed_ones_themselves_down_to_their_cards() -> None:
    for state in seeded_positions("dodo", 4, 3):
        seat = state.to_act[0]
        given = state.legal_actions(seat)
        listed = state._legal(seat)
        assert given == listed and given is not listed
        for one, action in zip(given, listed, strict=True):
            assert one is action and type(one) is ListedAction
            assert "cards" not in action or type(action["cards"]) is ListedCards


@pytest.mark.parametrize("seats", [2, 4, 8])
def test_dodo_s_plays_of_cards_alone_of_their_rank_are_the_grouped_plays(seats: int) -> None:
    # Without both a two and a four in hand no pair goes down: ``grouped_plays`` of the
    # ranks with a card that fits is the plain way to every hand's plays.
    for state in seeded_positions("dodo", seats, 4):
        seat = state.to_act[0]
        hand = state.hands[seat]
        alone = state._plays_alone()
        fitting = "".join(card for card in hand if alone[card])[::2]
        if fitting and not state.swaps and not {"2", "4"} <= {card[0] for card in hand}:
            assert state._hand_plays(seat) == grouped_plays(alone, hand, fitting, False)


def test_new_event_is_the_event_the_class_makes() -> None:
    public, private = {"type": "draw", "seat": 1}, {1: {"card": "7H"}}
    quick, plain = new_event(public, private), Event(public, private)
    assert type(quick) is Event and quick == plain and repr(quick) == repr(plain)
    assert list(vars(quick).items()) == list(vars(plain).items())
    assert quick.to_json() == plain.to_json() and new_event(public, {}) == Event(public)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_crazy_eights_legal_actions_are_its_turn_actions(seats: int) -> None:
    # ``EightsState._find_legal`` writes out ``_turn_actions`` and ``_play_actions``.
    for state in seeded_positions("crazy-eights", seats, 4):
        for seat in range(seats):
            plain = EightsState._turn_actions(state, seat) if seat == state.turn else []
            assert state._find_legal(seat) == plain


@pytest.mark.parametrize(("game", "seats"), [("dodo", 4), ("dodo", 8), ("crazy-8", 2)])
def test_turn_choices_count_the_legal_actions_that_are_not_calls(game: str, seats: int) -> None:
    for state in seeded_positions(game, seats, 3):
        seat = state.to_act[0]
        assert state.turn_choices(seat) == sum(
            not state.is_call(action) for action in state._legal(seat)
        )


def test_apply_refuses_a_copy_changed_after_it_was_handed_out() -> None:
    class Card(str):
        """Equal to the card by ``==``, but no JSON string."""

    state, chance = arrange(CrazyEights(), [["7H", "KD"], ["9D", "2S"]], ["5H"], ["5D"])
    given = dict(state.legal_actions(0)[0])
    given["card"] = Card("7H")
    with pytest.raises(IllegalAction):
        state.apply(0, given, chance)
    state.apply(0, {"card": "7H", "type": "play"}, chance)  # another order: the same JSON
    assert state.hands[0] == ["KD"]

    state, chance = arrange(find_dodo(), [["7H", "KD"], ["9H", "2S"], ["3C", "4C"]], ["5H"])
    state.apply(0, {"type": "play", "cards": ["7H"]}, chance)
    given = dict(state.legal_actions(1)[-1])
    given["seat"] = False
    with pytest.raises(IllegalAction):
        state.apply(1, given, chance)
    play = dict(next(action for action in state.legal_actions(1) if action["type"] == "play"))
    play["cards"] = [Card(card) for card in play["cards"]]
    with pytest.raises(IllegalAction):
        state.apply(1, play, chance)


@pytest.mark.parametrize("rank", ["9", "8", "2"])
def test_a_rank_s_plays_filled_in_from_their_shape_are_its_plays_worked_out_on_its_cards(
    rank: str,
) -> None:
    # ``rank_plays`` works out the orders once a shape, on the cards' places; the plain
    # way works them out on the cards themselves. Two packs: a card may come twice.
    pool = [rank + suit for suit in "CDHS"] * 2
    draw = random.Random(rank)
    for _ in range(300):
        cards = tuple(sorted(draw.sample(pool, draw.randint(1, 5))))
        fitting = {card: draw.random() < 0.5 for card in cards}
        fit = tuple(fitting[card] for card in cards)
        plain = [
            {"type": "play", "cards": order, **({"suit": suit} if rank == "8" else {})}
            for laid in (sub_multisets(list(cards)) if any(fit) else [])
            for order in _orders(rank == "8", laid, fitting.__getitem__)
            for suit in ("CDHS" if rank == "8" else "-")
        ]
        assert list(rank_plays(cards, fit)) == plain


@pytest.mark.parametrize(
    ("game", "seats"), [("crazy-eights", 4), ("dodo", 3), ("dingo", 4), ("dos", 3)]
)
def test_is_over_is_whether_the_match_has_a_result_after_every_action_a_load_and_a_forfeit(
    game: str, seats: int
) -> None:
    # ``is_over`` is kept beside ``result`` (``end``, ``restore``), not worked out from it.
    ruleset = find_ruleset(game)
    for number in range(3):
        chance = SeededChance(bytes([number, seats]) * 16)
        policy = random.Random(number)
        state, _ = ruleset.new_game(seats, {}, chance)
        while True:
            assert state.is_over is (state.result is not None)
            assert ruleset.load(state.to_json()).is_over is state.is_over
            if state.is_over:
                break
            seat = state.to_act[0]
            state.apply(seat, policy.choice(state.legal_actions(seat)), chance)
        state, _ = ruleset.new_game(seats, {}, chance)
        state.forfeit(number % seats, "resigned")
        assert state.is_over is True and ruleset.load(state.to_json()).is_over is True


# Every way to change a dict, and a list, that a listed action and its cards refuse.
DICT_CHANGES = [
    lambda a: a.__setitem__("type", "pass"),
    lambda a: a.__setitem__("new", 1),
    lambda a: a.__delitem__("type"),
    lambda a: a.update(type="pass"),
    lambda a: a.update({"new": 1}),
    lambda a: a.pop("type"),
    lambda a: a.pop("new", None),
    lambda a: a.popitem(),
    lambda a: a.clear(),
    lambda a: a.setdefault("new", 1),
    lambda a: a.__ior__({"new": 1}),
]
LIST_CHANGES = [
    lambda c: c.__setitem__(0, "AS"),
    lambda c: c.__delitem__(0),
    lambda c: c.__iadd__(["AS"]),
    lambda c: c.__imul__(2),
    lambda c: c.append("AS"),
    lambda c: c.extend(["AS"]),
    lambda c: c.insert(0, "AS"),
    lambda c: c.remove(c[0]),
    lambda c: c.pop(),
    lambda c: c.clear(),
    lambda c: c.sort(),
    lambda c: c.reverse(),
]
FAMILY = [
    ("crazy-eights", 4, {}),
    ("crazy-8", 2, {"last_card": True, "twos_draw_two": True, "twos_stack": True}),
    ("crazy-8", 5, {"more_players": True, "last_card": True, "voluntary_draw": True}),
    ("crazy-8", 3, {"more_players": True, "starter_eight": "dealer_names", "twos_draw_two": True}),
    ("dodo", 2, {}),
    ("dodo", 4, {}),
    ("dodo", 8, {}),
]


@pytest.mark.parametrize(("game", "seats", "options"), FAMILY)
def test_every_listed_action_refuses_every_change_and_the_state_stays_as_it_was(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    ruleset = find_ruleset(game)
    for number in range(3):
        chance = SeededChance(bytes([number, seats, 7]) * 16 + bytes(16))
        policy = random.Random(number)
        state, _ = ruleset.new_game(seats, options, chance)
        steps = 0
        while not state.is_over and steps < 400:
            steps += 1
            every = [state.legal_actions(seat) for seat in range(seats)]
            before = state.to_json()
            texts = json.dumps(every)
            for legal in every:
                for action in legal:
                    assert type(action) is ListedAction
                    for change in DICT_CHANGES:
                        with pytest.raises(TypeError):
                            change(action)
                    for value in action.values():
                        if isinstance(value, list):
                            assert type(value) is ListedCards
                            for change in LIST_CHANGES:
                                with pytest.raises(TypeError):
                                    change(value)
                    # What a caller may do instead: a copy, plain, to change.
                    copied = dict(action)
                    assert type(copied) is dict and copied == action
                    assert type(action.copy()) is dict and type({**action}) is dict
                    assert type(action | {}) is dict
            assert state.to_json() == before
            assert json.dumps([state.legal_actions(seat) for seat in range(seats)]) == texts
            movers = [seat for seat in range(seats) if every[seat]]
            seat = policy.choice(movers)
            state.apply(seat, policy.choice(every[seat]), chance)


def test_a_listed_action_writes_as_json_as_the_plain_dict_and_pickles_whole() -> None:
    for state in seeded_positions("dodo", 4, 2):
        for action in state.legal_actions(state.to_act[0]):
            plain = json.loads(json.dumps(action))
            assert type(plain) is dict
            for kwargs in ({}, {"separators": (",", ":")}, {"indent": 2}, {"sort_keys": True}):
                # The C encoder, and the Python one (indent), write the same bytes.
                assert json.dumps(action, **kwargs) == json.dumps(plain, **kwargs)
            assert same_json(action, plain) and same_json(plain, action)
            again = pickle.loads(pickle.dumps(action))
            assert type(again) is ListedAction and again == action
            assert copy.deepcopy(action) == action and copy.copy(action) == action


def test_listed_is_one_object_for_each_distinct_action() -> None:
    first = listed({"type": "play", "cards": ["9C", "9H"]})
    assert listed({"type": "play", "cards": ["9C", "9H"]}) is first
    assert type(first["cards"]) is ListedCards and first["cards"] == ["9C", "9H"]
    assert listed({"type": "catch", "seat": 1}) is not listed({"type": "catch", "seat": True})
    assert listed({"cards": ["9C"], "type": "play"}) is not listed(
        {"type": "play", "cards": ["9C"]}
    )


def test_only_crazy_eights_itself_plays_its_turns_the_quick_way() -> None:
    from games.rules.crazy_8 import Crazy8State, Crazy8v2State
    from games.rules.dodo import Dodo1State

    assert EightsState.plain_turns
    for cls in (Crazy8State, Crazy8v2State, DodoState, Dodo1State):
        assert not cls.plain_turns, cls

    class Changed(EightsState):
        def _card_effect(self, seat: int, card: str, chance: Any) -> list[Event]:
            return super()._card_effect(seat, card, chance)

    assert not Changed.plain_turns


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_crazy_eights_quick_turns_are_its_plain_turns(seats: int) -> None:
    # ``apply`` dispatching itself, a card's effect written out and the legal actions a
    # draw sets, against the same match played with ``plain_turns`` off.
    for number in range(4):
        quick_chance = SeededChance(bytes([number, seats, 9]) * 16)
        plain_chance = SeededChance(bytes([number, seats, 9]) * 16)
        quick, _ = CrazyEights().new_game(seats, {}, quick_chance)
        plain, _ = CrazyEights().new_game(seats, {}, plain_chance)
        plain.plain_turns = False  # type: ignore[misc]
        policy = random.Random(number)
        while not quick.is_over:
            seat = quick.to_act[0]
            legal = quick.legal_actions(seat)
            assert legal == plain.legal_actions(seat)
            action = policy.choice(legal)
            drew = action["type"] == "draw"
            events = quick.apply(seat, action, quick_chance)
            assert events == plain.apply(seat, action, plain_chance)
            assert quick.to_json() == plain.to_json()
            if drew and not quick.is_over:
                kept = quick._legal_by_seat[seat]
                quick._legal_by_seat.clear()
                assert kept == quick._find_legal(seat) == EightsState._turn_actions(quick, seat)
        assert plain.is_over


@pytest.mark.parametrize(
    ("game", "seats"), [("crazy-eights", 4), ("crazy-8", 2), ("dodo", 4), ("dodo", 8)]
)
def test_to_act_is_kept_as_the_seats_that_owe_an_action(game: str, seats: int) -> None:
    for number, state in enumerate(seeded_positions(game, seats, 3)):
        assert state.to_act == state.seats_to_act()
        loaded = state.ruleset.load(json.loads(json.dumps(state.to_json())))
        assert loaded.to_act == state.to_act
        if number % 97 == 5:
            loaded.forfeit(state.to_act[0], "timeout")
            assert loaded.to_act == () == loaded.seats_to_act()
            loaded.restore(state.to_json())
            assert loaded.to_act == state.to_act


@pytest.mark.parametrize(("game", "seats"), [("crazy-eights", 4), ("crazy-8", 2), ("dodo", 4)])
def test_a_deal_resets_its_fields_as_the_plain_way_does(game: str, seats: int) -> None:
    for state in seeded_positions(game, seats, 1):
        quick = state.ruleset.load(state.to_json())
        plain = state.ruleset.load(state.to_json())
        quick.reset_per_deal()
        plain.reset_per_deal_plainly()
        assert vars(quick) == vars(plain)
        for spec in state.declared:
            if spec.per_deal and isinstance(spec.default, list):
                assert getattr(quick, spec.name) is not spec.default


def test_announcements_calls_and_pairs_are_the_listed_actions_looked_up() -> None:
    from games.rules.base import announcing, seat_call
    from games.rules.dodo import _pair_play

    play = listed({"type": "play", "cards": ["9C"]})
    assert announcing(play) is announcing(play)
    assert announcing(play) is listed({**play, "announce": True})
    assert json.dumps(announcing(play)) == '{"type": "play", "cards": ["9C"], "announce": true}'
    for kind in ("catch", "swap"):
        for seat in range(8):
            assert seat_call(kind, seat) is listed({"type": kind, "seat": seat})
    assert _pair_play("2C", "4D") is listed({"type": "play", "cards": ["2C", "4D"]})


@pytest.mark.parametrize(
    ("version", "seats", "options"),
    [
        ("dodo/2", 2, {}),
        ("dodo/2", 4, {}),
        ("dodo/2", 8, {}),
        ("dodo/2", 3, {"no_chains": True, "two_packs": True}),
        ("dodo/1", 4, {}),
    ],
)
def test_the_legal_actions_a_dodo_action_keeps_are_those_worked_out_afresh(
    version: str, seats: int, options: dict[str, Any]
) -> None:
    # A draw that ends on a card alone of its rank, and a two or four laid before a seat
    # with none to answer, set the legal actions of the position they leave themselves.
    ruleset = VERSIONS[version]
    for number in range(4):
        chance = SeededChance(bytes([number, seats, 11]) * 16)
        policy = random.Random(number)
        state, _ = ruleset.new_game(seats, options, chance)
        while not state.is_over:
            seat = state.to_act[0]
            state.apply(seat, policy.choice(state.legal_actions(seat)), chance)
            kept = dict(state._legal_by_seat)
            state._legal_by_seat.clear()
            for other, legal in kept.items():
                assert legal == state._find_legal(other)
                assert all(map(is_, legal, state._find_legal(other)))


def test_a_situation_s_plays_alone_are_each_card_s_worked_out_one_by_one() -> None:
    # ``PlaysAlone`` is made whole from the cards that fit, and ``PlaysTogether`` takes a
    # card alone of its rank from it; the plain way is each card's ``rank_plays``.
    from games.rules.base import STANDARD_PACK

    for seats in (4, 8):
        for state in seeded_positions("dodo", seats, 3):
            alone = state._plays_alone()
            fits = state._fitting()
            assert dict(alone) == {
                card: rank_plays((card,), (True,)) if fits(card) else () for card in STANDARD_PACK
            }
            assert alone.fitting == {card for card in STANDARD_PACK if state.fits(card)}
            for card in state.hands[state.to_act[0]]:  # a card alone of its rank, together
                assert alone.together[card,] == rank_plays((card,), (fits(card),))


def plain_turn_actions(state: DodoState, seat: int) -> list[Any]:
    """What Dodo's seat to act may do, worked out the plain way: each card tested with
    ``fits``, the plays of the ranks with a card that fits (and of a two and a four
    together) by ``grouped_plays``, a play that leaves one card listed again announcing
    it, then the chain's draw, or a draw or a pass where nothing fits."""
    from games.rules.base import announcing, seat_call
    from games.rules.crazy_eights import DRAW_ACTION, PASS_ACTION

    if state.swaps:
        return [seat_call("swap", other) for other in range(state.seats) if other != seat]
    hand = state.hands[seat]
    fitting = "".join(card[0] for card in hand if state.fits(card))
    plays: list[Any] = []
    if fitting:
        held = "".join(hand)
        pairs = ("2" in fitting or "4" in fitting) and state._pairs(held)
        ranks = fitting + "24" if pairs else fitting
        plays, _ = grouped_plays(state._plays_alone(), hand, ranks, pairs)
    leaves_one = len(hand) - 1
    plays = [
        each
        for play in plays
        for each in ((play, announcing(play)) if len(play["cards"]) == leaves_one else (play,))
    ]
    if state.chain:
        return [*plays, DRAW_ACTION]
    if plays:
        return plays
    return [DRAW_ACTION] if state.can_draw() else [PASS_ACTION]


DODO_TABLES = [
    ("dodo/2", 2, {}),
    ("dodo/2", 4, {}),
    ("dodo/2", 8, {}),
    ("dodo/2", 4, {"no_chains": True}),
    ("dodo/2", 3, {"two_packs": True}),
    ("dodo/2", 5, {"no_chains": True, "two_packs": True, "seven_cards": True}),
    ("dodo/1", 4, {}),
    ("dodo/1", 2, {"two_packs": True}),
]


@pytest.mark.parametrize(("version", "seats", "options"), DODO_TABLES)
def test_dodo_s_turn_actions_are_its_plain_turn_actions_object_for_object(
    version: str, seats: int, options: dict[str, Any]
) -> None:
    # ``_turn_actions`` writes out the situation's table, the usual hand and the grouping
    # of each rank's cards (from the hand sorted by name, looked up in ``GroupPlays`` and
    # ``PairPlays``); ``_hand_plays`` is the same quick way; the plain way is each card
    # tested with ``fits`` and ``grouped_plays``.
    for state in seeded_positions(version, seats, 4, options, salt=13):
        seat = state.to_act[0]
        quick, plain = state._turn_actions(seat), plain_turn_actions(state, seat)
        assert quick == plain and all(map(is_, quick, plain))
        if not state.swaps:
            plays, most = state._hand_plays(seat)
            assert all(map(is_, plays, [p for p in plain if "cards" in p and "announce" not in p]))
            assert most >= max((len(play["cards"]) for play in plays), default=0)


def test_a_situation_s_fitting_cards_are_those_fits_takes() -> None:
    from games.rules.base import STANDARD_PACK

    for version, seats, options in DODO_TABLES:
        for state in seeded_positions(version, seats, 2, options, salt=17):
            fitting, fit_by_rank = state._fitting_cards()
            assert fitting == {card for card in STANDARD_PACK if state.fits(card)}
            alone = state._plays_alone()
            for rank, table in alone.groups.items():
                # A rank's cards fit in its table as they fit now.
                assert {
                    card for card in STANDARD_PACK if card[0] == rank and card in table.fitting
                } == {card for card in STANDARD_PACK if card[0] == rank and state.fits(card)}, (
                    fit_by_rank[rank]
                )


def test_a_hand_sorted_by_each_card_s_place_is_the_hand_as_people_hold_it() -> None:
    # Dodo's swap sorts the hands it hands over by ``HAND_ORDER``, as ``sort_hand`` does.
    from games.rules.base import STANDARD_PACK
    from games.rules.crazy_eights import sort_hand
    from games.rules.dodo import HAND_ORDER

    draw = random.Random(5)
    for size in range(0, 30):
        cards = draw.sample(list(STANDARD_PACK) * 2, size)
        assert sorted(cards, key=HAND_ORDER.__getitem__) == sort_hand(cards)
