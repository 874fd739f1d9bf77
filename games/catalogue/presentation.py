"""How a game looks on the table page and in the replay; the defaults are the standard pack's.

A game's presentation says what the shared templates cannot know: how its
cards are drawn, how its legal actions are grouped and worded as buttons, what
its board shows and which template fragment draws it, and what it calls a hand.
The defaults serve the games of the standard pack (Crazy Eights, Crazy 8,
Dodo): the top of the pile, the suit to follow, the stock. A game with a table
of its own (Dingo, DOS) subclasses :class:`Presentation` and overrides a few
hooks, as python-chess's variants do.

Pure Python, no Django: it takes the views the API shows (the board, the
viewer's part, the legal actions) and gives plain dicts to the templates.
A fragment named ``games/<game id>/<name>`` lives in the game's own package
(``templates``), where ``games.template_loader.Loader`` finds it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from games.rules.words import SUIT_NAMES

Names = Callable[[int], str]
# The engine's own words for an action (``ruleset.action_text`` with the seats' names).
Words = Callable[[Mapping[str, Any]], str]
Groups = tuple[tuple[str, str], ...]

# -- the standard pack, as people see it -------------------------------------------------

RANK_NAMES = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}
RANK_SIGNS = {"T": "10"}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = frozenset("DH")
CARD_TOKEN = re.compile(r"[A2-9TJQK][CDHS]")


def card_face(token: str) -> dict[str, str]:
    """What a card shows: its rank and suit sign, the suit's colour, and its name in words.

    >>> face = card_face("TH")
    >>> face["rank"], face["symbol"], face["colour"], face["name"]
    ('10', '♥', 'red', 'ten of hearts')
    """
    if not isinstance(token, str) or not CARD_TOKEN.fullmatch(token):
        return {
            "token": str(token),
            "rank": "?",
            "symbol": "",
            "suit": "",
            "colour": "",
            "name": str(token),
            "mini": str(token),
        }
    rank, suit = token[0], token[1]
    return {
        "token": token,
        "rank": RANK_SIGNS.get(rank, rank),
        "symbol": SUIT_SYMBOLS[suit],
        "suit": SUIT_NAMES[suit],
        "colour": "red" if suit in RED_SUITS else "black",
        "name": f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}",
        "mini": f"{RANK_SIGNS.get(rank, rank)}{SUIT_SYMBOLS[suit]}",
    }


def suit_face(suit: object) -> dict[str, str] | None:
    """A suit as a sign, a colour and a word: ``{"symbol": "♠", "name": "spades", ...}``."""
    if not isinstance(suit, str) or suit not in SUIT_SYMBOLS:
        return None
    return {
        "letter": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "name": SUIT_NAMES[suit],
        "colour": "red" if suit in RED_SUITS else "black",
    }


def cards_of(action: Mapping[str, Any]) -> list[str]:
    """The cards an action lays, in the order laid: ``card`` or Dodo's ``cards``."""
    if isinstance(action.get("cards"), list):
        return [c for c in action["cards"] if isinstance(c, str)]
    card = action.get("card")
    return [card] if isinstance(card, str) else []


# -- the legal actions, as buttons and as clicks on the table ----------------------------

# The engine's words say what an action did ("played 8S and called hearts"), as the log
# keeps it; a button says what it will do. Each past tense the standard pack's engines
# use, at the head of a clause, and the command it becomes.
COMMANDS: Mapping[str, str] = {
    "played": "play",
    "called": "call",
    "drew": "draw a card",
    "passed": "pass",
    "announced the last card": "announce your last card",
    "caught": "catch",
    "swapped hands with": "swap hands with",
    "named": "name",
}


def command(words: str, commands: Mapping[str, str]) -> str:
    """The engine's words for an action as a command, each clause's verb in the imperative.

    >>> command("played 8S, called hearts and announced the last card", COMMANDS)
    'Play 8S, call hearts and announce your last card'
    >>> command("drew", COMMANDS), command("caught ann", COMMANDS)
    ('Draw a card', 'Catch ann')
    """
    verbs = "|".join(re.escape(verb) for verb in sorted(commands, key=len, reverse=True))
    clause = re.compile(rf"(^|, | and )({verbs})\b")
    said = clause.sub(lambda m: m.group(1) + commands[m.group(2)], words)
    return said[:1].upper() + said[1:]


