"""One contract over every rules version: random matches, checked at every step.

In the spirit of OpenSpiel's ``random_sim_test``: for every ruleset in
:data:`games.rules.VERSIONS` (the current version of each game and every older
one still replayed), at every seat count it allows, under its preset and under
options drawn from the schema it publishes, seeded random matches are played
through the engine's public contract alone (``games/rules/base.py``), and at
every step:

* ``to_act`` holds exactly the seats that owe an action: each has legal actions,
  one of them at least no call out of turn; any other seat has none, or only
  calls out of turn (``is_call``); nobody owes anything once the match is over;
  an action of a kind the game calls sole (``sole_kinds``) is its seat's only
  one, and it is what ``forced_action`` names;
* legal actions apply (to a state loaded from the saved one): at each step of
  a thorough match (the preset's) every one, or ten at random where a step
  lists more, and one at random in the others, beside the one played; an action
  that is not listed (a legal one changed: another card, another type, a key too
  many, a ``true`` where a ``1`` belongs...) is refused with
  :class:`IllegalAction` and changes nothing, and so is any action or a
  timeout from a seat that owes none;
* the state survives saving and loading (``to_json``, ``Ruleset.load``): the same
  saved form, ``to_act``, legal actions and views, and it goes on as the original;
* no view shows what its seat may not know: the public view holds no ``you``,
  and a card appears in it only when an event shows it to everybody; a seat's
  view is the public view and its ``you``, whose cards are its own hand, what
  the table shows, or what an event of this deal showed that seat alone; no
  view holds a seed, a stock or another hand;
* the words: every legal action, every event (as each seat and the public see
  it) and every refusal is a sentence, never JSON;
* the match ends, with a result that places every seat (equal places, equal
  totals; a forfeiting seat last); a replay of the log (``games.rules.replay``)
  gives the same saved state, the same events and the same result.

The cards a view must hide are found without knowing the game: they are what
chance shuffles (the outcomes of the chance events), held in the hands the
seats' own views show. What is particular to one rulebook (where its cards
are, its referee) stays in its own property file.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from games.catalogue import VERSIONS
from games.rules import GameOver, IllegalAction, InvalidOptions, NotYourTurn, Ruleset
from games.rules.base import Event, GameState, Option
from games.rules.chance import SEED_BYTES, SeededChance
from games.rules.replay import Act, Entry, Forfeit, replay

# Random play ends every match in a few thousand actions at most; this bound is generous.
MAX_ACTIONS = 20_000
FORFEITS = ("timeout", "resigned")
# The most legal actions tried on loaded copies at one step of a thorough match.
TRIALS = 10
# Keys no view may hold, whatever the game: the cards it must hide, and the seed.
SECRET_KEYS = {"seed", "stock", "deck", "hands"}


def canonical(action: Any) -> str:
    """An action as JSON, where ``1`` and ``true`` differ and the order of keys does not."""
    return json.dumps(action, sort_keys=True)


# A string in JSON text: what ``json.dumps`` writes between quotes.
JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def strings(value: Any) -> set[str]:
    """Every string in a JSON-able value, keys included (as JSON writes them: cards need no escapes)."""
    return set(JSON_STRING.findall(json.dumps(value)))


def keys(value: Any) -> set[str]:
    """Every key of every object in a JSON-able value."""
    if isinstance(value, dict):
        return set(map(str, value)).union(*map(keys, value.values()))
    if isinstance(value, list | tuple):
        return set().union(*map(keys, value))
    return set()


def assert_sentence(text: Any) -> None:
    """Words for a person: a sentence, never an action or an event quoted as JSON."""
    assert isinstance(text, str) and text.strip(), repr(text)
    for sign in ("{", "}", '"type"', "'type'", "posted "):
        assert sign not in text, text


# -- options ------------------------------------------------------------------------


def draw_option(option: Option, rng: random.Random) -> Any:
    """A value the schema allows, other than the default where there is another.

    Whole numbers from the minimum up to the default, or four above the minimum
    when that is more: the long end of a range (a target of 1000) only makes
    matches longer.
    """
    schema = option.schema()
    if schema["type"] == "bool":
        return not schema["default"]
    if schema["type"] == "choice":
        others = [c for c in schema["choices"] if c != schema["default"]]
        return rng.choice(others or schema["choices"])
    low = schema.get("minimum", 0)
    high = max(schema["default"], low + 4)
    high = min(high, schema.get("maximum", high))
    return rng.randint(low, high)


def draw_options(ruleset: Ruleset, seats: int, rng: random.Random) -> dict[str, Any]:
    """Options from the ruleset's schema, each changed from its default at random.

    Combinations the ruleset refuses (``InvalidOptions``) are drawn again.
    """
    for _ in range(1000):
        options = {
            option.name: draw_option(option, rng)
            for option in ruleset.options
            if rng.random() < 0.5
        }
        try:
            ruleset.validate(seats, options)
        except InvalidOptions:
            continue
        return options
    raise AssertionError(f"no options of {ruleset.version} allow {seats} seats")


# -- what a match has shown -----------------------------------------------------------


@dataclass
class Knowledge:
    """What the chance events and the events of the match have shown, and to whom.

    ``copies``: each card chance has shuffled, with the most copies of it any
    outcome held (one pack or two). ``private``: for each seat, the cards events
    of this deal have shown it alone. A new deal (a chance event of another
    hand) forgets what was private.
    """

    seats: int
    copies: Counter[str] = field(default_factory=Counter)
    private: dict[int, set[str]] = field(default_factory=dict)
    deal: Any = None

    def cards(self, value: Any) -> set[str]:
        return strings(value) & self.copies.keys()

    def see(self, events: list[Event]) -> set[str]:
        """Take in ``events``; return the cards they showed everybody."""
        shown: set[str] = set()
        for event in events:
            if event.chance is not None:
                if event.chance["hand"] != self.deal:
                    self.deal = event.chance["hand"]
                    self.private = {}
                outcome = event.chance["outcome"]
                if isinstance(outcome, list):
                    for card, n in Counter(o for o in outcome if isinstance(o, str)).items():
                        self.copies[card] = max(self.copies[card], n)
            shown |= strings(event.public)
            for seat, part in event.private.items():
                self.private.setdefault(seat, set()).update(strings(part))
        return {card for card in shown if card in self.copies}


# -- the checks -----------------------------------------------------------------------


def check_to_act(state: GameState) -> dict[int, list[dict[str, Any]]]:
    """``to_act`` is exactly the seats that owe an action; returns every seat's legal actions."""
    legal = {seat: state.legal_actions(seat) for seat in range(state.seats)}
    assert len(set(state.to_act)) == len(state.to_act)
    assert all(type(seat) is int and 0 <= seat < state.seats for seat in state.to_act)
    if state.is_over:
        assert state.to_act == ()
        assert all(actions == [] for actions in legal.values()), legal
        return legal
    assert state.to_act, "the match goes on and nobody owes an action"
    for seat, actions in legal.items():
        assert len({canonical(a) for a in actions}) == len(actions), ("listed twice", actions)
        assert json.loads(json.dumps(actions)) == actions  # JSON-able, and plain
        if seat in state.to_act:
            assert actions, (seat, state.to_act)
            assert any(not state.is_call(a) for a in actions), ("only calls owed", seat, actions)
        else:
            assert all(state.is_call(a) for a in actions), ("owed out of turn", seat, actions)
        # A kind the game calls sole is never legal beside another action: made, it says
        # by itself that it was forced (what a move played for its player may tell).
        sole = [a for a in actions if a.get("type") in state.sole_kinds]
        assert not sole or actions == sole[:1], ("a sole kind beside others", seat, actions)
        assert state.forced_action(seat) == (sole[0] if sole else None)
    return legal


