"""Crazy 8, head to head (``crazy-8``), and its house rules.

It follows ``shared/rules/crazy-8-two-player.txt``; it is a preset of the
Crazy Eights family (``games/catalogue/crazy_eights/rules.py``), whose actions, chance
events and scoring it shares. ``docs/rules/crazy-8.md`` gives the
interpretations.

Crazy 8 (``crazy-8``): two seats, seven cards each, the deal alternating and
the non-dealer leading, first to 100 (the match ends with the hand in which a
total reaches 100; the higher total wins). Its preset plays as Crazy Eights at
two seats, with one more rule: when both seats pass one after the other the
hand is blocked, both hands are counted, the lower count scores the difference
(equal counts score nothing) and the next hand is dealt (``hand_over`` then
has ``"blocked": true`` and ``"winner"`` null on a tie). Its options, all off
by default, add these actions and events:

* ``more_players``: three to seven seats (refused without it), five cards
  each, two standard packs shuffled together from six seats; the deal moves
  left each hand and the dealer's left leads, play going left. A reverse card
  turns the direction of play (event ``{"type": "reverse", "seat": s,
  "direction": d}``, ``d`` 1 for left and -1 for right); skips and twos act on
  the next seat in the current direction; every hand starts going left. Every
  seat passing in a row blocks the hand: the single lowest count scores the
  sum of its differences to every other hand (nothing if the lowest is
  shared).

* ``draw_rule`` ``one`` or ``limit``: ``{"type": "draw"}`` as above; when the
  last draw allowed (one, or ``draw_limit``) does not play, the engine ends the
  turn at once (event ``{"type": "turn_passes", "seat": s}``). A drawn card
  that plays must still be played.
* ``voluntary_draw``: ``{"type": "draw"}`` is also legal while a card plays
  (as long as the draw rule allows another card), and a drawn card that plays
  may be kept: after a draw the seat plays any card that plays, or draws on.
  With nothing left to draw, a seat holding a card that plays must play.
* ``starter_eight`` ``any``: a turned eight stays and anything plays on it.
  ``dealer_names``: it stays and the dealer alone owes
  ``{"type": "name", "suit": "H"}`` (one entry per suit) before the lead.
* ``queens_skip``, ``aces: skip``: the card skips the next seat, so with two
  seats you play again (event ``{"type": "skip", "seat": s}``).
  ``jacks_reverse``, ``aces: reverse``: at three or more seats the card turns
  the direction of play; at two it does nothing ("in games of three or
  more"), unless ``reverse_skips_at_two`` makes it a skip.
* ``twos_draw_two``: after a two the engine draws two cards for the next seat
  and its turn passes (``draw`` events, then ``turn_passes``). With
  ``twos_stack`` the next seat acts instead: play a two (the penalty grows by
  two and passes on) or ``{"type": "draw"}``, which takes the whole penalty
  and ends its turn.
* ``last_card``: the plays of a seat holding two cards (a play that leaves it
  one) are listed twice, as above and with ``"announce": true``; the play
  event then has ``"announce": true``. A seat that goes down to one without
  announcing is ``catchable`` (public view) until the next play, by whoever
  is to act, or its late announcement ``{"type": "last_card"}``, a call out of
  turn (event ``last_card``). Meanwhile every
  other seat has ``{"type": "catch", "seat": s}`` among its legal actions, out
  of turn and owing nothing: event ``{"type": "catch", "seat": catcher,
  "caught": s}``, then ``s`` draws one card (a ``draw`` event, after a
  ``reshuffle`` if the stock is empty; nothing if there is nothing to draw),
  and the window closes. ``crazy-8/2`` (``Crazy8v2``) is kept for its tables
  and records: a reverse at two was a skip, and any action closed the window.
* ``target`` (a house rule of our own, 100 by default): the match ends at the
  end of the hand in which a total reaches it; 0 plays a single hand, its
  winner first and the others sharing second (a blocked hand with no winner
  leaves everybody first). ``crazy-8/3`` (``Crazy8v3``), kept for its tables
  and records, is ``crazy-8/4`` without it (always 100).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from games.catalogue.crazy_eights.rules import (
    ANNOUNCE,
    CALLED_SUIT,
    CARD,
    CATCH,
    DRAW,
    DRAW_ACTION,
    EIGHT,
    LAST_CARD_ACTION,
    PASS,
    PASS_ACTION,
    CrazyEights,
    EightsState,
)
from games.rules.base import (
    STANDARD_PACK,
    SUITS,
    Action,
    ActionForm,
    Event,
    Field,
    InvalidOptions,
    Option,
    Ruleset,
    Saved,
    announcing,
    is_suit,
    listed,
)
from games.rules.chance import Chance
from games.rules.words import Names, Refusal, Wording, suit_name, word

NAMED = Field(is_suit, 'name one of C, D, H, S: {"type": "name", "suit": "H"}')
word(
    no_last_card_rule=Wording(
        "this table plays without the last card (house rule last_card): "
        "there is no announcing it and no catch",
        ", but this table plays without the last card (house rule last_card)",
    ),
    dealer_names_first=Wording(
        'the dealer first names the suit of the starter eight: {{"type": "name", "suit": "H"}}',
        ", but the dealer had first to name the suit of the starter eight",
    ),
    name_only_dealer=Wording(
        "a suit is named only by the dealer, on a starter eight",
        ", but a suit is named only by the dealer, on a starter eight",
    ),
    draw_limit=Wording(
        "you have drawn as many cards as the draw rule allows this turn: play",
        ", but it had drawn as many cards as the draw rule allows",
    ),
)
DRAW_RULES = ("until_playable", "one", "limit")
STARTER_EIGHTS = ("bury", "any", "dealer_names")
ACES = ("none", "reverse", "skip")
TARGET = 100  # "the first player to reach 100 points ... wins the game"


class Crazy8State(EightsState):
    """A match of Crazy 8: Crazy Eights' play, and the house rules the table chose."""

    position_fields = (
        *EightsState.position_fields,
        *("draws", "chain", "naming", "direction", "catchable"),
    )
    has_chain = True  # twos_draw_two and twos_stack
    # What crazy-8/3 changed; ``Crazy8v2State`` turns each back off (see ``Crazy8v2``).
    # A reverse card at two seats does nothing ("in games of three or more"), unless
    # the house rule reverse_skips_at_two makes it a skip.
    reverse_is_skip_at_two: ClassVar[bool] = False
    # last_card: the window is Dodo's, open until the next play, with a late announcement.
    catch_until_next_play: ClassVar[bool] = True

    draws = Saved(0, per_deal=True)  # cards drawn this turn, for draw_rule one and limit
    naming = Saved(False)  # the dealer must name the suit of a starter eight

    def __init__(self, ruleset: CrazyEights, seats: int, options: Mapping[str, Any]) -> None:
        super().__init__(ruleset, seats, options)
        # more_players: a reverse turns play round at three or more; at two it is a skip.
        self.reverses = seats > 2
        # The most draws in a turn: None is the rulebook's "until a card plays".
        self.max_draws: int | None = {"one": 1, "limit": self.options["draw_limit"]}.get(
            self.options["draw_rule"]
        )
        self.starter_eight = self.options["starter_eight"]
        self.bury_starter = self.starter_eight == "bury"
        self.reverse_ranks = ("J" if self.options["jacks_reverse"] else "") + (
            "A" if self.options["aces"] == "reverse" else ""
        )
        reverse_skips = seats == 2 and (
            self.reverse_is_skip_at_two or bool(self.options.get("reverse_skips_at_two"))
        )
        self.skip_ranks = (
            ("Q" if self.options["queens_skip"] else "")
            + ("A" if self.options["aces"] == "skip" else "")
            + (self.reverse_ranks if reverse_skips else "")
        )
        self.twos_draw_two = bool(self.options["twos_draw_two"])
        self.twos_stack = bool(self.options["twos_stack"])
        self.voluntary_draw = bool(self.options["voluntary_draw"])
        self.last_card = bool(self.options["last_card"])

    @property
    def sole_kinds(self) -> frozenset[str]:
        # A draw at will (voluntary_draw), instead of answering a chain (twos_stack), or
        # beside the call of a last card (last_card) is a choice among others.
        if self.voluntary_draw or self.twos_stack or self.last_card:
            return frozenset()
        return super().sole_kinds

    def _deal(self, chance: Chance) -> list[Event]:
        events = super()._deal(chance)
        # starter_eight "dealer_names": the dealer names the suit before the lead.
        self.naming = self.pile[0][0] == EIGHT and self.starter_eight == "dealer_names"
        if self.naming:
            self.turn = self.dealer
        return events

    # -- the contract --------------------------------------------------------

    def _find_legal(self, seat: int) -> list[Action]:
        # last_card: the catch, a call out of turn that any other seat may make.
        catch: list[Action] = []
        if self.catchable is not None and seat != self.catchable:
            catch = [listed({"type": "catch", "seat": self.catchable})]
        elif self.catchable is not None and self.catch_until_next_play:
            catch = [LAST_CARD_ACTION]  # the forgotten announcement, made late
        if seat != self.turn:
            return catch
        actions = self._turn_actions(seat)
        if self.last_card and len(self.hands[seat]) == 2:
            # A play that leaves one card may announce it: each play is listed both ways.
            actions = [
                variant
                for action in actions
                for variant in (
                    (action, announcing(action)) if action["type"] == "play" else (action,)
                )
            ]
        return actions + catch

    def _turn_actions(self, seat: int) -> list[Action]:
        if self.naming:
            return [listed({"type": "name", "suit": s}) for s in SUITS]
        if self.chain:
            # twos_stack: answer with a two (it always matches a two), or take the lot.
            twos = sorted({card for card in self.hands[seat] if card[0] == "2"})
            return [*(listed({"type": "play", "card": card}) for card in twos), DRAW_ACTION]
        if self.voluntary_draw and self.drawn is None:
            # Draw instead of playing, as long as the draw rule allows another card.
            actions = self._play_actions(self.hands[seat])
            if self.can_draw() and self.draws_left():
                actions.append(DRAW_ACTION)
            return actions or [PASS_ACTION]
        return super()._turn_actions(seat)

    def draws_left(self) -> bool:
        return self.max_draws is None or self.draws < self.max_draws

    def explain_illegal(self, seat: int, action: Action) -> Refusal:
        kind = action["type"]
        card = action.get("card")
        if kind == "catch":
            if not self.last_card:
                return Refusal("no_last_card_rule")
            if self.catchable is None:
                return Refusal("nobody_to_catch")
            if self.catchable == seat:
                return Refusal(
                    "catch_self_announce" if self.catch_until_next_play else "catch_self"
                )
            return Refusal("catch_other", {"seat": self.catchable})
        if kind == "last_card":
            if not self.last_card:
                return Refusal("no_last_card_rule")
            return Refusal("no_late_announcement")
        if seat != self.turn:
            return Refusal("out_of_turn")
        if "announce" in action and kind == "play":
            if not self.last_card:
                return Refusal("no_last_card_rule")
            if len(self.hands[seat]) != 2:
                return Refusal("announce_not_last")
        if self.naming:
            return Refusal("dealer_names_first")
        if kind == "name":
            return Refusal("name_only_dealer")
        if self.chain and not (kind == "play" and card is not None and card[0] == "2"):
            return Refusal("chain_owed", {"chain": self.chain, "answers": "a two"})
        if kind == "draw" and self.voluntary_draw and self.can_draw():
            return Refusal("draw_limit")
        return super().explain_illegal(seat, action)

    def _act(self, seat: int, action: Action, chance: Chance) -> list[Event]:
        kind = action["type"]
        if kind == "catch":
            return self._catch(seat, action["seat"], chance)
        if kind == "last_card":
            self.catchable = None
            return [Event({"type": "last_card", "seat": seat})]
        if kind == "play" or not self.catch_until_next_play:
            self.catchable = (
                None  # the next play closes the last-card window (crazy-8/2: any action)
            )
        if kind == "play":
            announce = bool(action.get("announce"))
            silent = self.last_card and len(self.hands[seat]) == 2 and not announce
            events = self._play(seat, action["card"], action.get("suit"), chance, announce)
            if silent:
                self.catchable = seat  # down to one, unannounced: the others may catch
            return events
        if kind == "draw" and self.chain:
            return self._take_chain(seat, chance)
        if kind == "name":
            return self._name(seat, action["suit"])
        return super()._act(seat, action, chance)

    def _name(self, seat: int, suit: str) -> list[Event]:
        self.called_suit = suit
        self.naming = False
        self.turn = self.next_seat(seat)
        return [Event({"type": "name", "seat": seat, "suit": suit})]

    def _play(
        self, seat: int, card: str, suit: str | None, chance: Chance, announce: bool = False
    ) -> list[Event]:
        self.draws = 0
        return super()._play(seat, card, suit, chance, announce)

    def _card_effect(self, seat: int, card: str, chance: Chance) -> list[Event]:
        if card[0] == "2" and self.twos_draw_two:
            self.chain += 2
            self.turn = self.next_seat(seat)
            return [] if self.twos_stack else self._take_chain(self.turn, chance)
        if card[0] in self.reverse_ranks and self.seats > 2:
            self.direction = -self.direction
            self.turn = self.next_seat(seat)
            return [Event({"type": "reverse", "seat": seat, "direction": self.direction})]
        if card[0] in self.skip_ranks:
            # A skip (or, at two seats with reverse_skips_at_two, a reverse): you play again.
            skipped = self.next_seat(seat)
            self.turn = self.next_seat(skipped)
            return [Event({"type": "skip", "seat": skipped})]
        return super()._card_effect(seat, card, chance)

    def _draw(self, seat: int, chance: Chance) -> list[Event]:
        card, events = self._take_card(seat, chance)
        if self.max_draws is not None:
            self.draws += 1
        if self.voluntary_draw:
            # A drawn card that plays may be kept: the seat plays what it likes, or draws on.
            stuck = not any(self.plays(c) for c in self.hands[seat])
        elif self.plays(card):
            self.drawn = card
            return events
        else:
            stuck = True
        if stuck and not self.draws_left():
            # draw_rule one or limit: nothing plays after the last draw allowed; the turn passes.
            self.draws = 0
            self.turn = self.next_seat(seat)
            events.append(Event({"type": "turn_passes", "seat": seat}))
        return events

    # -- views ---------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        view = super().public_view()
        if self.last_card:
            view["catchable"] = self.catchable
        if self.twos_stack:
            # The two's chain, as Dodo shows its own: what the seat to act must answer or draw.
            view["chain"] = (
                {"total": self.chain, "seat": self.turn}
                if self.chain and self.result is None
                else None
            )
        if self.naming:
            view["suit_to_follow"] = None  # the dealer names it first: nothing to follow yet
            view["naming"] = True
        return view


