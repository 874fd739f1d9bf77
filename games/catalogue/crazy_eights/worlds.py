"""Worlds a seat cannot tell from the real one: the hidden cards dealt out again, as it knows them.

A seat of the Crazy Eights family sees its hand, the top of the pile, the card
counts and the stock's size; its :class:`~games.catalogue.crazy_eights.memory.Memory` adds the
pile below the top, the stock each unseen card came from, the suits and ranks
a hand cannot hold and the cards it handed over. A world deals the unseen
cards (the pack less the seat's hand, the pile and the cards it knows the
place of) at random to the other hands, exactly their counts, and to the
stock, the rest, each card only where the seat's memory allows it; then it
builds a whole engine state from the view and that deal (:meth:`Worlds.build`),
through the engine's own ``ruleset.load``.

Sampling goes from the most constrained places to the least, each taking cards
uniformly among those still free that it admits. When the constraints cannot
all be met (they are built never to exclude the truth, so only through a
memory that went wrong) it tries again, then drops what hands lack, then every
constraint: a world is always found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.bots.seen import Seen
from games.bots.streams import Dice
from games.bots.worlds import saved_start
from games.catalogue.crazy_eights.memory import Memory, Slot
from games.catalogue.crazy_eights.rules import EightsState
from games.rules.base import GameState

STOCK = -1
PILE = -2
TRIES = 4  # attempts with every constraint before dropping some


@dataclass(frozen=True)
class _Group:
    """Places that admit the same cards: ``cards`` indexes the unseen cards they admit."""

    places: tuple[int, ...]  # a seat, STOCK or PILE, once per card to place
    cards: tuple[int, ...]


class Worlds:
    """The hidden worlds consistent with what ``seen`` holds and ``memory`` remembers."""

    def __init__(self, seen: Seen, memory: Memory) -> None:
        self.seen = seen
        self.memory = memory
        view = seen.view
        unseen = memory.unseen() if memory.consistent else None
        self.followed = unseen is not None
        places: list[tuple[int, Slot]] = []
        if unseen is not None:
            self.unseen = unseen
            for seat in range(seen.seats):
                places.extend((seat, slot) for slot in memory.slots[seat] if slot.card is None)
            stock_slot = Slot(epoch=memory.epoch if memory.one_pack else None)
        else:  # the view alone: any unseen card anywhere, the pile below its top included
            left = list(memory.pack)
            for card in [*seen.hand, view["pile_top"]]:
                left.remove(card)
            self.unseen = left
            counts = view["card_counts"]
            for seat in range(seen.seats):
                if seat != seen.seat:
                    places.extend((seat, Slot(epoch=None)) for _ in range(counts[seat]))
            places.extend((PILE, Slot(epoch=None)) for _ in range(view["pile_size"] - 1))
            stock_slot = Slot(epoch=None)
        places.extend((STOCK, stock_slot) for _ in range(view["stock_size"]))
        self.places = places
        self.valid = len(places) == len(self.unseen)
        self._first: GameState | None = None  # the first world built (``build``)
        epochs = memory.epoch_of
        self._epochs: list[int | None] = [
            epochs.get(card, 0) if memory.one_pack and self.followed else None
            for card in self.unseen
        ]
        self._tiers: list[list[_Group]] = [
            self._groups(lambda slot: slot),
            self._groups(lambda slot: Slot(card=slot.card, epoch=slot.epoch)),
            self._groups(lambda slot: Slot(card=slot.card, epoch=None)),
        ]

    def _groups(self, relax: Any) -> list[_Group]:
        """The places grouped by what they admit, the most constrained first."""
        by_slot: dict[Slot, list[int]] = {}
        for owner, slot in self.places:
            by_slot.setdefault(relax(slot), []).append(owner)
        groups = [
            _Group(
                tuple(owners),
                tuple(
                    i for i, card in enumerate(self.unseen) if slot.admits(card, self._epochs[i])
                ),
            )
            for slot, owners in by_slot.items()
        ]
        return sorted(groups, key=lambda group: len(group.cards) - len(group.places))

    # -- a world --------------------------------------------------------------------

    def sample(self, dice: Dice) -> tuple[list[list[str]], list[str], list[str]]:
        """Every hand (the seat's own as it is), the stock (top last) and the pile (top last)."""
        for tier, groups in enumerate(self._tiers):
            for _ in range(TRIES if tier < len(self._tiers) - 1 else 1):
                dealt = self._deal(groups, dice)
                if dealt is not None:
                    return self._lay_out(dealt)
        raise ValueError("no world fits what the seat sees")  # the counts themselves disagree

    def _deal(self, groups: list[_Group], dice: Dice) -> list[tuple[int, str]] | None:
        free = [True] * len(self.unseen)
        dealt: list[tuple[int, str]] = []
        for group in groups:
            candidates = [i for i in group.cards if free[i]]
            need = len(group.places)
            if len(candidates) < need:
                return None
            for j, owner in enumerate(group.places):  # a partial Fisher-Yates
                k = j + dice.below(len(candidates) - j)
                candidates[j], candidates[k] = candidates[k], candidates[j]
                free[candidates[j]] = False
                dealt.append((owner, self.unseen[candidates[j]]))
        return dealt

    def _lay_out(
        self, dealt: list[tuple[int, str]]
    ) -> tuple[list[list[str]], list[str], list[str]]:
        seen, memory = self.seen, self.memory
        hands: list[list[str]] = [[] for _ in range(seen.seats)]
        hands[seen.seat] = seen.hand
        stock: list[str] = []
        below: list[str] = []
        if self.followed:
            for seat in range(seen.seats):
                hands[seat].extend(memory.known_cards(seat))
        for owner, card in dealt:
            if owner == STOCK:
                stock.append(card)
            elif owner == PILE:
                below.append(card)
            else:
                hands[owner].append(card)
        pile = list(memory.pile) if self.followed else [*below, seen.view["pile_top"]]
        return hands, stock, pile

    def imagine(self, dice: Dice) -> GameState:
        """A world sampled by ``dice`` (:meth:`sample`), built (:meth:`build`)."""
        return self.build(*self.sample(dice))

    def build(self, hands: list[list[str]], stock: list[str], pile: list[str]) -> GameState:
        """The whole engine state of this world: the view's public fields, the memory's, the deal.

        The first is loaded (``ruleset.load``); every world after it differs only
        in its hands, stock and pile, so it is a copy of the first with those
        three (the cards given are the state's own from then on).
        """
        if self._first is None:
            self._first = self.seen.ruleset.load(self.saved(hands, stock, pile))
            return self._first.copy()
        state = self._first.copy()
        assert isinstance(state, EightsState)
        state.hands, state.stock, state.pile = hands, stock, pile
        return state

    def saved(self, hands: list[list[str]], stock: list[str], pile: list[str]) -> dict[str, Any]:
        """The world in ``state.to_json()``'s form; ``ruleset.load`` keeps the fields its state saves.

        Every saved field of the family's states, from the view where it shows
        it and from the memory where it does not. ``seen`` (the positions noted
        to find a deal going round in circles) starts empty: only the state
        knows it, and it only ever ends a deal that would otherwise go on for ever.
        """
        seen, memory = self.seen, self.memory
        view = seen.view
        you: Mapping[str, Any] = view["you"]
        turns_lost = view.get("turns_lost")
        chain = view.get("chain")
        return {
            **saved_start(seen, memory.chance_seq),
            "direction": view.get("direction", memory.direction),
            "dealer": view["dealer"],
            "turn": view["turn"],
            "hands": hands,
            "stock": stock,
            "pile": pile,
            "called_suit": view["called_suit"],
            "drawn": you.get("drawn"),
            "passes": memory.passes,
            "history": [dict(summary) for summary in view["hands_played"]],
            "seen": [],
            "penalty": chain["total"] if chain else 0 if "chain" in view else memory.chain,
            "catchable": view.get("catchable"),
            "draws": memory.draws,
            "naming": memory.naming,
            "swaps": view.get("swaps_owed", 0),
            "announced": list(memory.announced if self.followed else view.get("announced", [])),
            "skipped": list(view.get("skipped", [])),
            "last_swap": view.get("last_swap"),
            "turns_lost": turns_lost["count"] if turns_lost else 0,
            "ace_layer": turns_lost["layer"] if turns_lost else None,
        }