def check_saved(
    ruleset: Ruleset,
    state: GameState,
    views: dict[int | None, dict[str, Any]],
    legal: dict[int, list[dict[str, Any]]],
) -> tuple[dict[str, Any], GameState]:
    """The state survives JSON: loaded, it saves, lists and shows the same.

    Returns the saved form, and the state loaded from it.
    """
    data = state.to_json()
    assert json.loads(json.dumps(data)) == data
    loaded = ruleset.load(json.loads(json.dumps(data)))
    assert loaded.to_json() == data
    assert loaded.to_act == state.to_act and loaded.is_over == state.is_over
    for seat, view in views.items():
        assert loaded.view(seat) == view
        if seat is not None:
            assert loaded.legal_actions(seat) == legal[seat]
    return data, loaded


def check_views(
    state: GameState,
    views: dict[int | None, dict[str, Any]],
    knowledge: Knowledge,
    public_before: set[str],
    shown: set[str],
) -> set[str]:
    """No view shows what its seat may not know. Returns the cards the public view shows."""
    public = views[None]
    assert "you" not in public
    assert not SECRET_KEYS & keys(public)
    public_cards = knowledge.cards(public)
    # A card comes into the public view only when an event shows it to everybody.
    assert not public_cards - public_before - shown, (
        "shown unannounced",
        public_cards - public_before - shown,
    )
    counts = public["card_counts"]
    assert len(counts) == state.seats and all(type(n) is int and n >= 0 for n in counts)
    hands = {}
    for seat in range(state.seats):
        view = dict(views[seat])
        you = view.pop("you")
        assert view == public  # what every seat sees alike
        assert you["seat"] == seat
        hand = you["hand"]
        assert isinstance(hand, list) and len(hand) == counts[seat]
        hands[seat] = Counter(hand)
        assert not SECRET_KEYS & keys(you), you
        # Its own hand, what the table shows, and what this deal showed it alone.
        allowed = set(hand) | public_cards | knowledge.private.get(seat, set())
        assert not knowledge.cards(you) - allowed, (seat, knowledge.cards(you) - allowed)
    # No hand holds a card another holds, beyond the copies chance shuffled.
    held = sum(hands.values(), Counter())
    assert all(held[card] <= knowledge.copies[card] for card in held if card in knowledge.copies), (
        held
    )
    return public_cards