class Crazy8(CrazyEights):
    """Crazy 8, head to head (``shared/rules/crazy-8-two-player.txt``), and its house rules.

    The preset (every option at its default) is the rulebook; each option is
    one of the rulebook's "common variations".
    """

    id = "crazy-8"
    name = "Crazy 8"
    # /2: a deal going round in circles is blocked. /3: a reverse at two does nothing
    # (a skip only with reverse_skips_at_two); the last-card window lasts to the next play;
    # only a circle of forced actions blocks. /4: the house rule target (a new option
    # changes every saved state's options, so it is a version of its own).
    version = "crazy-8/4"
    rulebook = "crazy-8-two-player.txt"
    min_seats = 2
    max_seats = 7  # three or more only with the house rule more_players
    # "Head-to-head against the computer" (the rulebook's players).
    bots_from_seats = 2
    blocks = True
    state_class = Crazy8State
    actions = {
        "play": ActionForm(
            'a play is {"type": "play", "card": "7H"}, and "suit" with an eight, '
            'and "announce": true with a last card',
            required={"card": CARD},
            optional={"suit": CALLED_SUIT, "announce": ANNOUNCE},
        ),
        "draw": DRAW,
        "pass": PASS,
        "name": ActionForm(
            'a suit is named as {"type": "name", "suit": "H"}, nothing more', {"suit": NAMED}
        ),
        "catch": CATCH,
        "last_card": ActionForm('a late announcement is {"type": "last_card"}, nothing more'),
    }
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "draw_rule",
            "choice",
            "until_playable",
            "until_playable: draw until a card plays; one: draw one card and, if it does "
            "not play, the turn passes; limit: the turn passes after draw_limit cards",
            choices=DRAW_RULES,
        ),
        Option(
            "draw_limit",
            "int",
            3,
            "with draw_rule limit, the most cards drawn in a turn",
            minimum=1,
            maximum=10,
        ),
        Option(
            "starter_eight",
            "choice",
            "bury",
            "bury: a turned eight goes under the stock; any: it stays and the leader may "
            "play anything on it; dealer_names: it stays and the dealer names the suit",
            choices=STARTER_EIGHTS,
        ),
        Option(
            "voluntary_draw",
            "bool",
            False,
            "you may draw instead of playing; a drawn card that plays may then be kept",
        ),
        Option("queens_skip", "bool", False, "a queen skips the next player: you play again"),
        Option(
            "jacks_reverse",
            "bool",
            False,
            "with three or more players, a jack reverses play (with two it does nothing)",
        ),
        Option(
            "aces",
            "choice",
            "none",
            "none; reverse: with three or more players an ace reverses play (with two it "
            "does nothing); skip: an ace skips the next player",
            choices=ACES,
        ),
        Option(
            "reverse_skips_at_two",
            "bool",
            False,
            "house rule: with two players a reverse card (jacks_reverse, aces reverse) is a "
            "skip, you play again",
        ),
        Option(
            "twos_draw_two",
            "bool",
            False,
            "a two makes the next player draw two cards and lose the turn",
        ),
        Option(
            "twos_stack",
            "bool",
            False,
            "with twos_draw_two, a two may be answered with a two, passing on the sum",
        ),
        Option(
            "more_players",
            "bool",
            False,
            "three to seven players: five cards each, two packs from six players",
        ),
        Option(
            "last_card",
            "bool",
            False,
            "a player going down to one card announces it; caught silent before the next "
            "play, they draw one card",
        ),
        Option(
            "target",
            "int",
            TARGET,
            "house rule: the match ends at the end of the hand in which a total reaches it "
            "(0: one hand, its winner first)",
            minimum=0,
            maximum=1000,
        ),
    )

    # -- the text forms: the dealer's named suit, beside the family's -----------

    def _action_words(self, action: Any, names: Names) -> str | None:
        if action["type"] == "name" and len(action) == 2:
            return f"named {suit_name(action['suit'])} for the starter eight"
        return super()._action_words(action, names)

    def _event_words(self, event: Mapping[str, Any], names: Names) -> str | None:
        if event["type"] == "name":
            return f"{names(event['seat'])} named {suit_name(event['suit'])} for the starter eight"
        return super()._event_words(event, names)

    def pack(self, seats: int, options: Mapping[str, Any]) -> tuple[str, ...]:
        # "Six or more players usually use two decks": the standard pack twice.
        return STANDARD_PACK * 2 if seats >= 6 else STANDARD_PACK

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        return int(options["target"])

    def check_combination(self, seats: int, options: dict[str, Any]) -> None:
        if options["draw_rule"] != "limit" and options["draw_limit"] != 3:
            raise InvalidOptions('draw_limit applies only with draw_rule "limit"')
        if options["twos_stack"] and not options["twos_draw_two"]:
            raise InvalidOptions("twos_stack needs twos_draw_two")
        if options.get("reverse_skips_at_two") and not (
            options["jacks_reverse"] or options["aces"] == "reverse"
        ):
            raise InvalidOptions('reverse_skips_at_two needs jacks_reverse or aces "reverse"')
        if seats > 2 and not options["more_players"]:
            raise InvalidOptions(
                "Crazy 8 is played by 2 players; 3 to 7 need the house rule more_players",
                code="invalid_seats",
            )