# The order the groups of buttons come in, and their headings.
GROUPS: Groups = (
    ("play", "Play"),
    ("draw", "Draw or pass"),
    ("call", "Calls out of turn"),
    ("swap", "Swap hands"),
    ("name", "Name the suit"),
    ("other", "Other moves"),
)
GROUP_OF_TYPE = {
    "play": "play",
    "draw": "draw",
    "pass": "draw",
    "catch": "call",
    "last_card": "call",
    "swap": "swap",
    "name": "name",
}


class Presentation:
    """A game on the table page: the standard pack's pile, suit and stock, unless overridden.

    ``game_id`` is the ruleset's id; ``templates`` the folder of the game's own
    fragments, found by the names ``games/<game id>/<file>``.
    """

    # The fragment that draws the board while the game is played, the one the
    # replay draws after each move, and one drawn again under the result (or None).
    board_template = "games/_table_pile.html"
    replay_board_template = "games/_replay_pile.html"
    result_board_template: str | None = None
    # A fragment said under the viewer's hand (or None).
    hand_notes_template: str | None = None
    # A fragment drawn in each seat's box at the table in play, with ``seat`` its row of
    # the players' list (what mark_seats added to it), or None.
    seat_notes_template: str | None = None
    # The game's own stylesheet (``games/<game id>/<file>.css``, in its folder: found by
    # ``games.static_finder``), linked by the table page and the replay; or None.
    stylesheet: str | None = None
    # What one deal to the end is called, and where the board lists those played.
    hand_word = "hand"
    played_key = "hands_played"
    hands_have_winners = True
    groups: Groups = GROUPS
    group_of_type: Mapping[str, str] = GROUP_OF_TYPE
    commands: Mapping[str, str] = COMMANDS
    # The calls a player makes about a seat, or their own (the last card): buttons at the
    # seat they concern, on the table.
    call_types: frozenset[str] = frozenset({"catch", "last_card", "swap"})
    # Whether the cards of an action are laid in the order clicked (Dodo's runs of a rank:
    # the last one laid is on top), or make the same action whatever the order.
    ordered_cards = True

    def __init__(self, game_id: str, templates: Path | None = None) -> None:
        self.game_id = game_id
        self.templates = templates

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game_id!r})"

    def card_face(self, token: str) -> dict[str, str]:
        """How one of the game's cards is drawn (see :func:`card_face`)."""
        return card_face(token)

    def board(
        self,
        board: Mapping[str, Any],
        seats: Sequence[Mapping[str, Any]],
        you: Mapping[str, Any] | None,
        names: Names,
    ) -> dict[str, Any]:
        """What the board fragment draws, from the board the API shows (nothing more).

        ``seats`` are the rows of the players' list, ``you`` the viewer's part of
        the view (their seat and hand; None for a spectator and in the replay).
        """
        catchable = board.get("catchable")
        return {
            "pile_top": card_face(board["pile_top"]) if board.get("pile_top") else None,
            "suit_to_follow": suit_face(board.get("suit_to_follow")),
            "called_suit": suit_face(board.get("called_suit")),
            "catchable": names(catchable) if isinstance(catchable, int) else None,
            "chain": board.get("chain"),
            "naming": bool(board.get("naming")),
            "announced": [names(s) for s in board.get("announced") or []],
        }

    def mark_seats(
        self, seats: list[dict[str, Any]], game_board: Mapping[str, Any], playing: bool
    ) -> None:
        """Add what the players' list says beside each seat (``where``, ``marks``): nothing here."""

    # -- the legal actions, as buttons ---------------------------------------------------

    def button_text(
        self,
        action: Mapping[str, Any],
        words: Words,
        names: Names,
        game_board: Mapping[str, Any] | None,
    ) -> str:
        """A button's words: the engine's own as a command (``Play 8S and call hearts``)."""
        return command(words(action), self.commands)

    def action_keys(self, action: Mapping[str, Any]) -> list[str]:
        """What a player clicks on the table to make ``action``, in order: the cards it lays
        from the hand (``card:<token>``), or the stock to draw (``stock``). Nothing for an
        action made by a button of its own (a pass, a call, a swap)."""
        if action.get("type") == "draw":
            return ["stock"]
        return [f"card:{card}" for card in cards_of(action)]

    def action_seat(self, action: Mapping[str, Any]) -> int | None:
        """The other seat an action is about (a catch, a swap), where its button goes."""
        seat = action.get("seat")
        return seat if isinstance(seat, int) and not isinstance(seat, bool) else None

    def earns(self, action: Mapping[str, Any]) -> bool:
        """Whether a button is marked as earning something: never, here."""
        return False

    def row_of(
        self, group: str, action: Mapping[str, Any]
    ) -> tuple[tuple[str, ...], dict[str, Any]] | None:
        """The row an action's button shares, by key, and the row's cards; None: a row alone.

        Plays of the same cards (an eight and each suit it may call; Dodo's
        orders of one set of cards) share a row, so that the cards are drawn once.
        """
        cards = cards_of(action)
        if group != "play" or not cards:
            return None
        key = tuple(sorted(cards))
        return key, {"cards": [self.card_face(c) for c in key]}

    def action_groups(
        self,
        legal: Sequence[Mapping[str, Any]],
        words: Words,
        names: Names,
        game_board: Mapping[str, Any] | None,
    ) -> list[dict[str, Any]]:
        """The legal actions as buttons, in groups, each group's buttons in rows.

        Each button is one legal action, carrying its index in ``legal`` and its
        JSON, its words (:meth:`button_text`) and its cards drawn small.
        """
        grouped: dict[str, list[dict[str, Any]]] = {key: [] for key, _ in self.groups}
        rows: dict[tuple[str, ...], dict[str, Any]] = {}
        for index, action in enumerate(legal):
            kind = action.get("type")
            button = {
                "index": index,
                "json": json.dumps(action, separators=(",", ":")),
                "text": self.button_text(action, words, names, game_board),
                "cards": [self.card_face(c) for c in cards_of(action)],
                "suit": suit_face(action.get("suit")),
                "earns": self.earns(action),
                "keys": " ".join(self.action_keys(action)),
                "seat": self.action_seat(action),
                "call": kind in self.call_types,
            }
            group = self.group_of_type.get(kind, "other") if isinstance(kind, str) else "other"
            shared = self.row_of(group, action)
            if shared is None:
                grouped[group].append({"cards": [], "buttons": [button]})
                continue
            key, row = shared
            if key not in rows:
                rows[key] = {**row, "buttons": []}
                grouped[group].append(rows[key])
            rows[key]["buttons"].append(button)
        groups = [
            {"key": key, "title": title, "rows": grouped[key]}
            for key, title in self.groups
            if grouped[key]
        ]
        if game_board is not None:
            self.retitle(groups, game_board, names)
        return groups

    def retitle(
        self, groups: list[dict[str, Any]], game_board: Mapping[str, Any], names: Names
    ) -> None:
        """Change the groups' headings to fit the moment: nothing here."""

    # -- the hands played ----------------------------------------------------------------

    def score_sheet(
        self, board: Mapping[str, Any] | None, seats: int, names: Names
    ) -> dict[str, Any] | None:
        """The finished hands, one row each, with the running totals (None before the first)."""
        hands = (board or {}).get(self.played_key) or []
        if not hands:
            return None
        rows = []
        running = [0] * seats
        for hand in hands:
            scores = list(hand.get("scores") or [0] * seats)
            running = [a + b for a, b in zip(running, scores, strict=False)]
            winner = hand.get("winner")
            rows.append(
                {
                    "hand": hand.get("hand"),
                    "winner": names(winner) if isinstance(winner, int) else None,
                    "blocked": bool(hand.get("blocked")),
                    "cells": [
                        {"score": score, "running": total}
                        for score, total in zip(scores, running, strict=False)
                    ],
                    "black_queens": [names(s) for s in hand.get("black_queens") or []],
                    "disqualified": [names(s) for s in hand.get("disqualified") or []],
                }
            )
        return {
            "seats": [names(n) for n in range(seats)],
            "rows": rows,
            "winners": self.hands_have_winners,
            "unit": self.hand_word,
        }