def check_no_seed(views: dict[int | None, dict[str, Any]], seed: bytes) -> None:
    text = json.dumps(views)
    assert seed.hex() not in text and seed.hex().upper() not in text


def check_words(
    ruleset: Ruleset, state: GameState, legal: dict[int, list[dict[str, Any]]], events: list[Event]
) -> None:
    for actions in legal.values():
        for action in actions:
            assert_sentence(ruleset.action_text(action))
    for event in events:
        for seat in (None, *range(state.seats)):
            assert_sentence(ruleset.event_text(event.for_seat(seat)))


def changed(
    action: dict[str, Any], cards: list[str], rng: random.Random
) -> Iterator[dict[str, Any]]:
    """Ways to change a legal action, in a random order: none of them is to be taken as it."""
    ways: list[dict[str, Any]] = [
        {**action, "because": "why not"},
        {**action, "type": "fly"},
        {key: value for key, value in action.items() if key != "type"},
    ]
    for key, value in action.items():
        if key == "type":
            continue
        ways.append({k: v for k, v in action.items() if k != key})
        if type(value) is int:
            ways.append({**action, key: value == 1 or value})  # True where a 1 or a 0 belongs
            ways.append({**action, key: value + 1000})
            ways.append({**action, key: str(value)})
        elif type(value) is bool:
            ways.append({**action, key: int(value)})
        elif isinstance(value, str):
            ways.append({**action, key: rng.choice(cards) if cards else value + "?"})
            ways.append({**action, key: value.lower()})
            ways.append({**action, key: [value]})
        elif isinstance(value, list):
            ways.append({**action, key: [*value, rng.choice(cards) if cards else "?"]})
            if value:
                ways.append({**action, key: value[:-1]})
                ways.append({**action, key: [rng.choice(cards) if cards else "?", *value[1:]]})
                ways.append({**action, key: value[0]})
    rng.shuffle(ways)
    yield from ways