class Crazy8v3(Crazy8):
    """``crazy-8/3``, kept so that its tables play on and its records verify under it:
    ``crazy-8/4`` without the house rule ``target`` (always 100)."""

    version = "crazy-8/3"
    options = tuple(option for option in Crazy8.options if option.name != "target")

    def target(self, seats: int, options: Mapping[str, Any]) -> int:
        return TARGET


class Crazy8v2State(Crazy8State):
    """A match under ``crazy-8/2``: the rules as they were, for its tables and records."""

    reverse_is_skip_at_two = True
    catch_until_next_play = False
    forced_repeats_only = False  # any position held twice with the stock empty blocks


class Crazy8v2(Crazy8v3):
    """``crazy-8/2``, kept so that its tables play on and its records verify under it.

    What ``crazy-8/3`` changed, restored: a reverse card at two seats was a skip;
    with ``last_card`` the window closed at the next action of any kind, and an
    announcement could only come with the play; a hand was blocked at any
    position held twice with the stock empty, free choices in between or not.
    """

    version = "crazy-8/2"
    state_class = Crazy8v2State
    actions = {kind: form for kind, form in Crazy8.actions.items() if kind != "last_card"}
    options = tuple(option for option in Crazy8v3.options if option.name != "reverse_skips_at_two")


# Every version of Crazy 8 a table, and so a record, may be made under, the current one
# first: its package registers them (``__init__``), and the stand-alone verifier finds them
# here (games.catalogue.rulesets), without the game's bot or its look.
RULESETS: tuple[Ruleset, ...] = (Crazy8(), Crazy8v3(), Crazy8v2())


__all__ = ["RULESETS", "Crazy8", "Crazy8State", "Crazy8v2", "Crazy8v2State", "Crazy8v3"]
