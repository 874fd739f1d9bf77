"""The engine contract every Fairdeal game fulfils.

A game is a :class:`Ruleset` (what the catalogue lists: id, seats, options) and
a :class:`GameState` (one match in progress). The state is plain data that
round-trips through JSON, so the web app stores it as a cache and can always
rebuild it by replaying the move log from :meth:`Ruleset.new_game`.

The contract, in the players' terms:

* ``state.to_act`` is the tuple of seats that owe an action now. It may hold one
  seat (an ordinary turn), several (simultaneous choices), or none (the match
  is over). Deadlines hang on it. A seat outside it may still have legal
  actions that it need not take (a call out of turn, such as Dodo's catch):
  those never carry a deadline.
* ``state.legal_actions(seat)`` is the complete, finite list of what that seat
  may do now, each a small JSON-able dict. Posting one back unchanged is a
  legal move; anything else raises :class:`IllegalAction` with a reason. The
  list is the caller's own; the actions in it are not to be changed (the Crazy
  Eights family hands out its shared :class:`ListedAction` objects, which refuse
  every change): ``dict(action)`` is a copy to change.
* ``state.apply(seat, action, chance)`` changes the state in place and returns
  the :class:`Event` list it caused. Chance is injected; the state numbers its
  chance events so that a replay asks the same questions in the same order.
* ``state.copy()`` is a state to play on apart: it saves as this one does, and
  playing on it leaves this one as it was (a bot's imagined worlds).
* ``state.forfeit(seat, reason)`` ends the match against a seat that resigned
  or missed a deadline: that seat is last, the others placed by their totals.
* ``state.view(seat)`` is what that seat may see: the public view, card counts,
  totals, and ``you`` (its own hand and private details); ``state.view(None)``
  is what anybody may see. Neither ever holds another hand, the stock's order
  or a seed.

What every game shares lives here, so that a game declares only its own:

* its state fields, each declared once as a :class:`Saved` (or
  :class:`PerSeat`) with its default: the base sets them, saves them
  (``to_json``) and loads them (``Ruleset.load``), and resets those marked
  ``per_deal`` at each deal (``reset_per_deal``);
* numbered chance events (``chance_integer``, ``chance_shuffle``): the label,
  the deal and the next number of the match, so a replay asks the same
  questions in the same order;
* the result (``end``), by :meth:`GameState.places` (by totals, equal totals
  sharing a place, unless a game says otherwise), with a forfeiting seat last;
* seats and turn order: ``next_seat`` follows ``direction``.

Nothing here imports Django, the database or the clock.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

from games.rules.chance import Chance
from games.rules.words import Names, Refusal, quote, seat_name

Action = dict[str, Any]
T = TypeVar("T")


def _refuse_change(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise TypeError(
        f"a listed action is shared and cannot be changed: change a copy ({type(self).__name__})"
    )


class ListedAction(dict[str, Any]):
    """A legal action as a state lists it: shared, and never changed.

    The Crazy Eights family makes each distinct action once (for each card, each
    situation...) and every state, every match, lists that same object, so that
    ``legal_actions`` hands them out without copying. Every change is refused
    (``TypeError``); ``dict(action)`` is a plain dict to change. It is a dict to
    everything that reads it: ``==``, ``json.dumps`` (the same bytes),
    ``{**action}``, ``action | {...}`` and ``action.copy()`` (plain dicts).
    """

    __slots__ = ()

    __setitem__ = __delitem__ = _refuse_change
    update = pop = popitem = clear = setdefault = __ior__ = _refuse_change

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling and copy.copy rebuild it whole (the default would set item by item).
        return (type(self), (dict(self),))


class ListedCards(list[str]):
    """The list of cards of a listed action (Dodo's plays): shared, and never changed.

    ``list(cards)`` is a plain list to change; ``==`` and ``json.dumps`` read it as a list.
    """

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse_change
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse_change

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self),))


_LISTED: dict[tuple[Any, ...], ListedAction] = {}


def listed(action: Mapping[str, Any]) -> ListedAction:
    """The one shared :class:`ListedAction` for ``action`` (its keys in its order), made once.

    A list in it (Dodo's cards) becomes a :class:`ListedCards`. Values are told
    apart by type as JSON tells them (``1`` and ``true`` are two actions).

    >>> listed({"type": "catch", "seat": 1}) is listed({"type": "catch", "seat": 1})
    True
    """
    key = tuple(
        (name, type(value), tuple(value) if isinstance(value, list) else value)
        for name, value in action.items()
    )
    made = _LISTED.get(key)
    if made is None:
        made = _LISTED[key] = ListedAction(
            {
                name: ListedCards(value) if isinstance(value, list) else value
                for name, value in action.items()
            }
        )
    return made


def announcing(play: Mapping[str, Any]) -> ListedAction:
    """The listed play ``play``, announcing the last card.

    >>> announcing({"type": "play", "card": "7H"})
    {'type': 'play', 'card': '7H', 'announce': True}
    """
    return listed({**play, "announce": True})


# Cards of the standard pack: rank then suit.
RANKS = "A23456789TJQK"
SUITS = "CDHS"
STANDARD_PACK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)

FINISHED = "finished"
RESIGNED = "resigned"
TIMEOUT = "timeout"
FORFEIT_REASONS = (RESIGNED, TIMEOUT)
# What wording an action or event that is not what its game writes may raise: it is quoted.
UNWORDABLE = (KeyError, TypeError, AttributeError, IndexError, ValueError)


class RulesError(ValueError):
    """Something the rules refuse; ``code`` is machine-readable."""

    code = "rules_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class IllegalAction(RulesError):
    """The action is not one of the seat's legal actions now.

    The reason is data: a code and the facts it names, worded where codes are
    (``games/rules/words.py``): ``IllegalAction("not_held", card="9C")``.
    """

    code = "illegal_action"

    def __init__(self, reason: str = "not_legal", /, **params: Any) -> None:
        self.refusal = Refusal(reason, params)
        super().__init__(self.refusal.text())

    @classmethod
    def of(cls, refusal: Refusal) -> IllegalAction:
        return cls(refusal.code, **refusal.params)


class MalformedAction(IllegalAction):
    """What was posted is not an action at all (not a JSON object)."""

    code = "malformed_action"


class NotYourTurn(IllegalAction):
    """The seat owes no action now."""

    code = "not_your_turn"


class InvalidOptions(RulesError):
    """A table's seats or options are refused by the ruleset."""

    code = "invalid_options"


class GameOver(IllegalAction):
    """The match has ended; nothing more can be done."""

    code = "game_over"


@dataclass(slots=True)
class Event:
    """Something that happened, as the players see it.

    ``public`` is what everybody sees; ``private`` maps a seat to what only
    that seat sees (the card it drew). ``chance`` is set for chance events:
    their outcome is secret until the match ends and goes into the record.
    """

    public: dict[str, Any]
    private: dict[int, dict[str, Any]] = field(default_factory=dict)
    chance: dict[str, Any] | None = None

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        if seat is not None and seat in self.private:
            return {**self.public, **self.private[seat]}
        return dict(self.public)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"public": self.public}
        if self.private:
            data["private"] = {str(seat): value for seat, value in self.private.items()}
        if self.chance is not None:
            data["chance"] = self.chance
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        """The event :meth:`to_json` gave, as the move log stores it.

        >>> event = Event({"type": "draw", "seat": 2}, {2: {"card": "QH"}})
        >>> Event.from_json(event.to_json()) == event
        True
        """
        private = {int(seat): value for seat, value in data.get("private", {}).items()}
        return cls(data["public"], private, data.get("chance"))


# -- how actions are written -------------------------------------------------------


def is_card(value: Any, seats: int) -> bool:
    """A card token of the standard pack: ``"7H"``, never ``"7h"``, ``""`` or ``["7H"]``."""
    return type(value) is str and value in _CARDS


def is_cards(value: Any, seats: int) -> bool:
    """A non-empty list of card tokens, no longer than two packs."""
    return (
        isinstance(value, list)  # a list, or a listed play's ListedCards
        and 0 < len(value) <= 2 * len(STANDARD_PACK)
        and all(is_card(card, seats) for card in value)
    )


def is_suit(value: Any, seats: int) -> bool:
    """One of ``C D H S``, never ``"CD"``, ``""`` or ``"h"``."""
    return type(value) is str and value in _SUITS


def is_seat(value: Any, seats: int) -> bool:
    """A seat at a table of ``seats``: a whole number, not a boolean, from 0 to ``seats - 1``."""
    return type(value) is int and 0 <= value < seats


def is_true(value: Any, seats: int) -> bool:
    return value is True


_CARDS = frozenset(STANDARD_PACK)
_SUITS = frozenset(SUITS)


@dataclass(frozen=True)
class Field:
    """One field of an action: the test of its form, and the refusal when it fails."""

    holds: Callable[[Any, int], bool]  # (value, seats at the table)
    refusal: str


@dataclass(frozen=True)
class ActionForm:
    """How one type of action is written: its fields, and the refusal for a field too many."""

    usage: str
    required: Mapping[str, Field] = field(default_factory=dict)
    optional: Mapping[str, Field] = field(default_factory=dict)

    def refusal(self, action: Mapping[str, Any], seats: int) -> Refusal | None:
        """Why ``action`` (of this type) is not written this way, or None when it is."""
        for name, spec in self.required.items():
            if name not in action or not spec.holds(action[name], seats):
                return Refusal("malformed", {"how": spec.refusal})
        for name, value in action.items():
            if name == "type" or name in self.required:
                continue
            extra = self.optional.get(name)
            if extra is None:
                return Refusal("malformed", {"how": self.usage})
            if not extra.holds(value, seats):
                return Refusal("malformed", {"how": extra.refusal})
        return None


def brief(value: Any, limit: int = 20) -> str:
    """What a client sent, quoted in a refusal but never at length.

    >>> brief("discard"), brief(None), brief("x" * 30), brief([1, 2]), brief(10**40)
    ("'discard'", 'None', "'xxxxxxxxxxxxxxxxxxxx'…", 'a list', 'a number')
    """
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else repr(value[:limit]) + "…"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= limit else "a number"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else "a value"


@dataclass(frozen=True)
class Option:
    """One table option: a house rule or a setting the host chooses."""

    name: str
    type: str  # "bool", "int" or "choice"
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def validate(self, value: Any) -> Any:
        if self.type == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(f"option {self.name!r} must be true or false")
        elif self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(f"option {self.name!r} must be a whole number")
            if self.minimum is not None and value < self.minimum:
                raise InvalidOptions(f"option {self.name!r} must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise InvalidOptions(f"option {self.name!r} must be at most {self.maximum}")
        elif self.type == "choice" and value not in self.choices:
            raise InvalidOptions(
                f"option {self.name!r} must be one of {', '.join(map(str, self.choices))}"
            )
        return value

    def schema(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "description": self.description,
        }
        if self.minimum is not None:
            data["minimum"] = self.minimum
        if self.maximum is not None:
            data["maximum"] = self.maximum
        if self.choices:
            data["choices"] = list(self.choices)
        return data


class Ruleset(ABC):
    """A game as the catalogue lists it, and the factory of its matches."""

    id: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[str]  # bumped whenever replaying an old log would change
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    options: ClassVar[tuple[Option, ...]] = ()
    # The published rulebook it follows, by its file name (``dos.txt``); the rules in the
    # project's own words are the game's ``rules.md``.
    rulebook: ClassVar[str]
    family: ClassVar[str | None] = None  # the engine family whose preset this game is
    higher_wins: ClassVar[bool] = True  # under the preset; an option may turn it round
    # The fewest seats at which a bot may sit (a rulebook may keep bots from small tables).
    bots_from_seats: ClassVar[int] = 2
    # How each type of action is written, by type: checked before any rule reads a field.
    actions: ClassVar[Mapping[str, ActionForm]] = {}

    @property
    def action_types(self) -> str:
        """The types of action, as a refusal lists them: "play, draw or pass"."""
        *others, last = self.actions
        return f"{', '.join(others)} or {last}" if others else last

    def validate(self, seats: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check seats and options; return the options with every default filled in."""
        if isinstance(seats, bool) or not isinstance(seats, int):
            raise InvalidOptions("seats must be a whole number", code="invalid_seats")
        if not self.min_seats <= seats <= self.max_seats:
            raise InvalidOptions(
                f"{self.name} is played by {self.min_seats} to {self.max_seats} players",
                code="invalid_seats",
            )
        options = dict(options or {})
        known = {option.name: option for option in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise InvalidOptions(f"{self.name} has no option {brief(unknown[0])}")
        resolved = {
            name: option.validate(options[name]) if name in options else option.default
            for name, option in known.items()
        }
        self.check_combination(seats, resolved)
        return resolved

    def bots_allowed(self, seats: int) -> bool:
        """Whether a bot may sit at a table of ``seats``."""
        return seats >= self.bots_from_seats

    def check_combination(self, seats: int, options: dict[str, Any]) -> None:
        """Refuse combinations of seats and options that make no sense."""

    def describe(self) -> dict[str, Any]:
        """What the catalogue says of the game: the preset is every option at its default."""
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "family": self.family or self.id,
            "rulebook": self.rulebook,
            "min_seats": self.min_seats,
            "max_seats": self.max_seats,
            "bots_from_seats": max(self.bots_from_seats, self.min_seats),
            "winner": "highest total" if self.higher_wins else "lowest total",
            "preset": {option.name: option.default for option in self.options},
            "options": [option.schema() for option in self.options],
        }

    # -- the text forms: each game words its own actions and events -----------

    def action_text(self, action: Any, names: Names = seat_name) -> str:
        """What ``action`` did, after the seat that took it: ``played 8S and called hearts``.

        Each game words its own actions (:meth:`_action_words`); what it cannot
        word (a record may hold anything) is quoted as it was posted.
        """
        try:
            text = self._action_words(action, names)
        except UNWORDABLE:
            text = None
        return text or f"posted {quote(action)}"

    def _action_words(self, action: Any, names: Names) -> str | None:
        """The game's words for ``action``, or None for an action it does not word."""
        return None

    def event_text(self, event: Mapping[str, Any], names: Names = seat_name) -> str:
        """``event`` in words, as one seat saw it: its public part, and that seat's private part.

        ``names`` names a seat (``seat 2`` unless told). Each game words its
        own events (:meth:`_event_words`); what it cannot word is quoted, since a
        record may hold anything.
        """
        try:
            text = self._event_words(event, names)
        except UNWORDABLE:
            text = None
        if text:
            return text
        if event.get("type") == "game_over":
            try:
                return self.game_over_text(event, names)
            except (KeyError, TypeError, IndexError, ValueError):
                pass
        return quote(dict(event))

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        """The game's words for ``event``, or None for an event it does not word."""
        return None

    def game_over_text(self, event: Mapping[str, Any], names: Names) -> str:
        # In the order of the places (then of the seats, for a place shared), as the end's
        # heading and its list of places read: the winner first.
        ranked = sorted(
            enumerate(zip(event["places"], event["totals"], strict=True)),
            key=lambda seated: (seated[1][0], seated[0]),
        )
        places = ", ".join(
            f"{names(seat)} {ordinal(place)} ({total})" for seat, (place, total) in ranked
        )
        reason = event["reason"]
        if reason == FINISHED:
            return f"the game is over: {places}"
        return f"the game is over, {names(event['seat'])} {forfeit_text(reason)}: {places}"

    # The state of a match of this game: the base makes it, starts it and loads it.
    state_class: ClassVar[type[GameState]]

    def make_state(self, seats: int, options: Mapping[str, Any]) -> GameState:
        """A match before its start, every declared field at its default."""
        return self.state_class(self, seats, options)

    def new_game(
        self, seats: int, options: Mapping[str, Any], chance: Chance
    ) -> tuple[GameState, list[Event]]:
        """Start a match (first dealer, first deal); return it and the events of its start."""
        state = self.make_state(seats, self.validate(seats, options))
        return state, state.start(chance)

    def load(self, data: Mapping[str, Any]) -> GameState:
        """Rebuild a state from :meth:`GameState.to_json`."""
        state = self.make_state(data["seats"], data["options"])
        state.restore(data)
        return state


class Saved(Generic[T]):
    """A field of a game's state, declared once on the state's class with its default.

    The base gives every new state the default (a fresh copy), saves the field
    in ``to_json`` under ``key`` (the attribute's name unless told) and loads
    it back, so a field cannot be declared and then forgotten. ``when`` (a test
    of the state) keeps a field out of the saved state of games that never use
    it; ``per_deal`` fields go back to their default at each deal.

    >>> class Example(GameState):
    ...     passes = Saved(0, per_deal=True)
    >>> [field.name for field in Example.declared]
    ['hand_no', 'totals', 'chance_seq', 'result', 'direction', 'passes']
    """

    def __init__(
        self,
        default: T,
        *,
        key: str | None = None,
        when: Callable[[Any], bool] | None = None,
        per_deal: bool = False,
    ) -> None:
        self.default = default
        self.key = key
        self.when = when
        self.per_deal = per_deal
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.key = self.key or name

    def fresh(self, seats: int) -> T:
        """The default, for a state of ``seats`` seats: never shared between states."""
        return copy.deepcopy(self.default)

    def saved_by(self, state: GameState) -> bool:
        return self.when is None or self.when(state)

    if TYPE_CHECKING:
        # For types only: every state holds each field in its own __dict__ from birth
        # (``GameState.__init__``), so a field reads as its value, and writes as one.

        def __get__(self, instance: object, owner: type) -> T: ...

        def __set__(self, instance: object, value: T) -> None: ...


class PerSeat(Saved[list[T]]):
    """A field holding one value per seat, each a fresh copy of ``each``: totals, hands."""

    def __init__(
        self,
        each: T,
        *,
        key: str | None = None,
        when: Callable[[Any], bool] | None = None,
        per_deal: bool = False,
    ) -> None:
        super().__init__([], key=key, when=when, per_deal=per_deal)
        self.each = each

    def fresh(self, seats: int) -> list[T]:
        return [copy.deepcopy(self.each) for _ in range(seats)]


def _copied(value: Any) -> Any:
    """A saved list and the lists in it, copied: a state never shares them with its JSON."""
    if isinstance(value, list):
        return [list(v) if isinstance(v, list) else v for v in value]
    return value


class GameState(ABC):
    """One match in progress. Mutable; every change goes through ``apply`` or ``forfeit``.

    A game's state class declares its fields as class attributes (:class:`Saved`,
    :class:`PerSeat`); these here are every game's.
    """

    declared: ClassVar[tuple[Saved[Any], ...]] = ()  # every field, the base's first
    higher_wins: bool  # False where the fewest points win: the ruleset's, unless an option turns it
    reverses: bool = False  # whether play may turn round, so that ``direction`` is saved

    hand_no = Saved(0)  # the deal (hand, round) in progress, from 1; chance events carry it
    totals = PerSeat(0)  # each seat's running total
    chance_seq = Saved(0)  # the number of the next chance event of the match
    result: Saved[dict[str, Any] | None] = Saved(None)  # set when the match ends
    # 1 while play goes to the left (the next seat number), -1 after a reverse.
    direction = Saved(1, when=lambda state: state.reverses, per_deal=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.declared = declared_fields(cls)

    def __init__(self, ruleset: Ruleset, seats: int, options: Mapping[str, Any]) -> None:
        self.ruleset = ruleset
        self.seats = seats
        self.options = dict(options)
        self.higher_wins = ruleset.higher_wins
        for spec in self.declared:
            setattr(self, spec.name, spec.fresh(seats))
        self._saved: tuple[Saved[Any], ...] | None = None

    # -- the contract --------------------------------------------------------

    @abstractmethod
    def start(self, chance: Chance) -> list[Event]:
        """Begin the match (the first dealer, the first deal); the events of its start."""

    @property
    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """The seats that owe an action now."""

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.result is not None

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now; empty when it owes nothing.

        A new list, the caller's own; the actions in it are not to be changed
        (``dict(action)`` is a copy to change).
        """

    @abstractmethod
    def _apply(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        """Apply an action already known to be legal: one this state listed, read, never changed or kept."""

    @abstractmethod
    def public_view(self) -> dict[str, Any]:
        """What anybody may see of the table: never a hand, the stock's order or a seed."""

    @abstractmethod
    def private_view(self, seat: int) -> dict[str, Any]:
        """What only ``seat`` may see: its own ``hand``, and whatever else is its alone."""

    @abstractmethod
    def card_counts(self) -> list[int]:
        """How many cards each seat holds: always on the table for everybody."""

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: what anybody may see).

        Every seat sees the public view, the card counts and the totals; a
        seat also sees ``you``, its private view.
        """
        data = {
            **self.public_view(),
            "card_counts": self.card_counts(),
            "totals": list(self.totals),
        }
        if seat is not None:
            data["you"] = {"seat": seat, **self.private_view(seat)}
        return data

    # -- saving and loading --------------------------------------------------

    @property
    def saved(self) -> tuple[Saved[Any], ...]:
        """The declared fields this state saves (a game's ``when`` may leave some out)."""
        if self._saved is None:
            self._saved = tuple(spec for spec in self.declared if spec.saved_by(self))
        return self._saved

    def saves(self, name: str) -> bool:
        return any(spec.name == name for spec in self.saved)

    def to_json(self) -> dict[str, Any]:
        """Everything, secrets included: for the server's cache only."""
        data: dict[str, Any] = {
            "game": self.ruleset.id,
            "seats": self.seats,
            "options": dict(self.options),
        }
        for spec in self.saved:
            data[spec.key or spec.name] = _copied(getattr(self, spec.name))
        return data

    def copy(self) -> Self:
        """A copy to play on, the same as ``ruleset.load(self.to_json())`` and quicker.

        Every attribute as it is, but what a state changes in place: each list
        copied, with the lists in it (the hands), and each dict. The copy is of
        the same position, so what the state worked out for it (its legal
        actions) holds for the copy too. Playing on the copy leaves this state
        as it was.
        """
        cls = type(self)
        copied = cls.__new__(cls)
        fields = vars(copied)
        for name, value in vars(self).items():
            if type(value) is list:
                value = [list(item) if type(item) is list else item for item in value]
            elif type(value) is dict:
                value = dict(value)
            fields[name] = value
        return copied

    def restore(self, data: Mapping[str, Any]) -> None:
        """Take every saved field from ``data`` (:meth:`to_json`'s form).

        A field missing from ``data`` (a cache saved before the field was
        declared) keeps its default.
        """
        for spec in self.saved:
            key = spec.key or spec.name
            if key in data:
                setattr(self, spec.name, _copied(data[key]))

    def reset_per_deal(self) -> None:
        """Every field declared ``per_deal`` back to its default: a new deal begins."""
        for spec in self.declared:
            if spec.per_deal:
                setattr(self, spec.name, spec.fresh(self.seats))

    # -- chance --------------------------------------------------------------

    def chance_integer(self, chance: Chance, label: str, n: int) -> tuple[int, Event]:
        """Ask chance for an integer below ``n``, as the match's next chance event."""
        seq = self._next_chance()
        outcome = chance.integer(n, label=label, hand=self.hand_no, seq=seq)
        return outcome, self._chance_event(label, seq, outcome)

    def chance_shuffle(
        self, chance: Chance, label: str, items: Sequence[T]
    ) -> tuple[list[T], Event]:
        """Ask chance to shuffle ``items`` (in the game's canonical order), as the next chance event."""
        seq = self._next_chance()
        outcome = chance.shuffle(items, label=label, hand=self.hand_no, seq=seq)
        return outcome, self._chance_event(label, seq, outcome)

    def _next_chance(self) -> int:
        seq = self.chance_seq
        self.chance_seq += 1
        return seq

    def _chance_event(self, label: str, seq: int, outcome: Any) -> Event:
        # Public: only that it happened. The outcome goes to the record, never to a view.
        return Event(
            public={"type": label, "hand": self.hand_no},
            chance={"label": label, "hand": self.hand_no, "seq": seq, "outcome": outcome},
        )

    # -- seats, turns and the end ---------------------------------------------

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` in the direction of play."""
        return (seat + self.direction) % self.seats

    def places(self, seats: Sequence[int]) -> dict[int, int]:
        """The places of ``seats`` among themselves, 1 the best, when the match ends.

        By totals, the way ``higher_wins`` says, equal totals sharing a place. A
        game whose rulebook breaks ties or disqualifies (Dingo) overrides this.
        """
        return place_by_totals(self.totals, seats, higher_wins=self.higher_wins)

    def end(self, reason: str = FINISHED, seat: int | None = None) -> Event:
        """End the match: set ``result`` and return the ``game_over`` event.

        ``seat`` is the seat that forfeited (``reason`` resigned or timeout): it
        is last, and the others are placed among themselves.
        """
        places = self.places([s for s in range(self.seats) if s != seat])
        if seat is not None:
            places[seat] = self.seats
        self.result = {
            "reason": reason,
            "seat": seat,
            "places": [places[s] for s in range(self.seats)],
            "totals": list(self.totals),
        }
        return Event({"type": "game_over", **self.result})

    # -- acting ----------------------------------------------------------------

    def apply(self, seat: int, action: Any, chance: Chance) -> list[Event]:
        """Apply one of ``seat``'s legal actions, or raise :class:`IllegalAction`.

        What is applied is the state's own listed action that ``action`` equals
        (:meth:`check`), never the caller's object.
        """
        return self._apply(seat, self.check(seat, action), chance)

    def apply_legal(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        """Apply an action taken from ``legal_actions(seat)`` in this very position, unchecked.

        For a caller that has just listed the seat's legal actions and picked one (a
        bot's playout): the check would find nothing. Anything else goes through
        :meth:`apply`, which checks first.
        """
        return self._apply(seat, action, chance)

    def check(self, seat: int, action: Any) -> Action:
        """The one of ``seat``'s legal actions now that ``action`` is, exactly; else raise."""
        if self.result is not None:
            raise GameOver("game_over")
        if type(seat) is not int or not 0 <= seat < self.seats:  # a bool is no seat
            raise IllegalAction("no_seat", seat=seat if type(seat) is int else brief(seat))
        legal = self.legal_actions(seat)
        # Equal (``==``) to a listed action, and of the same JSON types: a true is no 1.
        try:
            listed = legal[legal.index(action)]
        except ValueError:
            pass
        else:
            if listed is action or same_json(action, listed):  # as listed, or its JSON
                return listed
        # Refused: why.
        if not isinstance(action, dict):
            raise NotYourTurn("not_your_turn") if not legal else MalformedAction("not_an_object")
        if not legal and not self.is_call(action):
            raise NotYourTurn("not_your_turn")
        # Refused: first for how it is written, so that explain_illegal may read its fields.
        raise IllegalAction.of(self.check_form(action) or self.explain_illegal(seat, action))

    def check_form(self, action: Action) -> Refusal | None:
        """Why ``action`` is not written as this game writes actions, or None when it is."""
        kind = action.get("type")
        form = self.ruleset.actions.get(kind) if isinstance(kind, str) else None
        if form is None:
            return Refusal(
                "unknown_type", {"type": brief(kind), "types": self.ruleset.action_types}
            )
        return form.refusal(action, self.seats)

    def is_call(self, action: Action) -> bool:
        """Whether ``action`` is a call out of turn: never owed, so it moves no deadline."""
        return False

    @property
    def sole_kinds(self) -> frozenset[str]:
        """The kinds of action that are never legal beside another of the seat's actions
        (in this game, under its options): made, such an action says by itself that it
        was the seat's only choice. None unless a game says so; the rules' property
        tests hold each game to what it says."""
        return frozenset()

    def forced_action(self, seat: int) -> Action | None:
        """The action ``seat`` must make, if it has no choice and the action itself shows
        it had none: its one legal action, of a kind in :attr:`sole_kinds`; else None.

        Played for a player who asks for it (docs/engine.md, "Forced moves"), it tells
        the others nothing that the action does not tell them when made by hand.
        """
        if not self.sole_kinds:
            return None
        actions = self.legal_actions(seat)
        if len(actions) == 1 and actions[0].get("type") in self.sole_kinds:
            return actions[0]
        return None

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        """Why ``action``, written as it should be, is not legal; games refine this.

        Only called once :meth:`check_form` has passed ``action``: every field it
        carries is of its type's form (a card token, a suit, a seat at the table).
        """
        return Refusal("not_legal")

    def forfeit(self, seat: int, reason: str) -> list[Event]:
        """End the match against ``seat``: it finishes last, the rest by their places.

        A resignation may come at any moment; a timeout only from a seat that
        owed an action (:class:`NotYourTurn` otherwise): a call out of turn is
        never owed, so nobody times out for not making one.
        """
        if self.result is not None:
            raise GameOver("game_over")
        if reason not in FORFEIT_REASONS:
            raise ValueError(f"unknown forfeit reason {reason!r}")
        if not 0 <= seat < self.seats:
            raise IllegalAction("no_seat", seat=seat if type(seat) is int else brief(seat))
        if reason == TIMEOUT and seat not in self.to_act:
            raise NotYourTurn("no_timeout_owed", seat=seat)
        return [self.end(reason, seat)]


def declared_fields(cls: type) -> tuple[Saved[Any], ...]:
    """Every field ``cls`` and its bases declare (``Saved``), its bases' first.

    As a dataclass does with a field's default, the class attribute of each field
    ``cls`` declares becomes its default: the declaration is kept in ``declared``.
    A field declared again lower down (another default) keeps its place.
    """
    fields: dict[str, Saved[Any]] = {}
    for base in reversed(cls.__bases__):
        for spec in getattr(base, "declared", ()):
            fields[spec.name] = spec
    for name, value in list(vars(cls).items()):
        if isinstance(value, Saved):
            fields[name] = value
            setattr(cls, name, value.default)
    return tuple(fields.values())


GameState.declared = declared_fields(GameState)


def forfeit_text(reason: str) -> str:
    """How a forfeit reads after the seat: ``resigned``, ``timed out``."""
    return {RESIGNED: "resigned", TIMEOUT: "timed out"}.get(reason, f"forfeited ({quote(reason)})")


def ordinal(place: Any) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``... ``11th``.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 21)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st']
    """
    n = int(place)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_SCALARS = (str, int, bool, float, type(None))
_JSON_KINDS: dict[type, type] = {ListedAction: dict, ListedCards: list}


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: unlike ``==``, ``1``, ``1.0`` and ``true`` all differ.

    >>> same_json({"n": 1}, {"n": 1}), same_json({"n": 1}, {"n": True})
    (True, False)
    """
    if a is b:  # a listed action posted back as it was listed
        return True
    kind = type(a)
    if kind is not type(b) or kind in _JSON_KINDS:
        # A listed action, or its cards, is the JSON of the dict or list it subclasses.
        kind = _JSON_KINDS.get(kind, kind)
        if kind is not _JSON_KINDS.get(type(b), type(b)):
            return False
    if kind in _SCALARS:
        return bool(a == b)
    if kind is dict:
        return a.keys() == b.keys() and all(same_json(a[key], b[key]) for key in a)
    if kind is list:
        return len(a) == len(b) and all(map(same_json, a, b))
    return False


def place_by_totals(
    totals: Sequence[int], seats: Sequence[int], *, higher_wins: bool = True
) -> dict[int, int]:
    """Competition ranking of ``seats`` by total: equal totals share a place (1, 1, 3).

    >>> place_by_totals([10, 30, 30, 5], [0, 1, 2, 3])
    {0: 3, 1: 1, 2: 1, 3: 4}
    """
    sign = -1 if higher_wins else 1
    ordered = sorted(seats, key=lambda s: sign * totals[s])
    places: dict[int, int] = {}
    for index, seat in enumerate(ordered):
        if index and totals[seat] == totals[ordered[index - 1]]:
            places[seat] = places[ordered[index - 1]]
        else:
            places[seat] = index + 1
    return dict(sorted(places.items()))