def check_refusals(
    ruleset: Ruleset,
    state: GameState,
    legal: dict[int, list[dict[str, Any]]],
    data: dict[str, Any],
    chance: SeededChance,
    knowledge: Knowledge,
    rng: random.Random,
) -> None:
    """What is not listed is refused with a sentence, and changes nothing.

    At each step: a legal action of a seat, changed; and for a seat that may do
    nothing, another seat's action and a timeout.
    """
    acting = [seat for seat, actions in legal.items() if actions]
    if acting:
        seat = rng.choice(acting)
        listed = {canonical(a) for a in legal[seat]}
        cards = sorted(knowledge.copies)
        ways = (
            a for a in changed(rng.choice(legal[seat]), cards, rng) if canonical(a) not in listed
        )
        refuse(ruleset, state, seat, next(ways), data, chance)
    idle = [seat for seat, actions in legal.items() if not actions]
    if idle:
        seat = rng.choice(idle)
        # Another seat's action, or any: not its turn (or the match is over).
        others = [
            a for s, acts in legal.items() for a in acts if s != seat and not state.is_call(a)
        ]
        action = rng.choice(others) if others else {"type": "pass"}
        refused = refuse(ruleset, state, seat, action, data, chance)
        assert isinstance(refused, GameOver if state.is_over else NotYourTurn), refused
        if not state.is_over:
            with pytest.raises(NotYourTurn):
                state.forfeit(seat, "timeout")
            assert state.to_json() == data


def check_strangers(ruleset: Ruleset, state: GameState, chance: SeededChance) -> None:
    """No seat of that number, or no action at all: refused, with a sentence."""
    data = state.to_json()
    for seat, action in ((state.seats, {"type": "pass"}), (-1, {"type": "pass"}), (True, {})):
        refuse(ruleset, state, seat, action, data, chance)  # type: ignore[arg-type]
    for action in (["not", "an", "object"], "draw", None, 7):
        for seat in range(state.seats):
            refuse(ruleset, state, seat, action, data, chance)


@functools.cache
def forms(ruleset: Ruleset) -> list[str]:
    """How the game says its actions are written: each form's usage and its fields' refusals."""
    hows = []
    for form in ruleset.actions.values():
        hows.append(form.usage)
        for spec in (*form.required.values(), *form.optional.values()):
            hows.append(spec.refusal)
    return sorted(hows, key=len, reverse=True)


def refuse(
    ruleset: Ruleset,
    state: GameState,
    seat: int,
    action: Any,
    data: dict[str, Any],
    chance: SeededChance,
) -> IllegalAction:
    with pytest.raises(IllegalAction) as refused:
        state.apply(seat, action, chance)
    assert state.to_json() == data, ("a refused action changed the state", seat, action)
    if state.is_over:
        assert isinstance(refused.value, GameOver)
    refusal = refused.value.refusal
    assert str(refused.value) == refusal.text()
    for text in (refusal.text(), refusal.record_text()):
        assert "refused (" not in text, ("a refusal nobody worded", refusal)
        # How an action is written shows its JSON on purpose, as the game's forms give it
        # (``Ruleset.actions``); the rest is words, and never the action posted, quoted.
        for how in forms(ruleset):
            text = text.replace(how, "how it is written")
        assert_sentence(text)
    return refused.value


def check_trials(
    ruleset: Ruleset,
    data: dict[str, Any],
    legal: dict[int, list[dict[str, Any]]],
    seed: bytes,
    rng: random.Random,
    thorough: bool,
) -> None:
    """Legal actions apply (tried on states loaded from the saved one), besides the one played.

    ``thorough``: every legal action of every seat, or a random ``TRIALS`` of them where
    there are more (DOS and Dodo list up to 150); otherwise one at random.
    """
    trials = [(seat, action) for seat, actions in legal.items() for action in actions]
    for seat, action in rng.sample(trials, min(TRIALS if thorough else 1, len(trials))):
        trial = ruleset.load(data)
        trial.apply(seat, json.loads(json.dumps(action)), SeededChance(seed))


def check_result(state: GameState, reason: str, forfeiter: int | None) -> None:
    """Every seat placed, 1 the best; equal places, equal totals; a forfeiting seat last, alone."""
    result = state.result
    assert result is not None and state.is_over
    assert result["reason"] == reason and result["seat"] == forfeiter
    assert result["totals"] == list(state.totals) == state.view(None)["totals"]
    places = result["places"]
    n = state.seats
    assert len(places) == n and all(type(p) is int and 1 <= p <= n for p in places)
    for seat, place in enumerate(places):
        # Competition ranking: a place is one more than the number of seats placed above it.
        assert place == 1 + sum(other < place for other in places), places
        for other, other_place in enumerate(places):
            if other_place == place:
                assert result["totals"][other] == result["totals"][seat], result
    if forfeiter is not None:
        assert places[forfeiter] == n and places.count(n) == 1


# -- playing ------------------------------------------------------------------------


@dataclass
class Match:
    ruleset: Ruleset
    seats: int
    options: dict[str, Any]
    seed: bytes
    log: list[Entry] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    state: GameState | None = None


def play(
    ruleset: Ruleset,
    seats: int,
    options: dict[str, Any],
    seed: bytes,
    choice_seed: int,
    *,
    thorough: bool = False,
    forfeit: bool = False,
) -> Match:
    """A random match, checked at every step; ``thorough`` tries every legal action.

    With ``forfeit``, the match ends at a random step by a timeout of a seat
    that owes an action or the resignation of any seat.
    """
    rng = random.Random(choice_seed)
    call_rate = rng.choice((0.05, 0.3))
    chance = SeededChance(seed)
    match = Match(ruleset, seats, options, seed)
    state, events = ruleset.new_game(seats, options, chance)
    match.state = state
    knowledge = Knowledge(seats)
    forfeit_at = rng.randrange(400) if forfeit else None
    public_cards: set[str] = set()
    check_strangers(ruleset, state, chance)
    while True:
        match.events += [event.to_json() for event in events]
        shown = knowledge.see(events)
        legal = check_to_act(state)
        views = {seat: state.view(seat) for seat in (None, *range(seats))}
        data, copy = check_saved(ruleset, state, views, legal)
        public_cards = check_views(state, views, knowledge, public_cards, shown)
        check_no_seed(views, seed)
        check_words(ruleset, state, legal, events)
        check_refusals(ruleset, state, legal, data, chance, knowledge, rng)
        if state.is_over:
            break
        assert len(match.log) < MAX_ACTIONS, "the match did not end"
        check_trials(ruleset, data, legal, seed, rng, thorough)
        if len(match.log) == forfeit_at:
            reason = rng.choice(FORFEITS)
            seat = rng.choice(state.to_act) if reason == "timeout" else rng.randrange(seats)
            events = state.forfeit(seat, reason)
            match.log.append(Forfeit(seat, reason))
            assert [e.public["type"] for e in events] == ["game_over"]
            check_result(state, reason, seat)
            continue
        # The seats to act choose; now and then a seat calls out of turn instead.
        callers = [s for s, acts in legal.items() if acts and s not in state.to_act]
        seat = rng.choice(callers if callers and rng.random() < call_rate else state.to_act)
        action = rng.choice(legal[seat])
        events = state.apply(seat, action, chance)
        match.log.append(Act(seat, action))
        # A state loaded from the saved one goes on exactly as the original.
        again = copy.apply(seat, json.loads(json.dumps(action)), SeededChance(seed))
        assert [e.to_json() for e in again] == [e.to_json() for e in events]
        assert copy.to_json() == state.to_json()
    if not any(isinstance(entry, Forfeit) for entry in match.log):
        check_result(state, "finished", None)
    check_strangers(ruleset, state, chance)
    with pytest.raises(GameOver):
        state.forfeit(0, "resigned")
    check_replay(match)
    return match


def check_replay(match: Match) -> None:
    """The engine's one replay of the log gives the same state, events and result."""
    assert match.state is not None
    replayed: list[dict[str, Any]] = []
    for step in replay(match.ruleset, match.seats, match.options, match.seed, match.log):
        replayed += [event.to_json() for event in step.events]
    assert replayed == match.events
    assert step.state.to_json() == match.state.to_json()
    assert step.state.result == match.state.result


# -- the matches --------------------------------------------------------------------


def seed_of(*numbers: int) -> bytes:
    return bytes(n % 256 for n in numbers).ljust(SEED_BYTES, b"\x5a")


def every_seat_count() -> list[tuple[str, int]]:
    return [
        (version, seats)
        for version, ruleset in VERSIONS.items()
        for seats in range(ruleset.min_seats, ruleset.max_seats + 1)
    ]


@pytest.mark.parametrize(("version", "seats"), every_seat_count())
def test_every_version_keeps_the_contract_at_every_seat_count_under_its_preset_and_other_options(
    version: str, seats: int
) -> None:
    ruleset = VERSIONS[version]
    number = list(VERSIONS).index(version)
    rng = random.Random(f"{version}/{seats}")
    try:
        ruleset.validate(seats, {})
        preset: dict[str, Any] | None = {}
    except InvalidOptions:
        preset = None  # more seats than the preset allows: an option opens them
    # The preset (where it allows these seats) at every other seat count, every legal action
    # tried; other options at the others, and now and then a forfeit at a random moment.
    options = preset if preset is not None and seats % 2 == 0 else draw_options(ruleset, seats, rng)
    play(
        ruleset,
        seats,
        options,
        seed_of(number, seats),
        seats,
        thorough=options == {},
        forfeit=seats % 3 == 0,
    )


def options_of(ruleset: Ruleset) -> st.SearchStrategy[dict[str, Any]]:
    """Any options of the schema (shrinking towards the preset), in the short end of each range."""
    values: dict[str, st.SearchStrategy[Any]] = {}
    for option in ruleset.options:
        schema = option.schema()
        if schema["type"] == "bool":
            values[option.name] = st.booleans()
        elif schema["type"] == "choice":
            values[option.name] = st.sampled_from(schema["choices"])
        else:
            low = schema.get("minimum", 0)
            high = min(max(schema["default"], low + 4), schema.get("maximum", 10**6))
            values[option.name] = st.integers(low, high)
    return st.fixed_dictionaries({}, optional=values)


@st.composite
def tables(draw: st.DrawFn, version: str) -> tuple[int, dict[str, Any]]:
    ruleset = VERSIONS[version]
    seats = draw(st.integers(ruleset.min_seats, ruleset.max_seats))
    options = draw(options_of(ruleset))
    try:
        ruleset.validate(seats, options)
    except InvalidOptions:
        reject()
    return seats, options


@pytest.mark.parametrize("version", list(VERSIONS))
@settings(
    max_examples=2,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_any_table_of_any_version_keeps_the_contract(version: str, data: st.DataObject) -> None:
    seats, options = data.draw(tables(version))
    seed = data.draw(st.binary(min_size=SEED_BYTES, max_size=SEED_BYTES))
    choice_seed = data.draw(st.integers(0, 2**32 - 1))
    play(VERSIONS[version], seats, options, seed, choice_seed, forfeit=data.draw(st.booleans()))


def test_a_dos_match_written_otherwise_than_listed_is_refused_in_words() -> None:
    """A double match, its cards in the other order: refused with the listed match in
    DOS's own words (``refuse`` checks that no JSON is quoted)."""
    ruleset = VERSIONS["dos/1"]
    chance = SeededChance(seed_of(30))
    state, _ = ruleset.new_game(2, {}, chance)
    rng = random.Random(30)
    while not state.is_over:
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        pairs = [
            a for a in legal if a["type"] == "match" and len(set(a["cards"])) == 2 and "as" not in a
        ]
        if pairs:
            target, first, second = pairs[0]["target"], *pairs[0]["cards"]
            action = {"type": "match", "target": target, "cards": [second, first]}
            refused = refuse(ruleset, state, seat, action, state.to_json(), chance)
            assert refused.refusal.code == "match_as_listed"
            assert f"the one in which you matched {target} with {first} and {second}" in str(
                refused
            )
            return
        state.apply(seat, rng.choice(legal), chance)
    pytest.fail("no double match listed in a whole match")
